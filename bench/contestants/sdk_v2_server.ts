// The official TypeScript SDK v2 (@modelcontextprotocol/server) serving the benchmark's echo
// tool over stdio, wired the way its docs show: `serveStdio(factory)` picks the era from the
// opening message (2026-07-28 `_meta` envelope, or a 2025-era `initialize`) and pins one
// McpServer from the factory for the connection.
//
// The SDK's stdio transport caps its read buffer at 10 MiB (STDIO_DEFAULT_MAX_BUFFER_SIZE): a
// longer line closes the connection unanswered and the process exits 0. `--max-buffer-bytes=N`
// passes a larger cap through the SDK's own StdioServerTransport option so the large-payload
// test can run; without the flag the SDK default applies. Out-of-band errors (such as that
// one) go to stderr; stdout carries protocol only.
//
// Run: deno run bench/contestants/sdk_v2_server.ts [--max-buffer-bytes=N]  (no permissions)
import { McpServer } from "npm:@modelcontextprotocol/server@2.4.0";
import { serveStdio, StdioServerTransport } from "npm:@modelcontextprotocol/server@2.4.0/stdio";
import * as z from "npm:zod@4.6.7";

const flag = Deno.args.find((arg) => arg.startsWith("--max-buffer-bytes="));
const maxBufferSize = flag === undefined ? undefined : Number(flag.split("=")[1]);
const encoder = new TextEncoder();

serveStdio(
  () => {
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
  },
  {
    onerror: (error) => Deno.stderr.writeSync(encoder.encode(`sdk_v2_server: ${error.message}\n`)),
    ...(maxBufferSize === undefined
      ? {}
      : { transport: new StdioServerTransport(undefined, undefined, { maxBufferSize }) }),
  },
);
