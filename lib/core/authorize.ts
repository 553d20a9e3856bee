// The outermost built-in middleware (issue 24): a request whose caller is known (an OAuth
// access token over HTTP) and whose method names a primitive asking for scopes the token does
// not grant is refused before anything else runs, at once, so HTTP can answer 403 with the
// challenge that makes a client step up. A caller not known (stdio, a shared token) is never
// asked: there is no token to hold scopes.
import { insufficientScope } from "../wire/errors.ts";
import { covers } from "../primitives/scopes.ts";
import type { CoreMiddleware } from "./chain.ts";

export function authorize(): CoreMiddleware {
  return (next) => (call) => {
    const { entry } = call;
    const auth = call.ctx.facts?.caller;
    if (auth === undefined || entry.scopes === undefined) return next(call);
    const required = entry.scopes(call);
    if (required.length > 0 && !covers(auth, required)) {
      call.ctx.outcome = { row: "insufficientScope", required };
      throw insufficientScope(required, describe(call.method, call.params));
    }
    return next(call);
  };
}

/** The request, as a refusal names it: `tools/call "deploy"`. */
function describe(method: string, params: Readonly<Record<string, unknown>>): string {
  const target = params.name ?? params.uri;
  return typeof target === "string" ? `${method} ${JSON.stringify(target)}` : method;
}
