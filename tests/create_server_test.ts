// Every option of createServer reaches the server the test harnesses build (issue 34): the
// harnesses have one door, composeForTest (tests/_in_process.ts), which hands createServer the
// whole configuration, and each option below is set through it and seen to act. The table is
// keyed by the options themselves (`satisfies Record<keyof ServerConfig, …>`): an option added to
// ServerConfig without a row here fails type checking, so this test, and an option createServer
// stops passing on (to the core, the loader, the transports) fails its row.
import { deepStrictEqual, match, ok, rejects, strictEqual, throws } from "node:assert/strict";
import type { Server, ServerConfig } from "../lib/server/create_server.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { Middleware, ToolContext } from "../lib/primitives/types.ts";
import type { MethodEntry } from "../lib/methods/call.ts";
import { METHODS } from "../lib/methods/table.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { composeForTest } from "./_in_process.ts";
import { initializeBody, modernHeaders, rawRequest, readToEnd } from "./_http_server.ts";
import { recorder } from "./_diagnostics.ts";
import { collector, feed } from "./_memory_streams.ts";
import { RUN_REDIS, startRedis, until } from "./_redis.ts";
import { withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const TOOL = (text: string) =>
  `export default { description: "Says ${text}", inputSchema: { type: "object" }, ` +
  `handler: () => "${text}" };\n`;

type Handler = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

/** A tool made in code: `handler` answers, `extra` adds to its definition. */
function tool(name: string, handler: Handler, extra: JsonObject = {}): Tool {
  return checkDefinition(
    { description: `The ${name} tool`, inputSchema: { type: "object" }, handler, ...extra },
    name,
    `${name}.ts`,
  );
}

const echo = tool("echo", () => "echoed", { annotations: { readOnlyHint: true } });

/** A tool that runs until the test lets it go (or its signal aborts it), saying which. */
function held() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let aborted!: () => void;
  const abortSeen = new Promise<void>((resolve) => aborted = resolve);
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  const made = tool("held", (_args: unknown, ctx: ToolContext) => {
    started();
    ctx.signal.addEventListener("abort", () => aborted(), { once: true });
    return Promise.race([
      released.then(() => "released"),
      abortSeen.then(() => "aborted"),
    ]);
  });
  return { tool: made, release, abortSeen, running };
}

/** What a check is given: the harnesses' door, scratch folders, and what to undo after. */
interface Kit {
  /** A server through the harnesses' door, closed when the check ends. */
  build(config: ServerConfig): Promise<Server>;
  /** A scratch folder holding `files` (`+x` in `executable`), removed when the check ends. */
  scratch(files: Record<string, string>, executable?: readonly string[]): Promise<string>;
  /** Runs once the check ends. */
  defer(undo: () => void | Promise<void>): void;
}

interface Reach {
  /** What the option does that the server would not do without it. */
  readonly does: string;
  readonly ignore?: boolean;
  /** Sets the option through `kit.build` and checks that it acts. */
  check(kit: Kit): Promise<void>;
}

async function call(server: Server, name: string, params: JsonObject = {}) {
  return await server.request("tools/call", { name, arguments: {}, ...params });
}

/** The text of a tools/call answer's result (its first content). */
function textOf(answer: JsonObject): string {
  const result = answer.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text ?? JSON.stringify(answer);
}

async function listed(server: Server, method = "tools/list", key = "tools"): Promise<string[]> {
  const { result } = await server.request(method);
  return ((result as JsonObject)[key] as { name: string }[]).map((each) => each.name);
}

/** A 2026-07-28 POST of `method` to what `fetch` serves. */
function post(server: Server, method: string, params: JsonObject = {}, name?: string) {
  return server.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: modernHeaders(method, name),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: { ...params, _meta: META },
      }),
    }),
  );
}

async function readyz(server: Server): Promise<string> {
  return await (await server.fetch(new Request("http://localhost/readyz"))).text();
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Lets every pending microtask run: one turn of the event loop. */
const macrotask = () => delay(0);

/** `#!/bin/sh` and `body`, with the sidecar a program tool needs (`extra` adds to it). */
function program(name: string, body: string, extra: JsonObject = {}): Record<string, string> {
  return {
    [`${name}.sh`]: `#!/bin/sh\n${body}\n`,
    [`${name}.json`]: JSON.stringify({
      description: `The ${name} program`,
      inputSchema: { type: "object" },
      ...extra,
    }),
  };
}

/** Which prefix each file of `files` goes under. */
function under(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([path, text]) => [`${prefix}/${path}`, text]),
  );
}

/**
 * Whether a requestState sealed by one server opens on another built from `config` alike: the
 * state key, mine or shared through Redis, is what makes it so.
 */
