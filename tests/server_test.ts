// The pipeline in-process (serve() over the real dispatcher, wired by tests/_in_process.ts),
// with memory streams in place of stdin and stdout.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { shuttingDown } from "../lib/wire/errors.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import { withHangGuard } from "./_server_process.ts";
import { checkDefinition, type ToolSet } from "../lib/primitives/tools.ts";
import { serveTools, type Settings } from "./_in_process.ts";
import { collector, feed } from "./_memory_streams.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function registryOf(definitions: Record<string, Record<string, unknown>>): ToolSet {
  const tools = Object.entries(definitions).map(([name, definition]) =>
    checkDefinition(
      { inputSchema: { type: "object" }, description: name, ...definition },
      name,
      name,
    )
  );
  return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])) };
}

function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: META },
  });
}

/** Lets every pending microtask run: one turn of the event loop. */
const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A promise and the function that resolves it, for a fixture to say that something happened. */
function signal(): { happened: Promise<void>; happen: () => void } {
  let happen = () => {};
  const happened = new Promise<void>((resolve) => happen = resolve);
  return { happened, happen };
}

async function start(registry: ToolSet, overrides: Partial<Settings> = {}) {
  const input = feed();
  const output = collector();
  const server = await serveTools(registry, { input, output }, {
    pageSize: 100,
    toolTimeoutMs: 10_000,
    maxMessageBytes: 1024,
    shutdownGraceMs: 1_000,
    outputBoundChars: 1_000_000,
    maxConcurrency: 64,
    waitingBoundBytes: 1_000_000,
    ...overrides,
  });
  return { input, output, server };
}

Deno.test("serve() answers a fast request while a slow one is still running", async () => {
  let finishSlow = () => {};
  const registry = registryOf({
    slow: { handler: () => new Promise<string>((resolve) => finishSlow = () => resolve("slow")) },
    fast: { handler: () => "fast" },
  });
  const { input, output, server } = await start(registry);
  input.push(call(1, "slow") + "\n" + call(2, "fast") + "\n");
  await output.untilLines(1);
  deepStrictEqual(output.lines().map((line) => line.id), [2]);
  finishSlow();
  await output.untilLines(2);
  input.end();
  await server.done;
  deepStrictEqual(output.lines().map((line) => line.id), [2, 1]);
  strictEqual(output.lines()[1].result.content[0].text, "slow");
});

Deno.test("serve() with one slot answers a request that waited, when input ends while the one before it runs", async () => {
  // Input ends at once; the drain must wait for the waiting call as well as the running one
  // (it once took the moment between them, when neither counted, for the end).
  const registry = registryOf({
    pause: {
      handler: () => new Promise<string>((resolve) => setTimeout(() => resolve("paused"), 30)),
    },
  });
  const { input, output, server } = await start(registry, { maxConcurrency: 1 });
  input.push(call(1, "pause") + "\n" + call(2, "pause") + "\n");
  input.end();
  await withHangGuard(server.done, "the server's end");
  deepStrictEqual(output.lines().map((line) => line.id), [1, 2]);
});

Deno.test("serve() passes the request's signal, id and client to the handler", async () => {
  let seen: Record<string, unknown> = {};
  const registry = registryOf({
    inspect: {
      handler: (_args: unknown, ctx: Record<string, unknown>) => {
        seen = {
          ...ctx,
          signal: ctx.signal instanceof AbortSignal,
          progress: typeof ctx.progress,
          log: typeof ctx.log,
          request: typeof ctx.request,
          // Over stdio there is no stream to close: a call's answer is one line.
          closeStream: (ctx.closeStream as () => boolean)(),
        };
        return "ok";
      },
    },
  });
  const { input, output, server } = await start(registry);
  input.push(call(5, "inspect") + "\n");
  input.end();
  await server.done;
  strictEqual(output.lines().length, 1);
  deepStrictEqual(seen, {
    requestId: 5,
    toolName: "inspect",
    protocolVersion: "2026-07-28",
    clientInfo: undefined,
    clientCapabilities: {},
    // No caller to name: stdio authenticates nobody (OAuth is HTTP's, --auth-issuer).
    auth: undefined,
    signal: true,
    progress: "function",
    log: "function",
    request: "function",
    closeStream: false,
  });
});

