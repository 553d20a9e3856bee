// The one JSON.stringify per outgoing message, shared by every transport. A message that
// cannot be serialized (a BigInt a tool slipped past the checks, a cycle) still gets an
// answer: -32603 for its id.
import { messageOf } from "../util/json.ts";
import { internalError } from "./errors.ts";
import type { JsonObject } from "../util/json.ts";
import type { RequestId } from "./types.ts";

export function serialize(message: JsonObject): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    const id = (message.id ?? null) as RequestId | null;
    return JSON.stringify({
      jsonrpc: "2.0",
      id,
      error: internalError(`the response could not be serialized: ${messageOf(error)}`),
    });
  }
}
