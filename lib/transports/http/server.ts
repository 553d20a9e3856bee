// The Streamable HTTP transport (adr/0012): one endpoint, /mcp, for both eras, and
// /healthz and /readyz for whatever supervises the process, served on connections toolshed
// accepts itself (listener.ts, adr/0021). What a request goes through is handler.ts's: the
// endpoint's steps and the connection engines. A 2026-07-28 POST carries one request or
// notification, stateless, and gets its own answer; a 2025-era client opens a session with
// `initialize` (sessions.ts), sends its id with every later POST, GETs its stream and DELETEs
// it. Shutdown drains: readiness fails, new requests get 503, long-lived requests close,
// sessions end, and requests in flight have the grace period to finish; then connections close.
import { type Diagnostics, inform } from "../../util/diagnostics.ts";
import { settlesWithin } from "../../util/settles_within.ts";
import type { Registry } from "../../primitives/registry.ts";
import type { ServerMeta } from "../../primitives/server_meta.ts";
import type { Core } from "../../core/handle.ts";
import type { SessionEnd } from "../../methods/session.ts";
import { createMcpHttp, failed, MCP_PATH, type McpHttp, type McpHttpOptions } from "./handler.ts";
import type { OAuthHttpOptions } from "./oauth.ts";
import type { EndpointCounts } from "./endpoint.ts";
import type { HttpStep } from "./exchange.ts";
import { corsOriginsOf } from "./cors.ts";
import { boundHostNames, hostLiteral as literal } from "./guard.ts";
import { connectionCap, listen as listenHttp } from "./listener.ts";
import type { Slice } from "../../settings/table.ts";

export { createMcpHttp } from "./handler.ts";

/**
 * How to serve: the HTTP settings (`Slice<"http">`, the defaults applied: createServer hands
 * them on from resolveSettings) and the parts it serves with.
 */
export interface HttpOptions extends Slice<"http"> {
  /** The address to bind (an IPv6 one without brackets). */
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  core: Core;
  /** The core's registry: where `tools/call` finds the arguments a tool mirrors in headers. */
  registry: Registry;
  /** When set, callers bring OAuth access tokens from an authorization server (adr/0038). */
  oauth?: OAuthHttpOptions;
  /** An event stream idle this long gets a `: keep-alive` comment (default 15 s). */
  keepAliveMs?: number;
  /** Requests that may run at once, across all connections; more wait in arrival order. */
  maxConcurrency: number;
  /** How long requests in flight may run on after shutdown is asked. */
  shutdownGraceMs: number;
  /** Where the transport's own troubles (a failed request, shutdown) are reported. */
  diagnostics: Diagnostics;
  /** Toolsets chosen by path and header (adr/0045); undefined: neither is read. */
  toolsets?: McpHttpOptions["toolsets"];
  /** A 2025-era session unused this long is forgotten (default 30 minutes). */
  sessionTtlMs?: number;
  /** The clock sessions age by, in milliseconds (`Date.now` unless a test drives it). */
  now?: () => number;
  /** Told of each 2025-era session that ends (telemetry, when it is on). */
  sessionEnded?: (end: SessionEnd) => void;
  /** Listen streams the server may hold open at once, all clients together (default 1,024). */
  maxListens?: number;
  /**
   * What this instance cannot do now while staying ready (Redis unreachable: adr/0022), a
   * sentence /readyz adds to its 200; undefined when nothing.
   */
  degraded?: () => string | undefined;
  /** Read each request's remote address for the core's rate limit (adr/0043). */
  callerAddresses?: boolean;
  /** Steps around the endpoint's own, outermost first (handler.ts `outerSteps`). */
  outerSteps?: readonly HttpStep[];
  /** Who the server is: the server card and the AI catalog say it (adr/0050). */
  meta?: ServerMeta;
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
  /** What the endpoint holds now: requests, sessions, streams (the gauges of --metrics). */
  counts(): EndpointCounts;
  /** The endpoint's steps as composed (McpHttp.steps): none of a feature that is off. */
  readonly steps: McpHttp["steps"];
}

export function serveHttp(options: HttpOptions): HttpServer {
  const { diagnostics } = options;
  // An origin that is not one throws here, before anything listens.
  if (options.corsOrigins !== undefined) corsOriginsOf(options.corsOrigins);
  let stopping: Promise<void> | undefined;
  const server = listenHttp({
    hostname: options.hostname,
    port: options.port,
    maxConnections: connectionCap(options.maxConnections),
    idleTimeoutMs: options.idleTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    diagnostics,
    onError: (error) => failed(diagnostics, error),
    // Requests arrive only once listen() has returned, and http is made right after it.
    handler: (request, connection, info) => http.handle(request, connection, info),
  });
  const address = server.addr;
  const names = boundHostNames(address.hostname);
  const http: McpHttp = createMcpHttp({
    ...options,
    boundNames: names,
    // A wildcard address is no URL a client can use: OAuth then needs --public-url.
    servedUrl: names.length === 0
      ? undefined
      : `http://${literal(address.hostname)}:${address.port}${MCP_PATH}`,
  });
  const { endpoint } = http;

  function shutdown(reason: string): Promise<void> {
    if (stopping) {
      diagnostics.error(`Shutting down now: ${reason}`);
      endpoint.abort(SHUTTING_DOWN);
      return stopping;
    }
    inform(diagnostics, `Shutting down: ${reason}`);
    const idle = endpoint.drain();
    stopping = (async () => {
      if (await settlesWithin(idle, options.shutdownGraceMs) === "timed out") {
        diagnostics.error("Requests still running after the grace period; aborting them");
        // Aborted tool calls answer at once with an isError result; waiting ones get 503.
        endpoint.abort(SHUTTING_DOWN);
        await idle;
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

  return {
    url: `http://${literal(address.hostname)}:${address.port}${http.path}`,
    done: server.finished,
    shutdown,
    counts: endpoint.counts,
    steps: http.steps,
  };
}

const SHUTTING_DOWN = "the server is shutting down";