Deno.test("serve() answers an oversize line with -32600 and serves the next line", async () => {
  const { input, output, server } = await start(registryOf({ echo: { handler: () => "echoed" } }), {
    maxMessageBytes: 200,
  });
  input.push(call(1, "echo", { text: "x".repeat(500) }) + "\n" + call(2, "echo") + "\n");
  input.end();
  await server.done;
  deepStrictEqual(output.lines(), [
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid request: the message is longer than the limit of 200 bytes",
      },
    },
    {
      jsonrpc: "2.0",
      id: 2,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "echoed" }],
        _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
      },
    },
  ]);
});

Deno.test("serve() stops reading while its output is over the bound, and delivers everything after", async () => {
  const { input, output, server } = await start(
    registryOf({ echo: { handler: () => "y".repeat(100) } }),
    {
      outputBoundChars: 300,
    },
  );
  output.hold();
  for (let id = 1; id <= 50; id++) input.push(call(id, "echo") + "\n");
  input.end();
  // With writes held, the reader must stall after the queue passes the bound. Everything
  // here is in memory and the handler synchronous, so the server does all it can do within
  // a turn of the event loop: once a turn passes without a read, it reads no more.
  let readsWhileHeld;
  do {
    readsWhileHeld = input.reads;
    await macrotask();
  } while (input.reads !== readsWhileHeld);
  await macrotask();
  strictEqual(input.reads, readsWhileHeld, "the reader kept reading while output was held");
  ok(readsWhileHeld < 50, `read ${readsWhileHeld} chunks while output was held`);
  output.resume();
  await server.done;
  deepStrictEqual(
    output.lines().map((line) => line.id).sort((a, b) => a - b),
    [
      ...Array(50).keys(),
    ].map((i) => i + 1),
  );
});

Deno.test("serve() aborts in-flight calls and ends quietly when the output closes", async () => {
  let aborted = false;
  const abort = signal();
  const registry = registryOf({
    wait: {
      handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            abort.happen();
            reject(ctx.signal.reason);
          })
        ),
    },
    echo: { handler: () => "x" },
  });
  const input = feed();
  const server = await serveTools(registry, {
    input,
    output: { write: () => Promise.reject(new Deno.errors.BrokenPipe("client went away")) },
  }, {
    pageSize: 100,
    toolTimeoutMs: 10_000,
    maxMessageBytes: 1024,
    shutdownGraceMs: 1_000,
    outputBoundChars: 1_000,
    maxConcurrency: 64,
    waitingBoundBytes: 1_000,
  });
  input.push(call(1, "wait") + "\n" + call(2, "echo") + "\n");
  // The echo answer hits the closed pipe, which must abort the waiting call.
  await withHangGuard(abort.happened, "the abort of the waiting call");
  input.push(call(3, "echo") + "\n");
  await server.done;
  ok(aborted);
});

Deno.test("serve() shutdown() lets in-flight requests finish and flushes their answers", async () => {
  let finish = () => {};
  const started = signal();
  const registry = registryOf({
    slow: {
      handler: () => {
        started.happen();
        return new Promise<string>((resolve) => finish = () => resolve("done"));
      },
    },
  });
  const { input, output, server } = await start(registry);
  input.push(call(1, "slow") + "\n");
  await withHangGuard(started.happened, "the slow call to start");
  const stopped = server.shutdown("test");
  input.push(call(2, "slow") + "\n"); // read after shutdown began: answered, not run
  await output.untilLines(1);
  finish();
  await stopped;
  deepStrictEqual(output.lines().map((line) => [line.id, line.result?.content[0].text]), [
    [2, undefined],
    [1, "done"],
  ]);
  deepStrictEqual(output.lines()[0].error, shuttingDown());
  input.end();
  await server.done;
});

