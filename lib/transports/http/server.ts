// The Streamable HTTP transport (adr/0012): one endpoint, /mcp, for both eras, and
// /healthz and /readyz for whatever supervises the process. A 2026-07-28 POST carries one
// request or notification, stateless, and gets its own answer. A 2025-era client opens a
// session with `initialize` (sessions.ts) and sends its id with every later POST,
// responses to the server's own requests included, with the GET that opens its stream for
// what the server sends outside any call (or, with Last-Event-ID, to resume a stream), and
// with the DELETE that ends it. A request passes the Host/Origin guard, the bearer token (when
// one is set), the media type, the body limit and the validation ladder (admission.ts),
// waits for one of --max-concurrency slots, and then runs through the same request core as
// over stdio, with a fresh context: no session, or its 2025-era session. Its answer is JSON,
// or a stream of server-sent events when it may send notifications (or, in a session,
// requests to the client) first. Closing a 2026-07-28 stream (or any JSON answer) cancels the
// request; a session's stream is resumable (events.ts), so its request goes on. Shutdown
// drains: readiness fails, new requests get 503, sessions end, and requests in flight have the
// grace period to finish.
import { isThenable } from "../../util/maybe.ts";
import { type JsonObject, messageOf } from "../../util/json.ts";
import type { Diagnostics } from "../../util/diagnostics.ts";
import { ErrorCode, internalError, oversizeLine, shuttingDown } from "../../wire/errors.ts";
import type {
  Notification,
  Request as RpcRequest,
  Response as RpcResponse,
} from "../../wire/extract.ts";
import type { RequestId } from "../../wire/types.ts";
import { createSlots } from "../../util/slots.ts";
import { MAX_LONG_LIVED } from "../../connection/in_flight.ts";
import type { Origin, RequestContext } from "../../methods/context.ts";
import type { Core } from "../../core/handle.ts";
import type { Outbound } from "../../connection/outbound.ts";
import { createSession, type Session } from "../../methods/session.ts";
import { instanceOf, randomInstanceName } from "../../util/instance.ts";
import { firstTimeOf } from "../../util/first_time.ts";
import type { Registry } from "../../primitives/registry.ts";
import { type Admission, admit, hasModernHeader, type MirroredArguments } from "./admission.ts";
import {
  createAnswer,
  type EventStream,
  jsonAnswer,
  KEEP_ALIVE_MS,
  openEventStream,
  type OpenLog,
  resumeEventStream,
} from "./answer.ts";
import { createEventBudget } from "./events.ts";
import { type BearerCheck, challengeOf, createBearerCheck } from "./auth.ts";
import { type Body, type BodyBudget, createBodyBudget, readBody, type Unread } from "./body.ts";
import {
  BODY_TIMEOUT_MS,
  type Connection,
  connectionCap,
  IDLE_TIMEOUT_MS,
  listen as listenHttp,
} from "./listener.ts";
import { closingWith, createUnsentLedger, MAX_UNSENT_BYTES } from "./unsent.ts";
import { throttledReport } from "../../util/throttled_report.ts";
import {
  cannotResume,
  errorMessage,
  notAcceptable,
  refused,
  sessionNotFound,
  sessionRequired,
  sessionVersionMismatch,
  statusOf,
  streamConflict,
  unauthorized,
} from "./errors.ts";
import { createHostGuard, hostNameOf, LOOPBACK_NAMES } from "./guard.ts";
import { acceptsEventStream, isJsonContentType, PROTOCOL_VERSION_HEADER } from "./headers.ts";
import {
  createSessionTable,
  type HttpSession,
  MAX_SESSION_BYTES,
  MAX_SESSIONS,
  SESSION_ID_HEADER,
  SESSION_TTL_MS,
} from "./sessions.ts";
import { settlesWithin } from "../../util/settles_within.ts";

/** The one MCP endpoint. */
export const MCP_PATH = "/mcp";

