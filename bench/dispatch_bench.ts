// The dispatcher alone: routing one parsed request to its handler and shaping the result,
// against calling the tool's handler directly and building the same result by hand.
import { createDispatcher } from "../lib/core/dispatch.ts";
import { extract, type Request } from "../lib/wire/extract.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "../tests/_diagnostics.ts";

const registry = await loadTools(new URL("./tools/", import.meta.url), { diagnostics: recorder() });
const echo = registry.byName.get("echo")!;
const encoder = new TextEncoder();
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function request(method: string, params: Record<string, unknown>): Request {
  const message = extract(
    encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })),
  );
  if (message.kind !== "request") throw new Error(`not a request: ${method}`);
  return message;
}

const modern = createDispatcher({
  diagnostics: recorder(),
  registry,
  pageSize: 100,
  toolTimeoutMs: 60_000,
});
const legacy = createDispatcher({
  diagnostics: recorder(),
  registry,
  pageSize: 100,
  toolTimeoutMs: 60_000,
});
await legacy.request(
  request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }),
  new AbortController(),
);
const signal = new AbortController();
const modernCall = request("tools/call", { name: "echo", arguments: { text: "hi" }, _meta: META });
const legacyCall = request("tools/call", { name: "echo", arguments: { text: "hi" } });
const modernList = request("tools/list", { _meta: META });

Deno.bench("handler called directly", { group: "tools/call echo", baseline: true }, async () => {
  const text = await echo.definition.handler({ text: "hi" }, {} as never);
  const _ = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } };
});
Deno.bench("dispatcher, 2026-07-28", { group: "tools/call echo" }, async () => {
  await modern.request(modernCall, signal);
});
Deno.bench("dispatcher, 2025-11-25 session", { group: "tools/call echo" }, async () => {
  await legacy.request(legacyCall, signal);
});
const tools = registry.tools;
Deno.bench("the page built by hand", { group: "tools/list", baseline: true }, () => {
  const _ = {
    jsonrpc: "2.0",
    id: 1,
    result: {
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.definition.description,
        inputSchema: tool.definition.inputSchema,
      })),
    },
  };
});
Deno.bench("dispatcher tools/list (10 tools)", { group: "tools/list" }, async () => {
  await modern.request(modernList, signal);
});
