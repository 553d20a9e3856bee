// A Standard Schema inputSchema's own validator runs after the JSON Schema check (adr/0069
// step 2): Zod 4, Valibot (through @valibot/to-json-schema's toStandardJsonSchema) and ArkType
// transforms, defaults and refinements reach the handler; issues and a throwing validator are
// isError results; an async refinement runs under the call's timeout and signal; a
// synchronous validator keeps a synchronous call synchronous. Through the real core in this
// process (tests/fixtures/standard_schema/), and over a real stdio process with the SDK client.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { z } from "npm:zod@4.6.7";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { createServer } from "../lib/server/create_server.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { callTool, type CallToolResult } from "../lib/primitives/tool_call.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { recorder } from "./_diagnostics.ts";
import { type InProcessServer, startInProcess } from "./_in_process.ts";
import { modernBody } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

const DIR = fileURLToPath(new URL("./fixtures/standard_schema/", import.meta.url));
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const TASKS = "io.modelcontextprotocol/tasks";
const REPEATERS = ["zod_repeat", "valibot_repeat", "arktype_repeat"];

type Message = { id?: unknown; result?: Record<string, unknown>; error?: unknown };

/** A client of the fixture directory's server in this process, over stdio (2026-07-28). */
async function fixtureClient() {
  const server: InProcessServer = await startInProcess(["--dir", DIR]);
  let id = 0;
  const ask = async (
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = {},
  ): Promise<Message> => {
    const sent = ++id;
    server.send(modernBody(sent, method, params, capabilities));
    for (let lines = 0; lines < 100; lines++) {
      const line = await withHangGuard(server.nextLine(), `the answer to ${method}`);
      ok(line !== null, "the server answers");
      const message = JSON.parse(line) as Message;
      if (message.id === sent) return message;
    }
    throw new Error(`no answer to ${method} among 100 lines`);
  };
  const call = async (name: string, args: Record<string, unknown>) =>
    (await ask("tools/call", { name, arguments: args })).result as unknown as CallToolResult;
  return { server, ask, call };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

Deno.test("a Zod, Valibot or ArkType inputSchema is listed as JSON Schema and its transforms and defaults reach the handler", async () => {
  const { server, ask, call } = await fixtureClient();
  try {
    const listed = (await ask("tools/list", {})).result!.tools as JsonObject[];
    for (const name of REPEATERS) {
      const schema = listed.find((tool) => tool.name === name)!.inputSchema as JsonObject;
      deepStrictEqual([schema.type, schema.required], ["object", ["word"]], name);
    }
    // Zod's .default() is its output, not parsed (Zod 4); Valibot and ArkType parse theirs.
    deepStrictEqual(
      await Promise.all(REPEATERS.map(async (name) => textOf(await call(name, { word: "hi" })))),
      ["HI-HI", "HI[-]HI", "HI[-]HI"],
    );
    deepStrictEqual(
      await Promise.all(
        REPEATERS.map(async (name) =>
          textOf(await call(name, { word: "ok", times: 3, separator: "+" }))
        ),
      ),
      ["OK[+]OK[+]OK", "OK[+]OK[+]OK", "OK[+]OK[+]OK"],
    );
  } finally {
    await server.end();
  }
});

Deno.test("a refinement that fails answers isError naming the path and the library's message, before the handler", async () => {
  const { server, call } = await fixtureClient();
  try {
    const refused = await Promise.all(
      REPEATERS.map((name) => call(name, { word: "hi", times: 9 })),
    );
    deepStrictEqual(refused.map((result) => [result.isError, textOf(result)]), [
      [true, 'Invalid arguments for tool "zod_repeat": at "/times": Repeat at most 5 times'],
      [true, 'Invalid arguments for tool "valibot_repeat": at "/times": Repeat at most 5 times'],
      [
        true,
        'Invalid arguments for tool "arktype_repeat": at "/times": times must be at most 5 (was 9)',
      ],
    ]);
    // The JSON Schema check still comes first, in toolshed's own words.
    const wrongType = await call("zod_repeat", { word: 1 });
    deepStrictEqual(
      textOf(wrongType),
      'Invalid arguments for tool "zod_repeat": at "/word": expected a string, got a number',
    );
  } finally {
    await server.end();
  }
});

Deno.test("an async refinement runs before the handler: a taken name is refused, a free one reaches it transformed", async () => {
  const { server, call } = await fixtureClient();
  try {
    const taken = await call("zod_signup", { username: " Ada " });
    deepStrictEqual([taken.isError, textOf(taken)], [
      true,
      'Invalid arguments for tool "zod_signup": at "/username": That username is taken',
    ]);
    const free = await call("zod_signup", { username: " Bob " });
    deepStrictEqual([free.isError, textOf(free)], [undefined, "Welcome, bob"]);
  } finally {
    await server.end();
  }
});

Deno.test("a task tool's handler receives the validator's value when it runs as a task", async () => {
  const { server, ask } = await fixtureClient();
  const withTasks = { extensions: { [TASKS]: {} } };
  try {
    const created = (await ask("tools/call", {
      name: "zod_job",
      arguments: { word: "later" },
    }, withTasks)).result!;
    strictEqual(created.resultType, "task", JSON.stringify(created));
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 500 && task.status !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      task = (await ask("tasks/get", { taskId: created.taskId }, withTasks)).result!;
    }
    strictEqual(task.status, "completed", JSON.stringify(task));
    deepStrictEqual(task.result, { content: [{ type: "text", text: "Done: LATER" }] });
  } finally {
    await server.end();
  }
});

