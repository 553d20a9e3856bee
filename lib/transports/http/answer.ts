// How one request's answer leaves over HTTP: a JSON body, or a stream of server-sent events
// (the request's notifications, then its response, one `data:` line each). Every message
// is serialized once, by wire/serialize.ts.
//
// The shape is chosen when the core has answered or gone asynchronous, whichever comes
// first. Answered at once: JSON with the answer's status, or SSE when the handler sent
// notifications before it. Gone asynchronous: the status (200) and headers leave at once,
// SSE when the request may send notifications (a progress token, a log level) and JSON
// otherwise, so that the body's cancel() can tell the handler the client went away
// (adr/0012: Deno's request.signal is not a clean alternative).
import type { JsonObject } from "../../util/json.ts";
import { serialize } from "../../wire/serialize.ts";
import { allocated } from "../../util/collect.ts";
import type { EventSink, StreamLog } from "./events.ts";
import type { UnsentLedger } from "./unsent.ts";

/** Opens a resumable stream over a sink (a 2025-era session's, events.ts). */
export type OpenLog = (sink: EventSink) => StreamLog;

type AnswerKind = "json" | "sse";

/** One request's answer, from the handler's first notification to its response. */
interface Answer {
  /** The request's `outlet.notify`: held until the shape is chosen, then sent (SSE only). */
  notify(message: JsonObject): void;
  /** The core answered at once: the whole answer. */
  complete(response: JsonObject, status: number): Response;
  /**
   * The core answers later: the status and headers leave now. `onClosed` runs once if the
   * client goes away before `finish`.
   */
  stream(mayNotify: boolean, onClosed: () => void): StreamedAnswer;
  /**
   * Closes a resumable event stream (a 2025-era session's) and keeps what follows for the
   * client to resume with `Last-Event-ID` (SEP-1699 polling): now if it is open, else as soon
   * as it opens. False, doing nothing, when this answer is not or will not be such a stream
   * (`mayNotify`: as `stream` will be told).
   */
  closeStream(mayNotify: boolean): boolean;
}

/** An answer whose status and headers are sent and whose messages follow. */
export interface StreamedAnswer {
  readonly response: Response;
  /** Sends the response and ends the body; nothing is sent after it. */
  finish(message: JsonObject): void;
  /**
   * A resumable event stream (a 2025-era session's): when its client goes away, what
   * follows is kept for a GET with `Last-Event-ID`, so the request goes on.
   */
  readonly resumable: boolean;
}

const JSON_HEADERS = { "content-type": "application/json" };
/** Proxies must neither buffer nor transform (compress) a stream of events. */
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/**
 * Notifications queued for a client that does not read, past which more are dropped (its
 * response is always queued). Progress reports only matter while they are fresh.
 */
export const UNREAD_NOTIFICATIONS_BOUND_BYTES = 1024 * 1024;

/**
 * An event stream with nothing sent for this long gets a comment line, so that proxies and
 * load balancers that close idle connections (nginx after 60 s by default) keep it open.
 * The TypeScript SDK's interval.
 */
export const KEEP_ALIVE_MS = 15_000;
/** An SSE comment: clients ignore it. */
const KEEP_ALIVE = new TextEncoder().encode(": keep-alive\n\n");

const encoder = new TextEncoder();
/** The most of an answer Deno is offered at once (see bodyOf): bytes, or characters of text. */
const SLICE_BYTES = 64 * 1024;

/**
 * An answer that may become an event stream only if the client accepts one; a stream that
 * stays open gets a keep-alive comment after `keepAliveMs` with nothing sent. With `openLog`
 * (a 2025-era session), the stream's events carry ids and are kept for resumption.
 */