export interface HttpOptions {
  /** The address to bind (an IPv6 one without brackets). */
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  core: Core;
  /** The core's registry: where `tools/call` finds the arguments a tool mirrors in headers. */
  registry: Registry;
  /** When set, every request to /mcp must carry `Authorization: Bearer <bearerToken>`. */
  bearerToken?: string;
  /** An event stream idle this long gets a `: keep-alive` comment (default 15 s). */
  keepAliveMs?: number;
  /** One line per HTTP request through the diagnostics (`--log-requests`). */
  logRequests?: boolean;
  /** Names allowed in Host and Origin besides the loopback names and the bound address. */
  allowedHosts: readonly string[];
  /** Longest accepted request body, in bytes; a longer one gets 413. */
  maxMessageBytes: number;
  /** Requests that may run at once, across all connections; more wait in arrival order. */
  maxConcurrency: number;
  /** How long requests in flight may run on after shutdown is asked. */
  shutdownGraceMs: number;
  /** Where the transport's own troubles (a failed request, shutdown) are reported. */
  diagnostics: Diagnostics;
  /** A 2025-era session unused this long is forgotten (default 30 minutes). */
  sessionTtlMs?: number;
  /** Live 2025-era sessions past which the least recently used is ended (default 10,000). */
  maxSessions?: number;
  /** The clock sessions age by, in milliseconds (`Date.now` unless a test drives it). */
  now?: () => number;
  /** Listen streams the server may hold open at once, all clients together (default 1,024). */
  maxListens?: number;
  /**
   * This instance's name, which begins every session id it makes (default: 8 random hex
   * digits); behind a load balancer, a session id says which instance it lives on.
   */
  instanceName?: string;
  /**
   * What this instance cannot do now while staying ready (Redis unreachable: adr/0022), a
   * sentence /readyz adds to its 200; undefined when nothing.
   */
  degraded?: () => string | undefined;
  /** Connections open at once (default 1,000, at most half the open-file limit). */
  maxConnections?: number;
  /** A connection with no request in progress this long is closed (default 30 s). */
  idleTimeoutMs?: number;
  /** A request body must arrive within this long of its headers (default 30 s). */
  bodyTimeoutMs?: number;
  /**
   * Request bytes all requests together may hold, from their first byte to their answer
   * (default: twice `maxMessageBytes`); past it a request gets 503.
   */
  maxBodyBytes?: number;
  /** Answer bytes waiting for clients, all together, past which the stalest go (64 MiB). */
  maxUnsentBytes?: number;
}

export interface HttpServer {
  /** The endpoint's URL with the port actually bound: `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  /** Resolves once the server has closed. */
  readonly done: Promise<void>;
  /**
   * Drains and closes: readiness fails and new requests get 503 at once, requests in
   * flight may finish within the grace period (then they are aborted, which answers them),
   * then the listener closes. A second call while that is under way aborts them now.
   */
  shutdown(reason: string): Promise<void>;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };
/** Dropped answers are reported at most this often. */
const DROP_REPORT_EVERY_MS = 60_000;
const SHUTTING_DOWN = "the server is shutting down";
/**
 * The methods /mcp takes: POST for messages; GET for a 2025-era session's stream, DELETE to
 * end one. A 2026-07-28 client has only POST.
 */
const ALLOW = "GET, POST, DELETE";
/** Where a 2026-07-28 request over HTTP comes from (a session has an origin of its own). */
const HTTP: Origin = Object.freeze({ transport: "http", sessionId: undefined });
const ALLOW_MODERN = "POST";
/** The client capabilities that let a 2025-era server send requests to the client. */
const ASKABLE = ["sampling", "elicitation", "roots"];

/** What the request log learns about a request on its way through (`--log-requests`). */
interface RequestNote {
  /** The JSON-RPC method of the message, once it is read. */
  rpcMethod?: string;
}

