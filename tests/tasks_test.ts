// Tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28; lib/tasks/tasks.ts,
// tool_tasks.ts, tasks.ts): through the real core over stdio, in this process, with
// the conformance fixture's task tools (slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input, test_tool_with_task, greet).
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { composeForTest, type InProcessServer, startInProcess } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";
import { modernBody } from "./_http_server.ts";
import { collector, feed } from "./_memory_streams.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";

const EXTENSION = "io.modelcontextprotocol/tasks";
const WITH_TASKS: Record<string, unknown> = { elicitation: {}, extensions: { [EXTENSION]: {} } };
type Message = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

let nextId = 1;
/** Sends a 2026-07-28 request declaring `capabilities`; its answer. */
async function ask(
  server: InProcessServer,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = WITH_TASKS,
): Promise<Message> {
  const id = nextId++;
  server.send(modernBody(id, method, params, capabilities));
  for (;;) {
    const line = await withHangGuard(server.nextLine(), `the answer to ${method}`);
    ok(line !== null, "the server answers");
    const message = JSON.parse(line) as Message;
    if (message.id === id) return message;
  }
}

const call = (server: InProcessServer, name: string, args = {}, capabilities = WITH_TASKS) =>
  ask(server, "tools/call", { name, arguments: args }, capabilities);

