// The middleware chain of the core (adr/0025): one type for the built-ins and the user's
// middleware, composed once per registry snapshot, around the method's handler.
import type { JsonObject } from "../util/json.ts";
import type { MaybePromise } from "../util/maybe.ts";
import { compose, type Wrap } from "../util/compose.ts";
import type { MethodCall } from "../methods/call.ts";
import type { Middleware } from "../primitives/types.ts";

/** What the core runs for one routed call: the chain, the handler innermost. */
export type CallChain = (call: MethodCall) => MaybePromise<JsonObject>;

/** A middleware of the core's own, which sees the whole call the handler receives. */
export type CoreMiddleware = Wrap<MethodCall, MaybePromise<JsonObject>>;

/**
 * `builtins`, then `outer` (the configuration's middleware), then `inner` (the server
 * directory's), around the method's handler. User middleware is typed with the public `Call`,
 * and runs with the whole call it passes on: a copy made with spread keeps what the core
 * needs; a call made from nothing is refused with a sentence saying so.
 */
export function chainOf(
  builtins: readonly CoreMiddleware[],
  outer: readonly Middleware[],
  inner: readonly Middleware[],
): CallChain {
  const user = [...outer, ...inner] as unknown as readonly CoreMiddleware[];
  return compose([...builtins, ...user], user.length === 0 ? invoke : checkedInvoke);
}

function invoke(call: MethodCall): MaybePromise<JsonObject> {
  return call.entry.handler(call);
}

function checkedInvoke(call: MethodCall): MaybePromise<JsonObject> {
  if (call.entry === undefined) {
    throw new Error(
      "a middleware passed next a call other than the one it received: pass the call, or a " +
        "copy of it ({ ...call, params })",
    );
  }
  return call.entry.handler(call);
}