async function stateOpensElsewhere(kit: Kit, config: ServerConfig): Promise<void> {
  const ask = tool("ask", async (_args: unknown, ctx: ToolContext) => {
    const answer = await ctx.request("elicitation/create", {
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, { key: "name" });
    return `hello ${(answer.content as { name: string }).name}`;
  });
  const [one, other] = [
    await kit.build({ ...config, primitives: { tools: [ask] } }),
    await kit.build({ ...config, primitives: { tools: [ask] } }),
  ];
  const asking = { capabilities: { elicitation: {} } };
  const first = await one.request("tools/call", { name: "ask", arguments: {} }, asking);
  const { requestState } = first.result as { requestState: string };
  strictEqual(typeof requestState, "string", JSON.stringify(first));
  const second = await other.request("tools/call", {
    name: "ask",
    arguments: {},
    requestState,
    inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
  }, asking);
  strictEqual(textOf(second), "hello Ada");
}

/** A server of `config` with HTTP, listening on a free port of 127.0.0.1 as main.ts's --http. */
async function listening(kit: Kit, config: ServerConfig): Promise<{ url: string; port: number }> {
  const server = await kit.build({ primitives: { tools: [echo] }, http: true, ...config });
  const http = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  kit.defer(async () => {
    await http.shutdown("the check is over");
    await http.done;
  });
  return { url: http.url, port: Number(new URL(http.url).port) };
}

/** The body of a 2026-07-28 tools/list. */
const LIST_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: { _meta: META },
});

/** The status of a 2026-07-28 tools/list POSTed to `url` with `headers` added. */
async function listStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...modernHeaders("tools/list"), ...headers },
    body: LIST_BODY,
  });
  await response.body?.cancel();
  return response.status;
}

/** The status of a raw tools/list POST to `port` with these headers (a Host fetch cannot send). */
async function rawListStatus(port: number, headers: Record<string, string>): Promise<number> {
  return (await rawRequest(
    port,
    "POST",
    "/mcp",
    { ...modernHeaders("tools/list"), ...headers },
    LIST_BODY,
  ))
    .status;
}

/**
 * What `connection` received until the server closed it, or undefined if it still held it open
 * after 10 s: a third of the idle and body defaults (30 s), so a setting of 50 ms is told apart
 * from the default with room to spare.
 */
async function closedSoon(connection: Deno.Conn): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), 10_000)
  );
  try {
    return await Promise.race([readToEnd(connection), open]);
  } finally {
    clearTimeout(timer);
  }
}

/** The session id a 2025-era `initialize` POSTed to `url` opens. */
async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: initializeBody(),
  });
  await response.body?.cancel();
  return response.headers.get("mcp-session-id") ?? "";
}

/** The status of a ping in the 2025-era session `id`. */
async function pingStatus(url: string, id: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": id,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
  });
  await response.body?.cancel();
  return response.status;
}

