// Sending an operation's request and turning the answer into a tool result (adr/0072 decision
// 5): redirects followed only within the origin, the call's signal aborting the exchange, a
// non-2xx answer an isError result with its body cut, an answer past the size limit refused
// while it is read (never buffered whole).
import { concatBytes } from "../util/bytes.ts";
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import type { OperationRequest } from "./request.ts";

/** Redirects followed within the origin before the call is refused. */
const MAX_REDIRECTS = 5;
/** The most of a non-2xx answer's body an error result quotes. */
export const ERROR_BODY_BYTES = 16 * 1024;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface CallOptions {
  /** The tool's timeout and the call's cancellation. */
  signal: AbortSignal;
  /** The largest 2xx answer body read (`--max-output-bytes`). */
  maxBodyBytes: number;
  /** The output schema wraps the answer as `{result}` (fastmcp-ts's x-fastmcp-wrap-result). */
  wrapResult: boolean;
  fetch?: typeof fetch;
}

/**
 * The CallToolResult of sending `request`. Throws only the signal's reason when it aborts (the
 * core answers a timeout or a cancellation); everything else is a result.
 */
export async function callOperation(
  request: OperationRequest,
  options: CallOptions,
): Promise<JsonObject> {
  const { signal } = options;
  const fetchFn = options.fetch ?? fetch;
  const origin = request.url.origin;
  let { method, body, headers } = request;
  let url = request.url;
  let response: Response;
  for (let hop = 0;; hop++) {
    try {
      response = await fetchFn(url, {
        method,
        headers,
        body,
        signal,
        redirect: "manual",
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return failure(`Cannot call "${request.operation}": ${messageOf(error)}`);
    }
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) break;
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== origin) {
      return failure(
        `Cannot call "${request.operation}": it was redirected to "${next.href}", another origin; redirects are followed only within "${origin}"`,
      );
    }
    if (hop + 1 > MAX_REDIRECTS) {
      return failure(
        `Cannot call "${request.operation}": it was redirected more than ${MAX_REDIRECTS} times`,
      );
    }
    if (
      (response.status === 303 && method !== "HEAD") ||
      (response.status <= 302 && method === "POST")
    ) {
      method = "GET";
      body = undefined;
      headers = new Headers(headers);
      headers.delete("content-type");
    }
    url = next;
  }
  try {
    if (response.status < 200 || response.status > 299) {
      const { bytes, cut } = await readAtMost(response, ERROR_BODY_BYTES);
      const text = new TextDecoder().decode(bytes);
      const told = cut ? `${text}… (cut at ${ERROR_BODY_BYTES / 1024} KiB)` : text;
      const status = [response.status, response.statusText].filter(Boolean).join(" ");
      return failure(`HTTP ${status}: ${told}`.trimEnd()); // HTTP/2 has no reason phrase
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > options.maxBodyBytes) {
      await response.body?.cancel();
      return tooLarge(request, options.maxBodyBytes);
    }
    const { bytes, cut } = await readAtMost(response, options.maxBodyBytes);
    if (cut) return tooLarge(request, options.maxBodyBytes);
    return resultOf(new TextDecoder().decode(bytes), response.headers, options.wrapResult);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return failure(`Cannot read the answer to "${request.operation}": ${messageOf(error)}`);
  }
}

function failure(text: string): JsonObject {
  return { isError: true, content: [{ type: "text", text }] };
}

function tooLarge(request: OperationRequest, limit: number): JsonObject {
  return failure(
    `Cannot call "${request.operation}": its answer is longer than the ${limit} bytes a result may have`,
  );
}

/** At most `limit` bytes of the body; `cut` when there was more (the rest is not read). */
async function readAtMost(
  response: Response,
  limit: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(0), cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concatBytes(chunks), cut: false };
    if (length + value.length > limit) {
      chunks.push(value.subarray(0, limit - length));
      await reader.cancel();
      return { bytes: concatBytes(chunks), cut: true };
    }
    chunks.push(value);
    length += value.length;
  }
}

/**
 * A 2xx answer as a result: JSON (by its content type, or none given) as structuredContent and
 * its text; other text as text, also structured as `{result}` when the output schema wraps.
 */
function resultOf(text: string, headers: Headers, wrapResult: boolean): JsonObject {
  const type = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const jsonType = type === "" || type === "application/json" || type.endsWith("+json") ||
    type.endsWith("/json");
  if (text === "") return { content: [] };
  if (jsonType) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (value !== undefined) {
      const structured = wrapResult || !isObject(value) ? { result: value } : value;
      return {
        content: [{ type: "text", text: JSON.stringify(structured) }],
        structuredContent: structured,
      };
    }
  }
  const content = [{ type: "text", text }];
  return wrapResult ? { content, structuredContent: { result: text } } : { content };
}