export function serveHttp(options: HttpOptions): HttpServer {
  const { core, diagnostics } = options;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const checkBearer: BearerCheck | undefined = options.bearerToken === undefined
    ? undefined
    : createBearerCheck(options.bearerToken);
  const mirroredOf: MirroredArguments = (tool) =>
    options.registry.current().tools.byKey.get(tool)?.headerParams;
  // The FIFO counting semaphore programs use (it knows nothing of programs): one
  // process-wide cap, since every POST is a connection of its own.
  const slots = createSlots(options.maxConcurrency);
  /** Requests past the ladder, waiting for a slot or running, by their controllers. */
  const live = new Set<AbortController>();
  let idleWaiters: (() => void)[] = [];
  let draining = false;
  let stopping: Promise<void> | undefined;
  /** Aborted when shutdown begins: long-lived requests close with their answer. */
  const closingAll = new AbortController();
  const maxListens = options.maxListens ?? MAX_LONG_LIVED;
  /** Long-lived requests (listen streams) open now: each holds a connection. */
  let listens = 0;
  const instance = options.instanceName ?? randomInstanceName();
  /** Instances whose sessions reached this one, said once each on stderr (a few at most). */
  const firstStray = firstTimeOf();
  /** The 404 for an id no live session has, naming the instance that opened it, if another. */
  const missing = (sessionId: string) => {
    const openedBy = instanceOf(sessionId);
    if (openedBy === undefined || openedBy === instance) return sessionNotFound();
    if (firstStray(openedBy)) {
      diagnostics.error(
        `A request for a session of instance "${openedBy}" reached this instance ` +
          `("${instance}"): the load balancer must send a session's requests to the instance ` +
          "that opened it (see the README's Scaling out)",
      );
    }
    return sessionNotFound(openedBy);
  };
  const sessions = createSessionTable({
    instance,
    ttlMs: options.sessionTtlMs ?? SESSION_TTL_MS,
    maxSessions: options.maxSessions ?? MAX_SESSIONS,
    maxBytes: MAX_SESSION_BYTES,
    events: createEventBudget(),
    now: options.now,
  });

  // A reload's changes go to each 2025-era session's GET stream, as the core words them
  // (2026-07-28 has no stream outside a request until subscriptions/listen).
  const unwatch = options.registry.onChange((next, previous) => {
    for (const session of sessions.all()) {
      for (const notice of core.changeNotices(previous, next, session.core)) {
        session.standalone?.send(notice);
      }
    }
  });

  const bodies: BodyBudget = createBodyBudget(
    options.maxBodyBytes ?? 2 * options.maxMessageBytes,
  );
  const maxUnsent = options.maxUnsentBytes ?? MAX_UNSENT_BYTES;
  const reportDrop = throttledReport(diagnostics, DROP_REPORT_EVERY_MS);
  const unsent = createUnsentLedger(maxUnsent, (bytes) =>
    reportDrop(
      `Dropped an answer of ${bytes} bytes its client did not read, and closed its ` +
        `connection: answers waiting for clients passed --max-unsent-bytes (${maxUnsent})`,
    ));
  const server = listenHttp({
    hostname: options.hostname,
    port: options.port,
    maxConnections: connectionCap(options.maxConnections),
    idleTimeoutMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    bodyTimeoutMs: options.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
    diagnostics,
    onError(error) {
      diagnostics.error("An HTTP request failed", error);
      return jsonAnswer(errorMessage(undefined, internalError(messageOf(error))), 500);
    },
    handler: options.logRequests ? logged : unlogged,
  });
  const address = server.addr;
  const guard = createHostGuard([
    ...LOOPBACK_NAMES,
    ...boundNames(address.hostname),
    ...options.allowedHosts.map((name) => hostNameOf(name) ?? name),
  ]);

  function unlogged(request: Request, connection: Connection): Response | Promise<Response> {
    return route(request, connection);
  }

  /** `route`, then one line on the diagnostics once the answer is sent or abandoned. */
  async function logged(
    request: Request,
    connection: Connection,
    info: Deno.ServeHandlerInfo | undefined,
  ): Promise<Response> {
    const started = performance.now();
    const note: RequestNote = {};
    const response = await route(request, connection, note);
    const log = () => {
      const ms = (performance.now() - started).toFixed(1);
      diagnostics.error(
        `${request.method} ${pathnameOf(request.url)} ${response.status} ${
          note.rpcMethod ?? "-"
        } ${ms} ms`,
      );
    };
    if (info) info.completed.then(log, log);
    else log();
    return response;
  }

  function route(
    request: Request,
    connection: Connection,
    note?: RequestNote,
  ): Response | Promise<Response> {
    switch (pathnameOf(request.url)) {
      case undefined:
        // Deno takes the URL from the Host header: one it cannot parse is the client's
        // mistake, answered before the guard, and what it said is not echoed anywhere.
        return new Response("Bad Request: the Host header is not a valid host\n", {
          status: 400,
          headers: TEXT,
        });
      case MCP_PATH:
        return endpoint(request, connection, note);
      case "/healthz":
        return probe(request, 200, "ok");
      case "/readyz":
        return probe(
          request,
          draining ? 503 : 200,
          readiness(),
        );
      default:
        return new Response(`Not found: MCP is served on ${MCP_PATH}\n`, {
          status: 404,
          headers: TEXT,
        });
    }
  }

  function endpoint(
    request: Request,
    connection: Connection,
    note?: RequestNote,
  ): Response | Promise<Response> {
    const forbidden = guard(request.headers);
    if (forbidden) return jsonAnswer(errorMessage(undefined, refused(forbidden)), 403);
    if (checkBearer) return authenticated(checkBearer, request, connection, note);
    return methodAndType(request, connection, note);
  }

  /** The bearer token, right after the guard: 401 with a challenge when missing or wrong. */
  async function authenticated(
    check: BearerCheck,
    request: Request,
    connection: Connection,
    note?: RequestNote,
  ): Promise<Response> {
    const outcome = await check(request.headers);
    if (outcome === "ok") return methodAndType(request, connection, note);
    return jsonAnswer(errorMessage(undefined, unauthorized()), 401, {
      "www-authenticate": challengeOf(outcome),
    });
  }

  function methodAndType(
    request: Request,
    connection: Connection,
    note?: RequestNote,
  ): Response | Promise<Response> {
    if (request.method === "DELETE") return endSession(request.headers);
    if (request.method === "GET" && hasModernHeader(request.headers)) {
      return jsonAnswer(
        errorMessage(
          undefined,
          refused("Method not allowed: GET (2026-07-28 has no GET stream; POST each message)"),
        ),
        405,
        { allow: ALLOW_MODERN },
      );
    }
    if (request.method === "GET") return listen(request.headers, connection);
    if (request.method !== "POST") {
      return jsonAnswer(
        errorMessage(
          undefined,
          refused(
            `Method not allowed: ${request.method} (this endpoint takes GET, POST and DELETE)`,
          ),
        ),
        405,
        { allow: ALLOW },
      );
    }
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return jsonAnswer(
        errorMessage(
          undefined,
          refused("Unsupported Media Type: Content-Type must be application/json"),
        ),
        415,
      );
    }
    return post(request, connection, note);
  }

  async function post(
    request: Request,
    connection: Connection,
    note?: RequestNote,
  ): Promise<Response> {
    let body: Body | Unread;
    try {
      body = await readBody(request, options.maxMessageBytes, bodies, connection);
    } catch (error) {
      return jsonAnswer(
        errorMessage(undefined, {
          code: ErrorCode.ParseError,
          message: `Parse error: the body could not be read: ${messageOf(error)}`,
        }),
        400,
      );
    }
    if (typeof body === "string") {
      // The client may still be sending what was not read: the connection goes with it.
      connection.closeWhenAnswered();
      return unread(body);
    }
    const { bytes, release } = body;
    let admission: Admission;
    try {
      admission = admit(bytes, request.headers, mirroredOf);
    } catch (error) {
      release();
      throw error;
    }
    if (note) note.rpcMethod = methodOf(admission);
    switch (admission.kind) {
      case "refused":
        release();
        return jsonAnswer(errorMessage(admission.id, admission.error), admission.status);
      case "accepted":
        release();
        // The only core client notification, notifications/cancelled, is stdio's: over
        // HTTP a client cancels by closing the stream. Accepted and ignored, as unknown
        // ones are.
        return new Response(null, { status: 202 });
      case "dispatch":
        return dispatch(
          admission.request,
          acceptsEventStream(request.headers.get("accept")),
          release,
          connection,
        );
      case "legacy":
        return legacy(admission.message, request.headers, release, connection);
    }
  }

  /** The answer to a body that was not read: 413, 503 or 408. */
  function unread(why: Unread): Response {
    switch (why) {
      case "too large":
        return jsonAnswer(errorMessage(undefined, oversizeLine(options.maxMessageBytes)), 413);
      case "busy":
        return jsonAnswer(
          errorMessage(
            undefined,
            internalError(
              `the server holds ${bodies.limit} bytes of requests already; retry shortly`,
            ),
          ),
          503,
          { "retry-after": "1" },
        );
      case "late":
        return jsonAnswer(
          errorMessage(undefined, {
            code: ErrorCode.InvalidRequest,
            message: `Request Timeout: the body did not arrive within ${
              options.bodyTimeoutMs ?? BODY_TIMEOUT_MS
            } ms`,
          }),
          408,
        );
    }
  }

  /**
   * 2025-era traffic: a claim-less `initialize` without a session id opens a session; the
   * rest belongs to the session its `Mcp-Session-Id` names (400 without one, 404 for one
   * unknown or ended) and must not claim another version than the session's.
   */
  function legacy(
    message: RpcRequest | Notification | RpcResponse,
    headers: Headers,
    release: () => void,
    connection: Connection,
  ): Response | Promise<Response> {
    if (message.kind === "request" && headers.get(SESSION_ID_HEADER) !== null) {
      const session = sessionFor(message.id, headers);
      if (session instanceof Response) {
        release();
        return session;
      }
      const canStream = acceptsEventStream(headers.get("accept"));
      return dispatch(message, canStream, release, connection, session);
    }
    release();
    if (message.kind === "request") {
      if (draining) return jsonAnswer(errorMessage(message.id, shuttingDown()), 503);
      if (message.method === "initialize") return openSession(message);
      return jsonAnswer(errorMessage(message.id, sessionRequired()), 400);
    }
    const session = sessionFor(undefined, headers);
    if (session instanceof Response) return session;
    if (message.kind === "response") {
      // An answer to a request the session sent; one that nothing awaits is dropped.
      session.outbound.settle(message);
    } else if (message.method === "notifications/cancelled") {
      cancel(session, message.params);
    }
    return new Response(null, { status: 202 });
  }

  /**
   * The session a 2025-era message's `Mcp-Session-Id` names, or the answer saying why there
   * is none to serve it: 503 while draining (404 would ask for a new session), 400 without
   * an id or with another version than the session's, 404 for one unknown or ended.
   */
  function sessionFor(id: RequestId | undefined, headers: Headers): HttpSession | Response {
    if (draining) return jsonAnswer(errorMessage(id, shuttingDown()), 503);
    const sessionId = headers.get(SESSION_ID_HEADER);
    if (sessionId === null) return jsonAnswer(errorMessage(id, sessionRequired()), 400);
    const session = sessions.get(sessionId);
    if (session === undefined) return jsonAnswer(errorMessage(id, missing(sessionId)), 404);
    const negotiated = negotiatedVersion(session.core);
    const claimed = headers.get(PROTOCOL_VERSION_HEADER);
    if (claimed !== null && negotiated !== undefined && claimed !== negotiated) {
      return jsonAnswer(errorMessage(id, sessionVersionMismatch(claimed, negotiated)), 400);
    }
    return session;
  }

  /** Runs a claim-less `initialize` on a fresh core session; keeps the session if it pins. */
  async function openSession(request: RpcRequest): Promise<Response> {
    if (draining) return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
    const session = createSession();
    const response = await core.handle({
      request,
      controller: new AbortController(),
      closing: undefined,
      session,
      outlet: { notify() {}, outbound: undefined },
      origin: HTTP,
    });
    if (session.pin.era !== "legacy") return jsonAnswer(response, 400);
    const opened = sessions.open(session);
    return jsonAnswer(response, 200, { [SESSION_ID_HEADER]: opened.id });
  }

  /**
   * GET: opens the standalone event stream of the session its `Mcp-Session-Id` names, for
   * what the server sends it outside any call (never a response). One per session: a second
   * while it is open gets 409. It lasts until the client closes it or the session ends. With
   * `Last-Event-ID`, resumes the stream that event belongs to instead.
   */
  function listen(headers: Headers, connection: Connection): Response {
    const accept = headers.get("accept");
    if (accept === null || !acceptsEventStream(accept)) {
      return jsonAnswer(errorMessage(undefined, notAcceptable()), 406);
    }
    if (draining) return jsonAnswer(errorMessage(undefined, shuttingDown()), 503);
    const sessionId = headers.get(SESSION_ID_HEADER);
    if (sessionId === null) return jsonAnswer(errorMessage(undefined, sessionRequired()), 400);
    const session = sessions.get(sessionId);
    if (session === undefined) {
      return jsonAnswer(errorMessage(undefined, missing(sessionId)), 404);
    }
    const negotiated = negotiatedVersion(session.core);
    const claimed = headers.get(PROTOCOL_VERSION_HEADER);
    if (claimed !== null && negotiated !== undefined && claimed !== negotiated) {
      return jsonAnswer(
        errorMessage(undefined, sessionVersionMismatch(claimed, negotiated)),
        400,
      );
    }
    const lastEventId = headers.get("last-event-id");
    if (lastEventId !== null) return resume(session, lastEventId, connection);
    if (session.standalone !== undefined) {
      return jsonAnswer(errorMessage(undefined, streamConflict()), 409);
    }
    const stream = openEventStream(
      () => sessions.unlistened(session, stream),
      closingWith(unsent, connection.close),
      keepAliveMs,
      { [SESSION_ID_HEADER]: session.id },
      (sink) => session.events.open(sink, primes(session.core), true),
    );
    session.standalone = stream;
    return stream.response;
  }

  /**
   * GET with `Last-Event-ID`: replays what the stream of that event sent after it, then
   * carries the rest: a call's stream until its response, the GET stream as the session's
   * standalone stream again (409 while another is open). 400 when the events are not kept.
   */
  function resume(session: HttpSession, lastEventId: string, connection: Connection): Response {
    const target = session.events.streamOf(lastEventId);
    if (target?.standalone && session.standalone !== undefined) {
      return jsonAnswer(errorMessage(undefined, streamConflict()), 409);
    }
    let standalone: EventStream | undefined;
    const resumed = resumeEventStream(
      (sink) => session.events.resume(lastEventId, sink),
      () => {
        if (standalone !== undefined) sessions.unlistened(session, standalone);
      },
      closingWith(unsent, connection.close),
      keepAliveMs,
      { [SESSION_ID_HEADER]: session.id },
    );
    if (typeof resumed === "string") {
      return jsonAnswer(errorMessage(undefined, cannotResume(resumed)), 400);
    }
    const { stream, response } = resumed;
    if (stream.standalone && !stream.ended) {
      standalone = { response, send: stream.send, close: stream.close };
      session.standalone = standalone;
    }
    return response;
  }

  /** DELETE: ends the session its `Mcp-Session-Id` names. */
  function endSession(headers: Headers): Response {
    const sessionId = headers.get(SESSION_ID_HEADER);
    if (sessionId === null) return jsonAnswer(errorMessage(undefined, sessionRequired()), 400);
    if (!sessions.end(sessionId, "the client ended the session")) {
      return jsonAnswer(errorMessage(undefined, missing(sessionId)), 404);
    }
    return new Response(null, { status: 200 });
  }

  /** A 2025-era `notifications/cancelled`: aborts the session's request with that id. */
  function cancel(session: HttpSession, params: JsonObject): void {
    const reason = typeof params.reason === "string" ? params.reason : "cancelled by the client";
    for (const request of session.requests.values()) {
      if (request.id === params.requestId as RequestId) request.controller.abort(reason);
    }
  }

  /** Runs a request; `releaseBody` gives its body's bytes back once it is answered. */
  async function dispatch(
    request: RpcRequest,
    canStream: boolean,
    releaseBody: () => void,
    connection: Connection,
    session?: HttpSession,
  ): Promise<Response> {
    if (draining) {
      releaseBody();
      return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
    }
    // A long-lived request (subscriptions/listen) holds no slot: it waits, it does not work.
    // It holds a connection, though, so there is a cap on how many stay open.
    const longLived = core.method(request.method)?.longLived === true;
    if (longLived && listens >= maxListens) {
      releaseBody();
      const full = internalError(`the server already holds ${maxListens} listen streams open`);
      return jsonAnswer(errorMessage(request.id, full), 503);
    }
    const controller = new AbortController();
    live.add(controller);
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
    // Entered before it waits, so that the session neither expires nor misses a cancel.
    session?.requests.set(controller.signal, {
      id: request.id,
      controller,
      send: canStream ? answer.notify : undefined,
    });
    if (longLived) listens++;
    const done = () => {
      releaseBody();
      if (longLived) listens--;
      settle(controller);
      if (session) sessions.finished(session, controller.signal);
    };
    // A free slot is taken without an await (most requests, and a turn of the loop each).
    let release = longLived ? () => {} : slots.take();
    if (release === undefined) {
      try {
        release = await slots.acquire(controller.signal);
      } catch {
        // Aborted while it waited: the grace period of shutdown ended before its turn, or
        // its session ended.
        done();
        return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
      }
    }
    const ctx: RequestContext = {
      request,
      controller,
      // Aborted when the drain begins: a listen stream then ends with its answer.
      closing: longLived ? closingAll.signal : undefined,
      session: session?.core,
      origin: session?.origin ?? HTTP,
      outlet: {
        notify: answer.notify,
        // 2026-07-28: the server sends no requests. In a session, they go on this
        // request's event stream, which a client that accepts none does not have.
        outbound: session === undefined
          ? undefined
          : canStream
          ? session.outbound
          : NO_STREAM_OUTBOUND,
        // SEP-1699 polling, for streams that start with a priming event (an id to resume from).
        closeStream: session !== undefined && primes(session.core)
          ? () => answer.closeStream(mayNotify)
          : undefined,
      },
    };
    const outcome = core.handle(ctx);
    if (!isThenable(outcome)) {
      release();
      done();
      return answer.complete(
        outcome,
        session ? legacyStatusOf(request, outcome) : statusOf(outcome),
      );
    }
    // The core raises its routing errors before any handler runs, synchronously: an answer
    // still pending can only be 200, and it goes now, so that the client closing the
    // connection reaches the handler as cancellation.
    const streamed = answer.stream(mayNotify, () => {
      // A resumable stream's call goes on: the client may GET the rest with Last-Event-ID
      // (or cancel it with notifications/cancelled). Otherwise leaving is cancelling.
      if (streamed.resumable) return;
      const entry = session?.requests.get(controller.signal);
      if (entry) entry.send = undefined;
      controller.abort("the client closed the connection");
    });
    (outcome as Promise<JsonObject>).then((response) => {
      streamed.finish(response);
      release();
      done();
    });
    return streamed.response;
  }

  function settle(controller: AbortController): void {
    live.delete(controller);
    if (live.size > 0 || idleWaiters.length === 0) return;
    const ready = idleWaiters;
    idleWaiters = [];
    for (const resolve of ready) resolve();
  }

  function idle(): Promise<void> {
    if (live.size === 0) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  /** The readiness probe's text: `ready (2 running, 1 waiting)`, and what is degraded. */
  function readiness(): string {
    const degraded = options.degraded?.();
    const state = `${draining ? "draining" : "ready"} (${load()})`;
    return degraded === undefined ? state : `${state}; ${degraded}`;
  }

  /** Requests past validation, for the readiness probe: `2 running, 1 waiting`. */
  function load(): string {
    const waiting = slots.waiting();
    return `${live.size - waiting} running, ${waiting} waiting`;
  }

  function abortLive(): void {
    for (const controller of live) controller.abort(SHUTTING_DOWN);
  }

  function probe(request: Request, status: number, text: string): Response {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: use GET\n", {
        status: 405,
        headers: { ...TEXT, allow: "GET, HEAD" },
      });
    }
    return new Response(`${text}\n`, { status, headers: TEXT });
  }

  function shutdown(reason: string): Promise<void> {
    if (stopping) {
      diagnostics.error(`Shutting down now: ${reason}`);
      abortLive();
      return stopping;
    }
    diagnostics.error(`Shutting down: ${reason}`);
    draining = true;
    closingAll.abort("the server is shutting down");
    // Requests sent to clients are rejected now (their tools answer); the sessions end.
    sessions.close(SHUTTING_DOWN);
    stopping = (async () => {
      if (
        live.size > 0 &&
        await settlesWithin(idle(), options.shutdownGraceMs) === "timed out"
      ) {
        diagnostics.error("Requests still running after the grace period; aborting them");
        // Aborted tool calls answer at once with an isError result; waiting ones get 503.
        abortLive();
        await idle();
      }
      // Deno closes idle connections and waits for answers still being written; a client
      // that stopped reading must not hold the process open.
      if (await settlesWithin(server.shutdown(), options.shutdownGraceMs) === "timed out") {
        diagnostics.error("Answers still unread after the grace period; closing connections");
        server.close();
        await server.finished;
      }
    })();
    return stopping;
  }

  server.finished.finally(unwatch);
  return {
    url: `http://${literal(address.hostname)}:${address.port}${MCP_PATH}`,
    done: server.finished,
    shutdown,
  };
}

