// Code mode's inner calls (adr/0073 §4): each call a model's code makes is a `tools/call` sent
// back into the core as the outer request's caller — its facts (the caller, the token, the
// address) with its view shown as code reaches it ("inner": only what code may call) — so
// middleware, scopes, rate limits (shared through Redis), audit, spans and validation all apply
// as to a client's call. The request is a 2026-07-28 one, built and read as any other.
import { isObject, type JsonObject } from "../util/json.ts";
import { extract } from "../wire/extract.ts";
import { serialize } from "../wire/serialize.ts";
import { STATELESS_VERSIONS } from "../wire/versions.ts";
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from "../wire/protocol.ts";
import { type InnerCall, InnerCallRefused } from "../primitives/inner_calls.ts";
import { asMode, toolView } from "../primitives/toolsets.ts";
import type { Tool } from "../primitives/tools.ts";
import type { MethodCall } from "./call.ts";
import type { RequestContext } from "./context.ts";

/** What an inner call's client says it can answer: a question stops the call (see above). */
const ASKING_CAPABILITIES = Object.freeze({ elicitation: {}, sampling: {}, roots: {} });

/** The inner calls of `call` for a tool that makes them, else undefined. */
export function innerCallsFor(call: MethodCall, tool: Tool): InnerCall | undefined {
  const reenter = call.options.reenter;
  if (tool.makesInnerCalls !== true || reenter === undefined) return undefined;
  const outer = call.ctx;
  const lasting = outer.session?.facts;
  const outerView = (outer.session === undefined ? outer.facts : lasting)?.view ??
    call.options.view ?? toolView(undefined, false);
  const facts = { ...lasting, ...outer.facts, view: asMode(outerView, "inner") };
  let count = 0;
  return async (name, args, signal) => {
    const id = `code-${call.id}-${++count}`;
    const line = serialize({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          [META_PROTOCOL_VERSION]: STATELESS_VERSIONS[0],
          // Declared so that a tool that asks the client answers input_required at once, which
          // code mode refuses naming the tool (code cannot answer a person's question).
          [META_CLIENT_CAPABILITIES]: ASKING_CAPABILITIES,
        },
      },
    });
    const request = extract(new TextEncoder().encode(line));
    if (request.kind !== "request") {
      throw new InnerCallRefused(
        `Cannot call "${name}": its request was read as a ${request.kind}`,
        -32600,
      );
    }
    const controller = new AbortController();
    const abort = () => controller.abort(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener("abort", abort, { once: true });
    const ctx: RequestContext = {
      request,
      controller,
      closing: undefined,
      session: undefined,
      outlet: { notify() {}, outbound: undefined },
      origin: outer.origin,
      facts,
    };
    try {
      const answer = await reenter(ctx);
      if (signal.aborted) throw signal.reason;
      const error = answer.error;
      if (isObject(error)) {
        throw new InnerCallRefused(
          typeof error.message === "string" ? error.message : `Cannot call "${name}"`,
          typeof error.code === "number" ? error.code : -32603,
          isObject(error.data) ? error.data : undefined,
        );
      }
      return answer.result as JsonObject;
    } finally {
      signal.removeEventListener("abort", abort);
    }
  };
}
