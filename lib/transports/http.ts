// The Streamable HTTP transport, protocol version 2026-07-28, stateless (adr/0012): one
// endpoint, /mcp, where each POST carries one request or notification and gets its own
// answer; /healthz and /readyz for whatever supervises the process. A request passes the
// Host/Origin guard, the media type, the body limit and the validation ladder
// (http_admission.ts), waits for one of --max-concurrency slots, and then runs through the
// same request core as over stdio, with a fresh context and no session. Its answer is JSON,
// or a stream of server-sent events when it may send notifications first; closing that
// stream cancels it. Shutdown drains: readiness fails, new requests get 503, and requests
// in flight have the grace period to finish.
import { isThenable } from "../util/maybe.ts";
import { type JsonObject, messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { ErrorCode, internalError, oversizeLine, shuttingDown } from "../wire/errors.ts";
import type { Request as RpcRequest } from "../wire/extract.ts";
import { createSlots } from "../util/slots.ts";
import type { RequestContext } from "../core/context.ts";
import type { Core } from "../core/handle.ts";
import { admit } from "./http_admission.ts";
import { createAnswer, jsonAnswer } from "./http_answer.ts";
import { readBody } from "./http_body.ts";
import { errorMessage, refused, statusOf } from "./http_errors.ts";
import { createHostGuard, hostNameOf, LOOPBACK_NAMES } from "./http_guard.ts";
import { acceptsEventStream, isJsonContentType } from "./http_headers.ts";
import { settlesWithin } from "./settles_within.ts";

/** The one MCP endpoint. */
export const MCP_PATH = "/mcp";

export interface HttpOptions {
  /** The address to bind (an IPv6 one without brackets). */
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  core: Core;
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
const SHUTTING_DOWN = "the server is shutting down";

export function serveHttp(options: HttpOptions): HttpServer {
  const { core, diagnostics } = options;
  // The FIFO counting semaphore programs use (it knows nothing of programs): one
  // process-wide cap, since every POST is a connection of its own.
  const slots = createSlots(options.maxConcurrency);
  /** Requests past the ladder, waiting for a slot or running, by their controllers. */
  const live = new Set<AbortController>();
  let idleWaiters: (() => void)[] = [];
  let draining = false;
  let stopping: Promise<void> | undefined;
  /** Aborted only when a graceful close overruns the grace period: closes every connection. */
  const closer = new AbortController();

  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: closer.signal,
    onListen() {}, // instead of Deno's own line: the host says where we listen
    onError(error) {
      diagnostics.error("An HTTP request failed", error);
      return jsonAnswer(errorMessage(undefined, internalError(messageOf(error))), 500);
    },
  }, route);
  const address = server.addr;
  const guard = createHostGuard([
    ...LOOPBACK_NAMES,
    ...boundNames(address.hostname),
    ...options.allowedHosts.map((name) => hostNameOf(name) ?? name),
  ]);

  function route(request: Request): Response | Promise<Response> {
    const { pathname } = new URL(request.url);
    switch (pathname) {
      case MCP_PATH:
        return endpoint(request);
      case "/healthz":
        return probe(request, 200, "ok");
      case "/readyz":
        return probe(
          request,
          draining ? 503 : 200,
          `${draining ? "draining" : "ready"} (${load()})`,
        );
      default:
        return new Response(`Not found: MCP is served on ${MCP_PATH}\n`, {
          status: 404,
          headers: TEXT,
        });
    }
  }

  function endpoint(request: Request): Response | Promise<Response> {
    const forbidden = guard(request.headers);
    if (forbidden) return jsonAnswer(errorMessage(undefined, refused(forbidden)), 403);
    if (request.method !== "POST") {
      return jsonAnswer(
        errorMessage(
          undefined,
          refused(`Method not allowed: ${request.method} (this endpoint takes POST)`),
        ),
        405,
        { allow: "POST" },
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
    return post(request);
  }

  async function post(request: Request): Promise<Response> {
    let body: Uint8Array | "too large";
    try {
      body = await readBody(request, options.maxMessageBytes);
    } catch (error) {
      return jsonAnswer(
        errorMessage(undefined, {
          code: ErrorCode.ParseError,
          message: `Parse error: the body could not be read: ${messageOf(error)}`,
        }),
        400,
      );
    }
    if (body === "too large") {
      return jsonAnswer(errorMessage(undefined, oversizeLine(options.maxMessageBytes)), 413);
    }
    const admission = admit(body, request.headers);
    switch (admission.kind) {
      case "refused":
        return jsonAnswer(errorMessage(admission.id, admission.error), admission.status);
      case "accepted":
        // The only core client notification, notifications/cancelled, is stdio's: over
        // HTTP a client cancels by closing the stream. Accepted and ignored, as unknown
        // ones are.
        return new Response(null, { status: 202 });
      case "dispatch":
        return dispatch(admission.request, acceptsEventStream(request.headers.get("accept")));
    }
  }

  async function dispatch(request: RpcRequest, canStream: boolean): Promise<Response> {
    if (draining) return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
    const controller = new AbortController();
    live.add(controller);
    let release: () => void;
    try {
      release = await slots.acquire(controller.signal);
    } catch {
      // Aborted while it waited: the grace period of shutdown ended before its turn.
      settle(controller);
      return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
    }
    const answer = createAnswer(canStream);
    const ctx: RequestContext = {
      request,
      controller,
      closing: undefined,
      session: undefined,
      outlet: {
        notify: answer.notify,
        outbound: undefined, // 2026-07-28: the server sends no requests
      },
    };
    const outcome = core.handle(ctx);
    if (!isThenable(outcome)) {
      release();
      settle(controller);
      return answer.complete(outcome, statusOf(outcome));
    }
    // The core raises its routing errors before any handler runs, synchronously: an answer
    // still pending can only be 200, and it goes now, so that the client closing the
    // connection reaches the handler as cancellation.
    const mayNotify = request.progressToken !== undefined ||
      request.envelope?.logLevel !== undefined;
    const streamed = answer.stream(
      mayNotify,
      () => controller.abort("the client closed the connection"),
    );
    (outcome as Promise<JsonObject>).then((response) => {
      streamed.finish(response);
      release();
      settle(controller);
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
        closer.abort();
        await server.finished;
      }
    })();
    return stopping;
  }

  return {
    url: `http://${literal(address.hostname)}:${address.port}${MCP_PATH}`,
    done: server.finished,
    shutdown,
  };
}

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