/** Request URLs whose path is remembered; past it the memory starts over. */
const REMEMBERED_URLS = 64;
const pathnames = new Map<string, string>();

/**
 * The path of a request's URL, as `new URL(url).pathname` reads it; undefined for a URL
 * that does not parse (Deno builds it from the Host header). Clients send the same few URLs on every request, so each one's path is kept, in a
 * bounded map, rather than a URL object parsed and dropped per request (bench:http).
 */
function pathnameOf(url: string): string | undefined {
  let pathname = pathnames.get(url);
  if (pathname === undefined) {
    if (!URL.canParse(url)) return undefined;
    pathname = new URL(url).pathname;
    if (pathnames.size >= REMEMBERED_URLS) pathnames.clear();
    pathnames.set(url, pathname);
  }
  return pathname;
}

/**
 * The status of a 2025-era answer: 200, whatever it says (a 404 would tell the client its
 * session is gone), but for an `initialize` refused (400, as the TypeScript SDK answers a
 * second one).
 */
function legacyStatusOf(request: RpcRequest, response: JsonObject): number {
  return request.method === "initialize" && response.error !== undefined ? 400 : 200;
}

/** The JSON-RPC method an admitted message names, for the request log. */
function methodOf(admission: Admission): string | undefined {
  switch (admission.kind) {
    case "dispatch":
      return admission.request.method;
    case "accepted":
      return admission.method;
    case "legacy":
      return admission.message.kind === "response" ? "(response)" : admission.message.method;
    case "refused":
      return undefined;
  }
}

