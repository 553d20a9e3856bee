// The Streamable HTTP transport to an upstream MCP server, client side (both eras). Each
// message is a POST accepting JSON and an event stream; a request's answer comes back as one
// JSON body or as server-sent events, each message parsed once (wire/extract.ts) and handed
// on as that request's (`call`), so a 2025-era server request on a call's stream belongs to
// that call. A 2025 session keeps `Mcp-Session-Id` and `MCP-Protocol-Version`, reports a 404
// as the session lost (upstream.ts initializes again), reads the GET stream for notifications
// not tied to a call when the server offers one (405: none), and is DELETEd at close. A
// 2026-07-28 request carries `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, and a
// `tools/call` the `Mcp-Param-*` headers of the arguments its caller says are mirrored. Redirects
// are followed only within the URL's origin; bodies and events are capped at MAX_BODY_BYTES.
//
// SSE is parsed here rather than by a library: the part a client needs (data lines, blank
// line ends an event, comments and ids ignored) is a few dozen lines of the WHATWG algorithm,
// and a dependency would load at start for every server that mounts nothing over HTTP.
import { concatBytes } from "../util/bytes.ts";
import { isObject, messageOf } from "../util/json.ts";
import { extract } from "../wire/extract.ts";
import { serialize } from "../wire/serialize.ts";
import { META_PROTOCOL_VERSION } from "../wire/protocol.ts";
import { UpstreamError } from "./link.ts";
import type { JsonObject } from "../util/json.ts";
import type { RequestId } from "../wire/types.ts";
import type { Incoming, Link, LinkEvents, MirroredArgument, Negotiated } from "./link.ts";

export interface HttpLinkOptions {
  kind: "http";
  url: string;
  /** Asked before each request: a token may have been refreshed. */
  headers: () => Record<string, string> | Promise<Record<string, string>>;
}

/**
 * The most bytes of one JSON answer, and the most characters of one server-sent event (a long
 * stream of small events is not capped as a whole); past it the call fails (a transport error).
 */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The most bytes of an error answer's body read for a JSON-RPC error in it. */
const ERROR_BODY_BYTES = 64 * 1024;

/** Redirects followed for one message, each within the URL's origin. */
const MAX_REDIRECTS = 5;

/** How long closing waits for the session's DELETE. */
const DELETE_WAIT_MS = 5_000;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface HttpLinkContext {
  name: string;
  events: LinkEvents;
  note(kind: string, message: string): void;
}

