// The request core through the stdio transport, in process: what a handler can send besides
// its answer (progress, log messages, requests to the client), results of any resultType,
// methods added by one table entry, registry swaps and long-lived requests.
import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { createServer } from "../lib/server/create_server.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import type { MethodEntry, MethodTable } from "../lib/methods/call.ts";
import { METHODS } from "../lib/methods/table.ts";
import { contentsOf } from "../lib/primitives/registry.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import { recorder } from "./_diagnostics.ts";
import { collector, feed } from "./_memory_streams.ts";
import { withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SERVER_META = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };

function toolsOf(handlers: Record<string, ToolDefinitionHandler>): Tool[] {
  return Object.entries(handlers).map(([name, handler]) =>
    checkDefinition({ description: name, inputSchema: { type: "object" }, handler }, name, name)
  );
}
type ToolDefinitionHandler = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

async function connect(
  tools: Tool[],
  options: { methods?: MethodTable; maxConcurrency?: number } = {},
) {
  const input = feed();
  const output = collector();
  const diagnostics = recorder();
  const composed = await createServer({
    primitives: { tools },
    pageSize: 100,
    toolTimeoutMs: 10_000,
    diagnostics,
    methods: options.methods,
    maxMessageBytes: 1 << 20,
    shutdownGraceMs: 2_000,
    outputBoundChars: 1 << 20,
    maxConcurrency: options.maxConcurrency ?? 8,
    waitingBoundBytes: 1 << 20,
  });
  const { registry } = composed;
  const server = composed.serveStdio({ input, output });
  return {
    registry,
    diagnostics,
    send: (message: Record<string, unknown>) =>
      input.push(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"),
    /** The first `count` lines written, once there are that many. */
    lines: async (count: number) => {
      await withHangGuard(output.untilLines(count), `${count} lines`);
      return output.lines().slice(0, count);
    },
    all: () => output.lines(),
    end: async () => {
      input.end();
      await withHangGuard(server.done, "the end of input");
      return output.lines();
    },
  };
}

const call = (id: number | string, name: string, meta: Record<string, unknown> = META) => ({
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: meta },
});
const initialize = (capabilities: Record<string, unknown> = {}) => ({
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } },
});

Deno.test("core: a tool's progress reaches the client before its answer, only when asked for", async () => {
  let later: ToolContext | undefined;
  const peer = await connect(toolsOf({
    work: (_args, ctx) => {
      later = ctx;
      ctx.progress(1, 3, "one");
      ctx.progress(1); // does not grow: dropped
      ctx.progress(2, 3);
      return "done";
    },
  }));
  peer.send(call(1, "work", { ...META, progressToken: "p" }));
  peer.send(call(2, "work"));
  const lines = await peer.lines(4);
  later!.progress(3); // after the answer: dropped
  deepStrictEqual(await peer.end(), lines);
  deepStrictEqual(lines, [
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: 1, total: 3, message: "one" },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: 2, total: 3 },
    },
    {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "done" }],
        _meta: SERVER_META,
      },
    },
    {
      jsonrpc: "2.0",
      id: 2,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "done" }],
        _meta: SERVER_META,
      },
    },
  ]);
});

/** The table with a legacy `logging/setLevel`, which is what advertises `logging`. */
const WITH_LOGGING: MethodTable = new Map<string, MethodEntry>([
  ...METHODS,
  ["logging/setLevel", {
    eras: ["session"],
    capability: "logging",
    handler: ({ ctx, request }) => {
      ctx.session!.logLevel = request.params.level as string;
      return {};
    },
  }],
]);

Deno.test("core: log messages go out at or above the level asked for, and only where logging is offered", async () => {
  const tools = toolsOf({
    chatty: (_args, ctx) => {
      ctx.log("info", "routine");
      ctx.log("error", { failed: "disk" }, "db");
      return "ok";
    },
  });
  const withLevel = { ...META, "io.modelcontextprotocol/logLevel": "warning" };
  const offered = await connect(tools, { methods: WITH_LOGGING });
  offered.send(call(1, "chatty", withLevel));
  deepStrictEqual((await offered.end()).map((line) => line.method ?? line.id), [
    "notifications/message",
    1,
  ]);
  deepStrictEqual(offered.all()[0].params, {
    level: "error",
    data: { failed: "disk" },
    logger: "db",
  });
  // Without the capability nothing is sent, whatever the request asks.
  const plain = await connect(tools, {
    methods: new Map([...METHODS].filter(([method]) => method !== "logging/setLevel")),
  });
  plain.send(call(1, "chatty", withLevel));
  deepStrictEqual((await plain.end()).map((line) => line.id), [1]);
  // A legacy session gets info and above until it sets a level (adr/0024), then what it set.
  const legacy = await connect(tools, { methods: WITH_LOGGING });
  legacy.send(initialize());
  legacy.send(call(1, "chatty", {}));
  legacy.send({ id: 2, method: "logging/setLevel", params: { level: "error" } });
  legacy.send(call(3, "chatty", {}));
  const levels = (await legacy.end()).filter((line) => line.method).map((line) =>
    line.params.level
  );
  deepStrictEqual(levels, ["info", "error", "error"]);
  deepStrictEqual(legacy.all()[0].result.capabilities, { tools: {}, logging: {} });
});