Deno.test("a tool with a Zod transform and default completes its input_required rounds: its requestState is bound to the arguments as sent", async () => {
  const { server, ask } = await fixtureClient();
  const asking = { elicitation: {} };
  try {
    for (const [args, text] of [[{}, "HELLO, Ada!"], [{ greeting: "hi" }, "HI, Ada!"]] as const) {
      const first = (await ask("tools/call", {
        name: "zod_greet_asking",
        arguments: args,
      }, asking)).result!;
      strictEqual(first.resultType, "input_required", JSON.stringify(first));
      const second = await ask("tools/call", {
        name: "zod_greet_asking",
        arguments: args,
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
        requestState: first.requestState,
      }, asking);
      deepStrictEqual(second.error, undefined, JSON.stringify(second));
      deepStrictEqual(second.result!.content, [{ type: "text", text }]);
    }
  } finally {
    await server.end();
  }
});

/** A tool checked as the loader checks one. */
function toolOf(inputSchema: unknown, handler: (args: never) => unknown, timeoutMs?: number) {
  return checkDefinition(
    { description: "d", inputSchema: inputSchema as JsonObject, handler, timeoutMs },
    "t",
    "tools/t.ts",
  );
}

function callOptions(controller = new AbortController()) {
  const diagnostics = recorder();
  return {
    diagnostics,
    options: { controller, defaultTimeoutMs: 10_000, context: {} as never, diagnostics },
  };
}

Deno.test("callTool() hands the validator's value to the handler and leaves the request's arguments as sent", () => {
  let received: unknown;
  const tool = toolOf(
    z.object({
      tags: z.array(z.string().transform((tag) => tag.toUpperCase())),
      when: z.iso.date().pipe(z.coerce.date()),
    }).transform(({ tags, when }) => ({ tags, when, count: tags.length })),
    (args) => {
      received = args;
      return "ok";
    },
  );
  const args = { tags: ["a", "b"], when: "2026-12-05" };
  const sent = structuredClone(args);
  const result = callTool(tool, args, callOptions().options) as CallToolResult;
  deepStrictEqual(textOf(result), "ok");
  // A coercion whose input JSON Schema can describe (a date string) reaches the handler coerced.
  deepStrictEqual(received, { tags: ["A", "B"], when: new Date("2026-12-05"), count: 2 });
  deepStrictEqual(args, sent);
});

Deno.test("callTool() runs an async validator under the call's timeout and abort signal, the handler never", async () => {
  let ran = 0;
  const never = z.object({ n: z.number().refine(() => new Promise<boolean>(() => {})) });
  const timedOut = await callTool(
    toolOf(never, () => ran++, 50),
    { n: 1 },
    callOptions().options,
  );
  deepStrictEqual([timedOut.isError, textOf(timedOut)], [true, 'Tool "t" timed out after 50 ms']);
  const controller = new AbortController();
  const pending = callTool(toolOf(never, () => ran++), { n: 1 }, callOptions(controller).options);
  ok(pending instanceof Promise);
  controller.abort("the client cancelled");
  const cancelled = await pending;
  deepStrictEqual(textOf(cancelled), 'Tool "t" was cancelled: the client cancelled');
  strictEqual(ran, 0);
});

