// Resumable event streams for 2025-era sessions (SEP-1699; adr/0034). Every
// event a session's stream carries gets an id `<stream>_<seq>` and is kept, so that a client
// whose connection broke can GET the endpoint with `Last-Event-ID` and receive what followed,
// then the rest as it comes. What is kept is bounded per session and across all sessions:
// past a bound, the oldest events of the oldest stream go first (of the session written to
// least recently, for the shared bound), and a resumption that needs one of them is refused.
// 2026-07-28 has no resumption: its streams never come here.
import type { JsonObject } from "../../util/json.ts";
import { serialize } from "../../wire/serialize.ts";

/** Event bytes one session keeps for resumption. */
const MAX_SESSION_EVENT_BYTES = 1024 * 1024;
/**
 * Event bytes all sessions together keep for resumption: 32 MiB, so that every bound together
 * stays within the worst case of docs/operating/limits.md (adr/0058).
 */
const MAX_EVENT_BYTES = 32 * 1024 * 1024;
/**
 * What a stream that keeps events costs besides them (its state and closures, ~1.8 KB
 * measured: bench/session_memory.ts), counted against both bounds while it keeps any.
 */
export const STREAM_BYTES = 2 * 1024;
/** How long a client should wait before reconnecting, sent with each stream's first event. */
const RETRY_MS = 1_000;

const encoder = new TextEncoder();

/** Where a stream's events go while a client reads them. */
export interface EventSink {
  push(bytes: Uint8Array): void;
  close(): void;
}

/** One stream's events, and the body they go to while a client reads it. */
export interface StreamLog {
  readonly id: string;
  /** Sends `message` as the next event (to the reader, if any) and keeps it. */
  send(message: JsonObject): void;
  /** Sends and keeps the stream's last event, then closes the reader: the stream is over. */
  end(message: JsonObject): void;
  /** Ends the stream without a last event (a GET stream whose session ended). */
  close(): void;
  /** `reader` went away (if it is still the one reading); what follows is kept for a resumption. */
  detach(reader: EventSink): void;
  /**
   * Closes the body of whoever reads the stream now (the POST's, or a resumption's): what
   * follows is kept for the next resumption (SEP-1699 polling).
   */
  release(): void;
  readonly ended: boolean;
  /** A session's GET stream (as opposed to the stream of a POST). */
  readonly standalone: boolean;
}

/** The events of one session's streams. */
export interface SessionEvents {
  /**
   * A new stream writing to `sink`; its first event primes it (an id, `retry`, no data)
   * when `prime` is set (clients before 2025-11-25 may choke on an event without data).
   */
  open(sink: EventSink, prime: boolean, standalone?: boolean): StreamLog;
  /**
   * Replays to `sink` the events after `lastEventId` and, unless that stream is over, makes
   * `sink` its reader; returns the stream, or a sentence saying why it cannot (an id of no
   * stream of this session, or one whose later events are no longer kept).
   */
  resume(lastEventId: string, sink: EventSink): StreamLog | string;
  /** The stream an event id belongs to, if this session keeps it. */
  streamOf(lastEventId: string): StreamLog | undefined;
  /** Forgets everything (the session ended). */
  close(): void;
}

/** What every session's events share: the bound on all of them. */
export interface EventBudget {
  readonly bytes: number;
}

interface Budget extends EventBudget {
  /** Counts `size` more bytes for `owner`, evicting from the least recently written owners. */
  add(owner: Owner, size: number): void;
  /** `owner` holds `size` fewer bytes (evicted, or its session ended). */
  remove(owner: Owner, size: number): void;
}

/** A session's events, as the shared budget sees them. */
interface Owner {
  /** Drops its oldest event; returns its size (0: nothing left). */
  evictOldest(): number;
}

export function createEventBudget(maxBytes = MAX_EVENT_BYTES): EventBudget {
  let bytes = 0;
  /** Owners holding bytes, least recently written first. */
  const owners = new Map<Owner, number>();
  const budget: Budget = {
    add(owner, size) {
      bytes += size;
      owners.set(owner, (owners.get(owner) ?? 0) + size);
      // Written now: to the end of the order.
      const held = owners.get(owner)!;
      owners.delete(owner);
      owners.set(owner, held);
      while (bytes > maxBytes) {
        const oldest = owners.keys().next().value!;
        const freed = oldest.evictOldest();
        if (freed === 0) owners.delete(oldest);
        else budget.remove(oldest, freed);
      }
    },
    remove(owner, size) {
      bytes -= size;
      const held = (owners.get(owner) ?? 0) - size;
      if (held <= 0) owners.delete(owner);
      else owners.set(owner, held);
    },
    get bytes() {
      return bytes;
    },
  };
  return budget;
}

