// middleware/audit.ts: one JSON line per tool call, appended to the file AUDIT_LOG names (else
// written to stderr): when, which tool, with what arguments (secrets redacted, _redact.ts), who
// called (with OAuth), how long, and how it ended. The first file by name, so it is outermost: a
// call the deny rule refuses is audited too. With telemetry on (OTEL_DENO=true), the same redacted
// arguments go on the call's span, as `gen_ai.tool.call.arguments`: toolshed's own spans never
// carry arguments.
import type { Middleware } from "@toolshed/toolshed";
import { redacted } from "./_redact.ts";

const file = Deno.env.get("AUDIT_LOG");

/** Where OpenTelemetry keeps the current span in a context (its API's `trace.getActiveSpan`). */
const SPAN = Symbol.for("OpenTelemetry Context Key SPAN");
const traced = Deno.env.get("OTEL_DENO")?.toLowerCase() === "true";

/** The span of the call under way, when telemetry is on. */
function activeSpan(): { setAttribute(key: string, value: string): void } | undefined {
  return traced ? Deno.telemetry.contextManager.active().getValue(SPAN) : undefined;
}

const audit: Middleware = (next) => async (call) => {
  if (call.method !== "tools/call") return next(call);
  const started = performance.now();
  const args = redacted(call.params.arguments ?? {});
  activeSpan()?.setAttribute("gen_ai.tool.call.arguments", JSON.stringify(args));
  let outcome = "error";
  try {
    const result = await next(call);
    outcome = result.isError === true ? "tool error" : "ok";
    return result;
  } finally {
    const line = JSON.stringify({
      time: new Date().toISOString(),
      tool: call.params.name,
      arguments: args,
      outcome,
      ms: Math.round(performance.now() - started),
      transport: call.transport,
      subject: call.auth?.subject ?? null,
      session: call.sessionId ?? null,
      client: call.clientInfo?.name ?? null,
    });
    if (file === undefined) await Deno.stderr.write(new TextEncoder().encode(`${line}\n`));
    else await Deno.writeTextFile(file, `${line}\n`, { append: true });
  }
};

export default audit;
