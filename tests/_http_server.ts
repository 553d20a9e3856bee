// An HTTP server in this process for tests: 127.0.0.1, a free port, the given primitives, test-sized
// limits and recorded diagnostics; `close()` shuts it down and waits until it has closed.
import type { Server } from "../lib/server/create_server.ts";
import type { OtherPrimitives, Registry } from "../lib/primitives/registry.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import type { HttpOptions, HttpServer } from "../lib/transports/http/server.ts";
import { recorder } from "./_diagnostics.ts";
import { composeForTest, type HarnessConfig } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";

export interface TestHttpServer {
  server: HttpServer;
  /** What createServer built: its core, `request`, `metrics`, `close`. */
  composed: Server;
  /** What the server serves: swap it to reload. */
  registry: Registry;
  url: string;
  port: number;
  diagnostics: ReturnType<typeof recorder>;
  close(): Promise<void>;
}

/**
 * What a test server has unless its test says otherwise: small limits, and a state key, as
 * TOOLSHED_STATE_KEY gives one to every instance behind a load balancer (without it, the server
 * warns that its requestState opens only here).
 */
const TEST_SIZED: HarnessConfig = {
  pageSize: 100,
  toolTimeoutMs: 10_000,
  maxMessageBytes: 1 << 20,
  maxConcurrency: 8,
  shutdownGraceMs: 10_000,
  stateKeys: ["the secret of tests/_http_server.ts"],
};

/**
 * The server of `tools` (and `others`) as createServer composes it for `main.ts --http`,
 * listening on a free port of 127.0.0.1 with test-sized limits; `listen` says how it listens
 * (as serveHttp takes it) and `config` sets any option of the server (createServer's, whole:
 * `listChanged` says lists may change, and a test swaps the registry to reload).
 */
export async function serveForTest(
  tools: readonly Tool[],
  listen: Partial<HttpOptions> = {},
  others: OtherPrimitives = {},
  config: HarnessConfig = {},
): Promise<TestHttpServer> {
  const diagnostics = recorder();
  const composed = await composeForTest({
    ...TEST_SIZED,
    diagnostics,
    http: true,
    ...config,
    primitives: { ...others, tools },
  });
  let server: HttpServer;
  try {
    server = composed.serveHttp({ hostname: "127.0.0.1", port: 0, ...listen });
  } catch (error) {
    await composed.close(); // the metrics' listener, say
    throw error;
  }
  return {
    server,
    composed,
    registry: composed.registry,
    url: server.url,
    port: Number(new URL(server.url).port),
    diagnostics,
    async close() {
      await withHangGuard(server.shutdown("the test is over"), "shutdown");
      await withHangGuard(server.done, "the server closing");
      await withHangGuard(composed.close(), "the server's tasks and listeners closing");
    },
  };
}

/** `run` against serveForTest(tools, listen, {}, config), closed after it however it ends. */
export async function whileServed(
  tools: readonly Tool[],
  listen: Partial<HttpOptions>,
  config: HarnessConfig,
  run: (server: TestHttpServer) => Promise<void>,
): Promise<void> {
  const server = await serveForTest(tools, listen, {}, config);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** The body of an `initialize` (id 1) of `version` declaring `capabilities`. */
export function initializeBody(
  version = "2025-11-25",
  capabilities: unknown = {},
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: version, capabilities, clientInfo: { name: "t", version: "1" } },
  });
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
    body: initializeBody(version),
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

/** The headers a 2025-11-25 client sends in `session` (`headers` add credentials). */
export function legacyHeaders(
  session: string,
  headers: Record<string, string> = {},
): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...headers,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
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

/** The body of a 2026-07-28 request: `params` with the `_meta` claims declaring `capabilities`. */
export function modernBody(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
      },
    },
  });
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

/** What a connection received until it was closed (or `limit` bytes), as text. */
export async function readToEnd(conn: Deno.Conn, limit = 64 * 1024): Promise<string> {
  const buffer = new Uint8Array(limit);
  let length = 0;
  try {
    while (length < limit) {
      const n = await conn.read(buffer.subarray(length));
      if (n === null) break;
      length += n;
    }
  } catch { /* reset: closed */ }
  return new TextDecoder().decode(buffer.subarray(0, length));
}
