// The leak check of `deno task load` (tests/load.ts runs this file with --expose-gc): the
// stdio pipeline in process, N pipelined calls per round, then two full collections. What
// the heap holds after them must not grow with the number of requests served; RSS, which
// V8 and the allocator keep after a collection, is reported by load.ts separately.
//   deno run -A --v8-flags=--expose-gc tests/_heap_probe.ts N...
import { createServer } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const TOOLS = new URL("./fixtures/load_tools/", import.meta.url);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const encoder = new TextEncoder();
const NEWLINE = 10;
const BATCH = 256;

const diagnostics = recorder();
const tools = await loadTools(TOOLS, { diagnostics });
const composed = await createServer({
  primitives: { tools: tools.tools },
  pageSize: 100,
  toolTimeoutMs: 60_000,
  maxMessageBytes: 1 << 22,
  shutdownGraceMs: 5_000,
  outputBoundChars: 1 << 24,
  maxConcurrency: 64,
  waitingBoundBytes: 1 << 20,
  diagnostics,
});

/** Serves `count` echo calls, BATCH per read, and checks that each was answered. */
async function serveCalls(count: number): Promise<void> {
  let sent = 0;
  let answered = 0;
  const input = {
    async read(buffer: Uint8Array): Promise<number | null> {
      if (sent >= count) return null;
      await Promise.resolve();
      let text = "";
      for (let i = 0; i < BATCH && sent < count; i++) {
        const params = { name: "echo", arguments: { text: "hi" }, _meta: META };
        text += JSON.stringify({ jsonrpc: "2.0", id: ++sent, method: "tools/call", params }) + "\n";
      }
      const bytes = encoder.encode(text);
      buffer.set(bytes);
      return bytes.length;
    },
  };
  const output = {
    write(bytes: Uint8Array): Promise<number> {
      for (const byte of bytes) if (byte === NEWLINE) answered++;
      return Promise.resolve(bytes.length);
    },
  };
  const server = composed.serveStdio({ input, output });
  await server.done;
  if (answered !== count) throw new Error(`${answered} of ${count} calls answered`);
}

const heapAfter: number[] = [];
for (const count of Deno.args.map(Number)) {
  await serveCalls(count);
  gc();
  gc();
  heapAfter.push(Deno.memoryUsage().heapUsed);
}
// deno-lint-ignore no-console -- the figures go to load.ts on stdout
console.log(JSON.stringify({ heapAfter, diagnostics: diagnostics.entries.length }));
