// The HTTP listener (adr/0021): toolshed accepts each TCP connection itself and has Deno serve
// HTTP on it, so that it can count connections, refuse those past a cap, and close one that
// holds a descriptor without a request in progress. `Deno.serve` accepts on its own: a
// connection that never sends a byte stays open for ever, and when accept() reaches the
// open-file limit its serve loop ends, and with it the server.
//
// Deno serves one connection through `serveHttpOnConnection`, the function its node:http
// layer uses, reached through `Deno[Deno.internal]` (no public API takes an accepted
// connection). Where a Deno lacks it, `Deno.serve` takes over, without these bounds, and
// says so once; tests/http_listener_test.ts fails if the pinned Deno loses it.
import { messageOf } from "../../util/json.ts";
import type { Diagnostics } from "../../util/diagnostics.ts";
import { throttledReport } from "../../util/throttled_report.ts";

import { BODY_TIMEOUT_MS } from "../../settings/values.ts";
export { BODY_TIMEOUT_MS };
/** How often deadlines are looked at: a deadline fires up to this much early or late. */
const SWEEP_MS = 1_000;
/** Refused connections and failed accepts are reported at most this often. */
const REPORT_EVERY_MS = 10_000;
/** The answer a refused connection gets before it is closed. */
const FULL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 1\r\n" +
    "content-type: text/plain; charset=utf-8\r\ncontent-length: 48\r\n\r\n" +
    "The server holds as many connections as it may\n",
);

/** What a request's handler may do to the connection it arrived on. */
export interface Connection {
  /** Closes the connection now (its answer, if unsent, is lost). */
  close(): void;
  /**
   * Closes the connection once the request in progress is answered: for a body left unread
   * (refused, or late), which the client may still be sending.
   */
  closeWhenAnswered(): void;
  /**
   * Calls `expire` if the returned function has not been called within the body deadline:
   * the request's body is then late (a large body, read chunk by chunk, answered 408).
   */
  bodyDeadline(expire: () => void): () => void;
  /**
   * A small body is being read (`readingEnded` when it is in): one that is not in within
   * the body deadline closes the connection. Cheaper than `bodyDeadline`, which costs every
   * request a watch and a race (~4 µs of ~65, bench:http's profile).
   */
  readingStarted(): void;
  readingEnded(): void;
}

type ConnectionHandler = (
  request: Request,
  connection: Connection,
  info: Deno.ServeHandlerInfo | undefined,
) => Response | Promise<Response>;

interface ListenerOptions {
  hostname: string;
  port: number;
  handler: ConnectionHandler;
  /** Answers a request whose handler threw. */
  onError(error: unknown): Response;
  /** Open connections past which a new one gets a 503 and is closed. */
  maxConnections: number;
  /** A connection with no request in progress this long is closed. */
  idleTimeoutMs: number;
  /** How long a request body may take to arrive after its headers. */
  bodyTimeoutMs: number;
  diagnostics: Diagnostics;
  /**
   * Names the listener in what it reports ("the metrics listener"); absent: the MCP endpoint's,
   * whose cap is --max-connections.
   */
  name?: string;
  /** Where Deno's per-connection server is found; tests pass none to try the fallback. */
  serveConnection?: ServeConnection | null;
}

export interface Listener {
  readonly addr: Deno.NetAddr;
  /** Resolves once the listener and every connection have closed. */
  readonly finished: Promise<void>;
  /** Stops accepting; each connection closes once its requests are answered. */
  shutdown(): Promise<void>;
  /** Closes every connection now. */
  close(): void;
  /** Connections open now, and connections refused so far. */
  counts(): { open: number; refused: number };
}

