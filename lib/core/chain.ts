// The middleware chain of the core (adr/0025): one type for the built-ins and the user's
// middleware, composed once per registry snapshot, around the method's handler.
import { isObject, type JsonObject } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
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
  if (user.length === 0) return compose(builtins, invoke);
  return compose([...builtins, answered, ...user], checkedInvoke);
}

/** Between the built-ins and the user's middleware: what they give must be a result. */
const answered: CoreMiddleware = (next) => (call) => {
  const result = next(call);
  return isThenable(result)
    ? (result as Promise<JsonObject>).then(resultOf)
    : resultOf(result as JsonObject);
};

function resultOf(result: unknown): JsonObject {
  if (!isObject(result)) {
    throw new Error(
      `a middleware answered ${result === undefined ? "nothing" : typeof result}: return ` +
        "what next(call) gives (await it), or a result object",
    );
  }
  return result;
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
