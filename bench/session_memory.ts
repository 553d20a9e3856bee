// deno-lint-ignore-file no-console -- a benchmark prints its figures for people
// What 2025-era sessions hold over Streamable HTTP, beyond what their caps count: the heap
// after two full collections, before and after opening sessions (and their GET streams), in
// this process, over real loopback sockets with fetch.
//
//   deno run -A --v8-flags=--expose-gc bench/session_memory.ts sessions N CAPS_BYTES
//   deno run -A --v8-flags=--expose-gc bench/session_memory.ts streams N
//
// `sessions`: N sessions, each opened by an `initialize` whose capabilities are about
// CAPS_BYTES of JSON in the shape that costs a parser most per byte (an array of empty
// objects under `experimental`). `streams`: one session whose GET stream is opened and closed
// by its client N times. Prints the heap growth, the bytes of the `initialize` bodies (what the session cap
// counted before it counted what sessions keep), and RSS.
import { checkDefinition } from "../lib/primitives/tools.ts";
import { initializeBody, serveForTest } from "../tests/_http_server.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const [scenario, countText, capsText] = Deno.args;
const count = Number(countText);
if (!(count > 0) || (scenario !== "sessions" && scenario !== "streams")) {
  throw new Error("usage: session_memory.ts sessions N CAPS_BYTES | streams N");
}
const LEGACY = "2025-11-25";
const ACCEPT_BOTH = "application/json, text/event-stream";
const MIB = 1024 * 1024;

function heap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

/** `{"experimental":{"x":[{},{},…]}}` of about `bytes` characters. */
function capabilities(bytes: number): unknown {
  return { experimental: { x: Array.from({ length: Math.max(0, bytes / 3 - 10) }, () => ({})) } };
}

const echo = checkDefinition(
  { description: "echo", inputSchema: { type: "object" }, handler: () => "ok" },
  "echo",
  "echo",
);
const http = await serveForTest([echo], { maxMessageBytes: 64 * MIB });

async function initialize(body: string): Promise<{ id: string; bytes: number }> {
  const response = await fetch(http.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
    body,
  });
  await response.body?.cancel();
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  return { id: response.headers.get("mcp-session-id")!, bytes: body.length };
}

// The text of the `initialize`, made before the first measure: the bench holds it.
const body = initializeBody(
  LEGACY,
  capabilities(scenario === "sessions" ? Number(capsText ?? 100) : 0),
);
const before = heap();
let bodies = 0;
if (scenario === "sessions") {
  for (let i = 0; i < count; i++) bodies += (await initialize(body)).bytes;
} else {
  const { id } = await initialize(body);
  const headers = {
    "mcp-session-id": id,
    "mcp-protocol-version": LEGACY,
    accept: "text/event-stream",
  };
  for (let opened = 0; opened < count;) {
    const controller = new AbortController();
    const response = await fetch(http.url, { headers, signal: controller.signal });
    if (response.status === 409) {
      // The server has not yet heard that the last one closed: try again in a moment.
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 1));
      continue;
    }
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    const reader = response.body!.getReader();
    await reader.read(); // the priming event: the stream is open
    controller.abort();
    await reader.closed.catch(() => {});
    opened++;
  }
}
const after = heap();
console.log(JSON.stringify({
  scenario,
  count,
  capsBytes: scenario === "sessions" ? Number(capsText ?? 100) : undefined,
  heapGrowthMB: +((after - before) / MIB).toFixed(1),
  initializeMB: +(bodies / MIB).toFixed(1),
  rssMB: +(Deno.memoryUsage().rss / MIB).toFixed(0),
}));
await http.close();
