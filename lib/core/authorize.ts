// The outermost built-in middleware (issue 24): a request whose caller is known (an OAuth
// access token over HTTP) and whose method names a primitive asking for scopes the token does
// not grant is refused before anything else runs, at once, so HTTP can answer 403 with the
// challenge that makes a client step up. A caller not known (stdio, a shared token) is never
// asked: there is no token to hold scopes. Composed only into the chain of a snapshot where
// something asks for scopes (`asksScopes`): elsewhere every request would pass it untouched.
import { insufficientScope } from "../wire/errors.ts";
import { covers } from "../primitives/scopes.ts";
import type { Snapshot } from "../primitives/registry.ts";
import type { MethodTable } from "../methods/call.ts";
import {
  completionScopes,
  listenScopes,
  promptScopes,
  readScopes,
  toolScopes,
} from "../methods/scopes.ts";
import type { CoreMiddleware } from "./chain.ts";

/** The methods' scopes that are the snapshot's primitives': none asked where none declares any. */
const OF_PRIMITIVES: ReadonlySet<unknown> = new Set([
  toolScopes,
  promptScopes,
  readScopes,
  listenScopes,
  completionScopes,
]);

/**
 * Whether a request served from `snapshot` by `table` may be asked for scopes: a tool, a
 * resource, a template or a prompt of it declares some, or a method of the table finds its
 * scopes some other way (a table given in code). False: authorize would let every request
 * through, and is left out of the chain.
 */
export function asksScopes(snapshot: Snapshot, table: MethodTable): boolean {
  const declares = (items: readonly { readonly scopes?: readonly string[] }[]) =>
    items.some((item) => item.scopes !== undefined && item.scopes.length > 0);
  if (
    declares(snapshot.tools.items) || declares(snapshot.resources.items) ||
    declares(snapshot.templates.items) || declares(snapshot.prompts.items)
  ) return true;
  for (const entry of table.values()) {
    if (entry.scopes !== undefined && !OF_PRIMITIVES.has(entry.scopes)) return true;
  }
  return false;
}

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