export function openHttpLink(options: HttpLinkOptions, context: HttpLinkContext): Link {
  const origin = new URL(options.url).origin;
  let negotiated: Negotiated | undefined;
  let sessionId: string | undefined;
  /** Aborted at close: every POST and the GET stream end. */
  const closing = new AbortController();
  let listening: AbortController | undefined;
  const what = `upstream "${context.name}"`;

  async function headersFor(
    message: JsonObject | undefined,
    mirrored: readonly MirroredArgument[] = [],
  ): Promise<Headers> {
    const headers = new Headers(await options.headers());
    headers.set("accept", "application/json, text/event-stream");
    if (message !== undefined) headers.set("content-type", "application/json");
    if (sessionId !== undefined) headers.set("mcp-session-id", sessionId);
    const params = isObject(message?.params) ? message.params : undefined;
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const claim = meta?.[META_PROTOCOL_VERSION];
    if (typeof claim === "string") {
      headers.set("mcp-protocol-version", claim);
      if (typeof message?.method === "string") {
        headers.set("mcp-method", message.method);
        const name = nameOf(message.method, params);
        if (name !== undefined) headers.set("mcp-name", headerValue(name));
      }
      if (message?.method === "tools/call") {
        for (const { header, path } of mirrored) {
          const value = argumentAt(params?.arguments, path);
          if (["string", "number", "boolean"].includes(typeof value)) {
            headers.set(`mcp-param-${header}`, headerValue(String(value)));
          }
        }
      }
    } else if (negotiated !== undefined) {
      headers.set("mcp-protocol-version", negotiated.protocolVersion);
    }
    return headers;
  }

  /** One exchange, following redirects within the origin. */
  async function exchange(
    method: string,
    headers: Headers,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    let url = options.url;
    for (let hop = 0;; hop++) {
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new UpstreamError(
          "transport",
          `Cannot reach ${what} at "${url}": ${messageOf(error)}`,
        );
      }
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== origin) {
        throw new UpstreamError(
          "transport",
          `${what} redirected to "${next.href}", another origin; redirects are followed only within "${origin}"`,
        );
      }
      if (hop >= MAX_REDIRECTS) {
        throw new UpstreamError("transport", `${what} redirected more than ${MAX_REDIRECTS} times`);
      }
      url = next.href;
    }
  }

  async function send(
    message: JsonObject,
    callerSignal: AbortSignal,
    mirrored?: readonly MirroredArgument[],
  ): Promise<void> {
    const signal = AbortSignal.any([callerSignal, closing.signal]);
    const id = message.id as RequestId | undefined;
    const isRequest = typeof message.method === "string" && id !== undefined;
    const hadSession = sessionId !== undefined;
    const response = await exchange(
      "POST",
      await headersFor(message, mirrored),
      serialize(message),
      signal,
    );
    if (response.status === 404 && hadSession) {
      await response.body?.cancel();
      sessionId = undefined;
      throw new UpstreamError("transport", `${what} no longer knows the session (HTTP 404)`, {
        sessionLost: true,
      });
    }
    const session = response.headers.get("mcp-session-id");
    if (message.method === "initialize" && session !== null && response.ok) sessionId = session;
    if (!isRequest) {
      await response.body?.cancel();
      if (!response.ok) {
        throw new UpstreamError("transport", `${what} answered HTTP ${response.status}`);
      }
      return;
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    let answered = false;
    const deliver = (incoming: Incoming) => {
      if (incoming.kind === "ignored") return;
      if (incoming.kind === "response" && incoming.id === id) answered = true;
      context.events.message(incoming, id);
    };
    if (!response.ok) {
      // A JSON-RPC error in the body is the answer (a 2026-07-28 server's 400 and 404 carry one).
      const body = await readCapped(response, ERROR_BODY_BYTES, signal).catch(() => undefined);
      const incoming = body === undefined ? undefined : extract(body);
      if (incoming?.kind === "response" && incoming.id === id) return deliver(incoming);
      throw new UpstreamError("transport", `${what} answered HTTP ${response.status}`);
    }
    if (type === "application/json") {
      deliver(extract(await readCapped(response, MAX_BODY_BYTES, signal)));
    } else if (type === "text/event-stream") {
      for await (const data of events(response, signal)) {
        deliver(extract(data));
        if (answered) break; // the answer ends the stream
      }
    } else {
      await response.body?.cancel();
      throw new UpstreamError(
        "transport",
        `${what} answered with Content-Type "${type}", neither JSON nor an event stream`,
      );
    }
    if (!answered) {
      throw new UpstreamError("transport", `${what} ended its answer stream before the answer`);
    }
  }

  /** The GET stream of a 2025 session, for messages not tied to a call, while it lasts. */
  async function listen(controller: AbortController): Promise<void> {
    const signal = AbortSignal.any([controller.signal, closing.signal]);
    try {
      const response = await exchange("GET", await headersFor(undefined), undefined, signal);
      const type = (response.headers.get("content-type") ?? "").split(";")[0].trim();
      if (!response.ok || type !== "text/event-stream") {
        await response.body?.cancel();
        if (response.status !== 405) {
          context.note(
            "get stream",
            `${what} answered its GET stream with HTTP ${response.status}`,
          );
        }
        return;
      }
      for await (const data of events(response, signal)) {
        const incoming = extract(data);
        if (incoming.kind !== "ignored") context.events.message(incoming, undefined);
      }
    } catch (error) {
      if (!signal.aborted) {
        context.note("get stream", `The GET stream of ${what} failed: ${messageOf(error)}`);
      }
    }
  }

  return {
    send,
    established(value) {
      negotiated = value;
      if (value.era === "session" && sessionId !== undefined) {
        listening = new AbortController();
        listen(listening);
      }
    },
    reset() {
      listening?.abort();
      listening = undefined;
      negotiated = undefined;
      sessionId = undefined;
    },
    async close() {
      listening?.abort();
      closing.abort(new UpstreamError("down", `${what} was closed`));
      if (negotiated?.era !== "session" || sessionId === undefined) return;
      try {
        const headers = await headersFor(undefined);
        const response = await exchange(
          "DELETE",
          headers,
          undefined,
          AbortSignal.timeout(DELETE_WAIT_MS),
        );
        await response.body?.cancel();
      } catch {
        // The session ends with the upstream's own idle timeout.
      }
      sessionId = undefined;
    },
  };
}

