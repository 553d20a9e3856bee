// What the steps of the MCP endpoint share (adr/0025): the connection engines (one stateless
// engine for every 2026-07-28 POST, one per 2025-era session, all drawing on one set of
// concurrency slots), the session table, the budgets of request bodies and unsent answers, and
// the drain. `run` hands one admitted request to its engine and turns what the engine says
// into the HTTP answer: JSON at once, or, when the answer comes later, a 200 whose body carries
// it (an event stream when the request may send something first).
import type { JsonObject } from "../../util/json.ts";
import type { Diagnostics } from "../../util/diagnostics.ts";
import { createSlots, type Slots } from "../../util/slots.ts";
import { firstTimeOf } from "../../util/first_time.ts";
import { instanceOf, randomInstanceName } from "../../util/instance.ts";
import { throttledReport } from "../../util/throttled_report.ts";
import { internalError, shuttingDown } from "../../wire/errors.ts";
import type { Request as RpcRequest } from "../../wire/extract.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";
import type { Registry } from "../../primitives/registry.ts";
import type { FactBag } from "../../methods/facts.ts";
import { callerOf } from "../../methods/caller.ts";
import type { Origin, Outbound } from "../../methods/context.ts";
import type { Session, SessionEnd } from "../../methods/session.ts";
import type { Core } from "../../core/handle.ts";
import {
  type Connection,
  createConnection,
  type Flight,
  MAX_LONG_LIVED,
} from "../../connection/connection.ts";
import { createAnswer, KEEP_ALIVE_MS, type OpenLog, type StreamedAnswer } from "./answer.ts";
import { type BodyBudget, createBodyBudget } from "./body.ts";
import { createEventBudget } from "./events.ts";
import { sessionNotFound, sessionRequired, sessionVersionMismatch } from "./errors.ts";
import { coreAnswer, coreRefusal, refuse, STATUSES } from "./statuses.ts";
import { PROTOCOL_VERSION_HEADER } from "./headers.ts";
import type { Connection as HttpConnection } from "./listener.ts";
import {
  createSessionTable,
  type HttpSession,
  MAX_SESSION_BYTES,
  SESSION_ID_HEADER,
  SESSION_TTL_MS,
  type SessionTable,
} from "./sessions.ts";
import { closingWith, createUnsentLedger, type UnsentLedger } from "./unsent.ts";
import type { Slice } from "../../settings/table.ts";

/** Dropped answers are reported at most this often. */
const DROP_REPORT_EVERY_MS = 60_000;
/** The client capabilities that let a 2025-era server send requests to the client. */
const ASKABLE = ["sampling", "elicitation", "roots"];
/** Where a 2026-07-28 request over HTTP comes from (a session has an origin of its own). */
const STATELESS: Origin = Object.freeze({ transport: "http", sessionId: undefined });

/** The HTTP settings the endpoint reads (the defaults applied), and what it serves with. */
export interface EndpointOptions extends
  Pick<
    Slice<"http">,
    "maxMessageBytes" | "maxBodyBytes" | "maxUnsentBytes" | "maxSessions" | "instanceName"
  > {
  readonly core: Core;
  /** What is served: a reload's changes go to each session's GET stream. */
  readonly registry: Registry;
  readonly diagnostics: Diagnostics;
  /** Requests that may run at once, across all connections; more wait in arrival order. */
  readonly maxConcurrency: number;
  /** An event stream idle this long gets a `: keep-alive` comment (default 15 s). */
  readonly keepAliveMs?: number;
  /** Listen streams the server may hold open at once, all clients together (default 1,024). */
  readonly maxListens?: number;
  /** A 2025-era session unused this long is forgotten (default 30 minutes). */
  readonly sessionTtlMs?: number;
  /** The clock sessions age by, in milliseconds (`Date.now` unless a test drives it). */
  readonly now?: () => number;
  /** Told of each 2025-era session that ends (telemetry, when it is on). */
  readonly sessionEnded?: (end: SessionEnd) => void;
}

