// The one table of JSON-RPC error codes toolshed sends, and every protocol error it
// builds. The extractor, the dispatcher and the server's in-flight bookkeeping decide
// when; this file decides what. Anything that goes wrong inside a tool is a
// CallToolResult with `isError: true` instead (see tool_call.ts).
import type { JsonObject } from "../util/json.ts";
import type { RpcError } from "./types.ts";

export const ErrorCode = {
  /** The line is not JSON (or not UTF-8). */
  ParseError: -32700,
  /** JSON, but not a JSON-RPC 2.0 request object (batch arrays included). */
  InvalidRequest: -32600,
  /** Unknown method, a method removed by the request's revision, or an unadvertised one. */
  MethodNotFound: -32601,
  /** Malformed params, a missing required `_meta` key, an unknown tool, a bad cursor. */
  InvalidParams: -32602,
  /** A fault in the server itself. */
  InternalError: -32603,
  /** `_meta` names a protocol version this server does not serve. */
  UnsupportedProtocolVersion: -32022,
  /** A standard HTTP header is missing, undecodable, or disagrees with the body (SEP-2243). */
  HeaderMismatch: -32020,
  /** The client did not declare a capability the request needs (SEP-2575). */
  MissingClientCapability: -32021,
  /** A resource that does not exist, to a 2025-era session (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /**
   * The caller's token lacks a scope the request needs (toolshed's own code, in the range
   * JSON-RPC leaves to servers; `data.requiredScopes`). Over HTTP it is the body of a 403
   * whose `WWW-Authenticate` challenge is what a client acts on.
   */
  InsufficientScope: -32030,
  /**
   * The caller is over a rate limit (toolshed's own code; `data.retryAfterSeconds`, adr/0043).
   * Over HTTP it is the body of a 429 with `Retry-After`.
   */
  RateLimited: -32031,
} as const;

/** A protocol error raised deep in a handler and mapped to a JSON-RPC error response. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }

  toRpcError(): RpcError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, message, data);
}

export function methodNotFound(method: string, why?: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    why ? `Method not found: "${method}" ${why}` : `Method not found: "${method}"`,
  );
}

export function unsupportedVersion(
  supported: readonly string[],
  requested: unknown,
): ProtocolError {
  return new ProtocolError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
    supported,
    requested,
  });
}

/** The caller's token does not grant every scope of `required` (the request's own). */
export function insufficientScope(required: readonly string[], what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InsufficientScope,
    `Forbidden: ${what} needs the scope${required.length > 1 ? "s" : ""} ${
      required.map((scope) => JSON.stringify(scope)).join(", ")
    }, which the access token does not grant`,
    { requiredScopes: [...required] },
  );
}

/**
 * A request over a rate limit: `what` says which (`this caller's limit of "60/min"`), `limit` is
 * the rate as written; the wait is rounded up to whole seconds, at least 1 (as Retry-After).
 */
export function rateLimited(what: string, limit: string, retryAfterMs: number): ProtocolError {
  const retryAfterSeconds = retryAfterSecondsOf(retryAfterMs);
  return withoutStack(
    ErrorCode.RateLimited,
    `Rate limited: ${what} is used up; retry after ${retryAfterSeconds} s`,
    { retryAfterSeconds, limit },
  );
}

/**
 * A ProtocolError made without constructing an Error, for refusals a client can send by the
 * thousand: in Deno `new Error` costs ~6 µs whatever `Error.stackTraceLimit` says, and it was
 * most of a refusal's cost (bench/rate_limit.ts: a caller flooding past its limit cost the
 * server 2.3× what the same calls served did). An answer to the client needs no stack.
 */
function withoutStack(code: number, message: string, data: unknown): ProtocolError {
  const error = Object.create(ProtocolError.prototype);
  error.name = "ProtocolError";
  error.message = message;
  error.code = code;
  error.data = data;
  return error;
}

/** A wait in whole seconds, rounded up, at least 1: what Retry-After carries. */
function retryAfterSecondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export function internalError(detail: string): RpcError {
  return { code: ErrorCode.InternalError, message: `Internal error: ${detail}` };
}

/** A line longer than `--max-message-bytes`; it is skipped to its newline. */
export function oversizeLine(limitBytes: number): RpcError {
  return {
    code: ErrorCode.InvalidRequest,
    message: `Invalid request: the message is longer than the limit of ${limitBytes} bytes`,
  };
}

/** A request that was still waiting for its turn when the grace period of shutdown ended. */
export function shuttingDown(): RpcError {
  return internalError("the server shut down before this request could start");
}

/** A request whose id belongs to a request still in progress. */
export function idInUse(id: string | number): RpcError {
  return {
    code: ErrorCode.InvalidRequest,
    message: `Invalid request: id ${JSON.stringify(id)} is already in use by a request in progress`,
  };
}

/** A request needs client capabilities the client did not declare (SEP-2575). */
export function missingClientCapability(required: JsonObject, what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingClientCapability,
    `Missing required client capability: ${what} needs ${
      Object.keys(required).map((key) => `"${key}"`).join(", ")
    }`,
    { requiredCapabilities: required },
  );
}

/**
 * `resources/read` of a URI that names nothing: -32602 with `data.uri` in 2026-07-28
 * (SEP-2164), -32002 with `data.uri` in the 2025 revisions.
 */
export function resourceNotFound(uri: string, stateless: boolean): ProtocolError {
  return new ProtocolError(
    stateless ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound,
    "Resource not found",
    { uri },
  );
}
