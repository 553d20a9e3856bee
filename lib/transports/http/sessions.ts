// 2025-era sessions over Streamable HTTP (adr/0030). A claim-less
// `initialize` that succeeds opens one: a random id the client sends back as
// `Mcp-Session-Id`, and a connection engine (connection/connection.ts) over the core `Session`
// its `initialize` pinned, as one stdio connection has: its requests in flight, the requests
// the server sends the client (each written on the event stream of the POST whose tool sent
// it, kept for a resumption if its client left, or, once that call has answered, on the
// session's standalone GET stream if one is open), and what a reload changed; and the events
// its streams sent, for resumption (events.ts).
// Sessions are bounded: one idle for the TTL
// is forgotten, and past the cap (a count, and the bytes of the `initialize` bodies that
// made them) the least recently used goes, idle ones first, never the one being opened. One
// timer sweeps, only while sessions exist.
import { idOf } from "../../util/instance.ts";
import type { JsonObject } from "../../util/json.ts";
import type { EventStream } from "./answer.ts";
import { createSessionEvents, type EventBudget, type SessionEvents } from "./events.ts";
import type { Connection } from "../../connection/connection.ts";
import { agreedVersion, type Session, type SessionEnd } from "../../methods/session.ts";
import type { Origin } from "../../methods/context.ts";
import { callerOf } from "../../methods/caller.ts";

export const SESSION_ID_HEADER = "Mcp-Session-Id";

/** Defaults: a session idle for half an hour is forgotten; at most 10,000 live at once. */
export const SESSION_TTL_MS = 30 * 60 * 1000;
/**
 * What live sessions hold may add up to this many bytes: each counts SESSION_BYTES and what its
 * `initialize` left it (`keptBytes`, at most ~20 KiB: lib/methods/session.ts), whatever the size of
 * the body, which --max-message-bytes bounds and nothing keeps. 48 MiB: 10,000 bare sessions
 * fit, and every bound together stays within limits.md's worst case (adr/0058).
 */
export const MAX_SESSION_BYTES = 48 * 1024 * 1024;
/**
 * What a session costs before its client's capabilities: its entry, its connection engine,
 * its event log, its core Session (~3.8 KB each measured with 10,000 sessions:
 * bench/session_memory.ts).
 */
export const SESSION_BYTES = 4 * 1024;
/** The sweep runs this often at most (more often only for a shorter TTL). */
const SWEEP_EVERY_MS = 60 * 1000;

export interface HttpSession {
  readonly id: string;
  /**
   * Whose it is, when callers are authenticated (OAuth): the session id is not a credential, so
   * a request for it with another caller's token is answered as if there were no such session.
   */
  readonly owner: string | undefined;
  /** Where its requests come from, as middleware sees it (`transport`, `sessionId`). */
  readonly origin: Origin;
  /** The core's view: the era pin `initialize` set, the log level. */
  readonly core: Session;
  /**
   * Its connection engine: its requests in flight, the requests it sends the client, what a
   * reload changed (sent on the standalone stream).
   */
  readonly connection: Connection;
  /** What it holds, about (SESSION_BYTES and what its `initialize` kept): its weight. */
  readonly bytes: number;
  /** What its event streams sent, kept for a GET with `Last-Event-ID`. */
  readonly events: SessionEvents;
  /** When it was opened (the table's clock). */
  readonly opened: number;
  lastUsed: number;
  /**
   * The standalone stream a GET opened, for what the server sends outside any call; at most
   * one. Closed when the session ends; while open, the session does not expire.
   */
  standalone: EventStream | undefined;
}

interface SessionTableOptions {
  /** This instance's name, the first part of every session id it makes (`<name>.<uuid>`). */
  instance: string;
  ttlMs: number;
  maxSessions: number;
  maxBytes: number;
  /** What the events kept for resumption may add up to, across sessions. */
  events: EventBudget;
  /** The clock, in milliseconds; `Date.now` unless a test drives it. */
  now?: () => number;
  /**
   * The engine of a new session: `send` takes what belongs to no request (the session's
   * standalone stream, when one is open).
   */
  connect(session: Session, origin: Origin, send: (message: JsonObject) => void): Connection;
  /** Told of each session that ends, however it ends (telemetry, when it is on). */
  ended?: (end: SessionEnd) => void;
}

export interface SessionTable {
  /**
   * Adds a session whose `initialize` succeeded, counting what it keeps (not the size of its
   * `initialize` body); evicts the least recently used past a cap. It is bound to the caller of
   * the request that opened it (`core.facts`).
   */
  open(core: Session): HttpSession;
  /** The live session with this id, marked used; undefined if unknown, ended or expired. */
  get(id: string): HttpSession | undefined;
  /** A request of the session has finished: it counts as use. */
  finished(session: HttpSession): void;
  /** The session's GET stream has closed (the client left): it counts as use. */
  unlistened(session: HttpSession, stream: EventStream): void;
  /** Ends a session: its requests are aborted, its requests to the client rejected. */
  end(id: string, reason: string): boolean;
  /** Forgets every session idle for the TTL (the timer calls it). */
  sweep(): void;
  /** The live sessions (for what the server tells every one of them). */
  all(): IterableIterator<HttpSession>;
  /**
   * Forgets every session and stops the timer (shutdown): what they await from clients is
   * rejected, but their calls in flight run on (the drain's grace period is theirs).
   */
  close(reason: string): void;
  readonly size: number;
}