/** What `run` needs besides the request: its exchange's parts. */
interface RunOptions {
  /** The client accepts an event stream. */
  readonly canStream: boolean;
  /** Gives the body's bytes back to the budget (once it is answered). */
  readonly releaseBody: () => void;
  readonly connection: HttpConnection;
  /** The 2025-era session it belongs to; undefined for a 2026-07-28 request. */
  readonly session?: HttpSession;
  /** What the steps learnt of it (Exchange.facts), handed to the engine as is. */
  readonly facts?: FactBag;
  /** The challenge of a 403 refusing it for scopes (Exchange.scopeChallenge). */
  readonly scopeChallenge?: (required: readonly string[]) => string;
}

export interface Endpoint {
  readonly core: Core;
  readonly diagnostics: Diagnostics;
  readonly keepAliveMs: number;
  readonly sessions: SessionTable;
  readonly bodies: BodyBudget;
  readonly unsent: UnsentLedger;
  readonly maxMessageBytes: number;
  /** True once the drain has begun: new requests get 503. */
  readonly draining: boolean;
  /**
   * The session a 2025-era request's `Mcp-Session-Id` names, or the answer saying why there is
   * none to serve it: 503 while draining (404 would ask for a new session), 400 without an id or
   * with another version than the session's, 404 for one unknown or ended (naming the instance
   * that opened it, when another). `id` is the JSON-RPC id the answer carries, if any.
   */
  sessionFor(
    id: RequestId | undefined,
    headers: Headers,
    facts: FactBag | undefined,
  ): HttpSession | Response;
  /** The 404 error for a session id no live session has, naming the instance that opened it. */
  missing(sessionId: string): RpcError;
  /**
   * Hands an admitted request to its engine (the session's, else the stateless one) and gives
   * its answer; `releaseBody` gives the body's bytes back once it is answered.
   */
  run(request: RpcRequest, how: RunOptions): Response | Promise<Response>;
  /** The readiness probe's text: `ready (2 running, 1 waiting)`. */
  load(): string;
  /** The same and more as numbers, for the gauges of --metrics. */
  counts(): EndpointCounts;
  /**
   * Begins the drain: new requests get 503, long-lived requests are asked to close, what the
   * sessions await from clients is rejected and the sessions end; resolves once no request
   * is running or waiting. Called again, it gives the same drain.
   */
  drain(): Promise<void>;
  /** Aborts what runs, and ends what waits with 503 (the grace period is over). */
  abort(reason: string): void;
}

/** What the endpoint holds now. */
export interface EndpointCounts {
  /** Requests running (listen streams included) and waiting for a slot. */
  readonly running: number;
  readonly waiting: number;
  /** Live 2025-era sessions. */
  readonly sessions: number;
  /** Event streams open (a call's answer, a session's GET stream, a listen). */
  readonly streams: number;
}