/** Every option of createServer, and what it does through the harnesses' door. */
const REACHES = {
  dir: {
    does: "serves the server directory's tools",
    async check(kit) {
      const dir = await kit.scratch({ "tools/from_dir.ts": TOOL("dir") });
      deepStrictEqual(await listed(await kit.build({ dir })), ["from_dir"]);
    },
  },
  tools: {
    does: "serves the tools folder named",
    async check(kit) {
      const dir = await kit.scratch({ "elsewhere/from_tools.ts": TOOL("tools") });
      deepStrictEqual(await listed(await kit.build({ tools: `${dir}/elsewhere` })), [
        "from_tools",
      ]);
    },
  },
  resources: {
    does: "serves the resources folder named",
    async check(kit) {
      const dir = await kit.scratch({ "empty/.keep": "", "notes/note.txt": "a note" });
      const server = await kit.build({ dir: `${dir}/empty`, resources: `${dir}/notes` });
      deepStrictEqual(await listed(server, "resources/list", "resources"), ["note.txt"]);
    },
  },
  prompts: {
    does: "serves the prompts folder named",
    async check(kit) {
      const greet = await Deno.readTextFile(
        new URL("./fixtures/server/prompts/greet.md", import.meta.url),
      );
      const dir = await kit.scratch({ "empty/.keep": "", "asked/greet.md": greet });
      const server = await kit.build({ dir: `${dir}/empty`, prompts: `${dir}/asked` });
      deepStrictEqual(await listed(server, "prompts/list", "prompts"), ["greet"]);
    },
  },
  embedded: {
    does: "serves the folders embedded beside a binary when no dir is named",
    async check(kit) {
      const dir = await kit.scratch({ "tools/from_binary.ts": TOOL("embedded") });
      const server = await kit.build({ embedded: new URL(`file://${dir}/`) });
      deepStrictEqual(await listed(server), ["from_binary"]);
    },
  },
  meta: {
    does: "names the server as given in serverInfo",
    async check(kit) {
      const meta = { name: "io.example/every-option", description: "d", version: "9.9.9", env: {} };
      const server = await kit.build({ primitives: {}, meta });
      const discovered = await server.request("server/discover");
      match(JSON.stringify(discovered), /"name":"io\.example\/every-option","version":"9\.9\.9"/);
    },
  },
  primitives: {
    does: "serves primitives loaded in code",
    async check(kit) {
      deepStrictEqual(await listed(await kit.build({ primitives: { tools: [echo] } })), ["echo"]);
    },
  },
  passEnv: {
    does: "gives programs the environment variables named",
    async check(kit) {
      Deno.env.set("TOOLSHED_EVERY_OPTION", "passed on");
      kit.defer(() => Deno.env.delete("TOOLSHED_EVERY_OPTION"));
      const dir = await kit.scratch(
        under("tools", program("env", 'printf "%s" "$TOOLSHED_EVERY_OPTION"')),
        ["tools/env.sh"],
      );
      const server = await kit.build({ tools: `${dir}/tools`, passEnv: ["TOOLSHED_EVERY_OPTION"] });
      strictEqual(textOf(await call(server, "env")), "passed on");
    },
  },
  maxOutputBytes: {
    does: "stops a program that prints more",
    async check(kit) {
      const dir = await kit.scratch(under("tools", program("loud", "printf '%0100d' 0")), [
        "tools/loud.sh",
      ]);
      const server = await kit.build({ tools: `${dir}/tools`, maxOutputBytes: 10 });
      match(textOf(await call(server, "loud")), /printed more than 10 bytes on stdout/);
    },
  },
  maxPrograms: {
    does: "makes a program wait for a slot while the one program allowed runs",
    async check(kit) {
      const dir = await kit.scratch({});
      // The first runs until the test releases it (a bounded wait); the second would answer at
      // once, but waits for the one slot until its own timeout ends it.
      const files = {
        ...program(
          "hold",
          `touch "${dir}/held"; i=0\n` +
            `while [ ! -f "${dir}/release" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n` +
            "echo released",
          { timeoutMs: 120_000 },
        ),
        ...program("quick", "echo quick", { timeoutMs: 300 }),
      };
      for (const [name, text] of Object.entries(files)) {
        await Deno.mkdir(`${dir}/tools`, { recursive: true });
        await Deno.writeTextFile(`${dir}/tools/${name}`, text);
        if (name.endsWith(".sh")) await Deno.chmod(`${dir}/tools/${name}`, 0o755);
      }
      const server = await kit.build({ tools: `${dir}/tools`, maxPrograms: 1 });
      const holding = call(server, "hold");
      await until(() => Deno.stat(`${dir}/held`).then(() => true, () => false), (is) => is);
      const waited = await call(server, "quick");
      await Deno.writeTextFile(`${dir}/release`, "");
      strictEqual(textOf(await withHangGuard(holding, "the held program")), "released");
      match(textOf(waited), /timed out|did not finish|took longer/i);
    },
  },
  maxResourceBytes: {
    does: "refuses to read a resource larger",
    async check(kit) {
      const dir = await kit.scratch({ "empty/.keep": "", "notes/big.txt": "x".repeat(100) });
      const server = await kit.build({
        dir: `${dir}/empty`,
        resources: `${dir}/notes`,
        maxResourceBytes: 10,
      });
      const { result } = await server.request("resources/list");
      const [{ uri }] = (result as { resources: { uri: string }[] }).resources;
      const read = await server.request("resources/read", { uri });
      ok(read.error !== undefined, JSON.stringify(read));
      match(JSON.stringify(read.error), /10 bytes|larger|too large|exceeds/i);
    },
  },
  allowOutsideSymlinks: {
    does: "serves a program that is a link to a file outside the folder",
    async check(kit) {
      const dir = await kit.scratch({
        "outside/real.sh": "#!/bin/sh\necho real\n",
        "tools/linked.json": program("linked", "")["linked.json"],
      }, ["outside/real.sh"]);
      await Deno.symlink(`${dir}/outside/real.sh`, `${dir}/tools/linked.sh`);
      const server = await kit.build({ tools: `${dir}/tools`, allowOutsideSymlinks: true });
      strictEqual(textOf(await call(server, "linked")), "real");
    },
  },
  skipExecutables: {
    does: "leaves programs out, listing them as skipped",
    async check(kit) {
      const dir = await kit.scratch(
        { ...under("tools", program("quick", "echo quick")), "tools/hello.ts": TOOL("hi") },
        ["tools/quick.sh"],
      );
      const server = await kit.build({ tools: `${dir}/tools`, skipExecutables: true });
      deepStrictEqual(await listed(server), ["hello"]);
      deepStrictEqual(server.loaded.tools.skipped, [`${dir}/tools/quick.json`]);
    },
  },
  pageSize: {
    does: "pages lists by it",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo, tool("other", () => "")] },
        pageSize: 1,
      });
      const { result } = await server.request("tools/list");
      const page = result as { tools: unknown[]; nextCursor?: string };
      strictEqual(page.tools.length, 1);
      strictEqual(typeof page.nextCursor, "string");
    },
  },
  toolTimeoutMs: {
    does: "ends a call that runs longer",
    async check(kit) {
      const slow = held();
      const server = await kit.build({ primitives: { tools: [slow.tool] }, toolTimeoutMs: 50 });
      const answered = call(server, "held");
      // Its deadline (50 ms) comes long before this one, and the default (60 s) long after.
      const first = await Promise.race([slow.abortSeen.then(() => "aborted"), delay(2_000)]);
      slow.release();
      strictEqual(first, "aborted");
      const answer = await answered;
      strictEqual((answer.result as { isError?: boolean }).isError, true, JSON.stringify(answer));
    },
  },
  jobAfterMs: {
    does: "answers a long call of a task tool with a job handle after it",
    async check(kit) {
      const slow = held();
      const server = await kit.build({
        primitives: { tools: [tool("held", slow.tool.definition.handler, { task: "optional" })] },
        jobAfterMs: 50,
      });
      // Without tasks declared (server.request declares none), the call becomes a job.
      const answer = await call(server, "held");
      slow.release();
      const job = (answer.result as { structuredContent?: { job?: { id?: string } } })
        .structuredContent?.job;
      strictEqual(typeof job?.id, "string", JSON.stringify(answer));
    },
  },
  jobWaitMs: {
    does: "bounds how long toolshed_job waits",
    async check(kit) {
      const slow = held();
      const server = await kit.build({
        primitives: { tools: [tool("held", slow.tool.definition.handler, { task: "optional" })] },
        jobAfterMs: 10,
        jobWaitMs: 50,
      });
      const handle = await call(server, "held");
      const id = (handle.result as { structuredContent: { job: { id: string } } })
        .structuredContent.job.id;
      // The job runs until released: the wait ends at its bound (50 ms; the default is 45 s).
      const waited = await Promise.race([
        call(server, "toolshed_job", { arguments: { id } }),
        delay(10_000).then(() => undefined),
      ]);
      slow.release();
      ok(waited !== undefined, "the wait ended at its bound");
      match(textOf(waited), /is still running/);
    },
  },
  maxMessageBytes: {
    does: "refuses a larger request body",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        http: {},
        maxMessageBytes: 1024,
      });
      const response = await post(server, "tools/call", {
        name: "echo",
        arguments: { padding: "x".repeat(2_000) },
      }, "echo");
      await response.body?.cancel();
      strictEqual(response.status, 413);
    },
  },
  maxConcurrency: {
    does: "runs no more requests at once; the next waits",
    async check(kit) {
      const slow = held();
      const server = await kit.build({
        primitives: { tools: [slow.tool] },
        http: {},
        maxConcurrency: 1,
      });
      const calls = [1, 2].map(() => post(server, "tools/call", { name: "held" }, "held"));
      // Both are running, or one waits: whichever the server does shows once both arrived.
      const said = await until(
        () => readyz(server),
        (text) => /2 running|1 waiting/.test(text),
        100,
      );
      slow.release();
      for (const answer of await Promise.all(calls)) await answer.body?.cancel();
      strictEqual(said, "ready (1 running, 1 waiting)\n");
    },
  },
  shutdownGraceMs: {
    does: "is how long close() lets a request run before aborting it",
    async check(kit) {
      const slow = held();
      const server = await kit.build({
        primitives: { tools: [slow.tool] },
        http: {},
        shutdownGraceMs: 0,
      });
      const answered = post(server, "tools/call", { name: "held" }, "held");
      await withHangGuard(slow.running, "the call starting");
      const closed = server.close();
      // The grace (0 ms) ends long before this deadline, and the default (5 s) long after.
      const first = await Promise.race([slow.abortSeen.then(() => "aborted"), delay(2_000)]);
      slow.release();
      await (await answered).body?.cancel();
      await closed;
      strictEqual(first, "aborted");
    },
  },
  watch: {
    does: "reloads what changes in the directory",
    async check(kit) {
      const dir = await kit.scratch({ "tools/first.ts": TOOL("first") });
      const server = await kit.build({ dir, watch: true });
      await Deno.writeTextFile(`${dir}/tools/second.ts`, TOOL("second"));
      const names = await until(
        async () => {
          await server.reloaded();
          return await listed(server);
        },
        (now) => now.includes("second"),
        100,
      );
      deepStrictEqual(names, ["first", "second"]);
    },
  },
  onReload: {
    does: "is told of each reload: what went in, and a bad edit refused",
    async check(kit) {
      const dir = await kit.scratch({ "tools/first.ts": TOOL("first") });
      const outcomes: { swapped: boolean; problems: readonly string[] }[] = [];
      const server = await kit.build({
        dir,
        watch: true,
        onReload: (outcome) => outcomes.push(outcome),
        diagnostics: recorder(),
      });
      await Deno.writeTextFile(`${dir}/tools/second.ts`, TOOL("second"));
      await until(
        async () => {
          await server.reloaded();
          return outcomes.length;
        },
        (count) => count > 0,
        100,
      );
      deepStrictEqual(outcomes[0], { swapped: true, problems: [] });
      await Deno.writeTextFile(`${dir}/tools/second.ts`, "export default {");
      const bad = await until(
        async () => {
          await server.reloaded();
          return outcomes.at(-1)!;
        },
        (last) => last.problems.length > 0,
        100,
      );
      ok(bad.problems.some((problem) => problem.includes("tools/second.ts")), bad.problems[0]);
    },
  },
  listChanged: {
    does: "tells clients that lists may change",
    async check(kit) {
      const server = await kit.build({ primitives: { tools: [echo] }, listChanged: true });
      const { result } = await server.request("server/discover");
      const { capabilities } = result as { capabilities: { tools: { listChanged?: boolean } } };
      strictEqual(capabilities.tools.listChanged, true, JSON.stringify(result));
    },
  },
  listTtlMs: {
    does: "is how long a client may cache a list",
    async check(kit) {
      const server = await kit.build({ primitives: { tools: [echo] }, listTtlMs: 1_234 });
      const { result } = await server.request("tools/list");
      strictEqual((result as { ttlMs?: number }).ttlMs, 1_234, JSON.stringify(result));
    },
  },
  outputBoundChars: {
    does: "stops reading stdio while that much output waits for the reader",
    async check(kit) {
      const loud = tool("loud", () => "y".repeat(100));
      const server = await kit.build({ primitives: { tools: [loud] }, outputBoundChars: 300 });
      const input = feed();
      const output = collector();
      output.hold();
      const served = server.serveStdio({ input, output });
      for (let id = 1; id <= 50; id++) input.push(stdioCall(id, "loud"));
      input.end();
      const reads = await readsSettled(input);
      output.resume();
      await withHangGuard(served.done, "the end of input");
      ok(reads < 50, `read ${reads} chunks while output was held`);
    },
  },
  waitingBoundBytes: {
    does: "stops reading stdio while that many request bytes wait for a slot",
    async check(kit) {
      const slow = held();
      const server = await kit.build({
        primitives: { tools: [slow.tool, echo] },
        maxConcurrency: 1,
        waitingBoundBytes: 200,
      });
      const input = feed();
      const output = collector();
      const served = server.serveStdio({ input, output });
      input.push(stdioCall(1, "held"));
      await withHangGuard(slow.running, "the held call starting");
      for (let id = 2; id <= 50; id++) input.push(stdioCall(id, "echo"));
      input.end();
      const reads = await readsSettled(input);
      slow.release();
      await withHangGuard(served.done, "the end of input");
      ok(reads < 50, `read ${reads} chunks while requests waited for the one slot`);
    },
  },
  http: {
    does: "loads the HTTP transport, so that serveHttp listens",
    async check(kit) {
      const plain = await kit.build({ primitives: {} });
      throws(() => plain.serveHttp({ hostname: "127.0.0.1", port: 0 }), /Cannot serve HTTP/);
      const server = await kit.build({ primitives: { tools: [echo] }, http: true });
      const listening = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
      try {
        const response = await fetch(listening.url, {
          method: "POST",
          headers: modernHeaders("tools/list"),
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/list",
            params: { _meta: META },
          }),
        });
        strictEqual(response.status, 200);
        await response.body?.cancel();
      } finally {
        await listening.shutdown("the check is over");
        await listening.done;
      }
    },
  },
  instanceName: {
    does: "begins the ids of sessions",
    async check(kit) {
      const server = await kit.build({ primitives: {}, http: {}, instanceName: "every" });
      const opened = await server.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: initializeBody(),
        }),
      );
      await opened.body?.cancel();
      match(opened.headers.get("mcp-session-id") ?? "", /^every/);
    },
  },
  oauth: {
    does: "asks callers over HTTP for an access token",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        http: {},
        oauth: { issuer: "https://issuer.example", publicUrl: "http://localhost/mcp" },
      });
      const response = await post(server, "tools/list");
      await response.body?.cancel();
      strictEqual(response.status, 401);
      match(response.headers.get("www-authenticate") ?? "", /resource_metadata=/);
    },
  },
  redis: {
    does: "shares state between instances through Redis (here: the keys of requestState)",
    ignore: !RUN_REDIS,
    async check(kit) {
      const redis = await startRedis();
      kit.defer(() => redis.stop());
      await stateOpensElsewhere(kit, { redis: redis.url });
    },
  },
  metrics: {
    does: "serves Prometheus metrics on a listener of their own",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        metrics: { hostname: "127.0.0.1", port: 0 },
      });
      ok(server.metrics !== undefined, "no metrics served");
      await call(server, "echo");
      const response = await fetch(server.metrics.url);
      strictEqual(response.status, 200);
      match(await response.text(), /tools\/call/);
    },
  },
  stateKeys: {
    does: "seals requestState with the keys given, which another instance given them opens",
    async check(kit) {
      await stateOpensElsewhere(kit, { stateKeys: ["a secret the instances share"] });
    },
  },
  rateLimit: {
    does: "limits each caller's requests",
    async check(kit) {
      const server = await kit.build({ primitives: { tools: [echo] }, rateLimit: "1/min" });
      strictEqual(textOf(await call(server, "echo")), "echoed");
      const limited = await call(server, "echo");
      strictEqual((limited.error as { code?: number } | undefined)?.code, -32031);
    },
  },
  toolsets: {
    does: "serves only the sets named and the top-level tools",
    async check(kit) {
      const issues = { ...tool("list_issues", () => ""), toolset: "issues" };
      const repos = { ...tool("list_repos", () => ""), toolset: "repos" };
      const server = await kit.build({
        primitives: { tools: [echo, issues, repos] },
        toolsets: ["issues"],
      });
      deepStrictEqual(await listed(server), ["echo", "list_issues"]);
    },
  },
  readOnly: {
    does: "serves only tools marked readOnlyHint",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo, tool("write", () => "")] },
        readOnly: true,
      });
      deepStrictEqual(await listed(server), ["echo"]);
    },
  },
  middleware: {
    does: "runs around every request",
    async check(kit) {
      const answering: Middleware = (next) => (request) =>
        request.method === "tools/call"
          ? { content: [{ type: "text", text: "from the middleware" }] }
          : next(request);
      const server = await kit.build({ primitives: { tools: [echo] }, middleware: [answering] });
      strictEqual(textOf(await call(server, "echo")), "from the middleware");
    },
  },
  diagnostics: {
    does: "is where the server's troubles go",
    async check(kit) {
      const mine = recorder();
      const boom = tool("boom", () => {
        throw new Error("a trouble for the diagnostics");
      });
      const server = await kit.build({ primitives: { tools: [boom] }, diagnostics: mine });
      await call(server, "boom");
      match(mine.text(), /a trouble for the diagnostics/);
    },
  },
  methods: {
    does: "is the table of methods served",
    async check(kit) {
      const methods = new Map<string, MethodEntry>([
        ...METHODS,
        ["every/option", { eras: ["stateless"], handler: () => ({ said: "from the table" }) }],
      ]);
      const server = await kit.build({ primitives: {}, methods });
      const answer = await server.request("every/option");
      strictEqual((answer.result as { said?: string }).said, "from the table");
    },
  },
  telemetry: {
    does: "records through Deno's OpenTelemetry, and refuses to start where it is off",
    async check(kit) {
      if (Deno.env.get("OTEL_DENO") === "true") {
        const server = await kit.build({ primitives: { tools: [echo] }, telemetry: true });
        strictEqual(textOf(await call(server, "echo")), "echoed");
      } else {
        await rejects(
          kit.build({ primitives: {}, telemetry: true }),
          /Cannot record telemetry: Deno's OpenTelemetry is off in this process/,
        );
      }
    },
  },
  // The HTTP settings, given to createServer as main.ts gives the flags: serveHttp, told only
  // where to listen, serves by them.
  bearerToken: {
    does: "makes every request over HTTP carry the token",
    async check(kit) {
      const { url } = await listening(kit, { bearerToken: "s3cret" });
      strictEqual(await listStatus(url), 401);
      strictEqual(await listStatus(url, { authorization: "Bearer s3cret" }), 200);
    },
  },
  allowedHosts: {
    does: "lets requests name another host in Host",
    async check(kit) {
      const { port } = await listening(kit, { allowedHosts: ["mcp.example.com"] });
      strictEqual(await rawListStatus(port, { host: "mcp.example.com" }), 200);
      strictEqual(await rawListStatus(port, { host: "other.example.com" }), 403);
    },
  },
  corsOrigins: {
    does: "lets pages of the origins given call",
    async check(kit) {
      const { port } = await listening(kit, { corsOrigins: ["https://app.example"] });
      const host = `127.0.0.1:${port}`;
      strictEqual(await rawListStatus(port, { host, origin: "https://app.example" }), 200);
      strictEqual(await rawListStatus(port, { host, origin: "https://else.example" }), 403);
    },
  },
  publicUrl: {
    does: "names the endpoint's URL in the server card",
    async check(kit) {
      const meta = { name: "io.example/every-option", description: "d", version: "9.9.9", env: {} };
      const { url } = await listening(kit, { meta, publicUrl: "https://mcp.example.com/mcp" });
      const card = await fetch(`${url}/server-card`, {
        headers: { accept: "application/mcp-server-card+json" },
      });
      match(await card.text(), /"https:\/\/mcp\.example\.com\/mcp"/);
    },
  },
  logRequests: {
    does: "writes a line per HTTP request",
    async check(kit) {
      const diagnostics = recorder();
      const { url } = await listening(kit, { logRequests: true, diagnostics });
      strictEqual(await listStatus(url), 200);
      const text = () => diagnostics.entries.join("\n");
      await until(text, (logged) => logged.includes("tools/list"));
      match(text(), /POST \/mcp 200/);
    },
  },
  maxConnections: {
    does: "turns away a connection past the cap",
    async check(kit) {
      const { port } = await listening(kit, { maxConnections: 1 });
      const first = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        const second = await Deno.connect({ hostname: "127.0.0.1", port });
        try {
          match(await readToEnd(second), /^HTTP\/1\.1 503/);
        } finally {
          second.close();
        }
      } finally {
        first.close();
      }
    },
  },
  idleTimeoutMs: {
    does: "closes a connection that sends nothing for that long",
    async check(kit) {
      const { port } = await listening(kit, { idleTimeoutMs: 50 });
      const silent = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        // Closed with nothing said, where the default holds it 30 s.
        strictEqual(await closedSoon(silent), "");
      } finally {
        silent.close();
      }
    },
  },
  bodyTimeoutMs: {
    does: "closes a connection whose small body does not arrive in time",
    async check(kit) {
      const { port } = await listening(kit, { bodyTimeoutMs: 50 });
      const slow = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        const head = Object.entries({ ...modernHeaders("tools/list"), "content-length": "100" })
          .map(([name, value]) => `${name}: ${value}\r\n`).join("");
        await slow.write(
          new TextEncoder().encode(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}\r\n`),
        );
        const answer = await closedSoon(slow);
        ok(answer !== undefined && !answer.includes(" 200 "), `answered: ${answer}`);
      } finally {
        slow.close();
      }
    },
  },
  maxBodyBytes: {
    does: "refuses a request past the bytes all requests together may hold",
    async check(kit) {
      const { url } = await listening(kit, { maxMessageBytes: 1_000, maxBodyBytes: 10 });
      strictEqual(await listStatus(url), 503);
    },
  },
  maxUnsentBytes: {
    does: "drops answers past the bytes waiting for clients",
    async check(kit) {
      const diagnostics = recorder();
      const big = tool("big", () => "x".repeat(16 * 1024 * 1024));
      const { url, port } = await listening(kit, {
        maxUnsentBytes: 1,
        diagnostics,
        primitives: { tools: [echo, big] },
      });
      // Two clients that ask for 16 MiB each and read none of it: their answers wait unsent,
      // and the second one's passes the budget, so the stalest is dropped.
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "big", arguments: {}, _meta: META },
      });
      const head = Object.entries({
        ...modernHeaders("tools/call", "big"),
        host: `127.0.0.1:${port}`,
        "content-length": String(body.length),
      }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
      for (let i = 0; i < 2; i++) {
        const stalled = await Deno.connect({ hostname: "127.0.0.1", port });
        kit.defer(() => stalled.close());
        await stalled.write(new TextEncoder().encode(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`));
      }
      const text = () => diagnostics.entries.join("\n");
      await until(text, (logged) => logged.includes("Dropped an answer"));
      strictEqual(await listStatus(url), 200);
      match(text(), /passed --max-unsent-bytes \(1\)/);
    },
  },
  maxSessions: {
    does: "ends the least recently used 2025-era session past the cap",
    async check(kit) {
      const { url } = await listening(kit, { maxSessions: 1 });
      const first = await openSession(url);
      const second = await openSession(url);
      strictEqual(await pingStatus(url, second), 200);
      strictEqual(await pingStatus(url, first), 404);
    },
  },
  codeMode: {
    does: "serves code mode's tools instead of the catalog",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        codeMode: true,
        codePool: 0,
      });
      deepStrictEqual(await listed(server), [
        "describe_tools",
        "run_code",
        "search_tools",
        "toolshed_job",
      ]);
    },
  },
  codeDestructive: {
    does: "lets code call a destructive tool that opts in",
    async check(kit) {
      const erase = tool("erase", () => "erased", {
        annotations: { destructiveHint: true },
        code: true,
      });
      const attempt = "try { return await tools.erase({}); } catch { return 'refused'; }";
      for (const [codeDestructive, expected] of [[false, "refused"], [true, "erased"]] as const) {
        const server = await kit.build({
          primitives: { tools: [erase] },
          codeMode: true,
          codeDestructive,
          codePool: 0,
        });
        strictEqual(await ranValue(server, attempt), expected);
      }
    },
  },
  codeTimeoutMs: {
    does: "ends a run of code that runs longer",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        codeMode: true,
        codePool: 0,
        codeTimeoutMs: 300,
      });
      match(await ranError(server, "while (true) {}"), /300 ms/);
    },
  },
  codeHeapMb: {
    does: "ends a run of code whose heap grows past it",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        codeMode: true,
        codePool: 0,
        codeHeapMb: 32,
      });
      const bomb = "const all = []; for (;;) all.push(new Array(100000).fill(all.length));";
      match(await ranError(server, bomb), /memory|heap/i);
    },
  },
  codeMaxCalls: {
    does: "refuses a run's call past it",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        codeMode: true,
        codePool: 0,
        codeMaxCalls: 2,
      });
      const calls = "const out = []; for (let i = 0; i < 3; i++) { " +
        "try { out.push(await tools.echo({})); } catch { out.push('refused'); } } return out;";
      deepStrictEqual(await ranValue(server, calls), ["echoed", "echoed", "refused"]);
    },
  },
  codePool: {
    does: "starts processes for code ahead of runs",
    async check(kit) {
      // In a process of its own: `deno test --parallel` runs other files in this one, whose
      // sandboxes' children would be counted with the pool's.
      const dir = await kit.scratch({ "tools/echo.ts": TOOL("echoed") });
      const script = `
        import { composeForTest } from ${
        JSON.stringify(new URL("./_in_process.ts", import.meta.url).href)
      };
        const children = () => {
          let count = 0;
          for (const entry of Deno.readDirSync("/proc")) {
            try {
              const stat = Deno.readTextFileSync("/proc/" + entry.name + "/stat");
              const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
              const cmdline = Deno.readTextFileSync("/proc/" + entry.name + "/cmdline");
              if (fields[0] !== "Z" && Number(fields[1]) === Deno.pid && cmdline.includes("runSandboxChild")) count++;
            } catch { /* not a process, or gone */ }
          }
          return count;
        };
        const server = await composeForTest({ dir: ${
        JSON.stringify(dir)
      }, codeMode: true, codePool: Number(Deno.args[0]) });
        const answer = await server.request("tools/call", { name: "run_code", arguments: { code: "return 1" } });
        let seen = children();
        for (let i = 0; i < 200 && seen < Number(Deno.args[0]); i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          seen = children();
        }
        console.log(JSON.stringify({ value: answer.result.structuredContent.value, waiting: seen }));
        await server.close();
      `;
      const path = `${dir}/count_pool.ts`;
      await Deno.writeTextFile(path, script);
      const waiting = async (pool: number) => {
        const { stdout, code } = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", path, String(pool)],
          stdout: "piped",
          stderr: "inherit",
        }).output();
        strictEqual(code, 0);
        return JSON.parse(new TextDecoder().decode(stdout).trim());
      };
      // After the first run the pool is filled again: two children wait, started ahead; none
      // without a pool.
      deepStrictEqual(await waiting(2), { value: 1, waiting: 2 });
      deepStrictEqual(await waiting(0), { value: 1, waiting: 0 });
    },
  },
  codeResultChars: {
    does: "cuts a run's result text past it, saying so, and lists it for Claude Code",
    async check(kit) {
      const server = await kit.build({
        primitives: { tools: [echo] },
        codeMode: true,
        codePool: 0,
        codeResultChars: 1_000,
      });
      const answer = await call(server, "run_code", {
        arguments: { code: "return 'x'.repeat(5000)" },
      });
      const result = answer.result as { content: { text: string }[]; structuredContent?: unknown };
      strictEqual(result.content[0].text.length, 1_000, result.content[0].text);
      match(result.content[0].text, /toolshed cut this result at 1000 of its 5\d{3} characters/);
      strictEqual(result.structuredContent, undefined);
      const list = await server.request("tools/list");
      const run = (list.result as { tools: { name: string; _meta?: JsonObject }[] }).tools
        .find((tool) => tool.name === "run_code")!;
      strictEqual(run._meta?.["anthropic/maxResultSizeChars"], 1_000);
    },
  },
} satisfies Record<keyof ServerConfig, Reach>;

