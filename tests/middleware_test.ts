// Middleware (adr/0025): a server directory's middleware/ and createServer's `middleware`
// around every method's handler, through the server createServer builds, over stdio in this
// process (and over HTTP for what only HTTP has: its transport and session id). What a
// middleware sees, what it may change, how it answers in its stead, the order of the chain,
// the errors of a bad middleware file, and middleware reloaded with --watch.
import { deepStrictEqual, match, ok, rejects, strictEqual } from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";
import { createServer } from "../lib/server/create_server.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import type { Call, Middleware, ToolContext } from "../lib/primitives/types.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { ProtocolError } from "../lib/wire/errors.ts";
import { recorder } from "./_diagnostics.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const ECHO = 'export default { description: "Echoes", inputSchema: { type: "object", ' +
  'properties: { text: { type: "string" } } }, handler: ({ text }) => `echo: ${text}` };\n';

/** A scratch server directory: tools/echo.ts and the given middleware files. */
async function serverDir(middleware: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_middleware_" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(`${dir}/tools/echo.ts`, ECHO);
  if (Object.keys(middleware).length > 0) await Deno.mkdir(`${dir}/middleware`);
  for (const [name, source] of Object.entries(middleware)) {
    await Deno.writeTextFile(`${dir}/middleware/${name}`, source);
  }
  return dir;
}

/** A middleware file that adds `tag` to the text of every tool call's result, after `next`. */
const tagging = (tag: string) =>
  `export default (next) => async (call) => {\n` +
  `  const result = await next(call);\n` +
  `  if (call.method !== "tools/call" || !Array.isArray(result.content)) return result;\n` +
  `  return { ...result, content: [{ type: "text", text: result.content[0].text + " ${tag}" }] };\n` +
  `};\n`;

type Server = Awaited<ReturnType<typeof startInProcess>>;

async function ask(server: Server, id: number, method: string, params: object = {}) {
  server.send(
    JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }),
  );
  const line = await withHangGuard(server.nextLine(), `the answer to ${method}`);
  ok(line !== null, `the server ended before answering ${method}`);
  return JSON.parse(line);
}

const text = (answer: { result?: { content?: { text?: string }[] } }) =>
  answer.result?.content?.[0]?.text;