/** What `Mcp-Name` carries for a method, when it carries anything (HTTP.md §2.1). */
function nameOf(method: string, params: JsonObject | undefined): string | undefined {
  const key = method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "resources/read"
    ? "uri"
    : method.startsWith("tasks/")
    ? "taskId"
    : undefined;
  const value = key === undefined ? undefined : params?.[key];
  return typeof value === "string" ? value : undefined;
}

/** The argument at `path` of `args`, or undefined where the path leads nowhere. */
function argumentAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** A header value as sent: plain visible ASCII as it is, anything else in the base64 sentinel. */
function headerValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  if (plain) return value;
  return `=?base64?${new TextEncoder().encode(value).toBase64()}?=`;
}

/** The body, up to `cap` bytes; past it an UpstreamError. */
async function readCapped(
  response: Response,
  cap: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      size += value.length;
      if (size > cap) {
        throw new UpstreamError("transport", `an answer was longer than ${cap} bytes`);
      }
      parts.push(value);
    }
  } finally {
    signal.removeEventListener("abort", stop);
    reader.cancel().catch(() => {});
  }
  return concatBytes(parts);
}

const encoder = new TextEncoder();

/**
 * The data of each server-sent event of type "message" (or none), as bytes: lines end with
 * CRLF, LF or CR; `data:` lines join with "\n"; a blank line ends an event; comments, `id:`,
 * `retry:` and events of other types are skipped. An event over MAX_BODY_BYTES fails the stream.
 */
async function* events(response: Response, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  let buffer = "";
  let data: string[] = [];
  let size = 0;
  let type = "";
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) return;
      buffer += value;
      let start = 0;
      while (true) {
        const match = /\r\n|\n|\r/g;
        match.lastIndex = start;
        const found = match.exec(buffer);
        // A CR last in the buffer may be the first half of a CRLF.
        if (found === null || (found[0] === "\r" && found.index === buffer.length - 1)) break;
        const line = buffer.slice(start, found.index);
        start = found.index + found[0].length;
        if (line === "") {
          if (data.length > 0 && (type === "" || type === "message")) {
            yield encoder.encode(data.join("\n"));
          }
          data = [];
          size = 0;
          type = "";
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) continue; // a comment (keep-alive)
        const field = colon === -1 ? line : line.slice(0, colon);
        let rest = colon === -1 ? "" : line.slice(colon + 1);
        if (rest.startsWith(" ")) rest = rest.slice(1);
        if (field === "data") {
          size += rest.length;
          data.push(rest);
        } else if (field === "event") type = rest;
      }
      buffer = buffer.slice(start);
      if (size + buffer.length > MAX_BODY_BYTES) {
        throw new UpstreamError(
          "transport",
          `an event was longer than ${MAX_BODY_BYTES} characters`,
        );
      }
    }
  } finally {
    signal.removeEventListener("abort", stop);
    reader.cancel().catch(() => {});
  }
}