Deno.test("callTool() answers isError when the validator throws or rejects, and reports the error", async () => {
  let ran = 0;
  const throwing = {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate: () => {
        throw new Error("validator broke");
      },
      jsonSchema: { input: () => ({ type: "object" }), output: () => ({ type: "object" }) },
    },
  };
  const sync = callOptions();
  const thrown = callTool(toolOf(throwing, () => ran++), {}, sync.options) as CallToolResult;
  deepStrictEqual([thrown.isError, textOf(thrown)], [
    true,
    'Invalid arguments for tool "t": they could not be validated: validator broke',
  ]);
  ok(sync.diagnostics.text().includes("validator broke"), sync.diagnostics.text());
  // Zod retries a throwing parse asynchronously, so its validate rejects.
  const rejecting = z.object({
    s: z.string().transform(() => {
      throw new Error("transform broke");
    }),
  });
  const async = callOptions();
  const rejected = await callTool(toolOf(rejecting, () => ran++), { s: "x" }, async.options);
  deepStrictEqual([rejected.isError, textOf(rejected)], [
    true,
    'Invalid arguments for tool "t": they could not be validated: transform broke',
  ]);
  ok(async.diagnostics.text().includes("transform broke"), async.diagnostics.text());
  strictEqual(ran, 0);
});

Deno.test("callTool() bounds a validator's issues: ten shown, the rest counted, each message cut", () => {
  const many = z.object(
    Object.fromEntries(
      Array.from(
        { length: 12 },
        (_, i) => [`k${i}`, z.string().refine(() => false, "x".repeat(500))],
      ),
    ),
  );
  const args = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, "v"]));
  const result = callTool(toolOf(many, () => "ran"), args, callOptions().options) as CallToolResult;
  const text = textOf(result);
  ok(text.startsWith(`Invalid arguments for tool "t": at "/k0": ${"x".repeat(200)}…; `), text);
  ok(text.endsWith("; and 2 more"), text);
  strictEqual(text.split("; at ").length, 10);
});

Deno.test("a tools/call answers synchronously with a synchronous validator and handler; an async refinement makes it a promise", async () => {
  const tools: Tool[] = [
    checkDefinition(
      {
        description: "sync",
        inputSchema: z.object({
          word: z.string().transform((word) => word.toUpperCase()),
        }) as never,
        handler: ({ word }: { word: string }) => word,
      },
      "sync",
      "tools/sync.ts",
    ),
    checkDefinition(
      {
        description: "async",
        inputSchema: z.object({ word: z.string().refine(() => Promise.resolve(true)) }) as never,
        handler: ({ word }: { word: string }) => word,
      },
      "async",
      "tools/async.ts",
    ),
  ];
  const server = await createServer({ primitives: { tools }, diagnostics: recorder() });
  const answer = (name: string) =>
    server.core.handle({
      request: {
        kind: "request",
        id: 1,
        method: "tools/call",
        params: { name, arguments: { word: "hi" } },
        envelope: {
          protocolVersion: "2026-07-28",
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
  const sync = answer("sync");
  strictEqual(sync instanceof Promise, false);
  deepStrictEqual((sync as { result: CallToolResult }).result.content, [
    { type: "text", text: "HI" },
  ]);
  const later = answer("async");
  strictEqual(later instanceof Promise, true);
  deepStrictEqual(((await later) as { result: CallToolResult }).result.content, [
    { type: "text", text: "hi" },
  ]);
});

Deno.test("the official SDK client calls Zod, Valibot and ArkType tools over a main.ts stdio process and gets their transformed arguments' results", async () => {
  const client = new Client({ name: "standard-schema-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN, "--dir", DIR],
      stderr: "ignore",
    }),
  );
  try {
    const { tools } = await client.listTools();
    for (const name of REPEATERS) {
      ok(tools.some((tool: { name: string }) => tool.name === name), name);
    }
    const texts = [];
    for (const name of REPEATERS) {
      const result = await client.callTool({ name, arguments: { word: "sdk", times: 2 } });
      texts.push((result.content as { text: string }[])[0].text);
    }
    deepStrictEqual(texts, ["SDK-SDK", "SDK[-]SDK", "SDK[-]SDK"]);
    const refused = await client.callTool({ name: "zod_signup", arguments: { username: "grace" } });
    deepStrictEqual([refused.isError, (refused.content as { text: string }[])[0].text], [
      true,
      'Invalid arguments for tool "zod_signup": at "/username": That username is taken',
    ]);
  } finally {
    await client.close();
  }
});
