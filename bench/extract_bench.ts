// The one-shot extractor against the naive alternatives it replaces (adr/0002):
// parsing the same line again in each stage that needs a field, as mcp-go's
// request_handler.go does (three decodes), and a reviver-based JSON.parse that picks
// the fields out while parsing.
import { extract } from "../lib/wire/extract.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
};

function callLine(text: string): Uint8Array {
  return encoder.encode(JSON.stringify({
    jsonrpc: "2.0",
    id: 42,
    method: "tools/call",
    params: { name: "echo", arguments: { text }, _meta: META },
  }));
}

/** Each stage decodes the raw line for the fields it needs: validate, route, handle. */
function parsePerStage(line: Uint8Array): unknown {
  const envelope = JSON.parse(decoder.decode(line));
  if (envelope.jsonrpc !== "2.0") throw new Error("bad");
  const routed = JSON.parse(decoder.decode(line));
  const meta = routed.params._meta["io.modelcontextprotocol/protocolVersion"];
  const handled = JSON.parse(decoder.decode(line));
  return [meta, handled.params.name, handled.params.arguments];
}

/** One parse, but with a reviver that visits every value to pick fields out. */
function parseWithReviver(line: Uint8Array): unknown {
  const picked: Record<string, unknown> = {};
  JSON.parse(decoder.decode(line), (key, value) => {
    if (key === "method" || key === "id" || key === "name") picked[key] = value;
    return value;
  });
  return picked;
}

for (
  const [label, line] of [
    ["small tools/call", callLine("hello")],
    ["tools/call with 1 MiB argument", callLine("x".repeat(1024 * 1024))],
  ] as const
) {
  Deno.bench(`extract() once`, { group: label, baseline: true }, () => {
    extract(line);
  });
  Deno.bench(`JSON.parse per stage (3x)`, { group: label }, () => {
    parsePerStage(line);
  });
  Deno.bench(`JSON.parse with a reviver`, { group: label }, () => {
    parseWithReviver(line);
  });
}

// Why extract() decodes laxly and validates only lines that contain U+FFFD.
const longLine = callLine("x".repeat(1024 * 1024));
const strict = new TextDecoder("utf-8", { fatal: true });
Deno.bench("lax TextDecoder", { group: "decode a 1 MiB line", baseline: true }, () => {
  decoder.decode(longLine);
});
Deno.bench("fatal TextDecoder", { group: "decode a 1 MiB line" }, () => {
  strict.decode(longLine);
});
