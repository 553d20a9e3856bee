// The HTTP status, and the headers, of an answer the core gave (adr/0061 §3): the statuses of
// routing errors (statusOf), of a 2025-era session's answers, and the challenge and Retry-After
// of the core's refusals for scopes and rate. Codes and statuses follow the 2026-07-28
// Streamable HTTP transport; where the spec names no status, the TypeScript SDK's (adr/0012).
import { isObject, type JsonObject } from "../../util/json.ts";
import { ErrorCode } from "../../wire/errors.ts";
import type { Request as RpcRequest } from "../../wire/extract.ts";
import { HttpErrorCode } from "./errors.ts";

/**
 * The status of an answer the core gave before anything was sent for its request: the
 * routing errors it raises before any handler runs have statuses of their own; a handler's
 * errors (an unknown tool, a bad cursor, a fault) travel in-band with 200.
 */
export function statusOf(response: JsonObject): number {
  const error = response.error;
  if (!isObject(error)) return 200;
  switch (error.code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.UnsupportedProtocolVersion:
    case HttpErrorCode.HeaderMismatch:
    case HttpErrorCode.MissingClientCapability:
      return 400;
    default:
      return 200;
  }
}

/**
 * The status of a 2025-era answer: 200, whatever it says (a 404 would tell the client its
 * session is gone), but for an `initialize` refused (400, as the TypeScript SDK answers a
 * second one).
 */
export function sessionStatusOf(request: RpcRequest, response: JsonObject): number {
  return request.method === "initialize" && response.error !== undefined ? 400 : 200;
}

/** The challenge of an answer refusing a request for its scopes; undefined for any other. */
export function scopeRefusal(
  response: JsonObject,
  challengeOf: ((required: readonly string[]) => string) | undefined,
): string | undefined {
  const error = response.error;
  if (challengeOf === undefined || !isObject(error)) return undefined;
  if (error.code !== ErrorCode.InsufficientScope) return undefined;
  const data = error.data;
  const required = isObject(data) && Array.isArray(data.requiredScopes)
    ? data.requiredScopes.filter((scope): scope is string => typeof scope === "string")
    : [];
  return challengeOf(required);
}

/**
 * The Retry-After of an answer refusing a request over a rate limit (-32031, adr/0043), whole
 * seconds; undefined for any other answer.
 */
export function rateRefusal(response: JsonObject): string | undefined {
  const error = response.error;
  if (!isObject(error) || error.code !== ErrorCode.RateLimited) return undefined;
  const seconds = isObject(error.data) ? error.data.retryAfterSeconds : undefined;
  return String(typeof seconds === "number" && seconds >= 1 ? Math.ceil(seconds) : 1);
}
