// middleware/deny.ts: callers named in DENY_SUBJECTS (a comma-separated list of OAuth subjects)
// are refused every request, lists included, with a JSON-RPC error saying so. Only a server that
// signs callers in (--auth-issuer) knows subjects; without it this rule lets everything through.
import { McpError, type Middleware } from "@toolshed/toolshed";

/** A server error of this example's own, in the range JSON-RPC leaves to servers. */
const DENIED = -32040;

const denied = new Set(
  (Deno.env.get("DENY_SUBJECTS") ?? "").split(",").map((name) => name.trim()).filter(Boolean),
);

const deny: Middleware = (next) => (call) => {
  const subject = call.auth?.subject;
  if (subject !== undefined && denied.has(subject)) {
    throw new McpError(DENIED, `Forbidden: "${subject}" may not use this server`, { subject });
  }
  return next(call);
};

export default deny;
