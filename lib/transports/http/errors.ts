// What the HTTP transport answers on its own (the HTTP status of a JSON-RPC error it sends is in
// statuses.ts). Codes and statuses follow the 2026-07-28 Streamable HTTP transport (SEP-2243,
// SEP-2575); where the spec names no status, the TypeScript SDK's mapping (adr/0012). The
// codes that are not HTTP-only belong to wire/errors.ts, which this file extends.
import type { JsonObject } from "../../util/json.ts";
import { ErrorCode } from "../../wire/errors.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";

export const HttpErrorCode = {
  /** The transport refuses the request itself (Host, Origin, media type, HTTP method). */
  Refused: -32000,
  /** An `Mcp-Session-Id` naming no live 2025-era session (the TypeScript SDK's code). */
  SessionNotFound: -32001,
  HeaderMismatch: ErrorCode.HeaderMismatch,
  MissingClientCapability: ErrorCode.MissingClientCapability,
} as const;

/** A JSON-RPC error response; `id` is left out, not null, when the request's is unknown. */
export function errorMessage(id: RequestId | undefined, error: RpcError): JsonObject {
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

export function refused(message: string): RpcError {
  return { code: HttpErrorCode.Refused, message };
}

/** A present standard header whose value is not the body's. */
export function headerMismatch(header: string, headerValue: string, bodyValue: string): RpcError {
  return {
    code: HttpErrorCode.HeaderMismatch,
    message: `Header mismatch: ${header} header value ${JSON.stringify(headerValue)} does not ` +
      `match body value ${JSON.stringify(bodyValue)}`,
  };
}

/** A standard header every 2026-07-28 request must carry, absent. */
export function missingHeader(header: string): RpcError {
  return { code: HttpErrorCode.HeaderMismatch, message: `Missing required header: ${header}` };
}

/** A header value that carries the base64 sentinel around something that is not base64. */
export function undecodableHeader(header: string, value: string): RpcError {
  return {
    code: HttpErrorCode.HeaderMismatch,
    message: `Invalid ${header} header: ${
      JSON.stringify(value)
    } is not base64-encoded UTF-8 text inside "=?base64?" and "?="`,
  };
}

/** A literal header value with characters only its base64 form may carry. */
export function invalidHeaderCharacters(header: string, value: string): RpcError {
  return {
    code: HttpErrorCode.HeaderMismatch,
    message: `Invalid ${header} header: ${
      JSON.stringify(value)
    } has characters that must be sent base64-encoded inside "=?base64?" and "?="`,
  };
}

/** A request to /mcp without the bearer token the server requires, or with another one. */
export function unauthorized(): RpcError {
  return {
    code: HttpErrorCode.Refused,
    message: "Unauthorized: this server requires Authorization: Bearer with its token",
  };
}

/** A 2025-era request, notification or response without the session it belongs to. */
export function sessionRequired(): RpcError {
  return { code: HttpErrorCode.Refused, message: "Bad Request: Mcp-Session-Id header is required" };
}

/**
 * An `Mcp-Session-Id` that names no live session: the client must `initialize` again. When
 * another instance opened it, the message says so (the balancer does not route by session).
 */
export function sessionNotFound(openedBy?: string): RpcError {
  return {
    code: HttpErrorCode.SessionNotFound,
    message: openedBy === undefined ? "Session not found" : `Session not found: instance ` +
      `"${openedBy}" opened it, and a session lives on the instance that opened it (route ` +
      "requests by Mcp-Session-Id to it, or initialize again)",
  };
}

/** A 2025-era `MCP-Protocol-Version` that is not the version its session negotiated. */
export function sessionVersionMismatch(header: string, negotiated: string): RpcError {
  return {
    code: HttpErrorCode.Refused,
    message: `Bad Request: Unsupported protocol version: MCP-Protocol-Version ${
      JSON.stringify(header)
    } is not ${JSON.stringify(negotiated)}, the version this session negotiated`,
  };
}

/** A GET whose `Accept` does not take the event stream it would open (the TypeScript SDK's). */
export function notAcceptable(): RpcError {
  return {
    code: HttpErrorCode.Refused,
    message: "Not Acceptable: Client must accept text/event-stream",
  };
}

/** A GET for a session whose stream is already open (the TypeScript SDK's words). */
/** A GET with `Last-Event-ID` that names nothing the session can replay. */
export function cannotResume(reason: string): RpcError {
  return { code: HttpErrorCode.Refused, message: `Bad Request: cannot resume: ${reason}` };
}

export function streamConflict(): RpcError {
  return {
    code: HttpErrorCode.Refused,
    message: "Conflict: Only one SSE stream is allowed per session",
  };
}
