// The in-process pipeline, bytes in to bytes out with no I/O: toolshed's serve() against
// a bare loop doing the least any server must (frame, JSON.parse, JSON.stringify a reply).
// Each iteration pushes 1,000 pipelined echo calls through and waits for every answer.
import { createServer } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "../tests/_diagnostics.ts";
import { stdinOf } from "./_stdin.ts";

const REQUESTS = 1_000;
const encoder = new TextEncoder();
const registry = await loadTools(new URL("./tools/", import.meta.url), { diagnostics: recorder() });

function requests(era: "modern" | "legacy"): Uint8Array {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  let text = era === "legacy"
    ? '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n'
    : "";
  for (let id = 1; id <= REQUESTS; id++) {
    const params = { name: "echo", arguments: { text: `hello ${id}` } };
    text += JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: era === "modern" ? { ...params, _meta: meta } : params,
    }) + "\n";
  }
  return encoder.encode(text);
}

const modern = requests("modern");
const legacy = requests("legacy");

const sink = { write: (bytes: Uint8Array) => Promise.resolve(bytes.length) };

async function throughToolshed(input: Uint8Array): Promise<void> {
  const server = (await createServer({
    primitives: { tools: registry.tools },
    diagnostics: recorder(),
    pageSize: 100,
    toolTimeoutMs: 60_000,
    maxMessageBytes: 32 * 1024 * 1024,
    shutdownGraceMs: 5_000,
    outputBoundChars: 16 * 1024 * 1024,
    maxConcurrency: 64,
    waitingBoundBytes: 16 * 1024 * 1024,
  })).serveStdio({ input: stdinOf(input), output: sink });
  await server.done;
}

/** The floor: split lines, parse each, stringify a reply, write the replies in one go. */
async function throughBareLoop(input: Uint8Array): Promise<void> {
  const decoder = new TextDecoder();
  const replies: string[] = [];
  let start = 0;
  while (start < input.length) {
    const newline = input.indexOf(10, start);
    const message = JSON.parse(decoder.decode(input.subarray(start, newline)));
    start = newline + 1;
    replies.push(JSON.stringify({
      jsonrpc: "2.0",
      id: message.id,
      result: { content: [{ type: "text", text: message.params.arguments?.text }] },
    }));
  }
  await sink.write(encoder.encode(replies.join("\n") + "\n"));
}

Deno.bench("bare loop (parse + reply)", { group: "1,000 echo calls", baseline: true }, async () => {
  await throughBareLoop(modern);
});
Deno.bench("toolshed serve(), 2026-07-28", { group: "1,000 echo calls" }, async () => {
  await throughToolshed(modern);
});
Deno.bench("toolshed serve(), 2025-11-25 session", { group: "1,000 echo calls" }, async () => {
  await throughToolshed(legacy);
});