/** Deno's server for one accepted connection (its `serveHttpOnConnection`). */
type ServeConnection = (
  connection: Deno.Conn,
  signal: AbortSignal,
  handler: (request: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => { finished: Promise<void>; shutdown(): Promise<void> };

interface Open {
  readonly controller: AbortController;
  /** Requests whose answer is not yet delivered. */
  active: number;
  /** When the last request was delivered (or the connection opened). */
  idleSince: number;
  /** Close once the requests in progress are delivered (by the next sweep). */
  closing: boolean;
  /** Small bodies being read, and when the oldest of them began (or was last extended). */
  reading: number;
  readingSince: number;
  /**
   * Deno's server for it has closed, or is closing gracefully: aborting it now would throw
   * from Deno's own abort listener (its resource is gone).
   */
  over: boolean;
  served: { finished: Promise<void>; shutdown(): Promise<void> } | undefined;
}

interface BodyWatch {
  readonly since: number;
  readonly expire: () => void;
}

/** Deno's `serveHttpOnConnection`, if this Deno has it. */
export function denoServeConnection(): ServeConnection | undefined {
  const internal = (Deno as unknown as Record<symbol, unknown>)[
    (Deno as unknown as { internal: symbol }).internal
  ] as { serveHttpOnConnection?: unknown } | undefined;
  const serve = internal?.serveHttpOnConnection;
  return typeof serve === "function" ? serve as ServeConnection : undefined;
}

/**
 * The open-file limit of this process (the soft one), read from /proc on Linux; undefined
 * where it cannot be read.
 */
export function openFileLimit(): number | undefined {
  try {
    const limits = Deno.readTextFileSync("/proc/self/limits");
    const line = limits.split("\n").find((row) => row.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    const value = Number(soft);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection cap for `wanted` (--max-connections): at most half the open-file limit,
 * so that tools, Redis and files keep the rest of the descriptors.
 */
export function connectionCap(wanted: number, limit = openFileLimit()): number {
  const cap = limit === undefined ? Infinity : Math.max(1, Math.floor(limit / 2));
  return Math.min(wanted, cap);
}

export function listen(options: ListenerOptions): Listener {
  const serveConnection = options.serveConnection === undefined
    ? denoServeConnection()
    : options.serveConnection ?? undefined;
  if (serveConnection === undefined) return fallback(options);
  const { diagnostics, handler } = options;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const open = new Set<Open>();
  const bodies = new Set<BodyWatch>();
  let refused = 0;
  let stopped = false;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let allClosed: (() => void) | undefined;
  const report = throttledReport(diagnostics, REPORT_EVERY_MS);
  const capOf = options.name ?? "--max-connections";
  const forWhom = options.name === undefined ? "" : ` for ${options.name}`;
  /**
   * The time, as of the last sweep: what a request stamps, so that none reads the clock.
   * Deadlines are whole sweeps anyway; a stamp is up to one sweep old.
   */
  let clock = performance.now();

  const sweep = () => {
    const now = clock = performance.now();
    for (const connection of open) {
      if (connection.reading > 0 && now - connection.readingSince >= options.bodyTimeoutMs) {
        abort(connection, "its request's body did not arrive in time");
        continue;
      }
      if (connection.active > 0) continue;
      const idle = now - connection.idleSince;
      // Deno reports an answer delivered before its last bytes are flushed: a connection
      // to close after its answer waits for the next sweep.
      if (idle >= options.idleTimeoutMs) abort(connection, "the connection was idle");
      else if (connection.closing) abort(connection, "its request's body was left unread");
    }
    for (const watch of bodies) {
      if (now - watch.since >= options.bodyTimeoutMs) {
        bodies.delete(watch);
        watch.expire();
      }
    }
    if (open.size === 0 && bodies.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const serve = (conn: Deno.Conn) => {
    const state: Open = {
      controller: new AbortController(),
      active: 0,
      idleSince: clock,
      closing: false,
      reading: 0,
      readingSince: 0,
      over: false,
      served: undefined,
    };
    open.add(state);
    if (sweeper === undefined) {
      clock = state.idleSince = performance.now();
      const every = setInterval(sweep, Math.min(SWEEP_MS, options.idleTimeoutMs));
      Deno.unrefTimer(every); // open connections keep the process alive, not this timer
      sweeper = every;
    }
    const connection: Connection = {
      close: () => abort(state, "the server closed the connection"),
      closeWhenAnswered() {
        state.closing = true;
      },
      bodyDeadline(expire) {
        const watch = { since: clock, expire };
        bodies.add(watch);
        return () => bodies.delete(watch);
      },
      readingStarted() {
        // Each read restarts the deadline of those in progress: only HTTP/2 has several.
        state.reading++;
        state.readingSince = clock;
      },
      readingEnded() {
        state.reading--;
      },
    };
    const delivered = () => {
      state.active--;
      state.idleSince = clock;
    };
    const perRequest = (request: Request, info?: Deno.ServeHandlerInfo) => {
      state.active++;
      // Delivered, or the connection broke: either way the request is over.
      info?.completed.then(delivered, delivered);
      return handler(request, connection, info);
    };
    const forget = () => {
      state.over = true;
      open.delete(state);
      if (stopped && open.size === 0) allClosed?.();
    };
    try {
      state.served = serveConnection(
        conn,
        state.controller.signal,
        perRequest,
        options.onError,
        () => {},
      );
      // A connection reset ends it with a rejection: the connection is gone either way.
      state.served.finished.then(forget, forget);
    } catch (error) {
      diagnostics.error("Cannot serve an HTTP connection", error);
      forget();
      try {
        conn.close();
      } catch { /* closed already */ }
    }
  };

  const refuse = (conn: Deno.Conn) => {
    refused++;
    report(
      `Refused a connection${forWhom}: ${open.size} are open, the most ${capOf} allows ` +
        `(${options.maxConnections})`,
    );
    conn.write(FULL).catch(() => {}).finally(() => {
      try {
        conn.close();
      } catch { /* closed already */ }
    });
  };

  const accepting = (async () => {
    let backoff = 10;
    while (!stopped) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (stopped || error instanceof Deno.errors.BadResource) break;
        // Out of descriptors (EMFILE, ENFILE) or a connection aborted before it was
        // accepted: wait a little and go on; the server must outlive it.
        report(`Cannot accept a connection${forWhom}: ${messageOf(error)}`);
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 1_000);
        continue;
      }
      backoff = 10;
      if (open.size >= options.maxConnections) refuse(conn);
      else serve(conn);
    }
  })();

  const stopAccepting = () => {
    if (stopped) return;
    stopped = true;
    try {
      listener.close();
    } catch { /* closed already */ }
  };

  const closed = new Promise<void>((resolve) => allClosed = resolve);
  const finished = accepting.then(() => open.size === 0 ? undefined : closed).then(() => {
    clearInterval(sweeper);
  });

  return {
    addr: listener.addr as Deno.NetAddr,
    finished,
    async shutdown() {
      stopAccepting();
      await Promise.all(
        [...open].map((state) =>
          state.served?.shutdown().then(() => state.over = true, () => state.over = true)
        ),
      );
      await finished;
    },
    close() {
      stopAccepting();
      for (const state of open) abort(state, "the server is closing");
    },
    counts: () => ({ open: open.size, refused }),
  };
}

/** Closes a connection at once, unless Deno's server for it is over already. */
function abort(state: Open, reason: string): void {
  if (!state.over) state.controller.abort(reason);
}

/** `Deno.serve`, where this Deno cannot serve a connection toolshed accepted: no bounds. */
function fallback(options: ListenerOptions): Listener {
  options.diagnostics.error(
    "This Deno cannot serve a connection toolshed accepts itself (Deno[Deno.internal]." +
      "serveHttpOnConnection is missing): --max-connections, --idle-timeout and --body-timeout " +
      "are not enforced; use the Deno version the README names",
  );
  const closer = new AbortController();
  const connection: Connection = {
    close() {},
    closeWhenAnswered() {},
    bodyDeadline: () => () => {},
    readingStarted() {},
    readingEnded() {},
  };
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: closer.signal,
    onListen() {},
    onError: options.onError,
  }, (request, info) => options.handler(request, connection, info));
  return {
    addr: server.addr,
    finished: server.finished,
    shutdown: () => server.shutdown(),
    close: () => closer.abort(),
    counts: () => ({ open: 0, refused: 0 }),
  };
}