/** Polls tasks/get until `done` holds (at most ~10 s); the last answer. */
async function pollTask(
  server: InProcessServer,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  for (let i = 0; i < 500; i++) {
    task = (await ask(server, "tasks/get", { taskId })).result!;
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} never got there: ${JSON.stringify(task)}`);
}
const finished = (task: Record<string, unknown>) =>
  ["completed", "failed", "cancelled"].includes(task.status as string);

async function withServer(body: (server: InProcessServer) => Promise<void>, flags: string[] = []) {
  const server = await startInProcess(["--dir", "tests/conformance/fixture", ...flags]);
  try {
    await body(server);
  } finally {
    await server.end();
  }
}

Deno.test("a call still running after its first turn answers with a stored task, which completes with the tool's result", async () => {
  await withServer(async (server) => {
    const created = (await call(server, "slow_compute", { seconds: 0.2, label: "t" })).result!;
    strictEqual(created.resultType, "task");
    match(created.taskId as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    strictEqual(created.status, "working");
    match(created.createdAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    strictEqual(created.createdAt, created.lastUpdatedAt);
    ok(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0);
    ok(Number.isInteger(created.pollIntervalMs) && (created.pollIntervalMs as number) > 0);
    for (const absent of ["result", "error", "inputRequests", "requestState", "task"]) {
      ok(!(absent in created), `${absent} is not in a CreateTaskResult`);
    }
    const taskId = created.taskId as string;
    const first = (await ask(server, "tasks/get", { taskId })).result!;
    deepStrictEqual([first.resultType, first.taskId, first.status], [
      "complete",
      taskId,
      "working",
    ]);
    const done = await pollTask(server, taskId, finished);
    strictEqual(done.status, "completed");
    deepStrictEqual(done.result, {
      content: [{ type: "text", text: 'Computed "t" in 0.2 s' }],
    });
    ok(!("requestState" in done));
  });
});

Deno.test("a task tool answers a call that finishes in its first turn at once, and runs as a plain call for a client without the extension", async () => {
  await withServer(async (server) => {
    const instant = (await call(server, "slow_compute", { seconds: 0, label: "now" })).result!;
    deepStrictEqual([instant.resultType, instant.taskId], ["complete", undefined]);
    const plain = (await call(server, "slow_compute", { seconds: 0.05, label: "p" }, {})).result!;
    strictEqual(plain.resultType, "complete");
    deepStrictEqual(plain.content, [{ type: "text", text: 'Computed "p" in 0.05 s' }]);
    const greeting = (await call(server, "greet", { name: "Ada" })).result!;
    deepStrictEqual([greeting.resultType, greeting.content], ["complete", [
      { type: "text", text: "Hello, Ada!" },
    ]]);
  });
});

Deno.test("a tool that requires a task refuses a client without the extension with -32021 and the capability it needs", async () => {
  await withServer(async (server) => {
    const refused = await call(server, "failing_job", {}, { elicitation: {} });
    strictEqual(refused.error?.code, -32021);
    deepStrictEqual(refused.error?.data, {
      requiredCapabilities: { extensions: { [EXTENSION]: {} } },
    });
    match(refused.error!.message, /tool "failing_job" needs the extension/);
  });
});

Deno.test("tasks/* is -32021 without the extension before any lookup, -32602 for an unknown task; tasks/result and tasks/list are not served", async () => {
  await withServer(async (server) => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const gated = await ask(server, method, { taskId: "nope", inputResponses: {} }, {});
      strictEqual(gated.error?.code, -32021, method);
      deepStrictEqual(gated.error?.data, {
        requiredCapabilities: { extensions: { [EXTENSION]: {} } },
      });
      const unknown = await ask(server, method, { taskId: "nope", inputResponses: {} });
      strictEqual(unknown.error?.code, -32602, method);
    }
    for (const method of ["tasks/result", "tasks/list"]) {
      strictEqual((await ask(server, method, { taskId: "x" })).error?.code, -32601, method);
    }
  });
});

Deno.test("a task that asks is input_required until tasks/update answers each question; unknown keys are ignored", async () => {
  await withServer(async (server) => {
    const taskId = (await call(server, "multi_input")).result!.taskId as string;
    const asking = await pollTask(
      server,
      taskId,
      (task) => Object.keys(task.inputRequests ?? {}).length === 2,
    );
    strictEqual(asking.status, "input_required");
    deepStrictEqual(Object.keys(asking.inputRequests as object), ["first", "second"]);
    const answer = (name: string) => ({ action: "accept", content: { name, confirm: true } });
    const ack = await ask(server, "tasks/update", {
      taskId,
      inputResponses: { "unknown-key": { ignored: true }, second: 42 },
    });
    deepStrictEqual(ack.result, { resultType: "complete", _meta: ack.result!._meta });
    const update = (inputResponses: Record<string, unknown>) =>
      ask(server, "tasks/update", { taskId, inputResponses });
    strictEqual(
      Object.keys((await ask(server, "tasks/get", { taskId })).result!.inputRequests as object)
        .length,
      2,
      "an unknown key and a malformed answer answer nothing",
    );
    await update({ first: answer("partial-1") });
    const partly = (await ask(server, "tasks/get", { taskId })).result!;
    deepStrictEqual(
      [partly.status, Object.keys(partly.inputRequests as object)],
      ["input_required", ["second"]],
    );
    await update({ second: answer("partial-2") });
    const done = await pollTask(server, taskId, finished);
    deepStrictEqual([done.status, done.result], ["completed", {
      content: [{ type: "text", text: "Answers: partial-1, partial-2" }],
    }]);
  });
});

Deno.test("tasks/cancel makes a task cancelled at once; cancelling a finished one is the same empty ack", async () => {
  await withServer(async (server) => {
    const taskId = (await call(server, "slow_compute", { seconds: 60, label: "c" })).result!
      .taskId as string;
    const ack = (await ask(server, "tasks/cancel", { taskId })).result!;
    deepStrictEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
    const cancelled = (await ask(server, "tasks/get", { taskId })).result!;
    strictEqual(cancelled.status, "cancelled");
    strictEqual((await ask(server, "tasks/cancel", { taskId })).result!.resultType, "complete");
    strictEqual((await ask(server, "tasks/get", { taskId })).result!.status, "cancelled");
  });
});

Deno.test("a tool error completes a task with isError; an McpError thrown fails it with that JSON-RPC error", async () => {
  await withServer(async (server) => {
    const failing = (await call(server, "failing_job")).result!.taskId as string;
    const protocol = (await call(server, "protocol_error_job")).result!.taskId as string;
    const toolError = await pollTask(server, failing, finished);
    deepStrictEqual([toolError.status, toolError.result], ["completed", {
      content: [{ type: "text", text: "The job failed, as it always does" }],
      isError: true,
    }]);
    const failed = await pollTask(server, protocol, finished);
    deepStrictEqual([failed.status, failed.error, failed.result], [
      "failed",
      { code: -32603, message: "Internal error: the job's backend went away" },
      undefined,
    ]);
  });
});

Deno.test("a question asked in the first turn is an input_required round of the call; answered, the call becomes a task", async () => {
  await withServer(async (server) => {
    const round = (await call(server, "test_tool_with_task")).result!;
    strictEqual(round.resultType, "input_required");
    ok(!("taskId" in round));
    deepStrictEqual(Object.keys(round.inputRequests as object), ["user_name"]);
    const created = (await ask(server, "tools/call", {
      name: "test_tool_with_task",
      arguments: {},
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: round.requestState,
    })).result!;
    strictEqual(created.resultType, "task");
    ok(!("requestState" in created) && !("inputRequests" in created));
    const done = await pollTask(server, created.taskId as string, finished);
    deepStrictEqual(done.result, {
      content: [{ type: "text", text: "Hello, Alice, from a task!" }],
    });
  });
});

Deno.test("the tasks extension is advertised to 2026-07-28 clients; a 2025 session runs an optional task tool as a plain call and a required one as a job, whose McpError fails it", async () => {
  await withServer(async (server) => {
    const discovered = (await ask(server, "server/discover")).result!;
    deepStrictEqual(
      (discovered.capabilities as { extensions?: unknown }).extensions,
      { [EXTENSION]: {} },
    );
    const send = (message: Record<string, unknown>) =>
      server.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
    send({
      id: "i",
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    const initialized = JSON.parse((await server.nextLine())!);
    strictEqual(initialized.result.capabilities.extensions, undefined);
    send({ method: "notifications/initialized" });
    send({
      id: "s",
      method: "tools/call",
      params: { name: "slow_compute", arguments: { seconds: 0.05 } },
    });
    deepStrictEqual(JSON.parse((await server.nextLine())!).result, {
      content: [{ type: "text", text: 'Computed "" in 0.05 s' }],
    });
    // A 2025-era client cannot declare tasks: a required task is a job (adr/0070).
    send({ id: "p", method: "tools/call", params: { name: "protocol_error_job" } });
    const handle = JSON.parse((await server.nextLine())!);
    strictEqual(handle.id, "p");
    const { id } = handle.result.structuredContent.job;
    send({ id: "f", method: "tools/call", params: { name: "toolshed_job", arguments: { id } } });
    deepStrictEqual(JSON.parse((await server.nextLine())!), {
      jsonrpc: "2.0",
      id: "f",
      result: {
        content: [{
          type: "text",
          text: `The job "${id}" failed: Internal error: the job's backend went away`,
        }],
        isError: true,
      },
    });
  });
});

