// `logging/setLevel` (2025 era): the least severe level of `notifications/message` the
// session wants from then on. (2026-07-28 asks per request, in `_meta`.)
import type { JsonObject } from "../util/json.ts";
import { ErrorCode, invalidParams, ProtocolError } from "../wire/errors.ts";
import { LOG_LEVELS } from "../wire/protocol.ts";
import type { MethodCall } from "./call.ts";

export function setLevelMethod(call: MethodCall): JsonObject {
  const { level } = call.params;
  if (typeof level !== "string" || !LOG_LEVELS.has(level)) {
    throw invalidParams(
      `Invalid params: level must be one of ${[...LOG_LEVELS].join(", ")}`,
    );
  }
  const { session } = call.ctx;
  if (session === undefined) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      "Invalid request: logging/setLevel needs a connection that keeps a session",
    );
  }
  session.logLevel = level;
  return {};
}
