// Multi-round requests in 2026-07-28 (SEP-2322; adr/0014): a handler asks the client with
// `ctx.request` as in a 2025 session, but the answer comes in a later round. Each round runs
// the handler from the start with the answers given so far (sealed in `requestState`, plus
// the round's `inputResponses`): a question already answered resolves at once; the first
// one that is not stops the handler, and the request is answered `input_required` with
// every question asked in that same turn of the event loop (so `Promise.all` asks together).
import { isObject, type JsonObject } from "../util/json.ts";
import { invalidParams } from "../wire/errors.ts";
import { type InputRequest, InputRequired } from "../primitives/input_required.ts";
import type { ClientRequestMethod, HandlerContext } from "../primitives/types.ts";
import { openState, SEALED_ELSEWHERE, sealState, type StateBinding } from "./request_state.ts";
import type { KeyRing } from "./key_ring.ts";

/** The client capability each question needs. */
export const CLIENT_CAPABILITY: Record<ClientRequestMethod, string> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/** Why a question cannot be sent to a client, one sentence. */
export function refusal(method: ClientRequestMethod): string {
  const capability = CLIENT_CAPABILITY[method];
  return capability === undefined
    ? `Cannot send ${method}: a server may ask a client only ${
      Object.keys(CLIENT_CAPABILITY).join(", ")
    }`
    : `Cannot send ${method}: the client did not declare the "${capability}" capability`;
}

/** One request's rounds: the `ctx.request` its handler gets, and how its answer ends. */
interface Rounds {
  readonly request: HandlerContext["request"];
  /** Adds the sealed `requestState` to the input_required answer this round stopped with. */
  finish(result: JsonObject): JsonObject | Promise<JsonObject>;
}

/**
 * The answers a round starts with: the sealed ones, then this round's `inputResponses`.
 * `sealedElsewhere` hears of state sealed with a key this server does not hold.
 */
export function answersOf(
  params: JsonObject,
  ring: KeyRing,
  binding: StateBinding,
  sealedElsewhere: () => void = () => {},
): JsonObject | Promise<JsonObject> {
  const given = params.inputResponses;
  if (given !== undefined && !isObject(given)) {
    throw invalidParams("Invalid params: inputResponses must be an object");
  }
  if (params.requestState === undefined) return given ?? {};
  return ring.verifying().then((keys) => openState(keys, params.requestState, binding)).then(
    (opened) => {
      if (opened === SEALED_ELSEWHERE) sealedElsewhere();
      if (typeof opened === "string") throw invalidParams(`Invalid requestState: ${opened}`);
      return { ...opened, ...given };
    },
  );
}

export function createRounds(
  controller: AbortController,
  declared: Readonly<JsonObject>,
  answers: JsonObject,
  ring: KeyRing,
  binding: StateBinding,
): Rounds {
  const signal = controller.signal;
  let asked = 0;
  let pending: Record<string, InputRequest> | undefined;
  let stopped: InputRequired | undefined;
  let done = false;
  return {
    request(method, params, options) {
      // A refused question takes no number, so the next one is named alike in every run.
      if (!(CLIENT_CAPABILITY[method] in declared)) {
        return Promise.reject(new Error(refusal(method)));
      }
      const name = options?.key ?? `input_${++asked}`;
      // An answer of the wrong shape (a number, an elicitation without an action) counts as
      // none: the client is asked again.
      const answer = Object.hasOwn(answers, name) ? answers[name] : undefined;
      if (isAnswerTo(method, answer)) return Promise.resolve(answer);
      if (pending === undefined) {
        pending = {};
        // Once the handler has asked all it asks in this turn, stop it with the questions.
        setTimeout(() => {
          if (done || signal.aborted) return;
          stopped = new InputRequired(pending!);
          controller.abort(stopped);
        }, 0);
      }
      pending[name] = { method, params };
      return new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
    finish(result) {
      done = true;
      if (stopped === undefined || result.resultType !== "input_required") return result;
      return ring.signing().then((key) => sealState(key, binding, answers)).then((
        requestState,
      ) => ({
        ...result,
        requestState,
      }));
    },
  };
}

/** Whether `answer` has the shape of a result of `method` (what a handler may rely on). */
export function isAnswerTo(method: ClientRequestMethod, answer: unknown): answer is JsonObject {
  if (!isObject(answer)) return false;
  switch (method) {
    case "elicitation/create":
      return answer.action === "accept" || answer.action === "decline" ||
        answer.action === "cancel";
    case "sampling/createMessage":
      return typeof answer.role === "string" && (isObject(answer.content) ||
        Array.isArray(answer.content));
    case "roots/list":
      return Array.isArray(answer.roots);
    default:
      return true;
  }
}
