// The server the rate-limit tests share (tests/rate_limit_test.ts in process,
// tests/rate_limit_redis_test.ts through redis-server): two tools, one with a limit of its own,
// served by createServer over stdio or HTTP.
import { createServer, type ServerConfig } from "../lib/server/create_server.ts";
import type { HttpServer } from "../lib/transports/http/server.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";
import { modernHeaders } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
};
export const LEGACY = "2025-11-25";

function tool(name: string, rateLimit?: string): Tool {
  return checkDefinition(
    {
      description: name,
      inputSchema: { type: "object" },
      ...(rateLimit === undefined ? {} : { rateLimit }),
      handler: () => `${name} ran`,
    },
    name,
    `tools/${name}.ts`,
  );
}

const TOOLS = [tool("echo"), tool("deploy", "2/min")];

export function serverWith(config: Partial<ServerConfig> = {}) {
  const diagnostics = recorder();
  return createServer({
    primitives: { tools: TOOLS },
    diagnostics,
    shutdownGraceMs: 2_000,
    ...config,
  }).then((server) => ({ server, diagnostics }));
}

// deno-lint-ignore no-explicit-any
export type Message = any;

export const callOf = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: META },
});

/** An HTTP server of `config`, and how to post to it. */
export async function httpServer(config: Partial<ServerConfig>) {
  const { server, diagnostics } = await serverWith({ http: true, ...config });
  const http: HttpServer = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  let id = 0;
  return {
    server,
    diagnostics,
    url: http.url,
    /** A 2026-07-28 tools/call: the status, Retry-After and the JSON-RPC answer. */
    async call(name: string) {
      const response = await fetch(http.url, {
        method: "POST",
        headers: modernHeaders("tools/call", name),
        body: JSON.stringify(callOf(++id, name)),
        signal: AbortSignal.timeout(10_000),
      });
      return {
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        body: await response.json() as Message,
      };
    },
    async close() {
      await withHangGuard(http.shutdown("the test is over"), "shutdown");
      await withHangGuard(http.done, "the server closing");
      await server.close();
    },
  };
}