/** The version a session negotiated (every session in the table is pinned legacy). */
function negotiatedVersion(session: Session): string | undefined {
  return session.pin.era === "legacy" ? session.pin.client.protocolVersion : undefined;
}

/**
 * Whether a session's event streams start with a priming event (an id and `retry`, no data):
 * from 2025-11-25 on (SEP-1699); older clients may choke on an event without data.
 */
function primes(session: Session): boolean {
  const version = negotiatedVersion(session);
  return version !== undefined && version >= "2025-11-25";
}

/** Whether a session's request may send the client something before its answer. */
function mayAsk(session: Session): boolean {
  if (session.logLevel !== undefined) return true;
  if (session.pin.era !== "legacy") return false;
  const declared = session.pin.client.clientCapabilities;
  return ASKABLE.some((capability) => capability in declared);
}

/** The way back for a session's request whose client accepts no event stream: none. */
const NO_STREAM_OUTBOUND: Outbound = {
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

/** How a bound address appears in a Host header: an IPv6 one in brackets. */
function literal(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** The bound address as a Host header names it; none for a wildcard bind. */
function boundNames(hostname: string): string[] {
  if (hostname === "0.0.0.0" || hostname === "::") return [];
  const name = hostNameOf(literal(hostname));
  return name === undefined ? [] : [name];
}