Deno.test("middleware/ runs around every call in file-name order, the first outermost", async () => {
  const dir = await serverDir({
    "20_inner.ts": tagging("[inner]"),
    "10_outer.ts": tagging("[outer]"),
  });
  const server = await startInProcess(["--dir", dir]);
  try {
    const answer = await ask(server, 1, "tools/call", { name: "echo", arguments: { text: "hi" } });
    // The inner one wraps the handler's result first; the outer one last.
    strictEqual(text(answer), "echo: hi [inner] [outer]");
    // What leaves is still a 2026-07-28 result: stamped after the middleware.
    strictEqual(answer.result.resultType, "complete");
    ok(answer.result._meta["io.modelcontextprotocol/serverInfo"]);
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("middleware sees the call as the handler will, and the result before it is stamped", async () => {
  const seen: { call: Partial<Call>; result: unknown }[] = [];
  const spy: Middleware = (next) => async (call) => {
    const result = await next(call);
    const { method, params, id, protocolVersion, clientInfo, transport, sessionId } = call;
    seen.push({
      call: { method, params, id, protocolVersion, clientInfo, transport, sessionId },
      result,
    });
    return result;
  };
  const server = await createServer({
    primitives: { tools: [echoTool()] },
    middleware: [spy],
    diagnostics: recorder(),
  });
  const response = await server.request("tools/call", {
    name: "echo",
    arguments: { text: "hi" },
  }, { id: 7, clientInfo: { name: "probe", version: "1" } });
  deepStrictEqual(response.result, {
    resultType: "complete",
    content: [{ type: "text", text: "echo: hi" }],
    _meta: (response.result as { _meta: unknown })._meta,
  });
  strictEqual(seen.length, 1);
  const [{ call, result }] = seen;
  deepStrictEqual({ ...call, params: undefined }, {
    method: "tools/call",
    params: undefined,
    id: 7,
    protocolVersion: "2026-07-28",
    clientInfo: { name: "probe", version: "1" },
    transport: "in-process",
    sessionId: undefined,
  });
  deepStrictEqual(call.params?.arguments, { text: "hi" });
  deepStrictEqual(result, { content: [{ type: "text", text: "echo: hi" }] });
});

Deno.test("middleware may give the handler other params, answer in its stead, or refuse with an McpError", async () => {
  const redact: Middleware = (next) => (call) =>
    call.method === "tools/call"
      ? next({ ...call, params: { ...call.params, arguments: { text: "[redacted]" } } })
      : next(call);
  const cached: Middleware = (next) => (call) =>
    call.method === "tools/call" && (call.params.arguments as { text?: string })?.text === "cached"
      ? { content: [{ type: "text", text: "from the cache" }] }
      : next(call);
  const deny: Middleware = (next) => (call) => {
    if (call.method === "tools/call" && call.params.name === "denied") {
      throw new ProtocolError(-32003, 'Forbidden: nobody may call "denied"', { rule: "deny" });
    }
    return next(call);
  };
  const server = await createServer({
    primitives: { tools: [echoTool(), echoTool("denied")] },
    middleware: [deny, cached, redact],
    diagnostics: recorder(),
  });
  const redacted = await server.request("tools/call", {
    name: "echo",
    arguments: { text: "secret" },
  });
  deepStrictEqual(resultText(redacted), "echo: [redacted]");
  deepStrictEqual(
    resultText(await server.request("tools/call", { name: "echo", arguments: { text: "cached" } })),
    "from the cache",
  );
  const denied = await server.request("tools/call", { name: "denied", arguments: {} });
  deepStrictEqual(denied.error, {
    code: -32003,
    message: 'Forbidden: nobody may call "denied"',
    data: { rule: "deny" },
  });
  // Methods the middleware lets through are untouched.
  const listed = await server.request("tools/list");
  deepStrictEqual(
    (listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    ["denied", "echo"],
  );
});

Deno.test("a middleware that throws, or passes next a call of its own making, answers -32603 saying why", async () => {
  const diagnostics = recorder();
  const broken: Middleware = (next) => (call) => {
    if (call.params.name === "boom") throw new Error("the audit store is down");
    if (call.params.name === "fresh") {
      return next({ method: call.method, params: call.params } as unknown as Call);
    }
    return next(call);
  };
  const server = await createServer({
    primitives: { tools: [echoTool("boom"), echoTool("fresh")] },
    middleware: [broken],
    diagnostics,
  });
  const boom = await server.request("tools/call", { name: "boom", arguments: {} });
  deepStrictEqual(boom.error, { code: -32603, message: "Internal error: the audit store is down" });
  const fresh = await server.request("tools/call", { name: "fresh", arguments: {} });
  strictEqual((fresh.error as { code: number }).code, -32603);
  match(
    (fresh.error as { message: string }).message,
    /a middleware passed next a call other than the one it received: pass the call, or a copy/,
  );
  match(diagnostics.text(), /Request "tools\/call" failed/);
});

Deno.test("createServer's middleware runs outside the server directory's", async () => {
  const dir = await serverDir({ "only.ts": tagging("[directory]") });
  const outer: Middleware = (next) => async (call) => {
    const result = await next(call);
    if (call.method !== "tools/call") return result;
    const [first] = result.content as { text: string }[];
    return { ...result, content: [{ type: "text", text: `${first.text} [config]` }] };
  };
  try {
    const server = await createServer({ dir, middleware: [outer], diagnostics: recorder() });
    const answer = await server.request("tools/call", { name: "echo", arguments: { text: "x" } });
    strictEqual(resultText(answer), "echo: x [directory] [config]");
    await server.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bad middleware file stops start-up, naming the file and what its export must be", async () => {
  const dir = await serverDir({
    "a_none.ts": "export const audit = 1;\n",
    "b_object.ts": "export default { audit: true };\n",
    "c_value.ts": "export default () => 42;\n",
    "d_throws.ts": 'export default () => { throw new Error("no config"); };\n',
    "e_fine.ts": tagging("[fine]"),
    "_helper.ts": "export default 'not a middleware, and not loaded';\n",
  });
  try {
    let problems: readonly string[] = [];
    await rejects(createServer({ dir, diagnostics: recorder() }), (error: unknown) => {
      ok(error instanceof DirectoryLoadError);
      problems = error.problems;
      return true;
    });
    const shape = "its default export must be a middleware, (next) => (call) => next(call)";
    deepStrictEqual(problems, [
      `Cannot load middleware "${dir}/middleware/a_none.ts": it has no default export: ${shape}`,
      `Cannot load middleware "${dir}/middleware/b_object.ts": ${shape}, not object`,
      `Cannot load middleware "${dir}/middleware/c_value.ts": ${shape}: given next, it ` +
      "returned number, not a function",
      `Cannot load middleware "${dir}/middleware/d_throws.ts": composing it threw: no config`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--watch reloads middleware/, and keeps all of it while a file is broken", async () => {
  const dir = await serverDir({ "tag.ts": tagging("[v1]") });
  const server = await startInProcess(["--dir", dir, "--watch"]);
  try {
    const call = (id: number) =>
      ask(server, id, "tools/call", { name: "echo", arguments: { text: "hi" } });
    strictEqual(text(await call(1)), "echo: hi [v1]");
    await Deno.writeTextFile(`${dir}/middleware/tag.ts`, tagging("[v2]"));
    await waitFor(async (id) => text(await call(id)) === "echo: hi [v2]", "the edited middleware");
    await Deno.writeTextFile(`${dir}/middleware/tag.ts`, "export default 7;\n");
    await waitFor(
      () => Promise.resolve(server.diagnostics.text().includes("middleware/ keeps what it served")),
      "the broken edit to be reported",
    );
    strictEqual(text(await call(100)), "echo: hi [v2]");
    await Deno.remove(`${dir}/middleware/tag.ts`);
    await waitFor(async (id) => text(await call(id)) === "echo: hi", "the removed middleware");
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Asks `check` (with a fresh id each time) until it holds, within a bounded number of tries. */
async function waitFor(check: (id: number) => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check(1000 + attempt)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

function echoTool(name = "echo") {
  return checkDefinition(
    {
      description: `Echoes (${name})`,
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      handler: ({ text }: { text?: string }) => `echo: ${text}`,
    },
    name,
    `${name}.ts`,
  );
}

function resultText(response: Record<string, unknown>): string | undefined {
  const result = response.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text;
}

Deno.test("middleware sees how a call arrived: stdio, HTTP, and a 2025-era HTTP session's id", async () => {
  const origin = "export default (next) => async (call) => {\n" +
    "  const result = await next(call);\n" +
    "  if (call.method !== 'tools/call') return result;\n" +
    "  return { content: [{ type: 'text', text: `${call.transport} ${call.sessionId}` }] };\n" +
    "};\n";
  const dir = await serverDir({ "origin.ts": origin });
  const stdio = await startInProcess(["--dir", dir]);
  try {
    strictEqual(text(await ask(stdio, 1, "tools/call", { name: "echo" })), "stdio undefined");
  } finally {
    await stdio.end();
  }
  const server = await createServer({ dir, http: true, diagnostics: recorder() });
  const http = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  try {
    const post = async (body: object, headers: Record<string, string>) => {
      const response = await fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      });
      return { response, body: await response.json() };
    };
    const modern = await post(
      { id: 1, method: "tools/call", params: { name: "echo", _meta: META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" },
    );
    strictEqual(text(modern.body), "http undefined");
    const opened = await post({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }, {});
    const sessionId = opened.response.headers.get("mcp-session-id");
    ok(sessionId !== null);
    const inSession = await post(
      { id: 2, method: "tools/call", params: { name: "echo" } },
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    );
    strictEqual(text(inSession.body), `http ${sessionId}`);
  } finally {
    await http.shutdown("the test is over");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("middleware × rounds and tasks: it sees each round's input_required and a task's creation, and both go on as without it", async () => {
  const seen: string[] = [];
  const noting: Middleware = (next) => async (call) => {
    const result = await next(call);
    if (call.method.startsWith("tools/") || call.method.startsWith("tasks/")) {
      seen.push(`${call.method} ${String(result.resultType ?? "complete")}`);
    }
    return result;
  };
  const ask = checkDefinition(
    {
      description: "Asks the user's name, then greets them",
      inputSchema: { type: "object" },
      handler: async (_args: unknown, ctx: ToolContext) => {
        const answer = await ctx.request("elicitation/create", {
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        }, { key: "name" });
        return `hello ${(answer.content as { name: string }).name}`;
      },
    },
    "ask",
    "ask.ts",
  );
  const slow = checkDefinition(
    {
      description: "Runs as a task",
      inputSchema: { type: "object" },
      task: "optional",
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return "done";
      },
    },
    "slow",
    "slow.ts",
  );
  const server = await createServer({
    primitives: { tools: [ask, slow] },
    middleware: [noting],
    diagnostics: recorder(),
  });
  const asking = { elicitation: {} };
  const first = await server.request("tools/call", { name: "ask", arguments: {} }, {
    capabilities: asking,
  });
  const stopped = first.result as { resultType: string; requestState: string };
  strictEqual(stopped.resultType, "input_required");
  ok(typeof stopped.requestState === "string", "rounds sealed the state outside the middleware");
  const second = await server.request("tools/call", {
    name: "ask",
    arguments: {},
    requestState: stopped.requestState,
    inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
  }, { capabilities: asking });
  strictEqual(resultText(second), "hello Ada");

  const tasks = { extensions: { "io.modelcontextprotocol/tasks": {} } };
  const created = await server.request("tools/call", { name: "slow", arguments: {} }, {
    capabilities: tasks,
  });
  const task = created.result as { resultType: string; taskId: string };
  strictEqual(task.resultType, "task");
  let status = "";
  for (let poll = 0; poll < 200 && status !== "completed"; poll++) {
    const got = await server.request("tasks/get", { taskId: task.taskId }, {
      capabilities: tasks,
    });
    status = String((got.result as { status: string }).status);
    if (status !== "completed") await new Promise((resolve) => setTimeout(resolve, 10));
  }
  strictEqual(status, "completed");
  // What the middleware saw: each round, the task's creation, then every tasks/get (whose
  // result, a task record, carries no resultType before it is stamped).
  deepStrictEqual(seen, [
    "tools/call input_required",
    "tools/call complete",
    "tools/call task",
    ...seen.slice(3).map(() => "tasks/get complete"),
  ]);
  ok(seen.length > 3);
});

Deno.test("a middleware that answers nothing gets -32603 saying so, in both eras; one given in code that is none is refused at creation", async () => {
  const forgetful = "export default (next) => async (call) => { await next(call); };\n";
  const dir = await serverDir({ "forgetful.ts": forgetful });
  const server = await startInProcess(["--dir", dir]);
  try {
    const message = /a middleware answered nothing: return what next\(call\) gives \(await it\)/;
    const stateless = await ask(server, 1, "tools/call", {
      name: "echo",
      arguments: { text: "x" },
    });
    strictEqual(stateless.error.code, -32603);
    match(stateless.error.message, message);
  } finally {
    await server.end();
  }
  // A connection of its own: the one above is pinned to 2026-07-28.
  const session = await startInProcess(["--dir", dir]);
  try {
    session.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }));
    const initialized = JSON.parse((await withHangGuard(session.nextLine(), "initialize"))!);
    strictEqual(initialized.error.code, -32603, "an answer without result or error never leaves");
    match(initialized.error.message, /a middleware answered nothing/);
  } finally {
    await session.end();
    await Deno.remove(dir, { recursive: true });
  }
  let refused = "";
  try {
    await createServer({
      primitives: { tools: [echoTool()] },
      middleware: [(() => 42) as unknown as Middleware],
      diagnostics: recorder(),
    });
  } catch (error) {
    refused = (error as Error).message;
  }
  strictEqual(
    refused,
    "Cannot use middleware[0] of the configuration: its default export must be a middleware, " +
      "(next) => (call) => next(call): given next, it returned number, not a function",
  );
});
