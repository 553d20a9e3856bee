// Asking the client in 2026-07-28 (multi-round requests, SEP-2322): a handler that awaits an
// answer the client has not given yet is stopped, and its request is answered with an
// `input_required` result listing what to ask. This is the reason its signal is aborted with;
// whatever runs the handler turns it into that result (tool_call.ts for tools, the core for
// prompts and resources).
import type { JsonObject } from "../util/json.ts";

/** What one input request asks: a method a client serves and its params. */
export interface InputRequest {
  method: string;
  params: JsonObject;
}

export class InputRequired extends Error {
  /** By key: what the client is asked, all at once. */
  readonly requests: Readonly<Record<string, InputRequest>>;

  constructor(requests: Record<string, InputRequest>) {
    super(`the client is asked for ${Object.keys(requests).join(", ")}`);
    this.name = "InputRequired";
    this.requests = requests;
  }

  /** The incomplete result it stands for (the core adds `requestState`). */
  result(): JsonObject {
    return { resultType: "input_required", inputRequests: { ...this.requests } };
  }
}