interface StreamState extends StreamLog {
  /**
   * Drops the oldest kept event; its size (with STREAM_BYTES when it was the last one), or 0
   * when none is kept.
   */
  evictOldest(): number;
  /**
   * A GET stream a newer one replaced: nothing will be sent on it again. Forgotten now when
   * it has no reader and keeps nothing, else once its kept events are evicted.
   */
  retire(): void;
  /** The events after `seq`, or undefined when some of them were evicted. */
  after(seq: number): Uint8Array[] | undefined;
  attach(sink: EventSink): void;
  /** Bytes kept. */
  readonly bytes: number;
}

export function createSessionEvents(
  shared: EventBudget,
  maxBytes = MAX_SESSION_EVENT_BYTES,
): SessionEvents {
  const budget = shared as Budget;
  /** By id, in the order they opened. */
  const streams = new Map<string, StreamState>();
  let bytes = 0;
  let counter = 0;
  let closed = false;

  const owner: Owner = {
    evictOldest() {
      for (const state of streams.values()) {
        const size = state.evictOldest();
        if (size > 0) {
          bytes -= size;
          return size;
        }
      }
      return 0;
    },
  };

  function keep(size: number): void {
    bytes += size;
    budget.add(owner, size);
    while (bytes > maxBytes) {
      const freed = owner.evictOldest();
      if (freed === 0) break;
      budget.remove(owner, freed);
    }
  }

  function stream(id: string, first: EventSink, standalone: boolean): StreamState {
    /** Kept events; `kept[i]` has sequence number `base + i`. */
    let kept: Uint8Array[] = [];
    let head = 0;
    let base = 1;
    let next = 1;
    let held = 0;
    let sink: EventSink | undefined = first;
    let ended = false;
    const record = (message: JsonObject): Uint8Array => {
      const event = encoder.encode(`id: ${id}_${next++}\ndata: ${serialize(message)}\n\n`);
      if (!closed) {
        // The first event kept also counts the stream's own cost, until the last one goes.
        const size = event.byteLength + (head >= kept.length ? STREAM_BYTES : 0);
        kept.push(event);
        held += size;
        keep(size);
      }
      return event;
    };
    const state: StreamState = {
      id,
      send(message) {
        if (ended) return;
        const event = record(message);
        sink?.push(event);
      },
      end(message) {
        if (ended) return;
        const event = record(message);
        ended = true;
        sink?.push(event);
        sink?.close();
        sink = undefined;
      },
      close() {
        ended = true;
        sink?.close();
        sink = undefined;
      },
      detach(reader) {
        if (sink === reader) sink = undefined;
      },
      release() {
        const reader = sink;
        sink = undefined;
        reader?.close();
      },
      get ended() {
        return ended;
      },
      standalone,
      get bytes() {
        return held;
      },
      evictOldest() {
        if (head >= kept.length) return 0;
        let size = kept[head].byteLength;
        head++;
        base++;
        if (head >= kept.length) {
          size += STREAM_BYTES;
          kept = [];
          head = 0;
        } else if (head > 64 && head * 2 > kept.length) {
          kept = kept.slice(head);
          head = 0;
        }
        held -= size;
        // Over, with nothing kept: no resumption can use it any more.
        if (held === 0 && ended) streams.delete(id);
        return size;
      },
      retire() {
        if (sink !== undefined) return;
        ended = true;
        if (held === 0) streams.delete(id);
      },
      after(seq) {
        if (seq + 1 < base) return undefined;
        return kept.slice(head + Math.max(0, seq + 1 - base));
      },
      attach(reader) {
        sink = reader;
      },
    };
    return state;
  }

  return {
    open(sink, prime, standalone = false) {
      // A session has one GET stream at a time: the ones it had before are over, and only
      // their events not yet evicted remain resumable (a client that opens GET after GET
      // leaves no trail: 60,000 cycles kept 60,000 streams, ~180 MB, outside every bound).
      if (standalone) {
        for (const state of [...streams.values()]) if (state.standalone) state.retire();
      }
      const id = `s${++counter}`;
      const state = stream(id, sink, standalone);
      if (!closed) streams.set(id, state);
      // The priming event: an id to resume from before anything was sent, and `retry`.
      if (prime) sink.push(encoder.encode(`id: ${id}_0\nretry: ${RETRY_MS}\ndata: \n\n`));
      return state;
    },
    streamOf(lastEventId) {
      const match = /^(s\d+)_(\d+)$/.exec(lastEventId);
      return match ? streams.get(match[1]) : undefined;
    },
    resume(lastEventId, sink) {
      const match = /^(s\d+)_(\d+)$/.exec(lastEventId);
      const state = match ? streams.get(match[1]) : undefined;
      if (match === null || state === undefined) {
        return `Last-Event-ID "${lastEventId}" names no stream this session keeps`;
      }
      const replay = state.after(Number(match[2]));
      if (replay === undefined) {
        return `the events after "${lastEventId}" are no longer kept`;
      }
      for (const event of replay) sink.push(event);
      if (state.ended) sink.close();
      else state.attach(sink);
      return state;
    },
    close() {
      if (closed) return;
      closed = true;
      budget.remove(owner, bytes);
      bytes = 0;
      streams.clear();
    },
  };
}