export function createEndpoint(options: EndpointOptions): Endpoint {
  const { core, diagnostics } = options;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  // One process-wide cap, since every POST is a connection of its own.
  const slots: Slots = createSlots(options.maxConcurrency);
  const maxListens = options.maxListens ?? MAX_LONG_LIVED;
  /** Long-lived requests (listen streams) open now: each holds a connection. */
  let listens = 0;
  let draining = false;
  const instance = options.instanceName ?? randomInstanceName();
  /** Instances whose sessions reached this one, said once each on stderr (a few at most). */
  const firstStray = firstTimeOf();
  const connect = (session: Session | undefined, origin: Origin, send: (m: JsonObject) => void) =>
    createConnection({
      core,
      session,
      origin,
      send,
      slots,
      // The process-wide cap on listens is this endpoint's (maxListens, 503).
      maxLongLived: Infinity,
      registry: session === undefined ? undefined : options.registry,
    });
  /** Every 2026-07-28 POST, whichever client sent it: nothing of it is keyed by id. */
  const stateless = connect(undefined, STATELESS, () => {});
  const sessions = createSessionTable({
    instance,
    ttlMs: options.sessionTtlMs ?? SESSION_TTL_MS,
    maxSessions: options.maxSessions,
    maxBytes: MAX_SESSION_BYTES,
    events: createEventBudget(),
    now: options.now,
    connect,
    ended: options.sessionEnded,
  });
  const bodies = createBodyBudget(options.maxBodyBytes);
  const maxUnsent = options.maxUnsentBytes;
  const reportDrop = throttledReport(diagnostics, DROP_REPORT_EVERY_MS);
  const unsent = createUnsentLedger(maxUnsent, (bytes) =>
    reportDrop(
      `Dropped an answer of ${bytes} bytes its client did not read, and closed its ` +
        `connection: answers waiting for clients passed --max-unsent-bytes (${maxUnsent})`,
    ));
  /** The engines that may hold requests: the stateless one and every session's. */
  const engines = () => [stateless, ...[...sessions.all()].map((session) => session.connection)];
  /** Kept once the drain has begun (the sessions have been forgotten by then). */
  let drained: Connection[] | undefined;
  /** Resolves once the drain's engines are idle. */
  let idle: Promise<void> | undefined;

  /** The 404 error for a session id no live session has, naming the instance that opened it. */
  function missing(sessionId: string): RpcError {
    const openedBy = instanceOf(sessionId);
    if (openedBy === undefined || openedBy === instance) return sessionNotFound();
    if (firstStray(openedBy)) {
      diagnostics.error(
        `A request for a session of instance "${openedBy}" reached this instance ` +
          `("${instance}"): the load balancer must send a session's requests to the instance ` +
          "that opened it (see docs/operating/scaling.md)",
      );
    }
    return sessionNotFound(openedBy);
  }

  function run(request: RpcRequest, how: RunOptions): Response | Promise<Response> {
    const { canStream, releaseBody, connection, session } = how;
    if (draining) {
      releaseBody();
      return refuse("shuttingDown", request.id, shuttingDown());
    }
    // A long-lived request (subscriptions/listen) holds no slot: it waits, it does not work.
    // It holds a connection, though, so there is a cap on how many stay open.
    const longLived = core.method(request.method)?.longLived === true;
    if (longLived && listens >= maxListens) {
      releaseBody();
      const full = internalError(`the server already holds ${maxListens} listen streams open`);
      return refuse("full", request.id, full);
    }
    // A session's event streams are resumable: their events are kept for Last-Event-ID.
    const openLog: OpenLog | undefined = session &&
      ((sink) => session.events.open(sink, primes(session.core)));
    const answer = createAnswer(
      canStream,
      closingWith(unsent, connection.close),
      keepAliveMs,
      openLog,
    );
    // Whether the request may send notifications (or, in a session, requests) before its
    // answer: then a pending answer is an event stream, else JSON.
    const mayNotify = longLived || request.progressToken !== undefined ||
      (session ? mayAsk(session.core) : request.envelope?.logLevel !== undefined);
    if (longLived) listens++;
    const engine = session?.connection ?? stateless;
    // The answer, once there is one: a synchronous handler's arrives before `engine.request`
    // returns, and is given as it is (no promise, no turn of the event loop); a later one
    // settles the promise made meanwhile. Only the first counts (a stream, then its end).
    let settled: Response | undefined;
    let later: ((response: Response) => void) | undefined;
    const resolve = (response: Response) => {
      if (settled !== undefined) return;
      settled = response;
      later?.(response);
    };
    let streamed: StreamedAnswer | undefined;
    /**
     * The request while it runs. Forgotten once answered: an answer's body outlives it, for
     * as long as its client takes to read, and must not keep what the call made (the
     * request, the handler's result: twice an answer's size, adr/0058).
     */
    let flight: Flight | undefined;
    let answered = false;
    const running = engine.request(request, {
      facts: how.facts,
      outlet: {
        notify: answer.notify,
        // 2026-07-28: the server sends no requests. In a session, they go on this request's
        // event stream, which a client that accepts none does not have.
        outbound: session === undefined ? undefined : canStream ? undefined : NO_STREAM,
        // SEP-1699 polling, for streams that start with a priming event (an id to resume from).
        closeStream: session !== undefined && primes(session.core)
          ? () => answer.closeStream(mayNotify)
          : undefined,
      },
      // The core raises its routing errors before any handler runs, at once: an answer still
      // pending can only be 200, and it goes now, so that the client closing the connection
      // reaches the handler as cancellation.
      onPending() {
        streamed = answer.stream(mayNotify, () => {
          // A resumable stream's call goes on: the client may GET the rest with Last-Event-ID
          // (or cancel it with notifications/cancelled). Otherwise leaving is cancelling.
          if (streamed!.resumable || flight === undefined) return;
          flight.detach();
          flight.controller.abort("the client closed the connection");
        });
        resolve(streamed.response);
      },
      reply(response, ctx) {
        answered = true;
        flight = undefined;
        releaseBody();
        if (longLived) listens--;
        if (session) sessions.finished(session);
        if (streamed !== undefined) {
          if (response !== undefined) streamed.finish(response);
          return;
        }
        // Ended while it waited for a slot: the grace period of shutdown ended before its
        // turn, or its session ended.
        if (response === undefined) {
          return resolve(refuse("shuttingDown", request.id, shuttingDown()));
        }
        const refusal = coreRefusal(
          response,
          ctx?.outcome,
          session !== undefined,
          request.method === "initialize",
          how.scopeChallenge,
        );
        if (refusal === undefined) return resolve(answer.complete(response, 200));
        // A refusal with headers of its own (a challenge, Retry-After) is answered as JSON.
        if (refusal.headers !== undefined) return resolve(coreAnswer(response, refusal));
        resolve(answer.complete(response, STATUSES[refusal.row].status));
      },
    });
    if (!answered) flight = running;
    return settled ?? new Promise<Response>((settle) => later = settle);
  }

  return {
    core,
    diagnostics,
    keepAliveMs,
    sessions,
    bodies,
    unsent,
    maxMessageBytes: options.maxMessageBytes,
    get draining() {
      return draining;
    },
    sessionFor(id, headers, facts) {
      if (draining) return refuse("shuttingDown", id, shuttingDown());
      const sessionId = headers.get(SESSION_ID_HEADER);
      if (sessionId === null) return refuse("sessionRequired", id, sessionRequired());
      const session = sessions.get(sessionId);
      // Another caller's session is answered as none at all: the id is not a credential.
      if (session === undefined || session.owner !== callerOf(facts?.caller)) {
        return refuse("sessionNotFound", id, missing(sessionId));
      }
      const negotiated = negotiatedVersion(session.core);
      const claimed = headers.get(PROTOCOL_VERSION_HEADER);
      if (claimed !== null && negotiated !== undefined && claimed !== negotiated) {
        return refuse("sessionVersionMismatch", id, sessionVersionMismatch(claimed, negotiated));
      }
      return session;
    },
    missing,
    run,
    load() {
      const waiting = slots.waiting();
      return `${slots.held() + listens} running, ${waiting} waiting`;
    },
    counts: () => ({
      running: slots.held() + listens,
      waiting: slots.waiting(),
      sessions: sessions.size,
      streams: unsent.streams(),
    }),
    drain() {
      // Once: a second call (a second signal, a second close()) waits for the same drain.
      if (drained === undefined) {
        draining = true;
        drained = engines();
        for (const engine of drained) engine.closeLongLived();
        // Requests sent to clients are rejected now (their tools answer); the sessions end.
        sessions.close("the server is shutting down");
        idle = Promise.all(drained.map((engine) => engine.idle())).then(() => {});
      }
      return idle!;
    },
    abort(reason) {
      // What runs answers as its handler sees the abort; what waits gets 503 (run()).
      for (const engine of drained ?? engines()) engine.close(reason);
    },
  };
}

/** The version a session negotiated (every session in the table is pinned to a 2025-era version). */
function negotiatedVersion(session: Session): string | undefined {
  return session.pin.era === "session" ? session.pin.client.protocolVersion : undefined;
}

/**
 * Whether a session's event streams start with a priming event (an id and `retry`, no data):
 * from 2025-11-25 on (SEP-1699); older clients may choke on an event without data.
 */
export function primes(session: Session): boolean {
  const version = negotiatedVersion(session);
  return version !== undefined && version >= "2025-11-25";
}

/** Whether a session's request may send the client something before its answer. */
function mayAsk(session: Session): boolean {
  if (session.logLevel !== undefined) return true;
  if (session.pin.era !== "session") return false;
  const declared = session.pin.client.clientCapabilities;
  return ASKABLE.some((capability) => capability in declared);
}

/** The way back for a session's request whose client accepts no event stream: none. */
const NO_STREAM: Outbound = {
  request: (method) =>
    Promise.reject(
      new Error(
        `Cannot send ${method}: the client's request does not accept text/event-stream, ` +
          `the only way a request can reach it`,
      ),
    ),
  settle: () => false,
  close() {},
  pending: () => 0,
};
