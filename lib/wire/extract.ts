// The one-shot field extractor: one line of bytes in, one tagged message out.
//
// `JSON.parse` runs here exactly once per line; everything the dispatcher needs (id,
// method, params and the 2026-07-28 `_meta` envelope) is read out in the same pass.
// Nothing downstream sees raw text again.
import { isObject } from "../util/json.ts";
import { ErrorCode } from "./errors.ts";
import {
  LOG_LEVELS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from "./protocol.ts";
import type { JsonObject } from "../util/json.ts";
import type { RequestId, RpcError } from "./types.ts";

/** The per-request `_meta` of a 2026-07-28 request, validated. */
interface Envelope {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo: JsonObject | undefined;
  /** The least severe log level the client wants for this request; undefined: no logs. */
  logLevel: string | undefined;
}

/** A progress token: the client's opt-in to `notifications/progress` for one request. */
type ProgressToken = string | number;

export interface Request {
  kind: "request";
  id: RequestId;
  method: string;
  params: JsonObject;
  /** Present when `_meta` carries a protocol version claim (a 2026-07-28 request). */
  envelope: Envelope | undefined;
  /** `_meta.progressToken`, in either era; undefined when absent (or unusable, 2025-era). */
  progressToken: ProgressToken | undefined;
}

/** A client's answer to a request the server sent (2025-era sessions), matched by id. */
export interface Response {
  kind: "response";
  id: RequestId | null;
  /** The result object, or undefined when the client answered with an error. */
  result: JsonObject | undefined;
  error: unknown;
}

export interface Notification {
  kind: "notification";
  method: string;
  params: JsonObject;
}

/** A line that gets an error response; `id` is null when the request's id is unusable. */
interface Rejected {
  kind: "rejected";
  id: RequestId | null;
  error: RpcError;
}

/** A line that gets no reply: a blank line, a malformed notification. */
interface Ignored {
  kind: "ignored";
  reason: string;
}

type Incoming = Request | Notification | Response | Rejected | Ignored;

const utf8 = new TextDecoder();
/** A line of nothing but JSON's own whitespace (not every Unicode space) is no message. */
const JSON_WHITESPACE_ONLY = /^[ \t\r\n]*$/;
// Strict decoding validates every byte and costs ~10x the lax decoder on long lines
// (bench/extract_bench.ts), so it runs only when the lax result has a U+FFFD in it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isUsableId(id: unknown): id is RequestId {
  return typeof id === "string" || Number.isSafeInteger(id);
}

function rejected(id: RequestId | null, code: number, message: string): Rejected {
  return { kind: "rejected", id, error: { code, message } };
}

/** Parses one framed line into the message the dispatcher acts on. Never throws. */
export function extract(line: Uint8Array): Incoming {
  const text = utf8.decode(line);
  if (text.includes("\uFFFD") && !isValidUtf8(line)) {
    return rejected(null, ErrorCode.ParseError, "Parse error: the message is not valid UTF-8");
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    if (JSON_WHITESPACE_ONLY.test(text)) return { kind: "ignored", reason: "blank line" };
    const detail = error instanceof Error ? error.message : String(error);
    return rejected(null, ErrorCode.ParseError, `Parse error: ${detail}`);
  }
  return classify(message);
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function classify(message: unknown): Incoming {
  if (Array.isArray(message)) {
    return rejected(
      null,
      ErrorCode.InvalidRequest,
      "Invalid request: batch arrays are not supported",
    );
  }
  if (!isObject(message)) {
    return rejected(
      null,
      ErrorCode.InvalidRequest,
      "Invalid request: the message must be an object",
    );
  }
  const hasId = Object.hasOwn(message, "id");
  // A client's response, whatever its id: JSON-RPC sends id null when it could not read one.
  if (
    hasId && message.jsonrpc === "2.0" && !Object.hasOwn(message, "method") &&
    (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))
  ) {
    const result = message.result;
    return {
      kind: "response",
      id: isUsableId(message.id) ? message.id : null,
      result: isObject(result) ? result : undefined,
      error: message.error,
    };
  }
  const id = isUsableId(message.id) ? message.id : null;
  if (hasId && id === null) {
    return rejected(
      null,
      ErrorCode.InvalidRequest,
      "Invalid request: id must be a string or an integer",
    );
  }
  if (message.jsonrpc !== "2.0") {
    return rejected(id, ErrorCode.InvalidRequest, 'Invalid request: jsonrpc must be "2.0"');
  }
  if (!Object.hasOwn(message, "method")) {
    return rejected(id, ErrorCode.InvalidRequest, "Invalid request: method is missing");
  }
  const method = message.method;
  if (typeof method !== "string") {
    return rejected(id, ErrorCode.InvalidRequest, "Invalid request: method must be a string");
  }
  const params = message.params ?? {};
  if (!isObject(params)) {
    return hasId
      ? rejected(id, ErrorCode.InvalidParams, "Invalid params: params must be an object")
      : { kind: "ignored", reason: `notification "${method}" with params that are not an object` };
  }
  if (!hasId) return { kind: "notification", method, params };

  const meta = params._meta;
  if (meta === undefined) {
    return {
      kind: "request",
      id: id!,
      method,
      params,
      envelope: undefined,
      progressToken: undefined,
    };
  }
  if (isObject(meta) && !Object.hasOwn(meta, META_PROTOCOL_VERSION)) {
    // A 2025-era request: an unusable token only means no progress, as before 2026-07-28.
    const token = meta.progressToken;
    const progressToken = typeof token === "string" || typeof token === "number"
      ? token
      : undefined;
    return { kind: "request", id: id!, method, params, envelope: undefined, progressToken };
  }
  if (!isObject(meta)) {
    return rejected(id, ErrorCode.InvalidParams, "Invalid params: _meta must be an object");
  }
  const envelope = readEnvelope(meta);
  if (typeof envelope === "string") return rejected(id, ErrorCode.InvalidParams, envelope);
  const progressToken = meta.progressToken as ProgressToken | undefined;
  return { kind: "request", id: id!, method, params, envelope, progressToken };
}

/** Reads and checks the 2026-07-28 `_meta` keys; returns an error message when they are wrong. */
function readEnvelope(meta: JsonObject): Envelope | string {
  const protocolVersion = meta[META_PROTOCOL_VERSION];
  if (typeof protocolVersion !== "string") {
    return `Invalid _meta field: ${META_PROTOCOL_VERSION} must be a string`;
  }
  if (!Object.hasOwn(meta, META_CLIENT_CAPABILITIES)) {
    return `Missing required _meta field: ${META_CLIENT_CAPABILITIES}`;
  }
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(clientCapabilities)) {
    return `Invalid _meta field: ${META_CLIENT_CAPABILITIES} must be an object`;
  }
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isObject(clientInfo)) {
    return `Invalid _meta field: ${META_CLIENT_INFO} must be an object`;
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && (typeof logLevel !== "string" || !LOG_LEVELS.has(logLevel))) {
    return `Invalid _meta field: ${META_LOG_LEVEL} must be one of ${[...LOG_LEVELS].join(", ")}`;
  }
  const progressToken = meta.progressToken;
  if (
    progressToken !== undefined && typeof progressToken !== "string" &&
    typeof progressToken !== "number"
  ) {
    return "Invalid _meta field: progressToken must be a string or a number";
  }
  return {
    protocolVersion,
    clientCapabilities,
    clientInfo,
    logLevel: logLevel as string | undefined,
  };
}