Deno.test("serve() runs no more than maxConcurrency requests at once; the rest wait their turn", async () => {
  let running = 0;
  let most = 0;
  /** One per call that is running: ends it. */
  const naps: (() => void)[] = [];
  let arrival = signal();
  const registry = registryOf({
    nap: {
      handler: async () => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => {
          naps.push(resolve);
          arrival.happen();
        });
        running--;
        return "rested";
      },
    },
  });
  const { input, output, server } = await start(registry, { maxConcurrency: 3 });
  for (let id = 1; id <= 12; id++) input.push(call(id, "nap") + "\n");
  input.end();
  // Whenever as many calls run as may (3, then what is left), none more starts; ending one
  // lets the next start.
  for (let ended = 0; ended < 12; ended++) {
    while (naps.length < Math.min(3, 12 - ended)) {
      await withHangGuard(arrival.happened, `call ${ended + naps.length + 1} to start`);
      arrival = signal();
    }
    await macrotask();
    strictEqual(running, Math.min(3, 12 - ended));
    naps.shift()!();
  }
  await server.done;
  deepStrictEqual(
    output.lines().map((line) => line.id).sort((a, b) => a - b),
    [
      ...Array(12).keys(),
    ].map((i) => i + 1),
  );
  strictEqual(most, 3);
});

/** A tool that runs until `finish()` and records whether its signal was aborted. */
function slowTool() {
  const started = signal();
  const state = { finish: () => {}, aborted: false, started: started.happened };
  const registry = registryOf({
    slow: {
      handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
        new Promise<string>((resolve) => {
          state.finish = () => resolve("done");
          ctx.signal.addEventListener("abort", () => state.aborted = true);
          started.happen();
        }),
    },
  });
  return { registry, state };
}

Deno.test("serve() keeps the grace period when a line arrives after shutdown() began", async () => {
  const { registry, state } = slowTool();
  // A grace far longer than the test: only an abort could end the call early.
  const { input, output, server } = await start(registry, { shutdownGraceMs: 60_000 });
  input.push(call(1, "slow") + "\n");
  await withHangGuard(state.started, "the slow call to start");
  const stopped = server.shutdown("test");
  input.push(call(2, "slow") + "\n"); // the read under way returns it: the read loop ends
  await output.untilLines(1);
  strictEqual(state.aborted, false, "a late line aborted the call in flight");
  state.finish();
  await stopped;
  deepStrictEqual(output.lines().map((line) => [line.id, line.result?.content[0].text]), [
    [2, undefined],
    [1, "done"],
  ]);
  input.end();
  await server.done;
});

Deno.test("serve() stops at once when input ends during a shutdown (clients close stdin, then signal)", async () => {
  const { registry, state } = slowTool();
  const { input, output, server } = await start(registry, { shutdownGraceMs: 60_000 });
  input.push(call(1, "slow") + "\n");
  await withHangGuard(state.started, "the slow call to start");
  const stopped = server.shutdown("test");
  input.end(); // the read under way sees the end of input
  // Without stopping at once, this would wait out the 60 s grace: the guard fails it at 30 s.
  await withHangGuard(stopped, "a shutdown that stops at once");
  strictEqual(state.aborted, true);
  deepStrictEqual(output.lines().map((line) => [line.id, line.result.isError]), [[1, true]]);
  await server.done;
});

Deno.test("serve() hands every call a client capabilities object no tool can change for another", async () => {
  const registry = registryOf({
    meddle: {
      handler: (_args: unknown, ctx: { clientCapabilities: Record<string, unknown> }) => {
        (ctx.clientCapabilities.roots as Record<string, unknown> | undefined ??
          ctx.clientCapabilities).sampling = { hacked: true };
        return "changed";
      },
    },
    look: {
      handler: (_args: unknown, ctx: { clientCapabilities: unknown }) =>
        JSON.stringify(ctx.clientCapabilities),
    },
  });
  const { input, output, server } = await start(registry);
  const legacyCall = (id: number, name: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });
  // Before initialize (claim-less requests are served lenient, sharing one context).
  input.push(legacyCall(1, "meddle") + "\n");
  await output.untilLines(1);
  input.push(legacyCall(2, "look") + "\n");
  await output.untilLines(2);
  // In a session: the capabilities of initialize are every call's.
  input.push(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: "t", version: "1" },
      },
    }) + "\n",
  );
  await output.untilLines(3);
  input.push(legacyCall(4, "meddle") + "\n");
  await output.untilLines(4);
  input.push(legacyCall(5, "look") + "\n");
  await output.untilLines(5);
  input.end();
  await server.done;
  const byId = new Map(output.lines().map((line) => [line.id, line.result]));
  strictEqual(byId.get(1).isError, true);
  strictEqual(byId.get(2).content[0].text, "{}");
  strictEqual(byId.get(4).isError, true);
  strictEqual(byId.get(5).content[0].text, '{"roots":{"listChanged":true}}');
});