/** What a run of code in code mode returned (its structured value). */
async function ranValue(server: Server, code: string): Promise<unknown> {
  const answer = await call(server, "run_code", { arguments: { code } });
  const result = answer.result as { isError?: boolean; structuredContent?: { value: unknown } };
  strictEqual(result.isError, undefined, JSON.stringify(answer));
  return result.structuredContent!.value;
}

/** Why a run of code in code mode failed (its error result's text). */
async function ranError(server: Server, code: string): Promise<string> {
  const answer = await call(server, "run_code", { arguments: { code } });
  const result = answer.result as { isError?: boolean; content: { text: string }[] };
  strictEqual(result.isError, true, JSON.stringify(answer));
  return result.content[0].text;
}

/** A 2026-07-28 tools/call as a stdio line. */
function stdioCall(id: number, name: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {}, _meta: META },
  }) + "\n";
}

/**
 * How many chunks the server read once it stopped reading. Everything here is in memory, so
 * the server does all it can within a turn of the event loop: once a turn passes without a
 * read, it reads no more until something changes.
 */
async function readsSettled(input: { reads: number }): Promise<number> {
  let reads;
  let turns = 0;
  do {
    reads = input.reads;
    await macrotask();
  } while (input.reads !== reads && ++turns < 10_000);
  await macrotask();
  return input.reads;
}

