// The ceiling: the barest Deno stdio loop that answers the benchmark's requests correctly.
// A plain `Deno.stdin.read(buf)` loop, newline search over new bytes only, one JSON.parse
// per line, replies coalesced while a write is in flight. Not a server: no validation, no
// errors beyond "method not found". Needs no permissions (`deno run bare_loop.ts`).

const TOOL = {
  name: "echo",
  description: "Returns the given text unchanged",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
};
const SERVER_INFO = { name: "bare-loop", version: "1.0.0" };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Coalescing writer: replies produced while a write is in flight go out as one chunk.
let queue: string[] = [];
let writing: Promise<void> | undefined;
async function drain(): Promise<void> {
  try {
    while (queue.length > 0) {
      const bytes = encoder.encode(queue.join("\n") + "\n");
      queue = [];
      let offset = 0;
      while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
    }
  } finally {
    writing = undefined;
  }
}
function send(reply: unknown): void {
  queue.push(JSON.stringify(reply));
  writing ??= drain();
}

// deno-lint-ignore no-explicit-any
function handle(message: any): void {
  if (message === null || typeof message !== "object" || message.id === undefined) return;
  const { id, method, params } = message;
  let result: unknown;
  if (method === "tools/call" && params?.name === "echo") {
    result = {
      resultType: "complete",
      content: [{ type: "text", text: params.arguments.text }],
    };
  } else if (method === "tools/list") {
    result = { resultType: "complete", tools: [TOOL] };
  } else if (method === "initialize") {
    result = {
      protocolVersion: params?.protocolVersion ?? "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: SERVER_INFO,
    };
  } else if (method === "server/discover") {
    result = {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    };
  } else if (method === "ping") {
    result = {};
  } else {
    send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    return;
  }
  send({ jsonrpc: "2.0", id, result });
}

function line(bytes: Uint8Array): void {
  if (bytes.length === 0) return;
  try {
    handle(JSON.parse(decoder.decode(bytes)));
  } catch {
    // Not JSON: the ceiling does not answer parse errors.
  }
}

// Reader: scan only the bytes just read; keep a partial line as chunks, join once it ends.
const buf = new Uint8Array(1 << 16);
let pending: Uint8Array[] = [];
let pendingLength = 0;
while (true) {
  const n = await Deno.stdin.read(buf);
  if (n === null) break;
  let start = 0;
  let nl = buf.subarray(0, n).indexOf(10);
  while (nl !== -1) {
    if (pendingLength === 0) {
      line(buf.subarray(start, nl));
    } else {
      pending.push(buf.subarray(start, nl));
      const joined = new Uint8Array(pendingLength + nl - start);
      let at = 0;
      for (const chunk of pending) {
        joined.set(chunk, at);
        at += chunk.length;
      }
      pending = [];
      pendingLength = 0;
      line(joined);
    }
    start = nl + 1;
    nl = buf.subarray(start, n).indexOf(10);
    if (nl !== -1) nl += start;
  }
  if (start < n) {
    pending.push(buf.slice(start, n));
    pendingLength += n - start;
  }
}
while (writing) await writing;
