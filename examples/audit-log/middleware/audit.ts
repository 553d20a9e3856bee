// middleware/audit.ts: one JSON line per tool call, appended to the file AUDIT_LOG names (else
// written to stderr): when, which tool, with what arguments (secrets redacted, _redact.ts), who
// called (with OAuth), how long, and how it ended. The first file by name, so it is outermost: a
// call the deny rule refuses is audited too.
import type { Middleware } from "@toolshed/toolshed";
import { redacted } from "./_redact.ts";

const file = Deno.env.get("AUDIT_LOG");

const audit: Middleware = (next) => async (call) => {
  if (call.method !== "tools/call") return next(call);
  const started = performance.now();
  let outcome = "error";
  try {
    const result = await next(call);
    outcome = result.isError === true ? "tool error" : "ok";
    return result;
  } finally {
    const line = JSON.stringify({
      time: new Date().toISOString(),
      tool: call.params.name,
      arguments: redacted(call.params.arguments ?? {}),
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