export function createSessionTable(options: SessionTableOptions): SessionTable {
  const now = options.now ?? Date.now;
  /** In order of last use, least recent first (a use moves a session to the end). */
  const sessions = new Map<string, HttpSession>();
  let bytes = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  /** Forgets a session and rejects what it awaits from the client; `abort` ends its calls. */
  function remove(session: HttpSession, reason: string, abort = true): void {
    sessions.delete(session.id);
    bytes -= session.bytes;
    session.connection.close(reason, abort);
    const standalone = session.standalone;
    session.standalone = undefined;
    standalone?.close();
    session.events.close();
    if (sessions.size === 0) stopTimer();
    options.ended?.({
      transport: "http",
      protocolVersion: agreedVersion(session.core),
      seconds: (now() - session.opened) / 1000,
    });
  }

  function stopTimer(): void {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  }

  function touch(session: HttpSession): void {
    session.lastUsed = now();
    sessions.delete(session.id);
    sessions.set(session.id, session);
  }

  /** A request in flight or an open GET stream: the client is still there. */
  function busy(session: HttpSession): boolean {
    return session.connection.size() > 0 || session.standalone !== undefined;
  }

  function expired(session: HttpSession, at: number): boolean {
    return !busy(session) && at - session.lastUsed >= options.ttlMs;
  }

  /**
   * The session to end past a cap, in order of last use: the first idle one (nothing in flight,
   * no GET stream), else the first with only a GET stream, else the first at all, and never
   * `newest`, the one that is being opened. An open GET stream is what an idle 2025-era client
   * keeps, so it cannot protect a session: with a cap full of listening clients, refusing the
   * new `initialize` (503) would lock every new client out for as long as those stay
   * connected, and evicting the new one answered `initialize` with a session already gone
   * (its first request 404, its client looping). Its evicted client gets 404 and initializes
   * again, as the spec has it; calls in flight are ended only when every session has one.
   */
  function victim(newest: HttpSession): HttpSession | undefined {
    let listening: HttpSession | undefined;
    let calling: HttpSession | undefined;
    for (const session of sessions.values()) {
      if (session === newest) continue;
      if (session.connection.size() > 0) calling ??= session;
      else if (session.standalone !== undefined) listening ??= session;
      else return session;
    }
    return listening ?? calling;
  }

  function sweep(): void {
    const at = now();
    for (const session of [...sessions.values()]) {
      if (expired(session, at)) remove(session, "the session expired");
      // In order of last use: the first one used within the TTL ends the sweep, unless it
      // is busy (a busy session keeps its place and its age).
      else if (!busy(session)) break;
    }
  }

  return {
    open(core) {
      const size = SESSION_BYTES + (core.pin.era === "session" ? core.pin.client.keptBytes : 0);
      const id = idOf(options.instance);
      const origin: Origin = Object.freeze({ transport: "http", sessionId: id });
      const opened = now();
      const session: HttpSession = {
        id,
        owner: callerOf(core.facts?.caller),
        origin,
        core,
        // What belongs to no request goes on the GET stream; without one, nowhere.
        connection: options.connect(core, origin, (message) => session.standalone?.send(message)),
        bytes: size,
        events: createSessionEvents(options.events),
        opened,
        lastUsed: opened,
        standalone: undefined,
      };
      sessions.set(session.id, session);
      bytes += size;
      while (sessions.size > options.maxSessions || bytes > options.maxBytes) {
        const evicted = victim(session);
        if (evicted === undefined) break; // the new session alone: it is kept
        remove(evicted, "the session was evicted: too many sessions");
      }
      if (timer === undefined) {
        const every = setInterval(sweep, Math.min(options.ttlMs, SWEEP_EVERY_MS));
        Deno.unrefTimer(every); // an idle table must not keep the process alive
        timer = every;
      }
      return session;
    },
    get(id) {
      const session = sessions.get(id);
      if (session === undefined) return undefined;
      if (expired(session, now())) {
        remove(session, "the session expired");
        return undefined;
      }
      touch(session);
      return session;
    },
    finished(session) {
      if (sessions.get(session.id) === session) touch(session);
    },
    unlistened(session, stream) {
      if (session.standalone !== stream) return;
      session.standalone = undefined;
      if (sessions.get(session.id) === session) touch(session);
    },
    end(id, reason) {
      const session = sessions.get(id);
      if (session === undefined) return false;
      remove(session, reason);
      return true;
    },
    sweep,
    all: () => sessions.values(),
    close(reason) {
      // Shutdown: calls in flight keep their grace period; only waiting on the client ends.
      for (const session of [...sessions.values()]) remove(session, reason, false);
      stopTimer();
    },
    get size() {
      return sessions.size;
    },
  };
}