Deno.test("core: a tool asks a 2025-era client through the transport, and the answer comes back by id", async () => {
  const peer = await connect(toolsOf({
    ask: async (_args, ctx) => {
      const answer = await ctx.request("sampling/createMessage", { messages: [], maxTokens: 5 });
      const refused = await ctx.request("elicitation/create", {}).catch((error) => error.message);
      return `${JSON.stringify(answer)} / ${refused}`;
    },
  }));
  peer.send(initialize({ sampling: {} }));
  peer.send(call(1, "ask", {}));
  const [, asked] = await peer.lines(2);
  deepStrictEqual(asked, {
    jsonrpc: "2.0",
    id: "toolshed-1",
    method: "sampling/createMessage",
    params: { messages: [], maxTokens: 5 },
  });
  peer.send({ id: "toolshed-1", result: { role: "assistant", model: "m" } });
  const lines = await peer.end();
  deepStrictEqual(lines[2], {
    jsonrpc: "2.0",
    id: 1,
    result: {
      content: [{
        type: "text",
        text: '{"role":"assistant","model":"m"} / Cannot send elicitation/create: ' +
          'the client did not declare the "elicitation" capability',
      }],
    },
  });
});

Deno.test("core: cancelling a call cancels the request it sent the client; 2026-07-28 asks only what the client declared", async () => {
  const peer = await connect(toolsOf({
    ask: (_args, ctx) => ctx.request("roots/list", {}).catch((error) => error.message),
  }));
  peer.send(initialize({ roots: {} }));
  peer.send(call(1, "ask", {}));
  await peer.lines(2);
  peer.send({ method: "notifications/cancelled", params: { requestId: 1, reason: "enough" } });
  const lines = await peer.end();
  deepStrictEqual(lines.slice(2), [{
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "toolshed-1", reason: "enough" },
  }]);
  const modern = await connect(toolsOf({
    ask: (_args, ctx) => ctx.request("roots/list", {}).catch((error) => error.message),
  }));
  modern.send(call(1, "ask"));
  const [answer] = await modern.end();
  strictEqual(
    answer.result.content[0].text,
    'Cannot send roots/list: the client did not declare the "roots" capability',
  );
});

Deno.test("core: a result may carry another resultType where the method and the era allow it", async () => {
  const tools = toolsOf({
    asks: () => ({ resultType: "input_required", requestState: "s1" }),
    odd: () => ({ resultType: "task", taskId: "t" }),
    empty: () => ({ resultType: "input_required" }),
  });
  const modern = await connect(tools);
  modern.send(call(1, "asks"));
  modern.send(call(2, "odd"));
  modern.send(call(3, "empty"));
  const [asks, odd, empty] = await modern.end();
  deepStrictEqual(asks.result, {
    resultType: "input_required",
    requestState: "s1",
    _meta: SERVER_META,
  });
  strictEqual(
    odd.result.content[0].text,
    'Tool "odd" returned resultType "task", which tools/call cannot answer with ' +
      "(complete, input_required)",
  );
  strictEqual(odd.result.isError, true);
  strictEqual(empty.result.isError, true);
  const legacy = await connect(tools);
  legacy.send(initialize());
  legacy.send(call(1, "asks", {}));
  const [, legacyAsks] = await legacy.end();
  deepStrictEqual(legacyAsks.result, {
    content: [{
      type: "text",
      text: 'Tool "asks" asks the client for input (resultType "input_required"), which ' +
        "needs a client of protocol version 2026-07-28",
    }],
    isError: true,
  });
});

Deno.test("core: a method is one table entry, and the capabilities follow the table", async () => {
  const methods: MethodTable = new Map<string, MethodEntry>([
    ...METHODS,
    ["resources/list", {
      eras: ["stateless", "session"],
      capability: "resources",
      cacheable: true,
      handler: () => ({ resources: [] }),
    }],
  ]);
  const peer = await connect([], { methods });
  peer.send({ id: 1, method: "server/discover", params: { _meta: META } });
  peer.send({ id: 2, method: "resources/list", params: { _meta: META } });
  const [discover, list] = await peer.end();
  deepStrictEqual(discover.result.capabilities, { tools: {}, resources: {}, logging: {} });
  deepStrictEqual(list.result, {
    resultType: "complete",
    resources: [],
    ttlMs: 300_000,
    cacheScope: "public",
    _meta: SERVER_META,
  });
});

