// The request core alone: routing one parsed request to its handler and shaping the result,
// against calling the tool's handler directly and building the same result by hand.
import { IN_PROCESS, type RequestContext } from "../lib/methods/context.ts";
import { createServer } from "../lib/server/create_server.ts";
import { createSession } from "../lib/methods/session.ts";
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

const { core } = await createServer({
  primitives: { tools: registry.tools },
  diagnostics: recorder(),
  pageSize: 100,
  toolTimeoutMs: 60_000,
});
const outlet = { notify() {}, outbound: undefined };
/** A request's context on a connection with `session`, as stdio's in-flight entries are. */
const contextOf = (request: Request, session = createSession()): RequestContext => ({
  request,
  controller: new AbortController(),
  closing: undefined,
  session,
  outlet,
  origin: IN_PROCESS,
});
const modernSession = createSession();
const legacySession = createSession();
await core.handle(
  contextOf(
    request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }),
    legacySession,
  ),
);
const modernCall = request("tools/call", { name: "echo", arguments: { text: "hi" }, _meta: META });
const legacyCall = request("tools/call", { name: "echo", arguments: { text: "hi" } });
const modernList = request("tools/list", { _meta: META });

Deno.bench("handler called directly", { group: "tools/call echo", baseline: true }, async () => {
  const text = await echo.definition.handler({ text: "hi" }, {} as never);
  const _ = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } };
});
Deno.bench("core, 2026-07-28", { group: "tools/call echo" }, async () => {
  await core.handle(contextOf(modernCall, modernSession));
});
Deno.bench("core, 2025-11-25 session", { group: "tools/call echo" }, async () => {
  await core.handle(contextOf(legacyCall, legacySession));
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
Deno.bench("core tools/list (10 tools)", { group: "tools/list" }, async () => {
  await core.handle(contextOf(modernList, modernSession));
});
