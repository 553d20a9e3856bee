// middleware/audit.ts: one JSON line on stderr per tool call through the gateway, naming who
// called (the OAuth subject of the caller's token), which tool (the mounted name: its prefix is
// the mount), and how it ended: "ok", "tool error" (the upstream's isError, or an upstream that
// is down) or "error" with the JSON-RPC code of the error it threw. A request refused before it
// reaches middleware (a missing scope: 403; over a rate limit: 429) is not audited here: the
// request log (--log-requests) and the metrics count those. Arguments are left out: a gateway's
// log is read by more people than its tools' owners.
import type { Middleware } from "@toolshed/toolshed";

const audit: Middleware = (next) => async (call) => {
  if (call.method !== "tools/call") return next(call);
  let outcome = "error";
  let code: number | null = null;
  try {
    const result = await next(call);
    outcome = result.isError === true ? "tool error" : "ok";
    return result;
  } catch (error) {
    const said = (error as { code?: unknown }).code;
    code = typeof said === "number" ? said : null;
    throw error;
  } finally {
    const line = JSON.stringify({
      audit: "tools/call",
      time: new Date().toISOString(),
      caller: call.auth?.subject ?? null,
      tool: call.params.name,
      outcome,
      code,
      client: call.clientInfo?.name ?? null,
    });
    await Deno.stderr.write(new TextEncoder().encode(`${line}\n`));
  }
};

export default audit;
