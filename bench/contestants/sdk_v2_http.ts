// The official TypeScript SDK v2 (@modelcontextprotocol/server) serving the benchmark's echo
// tool over Streamable HTTP, wired the way its docs show for Deno: `createMcpHandler(factory)`
// is its stateless per-request entry (a fresh McpServer from the factory for each request,
// 2026-07-28 requests on the modern path, 2025-era ones on its stateless fallback), and its
// `fetch` is handed to `Deno.serve` as it is. Default options: JSON answers unless a call
// streams (`responseMode: 'auto'`); no Host or Origin check (the SDK leaves that to the caller).
//
// Run: deno run --allow-net bench/contestants/sdk_v2_http.ts [HOST:PORT]  (default 127.0.0.1:0)
// Prints `listening on http://HOST:PORT/mcp` on stderr, as toolshed does.
import { createMcpHandler, McpServer } from "npm:@modelcontextprotocol/server@2.4.0";
import * as z from "npm:zod@4.6.7";

const [hostname, port] = (Deno.args[0] ?? "127.0.0.1:0").split(":");
const encoder = new TextEncoder();
const log = (line: string) => Deno.stderr.writeSync(encoder.encode(`${line}\n`));

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "sdk-v2", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.registerTool(
    "echo",
    {
      description: "Returns the given text unchanged",
      inputSchema: z.object({ text: z.string() }),
    },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}, { onerror: (error) => log(`sdk_v2_http: ${error.message}`) });

Deno.serve({
  hostname,
  port: Number(port),
  onListen: ({ port }) => log(`listening on http://${hostname}:${port}/mcp`),
}, (request) => handler.fetch(request));
