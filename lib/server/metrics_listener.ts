// The listener of --metrics (adr/0042): GET /metrics answers the text exposition, on an address
// of its own, apart from the MCP endpoint's (and with stdio, the only listener). Nothing else is
// served: another path is 404, another method 405. It asks for no credentials: what it shows
// (tool names, counts) is for whoever can reach the address, loopback unless the operator names
// another.
import { EXPOSITION_CONTENT_TYPE } from "../util/metrics.ts";
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";

export const METRICS_PATH = "/metrics";

export interface MetricsListener {
  /** `http://127.0.0.1:9464/metrics`, with the port actually bound. */
  readonly url: string;
  /** Stops listening; resolves once the listener has closed. */
  close(): Promise<void>;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** Listens on `hostname`:`port` (0: a free port); throws, saying where, when it cannot. */
export function listenForMetrics(
  address: { readonly hostname: string; readonly port: number },
  text: () => string,
  diagnostics: Diagnostics,
): MetricsListener {
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: address.hostname,
      port: address.port,
      onListen() {},
      onError(error) {
        diagnostics.error("A request for metrics failed", error);
        return new Response("Internal Server Error\n", { status: 500, headers: TEXT });
      },
    }, (request) => answer(request, text));
  } catch (error) {
    throw new Error(
      `Cannot listen for metrics on "${address.hostname}" port ${address.port}: ${
        messageOf(error)
      }`,
    );
  }
  const { hostname, port } = server.addr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close() {
      closing ??= server.shutdown();
      return closing;
    },
  };
}

function answer(request: Request, text: () => string): Response {
  // Deno takes the URL from the Host header, which a client may send unparseable.
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