for (const [option, reach] of Object.entries(REACHES) as [string, Reach][]) {
  Deno.test({
    name: `createServer's ${option} reaches the server the harnesses build: it ${reach.does}`,
    ignore: reach.ignore,
    async fn() {
      const undo: (() => void | Promise<void>)[] = [];
      const kit: Kit = {
        async build(config) {
          const server = await composeForTest(config);
          undo.push(() => server.close());
          return server;
        },
        async scratch(files, executable = []) {
          const dir = await Deno.makeTempDir({ prefix: "toolshed_every_option_" });
          undo.push(() => Deno.remove(dir, { recursive: true }));
          for (const [path, text] of Object.entries(files)) {
            await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
            await Deno.writeTextFile(`${dir}/${path}`, text);
          }
          for (const path of executable) await Deno.chmod(`${dir}/${path}`, 0o755);
          return dir;
        },
        defer: (step) => undo.push(step),
      };
      try {
        await reach.check(kit);
      } finally {
        // Servers close before their folders go, and Redis last.
        for (const step of undo.reverse()) await withHangGuard(Promise.resolve(step()), option);
      }
    },
  });
}

Deno.test("createServer(): a setting `http` names as undefined is its default, as if not named", async () => {
  // An embedding app hands on its own options, some unset: no component meets an undefined
  // limit (an undefined --body-timeout would be no time at all).
  const server = await composeForTest({
    primitives: { tools: [echo] },
    http: { bodyTimeoutMs: undefined, maxBodyBytes: undefined, maxSessions: undefined },
  });
  try {
    const body = new TextEncoder().encode(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: {}, _meta: META },
    }));
    // The body arrives in two parts, a moment apart, as over a network.
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.subarray(0, 10));
        await delay(50);
        controller.enqueue(body.subarray(10));
        controller.close();
      },
    });
    const response = await server.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: modernHeaders("tools/call", "echo"),
        body: stream,
      }),
    );
    strictEqual(response.status, 200, await response.text());
  } finally {
    await server.close();
  }
});
