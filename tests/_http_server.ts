// An HTTP server in this process for tests: 127.0.0.1, a free port, the given primitives, test-sized
// limits and recorded diagnostics; `close()` shuts it down and waits until it has closed.
import { serverOf } from "../lib/server/server_of.ts";
import type { OtherPrimitives, Registry } from "../lib/primitives/registry.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import type { HttpOptions, HttpServer } from "../lib/transports/http/server.ts";
import { recorder } from "./_diagnostics.ts";
import { withHangGuard } from "./_server_process.ts";

export interface TestHttpServer {
  server: HttpServer;
  /** What the server serves: swap it to reload. */
  registry: Registry;
  url: string;
  port: number;
  diagnostics: ReturnType<typeof recorder>;
  close(): Promise<void>;
}

/**
 * The server of `tools` (and `others`) as createServer composes it, listening on a free port
 * of 127.0.0.1 with test-sized limits; `core.listChanged` says lists may change (a test swaps
 * the registry to reload).
 */
export function serveForTest(
  tools: readonly Tool[],
  options: Partial<HttpOptions> = {},
  others: OtherPrimitives = {},
  core: { listChanged?: boolean } = {},
): TestHttpServer {
  const diagnostics = recorder();
  const composed = serverOf({ ...others, tools }, {
    pageSize: 100,
    toolTimeoutMs: 10_000,
    maxMessageBytes: 1 << 20,
    maxConcurrency: 8,
    shutdownGraceMs: 10_000,
    diagnostics,
    listChanged: core.listChanged,
  });
  const server = composed.serveHttp({ hostname: "127.0.0.1", port: 0, ...options });
  return {
    server,
    registry: composed.registry,
    url: server.url,
    port: Number(new URL(server.url).port),
    diagnostics,
    async close() {
      await withHangGuard(server.shutdown("the test is over"), "shutdown");
      await withHangGuard(server.done, "the server closing");
    },
  };
}

/** An `initialize` POST of `version` to `url` (`headers` add credentials), as it was answered. */
export function postInitialize(
  url: string,
  version = "2025-11-25",
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
}

/**
 * Opens a 2025-11-25 session at `url` with an `initialize` POST (`headers` add credentials);
 * gives its Mcp-Session-Id, or null when none came (the caller asserts what it expects).
 */
export async function openLegacySession(
  url: string,
  headers: Record<string, string> = {},
): Promise<string | null> {
  const opened = await postInitialize(url, "2025-11-25", headers);
  await opened.body?.cancel();
  return opened.headers.get("mcp-session-id");
}

/** The headers a 2026-07-28 client sends with `method` (and `Mcp-Name` when given). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (name !== undefined) headers["mcp-name"] = name;
  return headers;
}

/**
 * One raw HTTP/1.1 request over TCP to 127.0.0.1, for what fetch will not send (a Host
 * header). A POST gets its Content-Length; the connection closes after the answer.
 */
export async function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  const bytes = new TextEncoder().encode(body);
  const head = Object.entries({
    ...(method === "POST" ? { "content-length": String(bytes.length) } : {}),
    connection: "close",
    ...headers,
  }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  await connection.write(
    new TextEncoder().encode(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`),
  );
  const text = await new Response(connection.readable).text();
  const [statusLine] = text.split("\r\n", 1);
  return {
    status: Number(statusLine.split(" ")[1]),
    body: text.slice(text.indexOf("\r\n\r\n") + 4),
  };
}
