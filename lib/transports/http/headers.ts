// The request headers of Streamable HTTP that mirror the body (SEP-2243, 2026-07-28
// `basic/transports` "Request Metadata"), and the two content headers. Header names are
// case-insensitive and `Headers` already strips the optional whitespace around a value;
// values are compared exactly (`TOOLS/LIST` is not `tools/list`).
import type { RpcError } from "../../wire/types.ts";
import type { Request } from "../../wire/extract.ts";
import {
  headerMismatch,
  invalidHeaderCharacters,
  missingHeader,
  undecodableHeader,
} from "./errors.ts";

export const PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version";
export const METHOD_HEADER = "Mcp-Method";
const NAME_HEADER = "Mcp-Name";

/**
 * The body field `Mcp-Name` mirrors, by method (SEP-2243's "Required For" column; the
 * tasks extension's rows: a task id).
 */
const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
  ["tasks/get", "taskId"],
  ["tasks/update", "taskId"],
  ["tasks/cancel", "taskId"],
]);

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";
/** Padded, canonical base64: `SGVsbG8` (no padding) is as invalid as `SGVs!!!bG8=`. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A header value as its sender meant it: `=?base64?…?=` (lower-case markers only) decoded
 * from UTF-8, anything else literal. Undefined when the sentinel wraps invalid base64.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX)) return value;
  if (value.length < BASE64_PREFIX.length + BASE64_SUFFIX.length) return value;
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return strictUtf8.decode(Uint8Array.fromBase64(payload));
  } catch {
    return undefined;
  }
}

/**
 * The first header of a 2026-07-28 request that is present but disagrees with the body:
 * `MCP-Protocol-Version` with the claim, `Mcp-Method` with the method.
 */
export function disagreeingHeader(
  mirrored: MirroringHeaders,
  method: string,
  claim: string | undefined,
): RpcError | undefined {
  const { version, method: named } = mirrored;
  if (version !== null && claim !== undefined && version !== claim) {
    return headerMismatch(PROTOCOL_VERSION_HEADER, version, claim);
  }
  if (named !== null && named !== method) return headerMismatch(METHOD_HEADER, named, method);
  return undefined;
}

/** `MCP-Protocol-Version` and `Mcp-Method` of one request, each read once (null: absent). */
interface MirroringHeaders {
  readonly version: string | null;
  readonly method: string | null;
}

/**
 * The first standard header a 2026-07-28 request lacks, or the `Mcp-Name` that does not
 * mirror its body. A body without the mirrored field needs no `Mcp-Name`: the handler
 * answers for the missing field.
 */
export function missingOrWrongHeader(
  headers: Headers,
  mirrored: MirroringHeaders,
  request: Request,
): RpcError | undefined {
  if (mirrored.version === null) return missingHeader(PROTOCOL_VERSION_HEADER);
  if (mirrored.method === null) return missingHeader(METHOD_HEADER);
  const field = NAME_SOURCE.get(request.method);
  if (field === undefined) return undefined;
  const bodyValue = request.params[field];
  const name = headers.get(NAME_HEADER);
  if (name === null) {
    return typeof bodyValue === "string" ? missingHeader(NAME_HEADER) : undefined;
  }
  const decoded = decodeHeaderValue(name);
  if (decoded === undefined) return undecodableHeader(NAME_HEADER, name);
  if (typeof bodyValue === "string" && decoded !== bodyValue) {
    return headerMismatch(NAME_HEADER, decoded, bodyValue);
  }
  return undefined;
}

/** `Application/JSON; charset=utf-8` → `application/json`: the type alone, in lower case. */
function mediaType(value: string): string {
  const end = value.indexOf(";");
  return (end === -1 ? value : value.slice(0, end)).trim().toLowerCase();
}

/** Whether a `Content-Type` says JSON. Absent is not JSON. */
export function isJsonContentType(value: string | null): boolean {
  return value !== null && mediaType(value) === "application/json";
}

/**
 * Whether an `Accept` header takes `text/event-stream` (directly, as `text/*` or `*\/*`, with
 * a quality above 0). No `Accept` at all takes anything (RFC 9110, 12.5.1).
 */
export function acceptsEventStream(value: string | null): boolean {
  if (value === null) return true;
  // Clients send the same Accept on every request: each value's verdict is kept, in a
  // bounded map, rather than split into arrays per request (bench:http).
  let verdict = acceptVerdicts.get(value);
  if (verdict === undefined) {
    verdict = takesEventStream(value);
    if (acceptVerdicts.size >= REMEMBERED_ACCEPTS) acceptVerdicts.clear();
    acceptVerdicts.set(value, verdict);
  }
  return verdict;
}

/** Accept values whose verdict is remembered; past it the memory starts over. */
const REMEMBERED_ACCEPTS = 64;
const acceptVerdicts = new Map<string, boolean>();

function takesEventStream(value: string): boolean {
  return value.split(",").some((range) => {
    const [type, ...parameters] = range.split(";");
    const media = type.trim().toLowerCase();
    if (media !== "text/event-stream" && media !== "text/*" && media !== "*/*") return false;
    const quality = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

/** The prefix of the headers that mirror `x-mcp-header` arguments (SEP-2243). */
const PARAM_HEADER_PREFIX = "Mcp-Param-";

/** An argument mirrored into a header: its `x-mcp-header` name and where it sits. */
export interface MirroredArgument {
  readonly header: string;
  readonly path: readonly string[];
}

/** Visible ASCII and the space (leading and trailing ones are stripped by `Headers`). */
const PLAIN_VALUE = /^[\x20-\x7e]*$/;
/** A decimal number as a header carries an integer: `42`, `-7`, `42.0`, `1e3`. */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The first `Mcp-Param-*` header of a 2026-07-28 `tools/call` that is missing, undecodable
 * or unlike its argument. An argument absent or null needs no header; a string must equal
 * the decoded value, a number equal it numerically (`42.0` is 42), a boolean be `true` or
 * `false`. An argument of another type is left to the tool's input validation.
 */
export function paramHeaderProblem(
  headers: Headers,
  mirrored: readonly MirroredArgument[],
  args: unknown,
): RpcError | undefined {
  for (const { header, path } of mirrored) {
    const value = argumentAt(args, path);
    if (value === undefined || value === null) continue;
    const name = `${PARAM_HEADER_PREFIX}${header}`;
    const raw = headers.get(name);
    if (raw === null) return missingHeader(name);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return undecodableHeader(name, raw);
    if (decoded === raw && !PLAIN_VALUE.test(raw)) return invalidHeaderCharacters(name, raw);
    if (!mirrors(decoded, value)) {
      return headerMismatch(name, decoded, typeof value === "string" ? value : String(value));
    }
  }
  return undefined;
}

function mirrors(decoded: string, value: unknown): boolean {
  switch (typeof value) {
    case "string":
      return decoded === value;
    case "number":
      return DECIMAL.test(decoded) && Number(decoded) === value;
    case "boolean":
      return decoded === String(value);
    default:
      return true;
  }
}

function argumentAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
