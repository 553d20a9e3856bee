// The listener of --metrics (adr/0042): GET /metrics answers the text exposition, on an address
// of its own, apart from the MCP endpoint's (and with stdio, the only listener). Nothing else is
// served: another path is 404, another method 405. It asks for no credentials: what it shows
// (tool names, counts) is for whoever can reach the address, loopback unless the operator names
// another.
//
// It is a listener like the MCP endpoint's (adr/0056): the same machinery accepts its
// connections (transports/http/listener.ts: a cap, the idle deadline that also bounds headers
// sent slowly, an accept that outlives running out of descriptors), with a small cap of its own,
// and the same guard checks Host and Origin first (guard.ts), so that a page whose name was
// rebound to this address reads nothing.
import { EXPOSITION_CONTENT_TYPE } from "../util/metrics.ts";
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Slice } from "../settings/table.ts";
import { settlesWithin } from "../util/settles_within.ts";
import {
  BODY_TIMEOUT_MS,
  connectionCap,
  listen,
  type Listener,
} from "../transports/http/listener.ts";
import {
  allowedHostNames,
  boundHostNames,
  createHostGuard,
  hostLiteral,
} from "../transports/http/guard.ts";

const METRICS_PATH = "/metrics";

/**
 * Connections the metrics listener holds at once (fewer if the open-file limit calls for it):
 * a scraper keeps one, a few scrapers and a person with curl fit, and whoever takes them all
 * takes no descriptor from the MCP endpoint's share.
 */
const METRICS_MAX_CONNECTIONS = 16;

/** How long closing waits for answers being sent before it closes their connections. */
const CLOSE_GRACE_MS = 1_000;

/** Where metrics are served, and what of the HTTP flags holds for that listener too. */
export interface MetricsAddress {
  readonly hostname: string;
  /** 0: a free port. */
  readonly port: number;
  /**
   * Names Host and Origin may carry besides the loopback names, the bound address and any IP
   * address (--allow-host).
   */
  readonly allowedHosts?: readonly string[];
  /** A connection with no request in progress this long is closed (--idle-timeout; 30 s). */
  readonly idleTimeoutMs?: number;
}

interface MetricsListener {
  /** `http://127.0.0.1:9464/metrics`, with the port actually bound. */
  readonly url: string;
  /** Connections open now, and connections refused so far (the cap). */
  counts(): { open: number; refused: number };
  /** Stops listening; resolves once the listener has closed. */
  close(): Promise<void>;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** Listens on `hostname`:`port` (0: a free port); throws, saying where, when it cannot. */
export function listenForMetrics(
  address: MetricsAddress,
  text: () => string,
  diagnostics: Diagnostics,
  settings: Slice<"metrics">,
): MetricsListener {
  let listener: Listener;
  try {
    listener = listen({
      hostname: address.hostname,
      port: address.port,
      name: "the metrics listener",
      maxConnections: connectionCap(METRICS_MAX_CONNECTIONS),
      idleTimeoutMs: address.idleTimeoutMs ?? settings.idleTimeoutMs,
      // Nothing here reads a body: a request with one is answered 405 and its connection closed.
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      diagnostics,
      onError(error) {
        diagnostics.error("A request for metrics failed", error);
        return new Response("Internal Server Error\n", { status: 500, headers: TEXT });
      },
      handler: (request, connection) => {
        const forbidden = guard(request.headers);
        if (forbidden !== undefined) {
          return new Response(`${forbidden}\n`, { status: 403, headers: TEXT });
        }
        const response = answer(request, text);
        if (response.status === 405) connection.closeWhenAnswered();
        return response;
      },
    });
  } catch (error) {
    throw new Error(
      `Cannot listen for metrics on "${address.hostname}" port ${address.port}: ${
        messageOf(error)
      }`,
    );
  }
  const { hostname, port } = listener.addr;
  // The MCP endpoint's names, and any IP address: Prometheus scrapes a pod by its IP.
  const guard = createHostGuard(
    allowedHostNames(
      boundHostNames(hostname),
      address.allowedHosts ?? settings.allowedHosts,
    ),
    undefined,
    true,
    true,
  );
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostLiteral(hostname)}:${port}${METRICS_PATH}`,
    counts: listener.counts,
    close() {
      closing ??= settlesWithin(listener.shutdown(), CLOSE_GRACE_MS).then((outcome) => {
        if (outcome === "settled") return;
        // A scraper that stops reading must not hold the process open.
        listener.close();
        return listener.finished;
      });
      return closing;
    },
  };
}

function answer(request: Request, text: () => string): Response {
  // Deno takes the URL from the Host header; the guard has refused one it cannot parse.
  const path = URL.canParse(request.url) ? new URL(request.url).pathname : undefined;
  if (path !== METRICS_PATH) {
    return new Response(`Not found: metrics are served on ${METRICS_PATH}\n`, {
      status: 404,
      headers: TEXT,
    });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("Method not allowed: use GET\n", {
      status: 405,
      headers: { ...TEXT, allow: "GET, HEAD" },
    });
  }
  const body = request.method === "HEAD" ? null : text();
  return new Response(body, { headers: { "content-type": EXPOSITION_CONTENT_TYPE } });
}
