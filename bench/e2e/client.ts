// A minimal MCP client for the end-to-end benchmark: it spawns one server process, speaks
// one protocol era to it over real stdio pipes, and checks every response it gets.
import { concatBytes } from "../../lib/util/bytes.ts";

export type Era = "modern" | "legacy";

export interface Contestant {
  /** Shown in tables, e.g. "toolshed (2026-07-28)". */
  label: string;
  /** The key results are stored under, e.g. "toolshed-modern". */
  key: string;
  args: string[];
  era: Era;
  /** Environment variables added to the benchmark's own (`--otel`). */
  env?: Record<string, string>;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One running server, with a request/response channel over its stdio. */
export interface Connection {
  pid: number;
  /** Sends requests for the given texts as one write; resolves once written. */
  sendEchoes(ids: number[], texts: string[]): Promise<void>;
  /** The bytes `sendEchoes` would write, so a timed send can be encoded before its clock starts. */
  encodeEchoes(ids: number[], texts: string[]): Uint8Array;
  /** Writes bytes from `encodeEchoes`; resolves once written. */
  send(bytes: Uint8Array): Promise<void>;
  /** The next response line, parsed. */
  nextResponse(): Promise<{ id: unknown; result?: { content?: { text?: unknown }[] } }>;
  /** Performs the era's handshake, if any. */
  open(): Promise<void>;
  close(): Promise<void>;
}

export function spawn(contestant: Contestant): Connection {
  const child = new Deno.Command(Deno.execPath(), {
    args: contestant.args,
    env: contestant.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = lineReader(child.stdout.getReader());

  function request(id: number, method: string, params: Record<string, unknown>): string {
    const withMeta = contestant.era === "modern" ? { ...params, _meta: META } : params;
    return JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta });
  }

  return {
    pid: child.pid,
    async open() {
      if (contestant.era === "modern") return;
      await writer.write(encoder.encode(
        request(0, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "toolshed-bench", version: "1.0.0" },
        }) + "\n",
      ));
      const answer = JSON.parse(await lines.next());
      if (answer.result?.protocolVersion !== "2025-11-25") {
        throw new Error(`${contestant.label}: bad initialize answer ${JSON.stringify(answer)}`);
      }
      await writer.write(
        encoder.encode('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
      );
    },
    sendEchoes(ids, texts) {
      return writer.write(this.encodeEchoes(ids, texts));
    },
    encodeEchoes(ids, texts) {
      let batch = "";
      for (let i = 0; i < ids.length; i++) {
        batch += request(ids[i], "tools/call", { name: "echo", arguments: { text: texts[i] } }) +
          "\n";
      }
      return encoder.encode(batch);
    },
    send(bytes) {
      return writer.write(bytes);
    },
    async nextResponse() {
      return JSON.parse(await lines.next());
    },
    async close() {
      await writer.close().catch(() => {}); // the server may already be gone
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.status;
      clearTimeout(timer);
      await lines.cancel().catch(() => {});
    },
  };
}

/** Checks that a response answers `id` with a single text block holding `text`. */
export function checkEcho(
  label: string,
  response: { id: unknown; result?: { content?: { text?: unknown }[] } },
  id: number,
  text: string,
): void {
  const got = response.result?.content?.[0]?.text;
  if (response.id !== id || got !== text) {
    const shown = JSON.stringify(response).slice(0, 300);
    throw new Error(`${label}: wrong answer to request ${id}: ${shown}`);
  }
}

/** Splits stdout into lines, scanning only new bytes; handles lines of many MiB. */
function lineReader(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let parts: Uint8Array[] = [];
  const ready: string[] = [];
  let readyIndex = 0;

  function take(chunk: Uint8Array): void {
    let start = 0;
    while (true) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) {
        if (start < chunk.length) parts.push(chunk.subarray(start));
        return;
      }
      parts.push(chunk.subarray(start, newline));
      ready.push(decoder.decode(concatBytes(parts)));
      parts = [];
      start = newline + 1;
    }
  }

  return {
    async next(): Promise<string> {
      while (readyIndex >= ready.length) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the server closed its output");
        take(value);
      }
      const line = ready[readyIndex++];
      if (readyIndex === ready.length) {
        ready.length = 0;
        readyIndex = 0;
      }
      return line;
    },
    cancel: () => reader.cancel(),
  };
}