Deno.test("core: a registry swap serves new requests the new tools while calls in flight finish on the old", async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  const peer = await connect(toolsOf({ slow: () => released.then(() => "slow done") }));
  let swaps = 0;
  peer.registry.onChange((next, previous) => swaps += next.version - previous.version);
  peer.send(call(1, "slow"));
  peer.send({ id: 2, method: "tools/list", params: { _meta: META } });
  await peer.lines(1);
  peer.registry.swap(contentsOf(toolsOf({ fresh: () => "fresh" })));
  peer.send({ id: 3, method: "tools/list", params: { _meta: META } });
  peer.send(call(4, "slow"));
  peer.send(call(5, "fresh"));
  await peer.lines(4);
  release();
  const lines = await peer.end();
  const byId = new Map(lines.map((line) => [line.id, line]));
  deepStrictEqual(byId.get(2).result.tools.map((tool: { name: string }) => tool.name), ["slow"]);
  deepStrictEqual(byId.get(3).result.tools.map((tool: { name: string }) => tool.name), ["fresh"]);
  strictEqual(byId.get(1).result.content[0].text, "slow done");
  deepStrictEqual(byId.get(4).error, {
    code: -32602,
    message: 'Unknown tool: "slow" (this server has "fresh")',
  });
  strictEqual(byId.get(5).result.content[0].text, "fresh");
  strictEqual(swaps, 1);
  strictEqual(peer.registry.current().version, 2);
});

Deno.test("core: a long-lived request holds no slot and is closed gracefully at the end", async () => {
  const methods: MethodTable = new Map<string, MethodEntry>([
    ...METHODS,
    ["test/listen", {
      eras: ["stateless"],
      longLived: true,
      handler: ({ ctx }) =>
        new Promise((resolve) =>
          ctx.closing!.addEventListener("abort", () => resolve({ closed: true }))
        ),
    }],
  ]);
  const peer = await connect(toolsOf({ quick: () => "quick" }), { methods, maxConcurrency: 1 });
  peer.send({ id: "listen", method: "test/listen", params: { _meta: META } });
  peer.send(call(1, "quick"));
  deepStrictEqual((await peer.lines(1)).map((line) => line.id), [1]);
  const lines = await peer.end();
  deepStrictEqual(lines[1], {
    jsonrpc: "2.0",
    id: "listen",
    result: { resultType: "complete", closed: true, _meta: SERVER_META },
  });
});

Deno.test("core: routing errors are answered at once, before any handler runs", async () => {
  const { core } = await createServer({
    primitives: {},
    pageSize: 10,
    toolTimeoutMs: 1_000,
    diagnostics: recorder(),
  });
  const answer = (method: string, meta?: Record<string, unknown>) =>
    core.handle({
      request: {
        kind: "request",
        id: 1,
        method,
        params: {},
        envelope: meta && {
          protocolVersion: meta.v as string,
          clientCapabilities: {},
          clientInfo: undefined,
          logLevel: undefined,
        },
        progressToken: undefined,
      },
      controller: new AbortController(),
      closing: undefined,
      session: undefined,
      outlet: { notify() {}, outbound: undefined },
      origin: IN_PROCESS,
    });
  for (
    const [method, meta, code] of [
      ["no/such", { v: "2026-07-28" }, -32601],
      ["ping", { v: "2026-07-28" }, -32601],
      ["tools/list", { v: "1999-01-01" }, -32022],
      ["no/such", undefined, -32601],
    ] as const
  ) {
    const response = answer(method, meta);
    strictEqual(response instanceof Promise, false, method);
    strictEqual((response as { error: { code: number } }).error.code, code, method);
  }
});

Deno.test("core: a tool that needs a client capability refuses a client without it, before its handler", async () => {
  let ran = 0;
  const needy = checkDefinition(
    {
      description: "needs sampling",
      inputSchema: { type: "object" },
      requiredClientCapabilities: { sampling: {} },
      handler: () => (ran++, "Success"),
    },
    "needy",
    "needy",
  );
  const peer = await connect([needy]);
  peer.send(call(1, "needy"));
  peer.send(
    call(2, "needy", { ...META, "io.modelcontextprotocol/clientCapabilities": { sampling: {} } }),
  );
  const [refused, served] = await peer.end();
  deepStrictEqual(refused, {
    jsonrpc: "2.0",
    id: 1,
    error: {
      code: -32021,
      message: 'Missing required client capability: tool "needy" needs "sampling"',
      data: { requiredCapabilities: { sampling: {} } },
    },
  });
  strictEqual(served.result.content[0].text, "Success");
  strictEqual(ran, 1);
  // A 2025 session has no such error: the model reads why in an isError result.
  const legacy = await connect([needy]);
  legacy.send(initialize());
  legacy.send(call(1, "needy", {}));
  const [, answer] = await legacy.end();
  deepStrictEqual(answer.result, {
    content: [{
      type: "text",
      text:
        'Tool "needy" needs the client capabilities sampling, which this client did not declare',
    }],
    isError: true,
  });
  throws(
    () =>
      checkDefinition(
        {
          description: "d",
          inputSchema: { type: "object" },
          requiredClientCapabilities: { sampling: true },
          handler: () => "",
        },
        "bad",
        "bad",
      ),
    /requiredClientCapabilities must be an object of capabilities/,
  );
});
