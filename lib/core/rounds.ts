// The built-in middleware of multi-round requests (2026-07-28; adr/0014, adr/0025): a method
// that may answer input_required runs with the answers of earlier rounds (its sealed
// requestState, checked first) and this round's, and an answer that stops it to ask is sealed
// with the answers so far. Synchronous when nothing in it waits (no state to check, a
// synchronous handler that asks nothing), as every other request is.
import type { JsonObject } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import { answersOf, createRounds } from "../rounds/input_rounds.ts";
import type { KeyRing } from "../rounds/key_ring.ts";
import { callerOf } from "../methods/caller.ts";
import type { CoreMiddleware } from "./chain.ts";

/** `sealedElsewhere` hears of state sealed with a key this server does not hold. */
export function rounds(ring: KeyRing, sealedElsewhere: () => void): CoreMiddleware {
  return (next) => (call) => {
    if (call.features.era !== "stateless" || !call.entry.incomplete?.includes("input_required")) {
      return next(call);
    }
    const { params } = call;
    const binding = {
      method: call.method,
      name: String(params.name ?? params.uri ?? ""),
      args: params.arguments,
      caller: callerOf(call.ctx.facts?.caller),
    };
    const proceed = (answers: JsonObject): MaybePromise<JsonObject> => {
      const round = createRounds(
        call.ctx.controller,
        call.client.clientCapabilities,
        answers,
        ring,
        binding,
      );
      call.channels = { ...call.channels, request: round.request };
      const result = next(call);
      return isThenable(result)
        ? (result as Promise<JsonObject>).then(round.finish)
        : round.finish(result);
    };
    const answers = answersOf(params, ring, binding, sealedElsewhere);
    return isThenable(answers) ? (answers as Promise<JsonObject>).then(proceed) : proceed(answers);
  };
}
