// Large messages in process (adr/0052): one tools/call echo of 1 MiB and of 16 MiB through
// toolshed's serve(), bytes in to bytes out with no I/O, beside a bare loop that frames the line,
// parses it and writes the reply (the least any server must do). The per-byte cost at 16 MiB vs
// at 1 MiB is the 16 MiB time ÷ (16 × the 1 MiB time); bench:e2e measures the same figure through
// a pipe and a client, which double the noise.
import { createServer } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "../tests/_diagnostics.ts";
import { stdinOf } from "./_stdin.ts";
import { payload } from "./e2e/measure.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const registry = await loadTools(new URL("./tools/", import.meta.url), { diagnostics: recorder() });
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function echoLine(size: number): Uint8Array {
  const params = { name: "echo", arguments: { text: payload(size) }, _meta: META };
  return encoder.encode(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }) + "\n",
  );
}

let written = 0;
const sink = {
  write(bytes: Uint8Array) {
    written += bytes.length;
    return Promise.resolve(bytes.length);
  },
};

async function throughToolshed(input: Uint8Array): Promise<void> {
  const server = (await createServer({
    primitives: { tools: registry.tools },
    diagnostics: recorder(),
    pageSize: 100,
    toolTimeoutMs: 60_000,
    maxMessageBytes: 32 * MIB,
    shutdownGraceMs: 5_000,
    outputBoundChars: 16 * MIB,
    maxConcurrency: 64,
    waitingBoundBytes: 16 * MIB,
  })).serveStdio({ input: stdinOf(input), output: sink });
  await server.done;
}

/** The floor: 64 KiB reads joined, one decode and parse, one reply encoded and written. */
async function throughBareLoop(input: Uint8Array): Promise<void> {
  const source = stdinOf(input);
  const buffer = new Uint8Array(64 * 1024);
  const parts: Uint8Array[] = [];
  for (let count; (count = await source.read(buffer)) !== null;) {
    parts.push(buffer.slice(0, count));
  }
  const line = new Uint8Array(input.length);
  let offset = 0;
  for (const part of parts) {
    line.set(part, offset);
    offset += part.length;
  }
  const message = JSON.parse(new TextDecoder().decode(line.subarray(0, line.length - 1)));
  const reply = JSON.stringify({
    jsonrpc: "2.0",
    id: message.id,
    result: { content: [{ type: "text", text: message.params.arguments.text }] },
  });
  await sink.write(encoder.encode(reply + "\n"));
}

for (const size of [MIB, 16 * MIB]) {
  const input = echoLine(size);
  const group = `${size / MIB} MiB echo`;
  Deno.bench(`bare loop, ${group}`, { group, baseline: true }, async () => {
    await throughBareLoop(input);
  });
  Deno.bench(`toolshed serve(), ${group}`, { group }, async () => {
    const before = written;
    await throughToolshed(input);
    if (written - before < size) throw new Error(`the ${group} was not echoed`);
  });
}