Deno.test("subscriptions/listen with taskIds carries each change of those tasks as notifications/tasks", async () => {
  await withServer(async (server) => {
    const taskId = (await call(server, "slow_compute", { seconds: 0.2, label: "l" })).result!
      .taskId as string;
    const gated = await ask(server, "subscriptions/listen", {
      notifications: { taskIds: [taskId] },
    }, {});
    strictEqual(gated.error?.code, -32021);
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: "listen",
      method: "subscriptions/listen",
      params: {
        notifications: { taskIds: [taskId, "another"] },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": WITH_TASKS,
        },
      },
    }));
    const next = async () =>
      JSON.parse((await withHangGuard(server.nextLine(), "a notification"))!);
    deepStrictEqual(await next(), {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": "listen" },
        notifications: { taskIds: [taskId, "another"] },
      },
    });
    const notice = await next();
    strictEqual(notice.method, "notifications/tasks");
    deepStrictEqual(
      [notice.params._meta, notice.params.taskId, notice.params.status, notice.params.result],
      [{ "io.modelcontextprotocol/subscriptionId": "listen" }, taskId, "completed", {
        content: [{ type: "text", text: 'Computed "l" in 0.2 s' }],
      }],
    );
    ok(!("resultType" in notice.params));
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "listen" },
    }));
  });
});

Deno.test("a call cancelled while its task is being stored cancels the task: its answer, the task's id, is dropped", async () => {
  const aborted = Promise.withResolvers<void>();
  const held = checkDefinition(
    {
      description: "Runs until its signal aborts",
      inputSchema: { type: "object" },
      task: "optional",
      handler: (_args: unknown, ctx: ToolContext) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve();
            reject(ctx.signal.reason);
          }, { once: true });
        }),
    },
    "held",
    "held.ts",
  );
  const server = await composeForTest({ primitives: { tools: [held] } });
  // The window: the task exists (its handler no longer follows the request) and the answer
  // carrying its id has not gone out when the cancel comes. A store that answers only when the
  // test says is that window held open.
  const storing = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  let taskId: string | undefined;
  const create = server.tasks.create.bind(server.tasks);
  server.tasks.create = async (runMs, caller) => {
    storing.resolve();
    await release.promise;
    const live = await create(runMs, caller);
    taskId = live.taskId;
    return live;
  };
  const input = feed();
  const output = collector();
  const served = server.serveStdio({ input, output });
  try {
    input.push(modernBody(7, "tools/call", { name: "held", arguments: {} }, WITH_TASKS) + "\n");
    await withHangGuard(storing.promise, "the task being stored");
    input.push(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 7, reason: "the client gave up" },
      }) + "\n",
    );
    input.push(modernBody(8, "tools/list", {}, WITH_TASKS) + "\n");
    // tools/list, read after the cancel, is answered: the cancel has been read.
    const listed = JSON.parse((await withHangGuard(output.nextLine(), "tools/list"))!) as Message;
    strictEqual(listed.id, 8);
    release.resolve();
    await withHangGuard(aborted.promise, "the orphaned task's handler stopping");
    ok(taskId !== undefined);
    strictEqual((await server.tasks.get(taskId))?.status, "cancelled");
    input.push(modernBody(9, "tools/list", {}, WITH_TASKS) + "\n");
    const next = JSON.parse((await withHangGuard(output.nextLine(), "tools/list"))!) as Message;
    strictEqual(next.id, 9, "the cancelled call is not answered");
  } finally {
    input.end();
    await withHangGuard(served.done, "the end of input");
    server.close();
  }
});