export function createAnswer(
  canStream: boolean,
  unsent: UnsentLedger,
  keepAliveMs = KEEP_ALIVE_MS,
  openLog?: OpenLog,
): Answer {
  /** Notifications sent before the shape was chosen (made for the first one). */
  let early: JsonObject[] | undefined;
  let sink: ((message: JsonObject) => void) | undefined;
  /** The open resumable stream's way to close for polling. */
  let suspend: (() => void) | undefined;
  /** closeStream() was asked before the stream opened. */
  let suspendOnOpen = false;
  return {
    notify(message) {
      if (sink) sink(message);
      else if (canStream) (early ??= []).push(message);
    },
    complete(response, status) {
      if (early === undefined) return countedJsonAnswer(response, status, unsent);
      // A session's stream is resumable however soon it ends: its events carry ids (after the
      // priming event, from 2025-11-25 on) and are kept, as those of a stream answered later.
      const body = eventBody(() => {}, unsent, undefined, SSE_HEADERS, openLog);
      for (const message of early) body.send(message);
      body.end(response);
      return body.response;
    },
    stream(mayNotify, onClosed) {
      if (!canStream || (early === undefined && !mayNotify)) {
        const body = jsonBody(onClosed, unsent);
        sink = () => {}; // a JSON answer has no place for a notification
        return body;
      }
      const body = eventBody(onClosed, unsent, keepAliveMs, SSE_HEADERS, openLog);
      for (const message of early ?? []) body.send(message);
      sink = body.send;
      if (openLog !== undefined) {
        suspend = body.suspend;
        if (suspendOnOpen) suspend();
      }
      return { response: body.response, finish: body.end, resumable: openLog !== undefined };
    },
    closeStream(mayNotify) {
      if (suspend !== undefined) {
        suspend();
        return true;
      }
      // Decided already, as JSON; or never resumable; or it will be JSON.
      if (sink !== undefined || openLog === undefined || !canStream) return false;
      if (early === undefined && !mayNotify) return false;
      suspendOnOpen = true;
      return true;
    },
  };
}

/**
 * A JSON answer longer than this goes as a body the unsent ledger counts; a shorter one as a
 * plain string (faster), which at most --max-connections such answers can hold unread.
 */
const COUNTED_ANSWER_CHARS = 16 * 1024;

/** A complete JSON answer, counted by the ledger unless it is short. */
function countedJsonAnswer(message: JsonObject, status: number, unsent: UnsentLedger): Response {
  const text = serialize(message);
  if (text.length <= COUNTED_ANSWER_CHARS) {
    return new Response(text, { status, headers: JSON_HEADERS });
  }
  const body = bodyOf(JSON_HEADERS, () => {}, unsent, status);
  body.end(text);
  built(text);
  return body.response;
}

/**
 * A large answer was made: what went into it (the result, a resource's bytes and text) is
 * garbage now, about three times its text, for the collector (util/collect.ts).
 */
function built(text: string): void {
  if (text.length > COUNTED_ANSWER_CHARS) allocated(3 * text.length);
}

/** A character V8 cannot hold in one byte: its string then takes two a character. */
const NOT_LATIN1 = /[\u0100-\uffff]/;

/**
 * The bytes a piece holds, as the queue and the ledger count them: a text's characters, twice
 * over when it has one beyond Latin-1 (V8 then keeps two bytes each; a one-byte string is
 * known not to at once, without a scan).
 */
