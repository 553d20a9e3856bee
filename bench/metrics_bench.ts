// What counting requests costs in process (adr/0042): 1,000 pipelined echo calls through
// serve() of a server built once without metrics (the baseline) and once with `metrics` (the
// counting middleware composed in, the gauges watching the connection), bytes in to bytes out
// with no I/O, in the same run. The end-to-end figures are bench:e2e and bench:http --metrics.
//
//   deno bench -A bench/metrics_bench.ts
import { createServer, type Server } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "../tests/_diagnostics.ts";
import { stdinOf } from "./_stdin.ts";

const REQUESTS = 1_000;
const encoder = new TextEncoder();
const registry = await loadTools(new URL("./tools/", import.meta.url), { diagnostics: recorder() });
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
let text = "";
for (let id = 1; id <= REQUESTS; id++) {
  text += JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text: `hello ${id}` }, _meta: meta },
  }) + "\n";
}
const input = encoder.encode(text);

const config = {
  primitives: { tools: registry.tools },
  diagnostics: recorder(),
  maxMessageBytes: 32 * 1024 * 1024,
  outputBoundChars: 16 * 1024 * 1024,
  waitingBoundBytes: 16 * 1024 * 1024,
};
const plain = await createServer(config);
const counted = await createServer({ ...config, metrics: { hostname: "127.0.0.1", port: 0 } });
// The listener must not keep the bench's process up once the benches are done.
globalThis.addEventListener("unload", () => counted.close());

const sink = { write: (bytes: Uint8Array) => Promise.resolve(bytes.length) };

async function through(server: Server): Promise<void> {
  await server.serveStdio({ input: stdinOf(input), output: sink }).done;
}

Deno.bench(
  "toolshed serve(), no metrics",
  { group: "1,000 echo calls", baseline: true },
  async () => {
    await through(plain);
  },
);
Deno.bench("toolshed serve(), --metrics", { group: "1,000 echo calls" }, async () => {
  await through(counted);
});