function widthOf(piece: Piece): number {
  return typeof piece === "string" && NOT_LATIN1.test(piece) ? 2 : 1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A complete JSON answer (the transport's own: errors, refusals, `initialize`). */
export function jsonAnswer(
  message: JsonObject,
  status: number,
  headers?: Record<string, string>,
): Response {
  return new Response(serialize(message), {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
  });
}

/**
 * What a body queues: bytes, or text that is encoded a slice at a time as the client takes it
 * (so that an answer is held once, as its text, and never also as a whole buffer of bytes
 * that the collector frees only when it next runs: adr/0058).
 */
type Piece = Uint8Array | string;

interface Body {
  readonly response: Response;
  /** Queues a piece unless the body has ended. */
  push(piece: Piece): void;
  /** What is queued that the client has not taken yet, in bytes held (widthOf). */
  unread(): number;
  end(piece: Piece): void;
  /** Ends the body with nothing more (a stream that carries no response). */
  close(): void;
  /** False once the body has ended or the client has left. */
  alive(): boolean;
}

/**
 * A body written later; `onClosed` runs if the client leaves first, or if the ledger drops
 * the body because its client stopped reading (then the connection closes). Chunks wait in
 * a queue of its own and go to Deno one at a time, as the client takes them, so that the
 * ledger counts exactly what waits: a chunk counts until Deno asks for the next one. An
 * `eventStream` is counted among the ledger's open streams until its account closes.
 */
function bodyOf(
  headers: Record<string, string>,
  onClosed: () => void,
  unsent: UnsentLedger,
  status = 200,
  eventStream = false,
): Body {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Slices of at most SLICE_BYTES bytes or characters, and what each holds (`sizes`). */
  const queue: Piece[] = [];
  const sizes: number[] = [];
  let queued = 0;
  /** Bytes of the chunk Deno is writing now. */
  let handed = 0;
  /** Nothing more will be pushed: the stream closes once the queue is taken. */
  let ending = false;
  /** False once the body has ended or its client has left. */
  let open = true;
  let wake: (() => void) | undefined;
  const leave = () => {
    queue.length = 0;
    sizes.length = 0;
    queued = 0;
    account.close();
    if (!open) return;
    open = false;
    onClosed();
  };
  const account = unsent.open(() => {
    leave();
    controller.error(new Error("the client did not read its answer"));
  }, eventStream);
  /** Gives Deno the next chunk; false when there is none yet. */
  const deliver = (): boolean => {
    account.taken(handed);
    handed = 0;
    const chunk = queue.shift();
    if (chunk !== undefined) {
      const size = sizes.shift()!;
      queued -= size;
      handed = size;
      controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      return true;
    }
    if (!ending) return false;
    account.close();
    controller.close();
    return true;
  };
  const stream = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
    pull() {
      if (deliver()) return;
      return new Promise<void>((resolve) => {
        wake = () => {
          wake = undefined;
          deliver();
          resolve();
        };
      });
    },
    cancel: leave,
  }, { highWaterMark: 0 });
  const append = (piece: Piece) => {
    // In slices (views and substrings, not copies): Deno takes whatever chunk it is offered
    // into a buffer before the socket takes it, and stops asking only past 64 KiB, so a whole
    // answer offered at once would leave this queue, and the ledger, at once. A slice of text
    // becomes bytes when Deno asks for it: a client that stalls holds one 64 KiB buffer in
    // Deno, not a view keeping the whole answer's.
    const width = widthOf(piece);
    let size = 0;
    if (typeof piece === "string") {
      for (let at = 0; at < piece.length;) {
        let end = Math.min(at + SLICE_BYTES, piece.length);
        // Never between the halves of a surrogate pair (each would encode as U+FFFD).
        if (end < piece.length && isHighSurrogate(piece.charCodeAt(end - 1))) end--;
        queue.push(piece.slice(at, end));
        sizes.push((end - at) * width);
        at = end;
      }
      size = piece.length * width;
    } else {
      for (let at = 0; at < piece.byteLength; at += SLICE_BYTES) {
        const slice = piece.subarray(at, at + SLICE_BYTES);
        queue.push(slice);
        sizes.push(slice.byteLength);
      }
      size = piece.byteLength;
    }
    queued += size;
    account.add(size);
    wake?.();
  };
  return {
    response: new Response(stream, { status, headers }),
    push(piece) {
      if (open) append(piece);
    },
    unread: () => queued + handed,
    end(piece) {
      if (!open) return;
      open = false;
      ending = true;
      append(piece);
    },
    close() {
      if (!open) return;
      open = false;
      ending = true;
      wake?.();
    },
    alive: () => open,
  };
}

function jsonBody(onClosed: () => void, unsent: UnsentLedger): StreamedAnswer {
  const body = bodyOf(JSON_HEADERS, onClosed, unsent);
  return {
    response: body.response,
    finish(message) {
      const text = serialize(message);
      body.end(text);
      built(text);
    },
    resumable: false,
  };
}

/**
 * An event stream: `send` queues a notification, `end` the response. With `keepAliveMs`,
 * a timer sends a comment whenever nothing was queued for that long (and nothing queued
 * is still unread), until the stream ends or the client leaves. With `openLog`, every event
 * goes through a resumable stream (ids, kept for a GET with `Last-Event-ID`).
 */
function eventBody(
  onClosed: () => void,
  unsent: UnsentLedger,
  keepAliveMs?: number,
  headers: Record<string, string> = SSE_HEADERS,
  openLog?: OpenLog,
): {
  readonly response: Response;
  readonly log: StreamLog | undefined;
  send(message: JsonObject): void;
  end(message: JsonObject): void;
  close(): void;
  /**
   * A resumable stream: ends the body its client reads now (this one, or a resumption's) as
   * if the client had left, so that what follows is kept for the next resumption (the client
   * reconnects after the priming event's `retry`). Else nothing.
   */
  suspend(): void;
} {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastSent = performance.now();
  const stop = () => clearTimeout(timer);
  // Assigned once the body exists, and read by its cancel handler, declared before it.
  // deno-lint-ignore prefer-const
  let log: StreamLog | undefined;
  const body = bodyOf(
    headers,
    () => {
      stop();
      log?.detach(sink);
      onClosed();
    },
    unsent,
    200,
    true,
  );
  const push = (piece: Piece) => {
    lastSent = performance.now();
    body.push(piece);
  };
  const arm = (interval: number, delay: number) => {
    timer = setTimeout(() => {
      if (!body.alive()) return;
      const idle = performance.now() - lastSent;
      if (idle < interval) return arm(interval, interval - idle);
      if (body.unread() === 0) push(KEEP_ALIVE);
      else lastSent = performance.now(); // the client is behind: the stream is not idle
      arm(interval, interval);
    }, delay);
  };
  // What a resumable stream writes: a notification past the unread bound is kept for a
  // resumption but not queued (the response always is).
  let notifying = false;
  const sink: EventSink = {
    push(bytes) {
      if (notifying && body.unread() > UNREAD_NOTIFICATIONS_BOUND_BYTES) return;
      push(bytes);
    },
    close() {
      stop();
      body.close();
    },
  };
  log = openLog?.(sink);
  // Armed once the stream is open: opening a resumed one may refuse it (it throws) or end it.
  if (keepAliveMs !== undefined && body.alive()) arm(keepAliveMs, keepAliveMs);
  if (log !== undefined) {
    const stream = log;
    return {
      response: body.response,
      log: stream,
      send(message) {
        notifying = true;
        stream.send(message);
        notifying = false;
      },
      end: (message) => stream.end(message),
      close: () => stream.close(),
      suspend: () => stream.release(),
    };
  }
  const event = (message: JsonObject) => `data: ${serialize(message)}\n\n`;
  return {
    response: body.response,
    log: undefined,
    send(message) {
      if (body.unread() > UNREAD_NOTIFICATIONS_BOUND_BYTES) return;
      push(event(message));
    },
    end(message) {
      stop();
      body.end(event(message));
    },
    close() {
      stop();
      body.close();
    },
    suspend() {},
  };
}

/**
 * An event stream that ends without a response: a 2025-era session's GET stream, for what
 * the server sends outside any call. `onClosed` runs once if the client leaves first.
 */
export interface EventStream {
  readonly response: Response;
  /** Queues a message (dropped past the unread bound, as a call's notifications are). */
  send(message: JsonObject): void;
  /** Ends the stream (the session ended). */
  close(): void;
}

export function openEventStream(
  onClosed: () => void,
  unsent: UnsentLedger,
  keepAliveMs = KEEP_ALIVE_MS,
  headers: Record<string, string> = {},
  openLog?: OpenLog,
): EventStream {
  const body = eventBody(onClosed, unsent, keepAliveMs, { ...SSE_HEADERS, ...headers }, openLog);
  return { response: body.response, send: body.send, close: body.close };
}

/**
 * A GET with `Last-Event-ID`: an event stream that replays what a session's stream sent
 * after that event, then carries the rest of it (and ends with it). `resume` replays into
 * the sink it is given and returns the stream, or a sentence saying why it cannot; then
 * nothing is returned but that sentence. `onClosed(stream)` runs if the client leaves first.
 */
export function resumeEventStream(
  resume: (sink: EventSink) => StreamLog | string,
  onClosed: (stream: StreamLog) => void,
  unsent: UnsentLedger,
  keepAliveMs = KEEP_ALIVE_MS,
  headers: Record<string, string> = {},
): { response: Response; stream: StreamLog } | string {
  let resumed: StreamLog | undefined;
  try {
    const body = eventBody(
      () => onClosed(resumed!),
      unsent,
      keepAliveMs,
      { ...SSE_HEADERS, ...headers },
      (sink) => {
        const outcome = resume(sink);
        if (typeof outcome === "string") throw new ResumeRefused(outcome);
        return resumed = outcome;
      },
    );
    return { response: body.response, stream: resumed! };
  } catch (error) {
    if (error instanceof ResumeRefused) return error.message;
    throw error;
  }
}

/** Thrown through eventBody when a resumption is refused, before anything is armed. */
class ResumeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResumeRefused";
  }
}
