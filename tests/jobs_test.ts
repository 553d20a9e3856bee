// Jobs (adr/0070; lib/methods/jobs.ts, job_tool.ts, tool_tasks.ts): a client without the tasks
// extension calling a tool that may run as a task gets its result inline within the job bound,
// else a handle, and follows the job with toolshed_job. Through the real core over stdio, in
// this process, with tests/fixtures/jobs (a bound of 300 ms and a wait of 1.5 s, so that the
// same paths a 25 s bound takes run in a test's time).
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { type InProcessServer, startInProcess } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";
import { modernBody } from "./_http_server.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { createServer } from "../lib/server/create_server.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { recorder } from "./_diagnostics.ts";
import { callerNamed } from "./_oauth_tools.ts";

const EXTENSION = "io.modelcontextprotocol/tasks";
const WITH_TASKS: Record<string, unknown> = { extensions: { [EXTENSION]: {} } };
const FLAGS = ["--dir", "tests/fixtures/jobs", "--job-after", "300", "--job-wait", "1500"];
type Result = Record<string, unknown> & {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};
type Message = {
  id?: unknown;
  result?: Result;
  error?: { code: number; message: string; data?: unknown };
};

let nextId = 1;

/** Sends one line and reads lines until the answer to `id`. */
async function exchange(server: InProcessServer, id: number, line: string): Promise<Message> {
  server.send(line);
  for (;;) {
    const got = await withHangGuard(server.nextLine(), `the answer to request ${id}`);
    ok(got !== null, "the server answers");
    const message = JSON.parse(got) as Message;
    if (message.id === id) return message;
  }
}

/** A 2026-07-28 request declaring `capabilities` (none: a client without tasks). */
function ask(
  server: InProcessServer,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): Promise<Message> {
  const id = nextId++;
  return exchange(server, id, modernBody(id, method, params, capabilities));
}

const call = (server: InProcessServer, name: string, args = {}, capabilities = {}) =>
  ask(server, "tools/call", { name, arguments: args }, capabilities);

async function withServer(
  body: (server: InProcessServer) => Promise<void>,
  flags: string[] = FLAGS,
) {
  const server = await startInProcess(flags);
  try {
    await body(server);
  } finally {
    await server.end();
  }
}

const textOf = (result: Result | undefined) => result?.content?.[0]?.text ?? "";

Deno.test("jobs: a client without tasks is listed toolshed_job, read-only, and no outputSchema for a tool that may answer with a handle", async () => {
  await withServer(async (server) => {
    const tools = (await ask(server, "tools/list")).result!.tools as Record<string, unknown>[];
    const byName = new Map(tools.map((tool) => [tool.name as string, tool]));
    deepStrictEqual([...byName.keys()], [
      "long_report",
      "only_task",
      "plain",
      "retried_report",
      "toolshed_job",
    ]);
    const job = byName.get("toolshed_job")!;
    deepStrictEqual(job.annotations, {
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    deepStrictEqual((job.inputSchema as { required: string[] }).required, ["id"]);
    ok(!("outputSchema" in byName.get("long_report")!), "a handle cannot match an outputSchema");
    ok("outputSchema" in byName.get("plain")!, "a tool that is never a job keeps its own");

    // A client with tasks sees the directory as it is.
    const seen = (await ask(server, "tools/list", {}, WITH_TASKS)).result!.tools as Record<
      string,
      unknown
    >[];
    deepStrictEqual(seen.map((tool) => tool.name), [
      "long_report",
      "only_task",
      "plain",
      "retried_report",
    ]);
    ok("outputSchema" in seen.find((tool) => tool.name === "long_report")!);
  });
});

Deno.test("jobs: a call that ends within the bound answers with its own result, nothing changed", async () => {
  await withServer(async (server) => {
    const answer = (await call(server, "long_report", { ms: 40, stepMs: 20 })).result!;
    strictEqual(answer.isError, undefined);
    deepStrictEqual(answer.structuredContent, { steps: 2 });
  });
});

Deno.test("jobs: past the bound the call answers with a handle, and toolshed_job returns the tool's own result", async () => {
  await withServer(async (server) => {
    const handle = (await call(server, "long_report", { ms: 1200, stepMs: 100 })).result!;
    strictEqual(handle.isError, undefined, "a handle is an ordinary result");
    const job = handle.structuredContent!.job as Record<string, unknown>;
    strictEqual(job.status, "working");
    ok(typeof job.id === "string" && job.id.length > 0);
    match(textOf(handle), /^The tool "long_report" is still running, as job "/);
    ok(
      textOf(handle).includes(`Call the tool "toolshed_job" with {"id":"${job.id}"}`),
      textOf(handle),
    );
    deepStrictEqual(job.next, { tool: "toolshed_job", arguments: { id: job.id } });
    match(job.statusMessage as string, /^step \d+$/, "the progress said inside the request");

    // The wait bound (1.5 s) is longer than what is left of the call: the first wait ends it.
    const result = (await call(server, "toolshed_job", { id: job.id })).result!;
    deepStrictEqual(result.structuredContent, { steps: 12 });
    strictEqual(result.isError, undefined);
  });
});

Deno.test("jobs: toolshed_job answers with the status at its wait bound, and again until the end", async () => {
  await withServer(async (server) => {
    const handle = (await call(server, "long_report", { ms: 2400, stepMs: 100 })).result!;
    const { id } = handle.structuredContent!.job as { id: string };
    const first = (await call(server, "toolshed_job", { id })).result!;
    strictEqual(first.isError, undefined);
    match(
      textOf(first),
      new RegExp(`^The job "${id}" is still running\\. Its last status: "step \\d+"\\.`),
    );
    match(textOf(first), /waits up to 2 s/);
    strictEqual((first.structuredContent!.job as { status: string }).status, "working");
    const second = (await call(server, "toolshed_job", { id })).result!;
    deepStrictEqual(second.structuredContent, { steps: 24 });
  });
});

Deno.test("jobs: cancel through toolshed_job fires the tool's signal and the job ends cancelled", async () => {
  const mark = await Deno.makeTempFile({ prefix: "toolshed_job_mark_" });
  try {
    await withServer(async (server) => {
      const handle = (await call(server, "long_report", { ms: 60_000, stepMs: 100, mark }))
        .result!;
      const { id } = handle.structuredContent!.job as { id: string };
      const cancelled = (await call(server, "toolshed_job", { id, cancel: true })).result!;
      strictEqual(cancelled.isError, undefined);
      strictEqual(textOf(cancelled), `The job "${id}" is cancelled`);
      match(await Deno.readTextFile(mark), /^aborted: /, "the tool's ctx.signal fired");
      const after = (await call(server, "toolshed_job", { id })).result!;
      strictEqual(after.isError, true);
      strictEqual(textOf(after), `The job "${id}" was cancelled`);
    });
  } finally {
    await Deno.remove(mark);
  }
});

Deno.test("jobs: a job that fails is an isError result naming why; an unknown id is answered as unknown", async () => {
  await withServer(async (server) => {
    const handle = (await call(server, "long_report", { ms: 600, stepMs: 100, fail: true }))
      .result!;
    const { id } = handle.structuredContent!.job as { id: string };
    const failed = (await call(server, "toolshed_job", { id })).result!;
    strictEqual(failed.isError, true);
    strictEqual(textOf(failed), "the report broke after 6 steps", "the tool's own error result");

    const unknown = (await call(server, "toolshed_job", { id: "no-such-job" })).result!;
    strictEqual(unknown.isError, true);
    strictEqual(
      textOf(unknown),
      'No job "no-such-job" is known here: it never existed, or it has expired',
    );
    const bad = (await call(server, "toolshed_job", { id: 7 })).result!;
    strictEqual(bad.isError, true);
    match(textOf(bad), /^Invalid arguments for tool "toolshed_job": /);
  });
});

Deno.test("jobs: a task-aware client still gets a real task, and no toolshed_job", async () => {
  await withServer(async (server) => {
    const created = (await call(server, "long_report", { ms: 400 }, WITH_TASKS)).result!;
    strictEqual(created.resultType, "task");
    const refused = await call(server, "toolshed_job", { id: created.taskId }, WITH_TASKS);
    strictEqual(refused.error?.code, -32602);
    match(refused.error!.message, /^Unknown tool: "toolshed_job"/);
  });
});

Deno.test("jobs: a required task stays the spec's error for a 2026-07-28 client and is a job at once for a 2025-era one", async () => {
  await withServer(async (server) => {
    const refused = await call(server, "only_task", { ms: 50 });
    strictEqual(refused.error?.code, -32021);
  });
  // A connection of its own: stdio speaks one era per connection.
  await withServer(async (server) => {
    const init = nextId++;
    const session = await exchange(
      server,
      init,
      JSON.stringify({
        jsonrpc: "2.0",
        id: init,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "jobs-test", version: "1" },
        },
      }),
    );
    strictEqual(session.result!.protocolVersion, "2025-06-18");
    server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const legacy = (method: string, params: Record<string, unknown>) => {
      const id = nextId++;
      return exchange(server, id, JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    };
    const tools = (await legacy("tools/list", {})).result!.tools as { name: string }[];
    ok(tools.some((tool) => tool.name === "toolshed_job"));
    const handle = (await legacy("tools/call", { name: "only_task", arguments: { ms: 200 } }))
      .result!;
    const { id } = handle.structuredContent!.job as { id: string };
    const done = (await legacy("tools/call", { name: "toolshed_job", arguments: { id } })).result!;
    deepStrictEqual(done.content, [{ type: "text", text: "waited 200 ms" }]);
  });
});

Deno.test("jobs: --job-after 0 keeps every call inline and lists no toolshed_job", async () => {
  await withServer(async (server) => {
    const tools = (await ask(server, "tools/list")).result!.tools as { name: string }[];
    deepStrictEqual(tools.map((tool) => tool.name), [
      "long_report",
      "only_task",
      "plain",
      "retried_report",
    ]);
    const answer = (await call(server, "long_report", { ms: 500, stepMs: 100 })).result!;
    deepStrictEqual(answer.structuredContent, { steps: 5 });
  }, ["--dir", "tests/fixtures/jobs", "--job-after", "0"]);
});

Deno.test("jobs: a tool of the directory cannot take the name toolshed_job", () => {
  let message = "";
  try {
    checkDefinition(
      { description: "x", inputSchema: { type: "object" }, handler: () => "" },
      "toolshed_job",
      "tools/toolshed_job.ts",
    );
  } catch (error) {
    message = (error as Error).message;
  }
  match(message, /^the name "toolshed_job" is toolshed's own/);
});

Deno.test("jobs: a job is its caller's: another caller's id answers exactly as an unknown one, and cannot cancel it", async () => {
  const held = Promise.withResolvers<void>();
  const long = checkDefinition(
    {
      description: "Runs until the test lets it go",
      inputSchema: { type: "object" },
      task: "optional",
      handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
        Promise.race([
          held.promise.then(() => "let go"),
          new Promise((_, reject) => ctx.signal.addEventListener("abort", reject)),
        ]),
    },
    "long",
    "long.ts",
  );
  const server = await createServer({
    primitives: { tools: [long] },
    jobAfterMs: 20,
    jobWaitMs: 100,
    diagnostics: recorder(),
  });
  let id = 0;
  const ask = async (name: string, args: JsonObject, who: string) => {
    const answer = await server.core.handle({
      request: {
        kind: "request",
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
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
      outlet: { notify: () => {}, outbound: undefined },
      origin: IN_PROCESS,
      facts: { caller: callerNamed(who) },
    });
    return (answer as { result: Result }).result;
  };
  try {
    const handle = await ask("long", {}, "alice");
    const { id: jobId } = handle.structuredContent!.job as { id: string };
    const unknown = await ask("toolshed_job", { id: "never-made" }, "bob");
    const bobs = await ask("toolshed_job", { id: jobId }, "bob");
    deepStrictEqual(
      { ...bobs, content: [{ type: "text", text: textOf(bobs).replace(jobId, "never-made") }] },
      unknown,
      "bob learns nothing more of alice's job than of one that never was",
    );
    const bobCancels = await ask("toolshed_job", { id: jobId, cancel: true }, "bob");
    strictEqual(bobCancels.isError, true);
    // Still alice's, still running: her wait ends at its bound with the status.
    const alices = await ask("toolshed_job", { id: jobId }, "alice");
    match(textOf(alices), /is still running/);
    held.resolve();
    const done = await ask("toolshed_job", { id: jobId }, "alice");
    deepStrictEqual(done.content, [{ type: "text", text: "let go" }]);
  } finally {
    held.resolve();
    await server.close();
  }
});

Deno.test("jobs: within a tool's reuse window the same call joins its running job, then gets its result, and other arguments run anew", async () => {
  const runs = await Deno.makeTempFile({ prefix: "toolshed_job_runs_" });
  try {
    await withServer(async (server) => {
      const args = { ms: 800, runs };
      const first = (await call(server, "retried_report", args)).result!;
      const { id } = first.structuredContent!.job as { id: string };
      // A host that gave up retries the very call: the same job, not a second run.
      const retried = (await call(server, "retried_report", { runs, ms: 800 })).result!;
      strictEqual((retried.structuredContent!.job as { id: string }).id, id);
      const other = (await call(server, "retried_report", { ms: 700, runs })).result!;
      ok((other.structuredContent!.job as { id: string }).id !== id, "other arguments: anew");
      const done = (await call(server, "toolshed_job", { id })).result!;
      deepStrictEqual(done.content, [{ type: "text", text: "report of 800 ms" }]);
      // Ended, still in the window: the result at once.
      const after = (await call(server, "retried_report", args)).result!;
      deepStrictEqual(after.content, [{ type: "text", text: "report of 800 ms" }]);
      await call(server, "toolshed_job", {
        id: (other.structuredContent!.job as { id: string }).id,
      });
      strictEqual(
        await Deno.readTextFile(runs),
        "run\nrun\n",
        "two runs: 800 ms once, 700 ms once",
      );
    });
  } finally {
    await Deno.remove(runs);
  }
});

Deno.test("jobs: jobAfterMs and jobReuseMs are refused on a tool that is never a task, and out of range", () => {
  const problem = (extra: JsonObject) => {
    try {
      checkDefinition(
        { description: "x", inputSchema: { type: "object" }, handler: () => "", ...extra },
        "t",
        "tools/t.ts",
      );
      return "";
    } catch (error) {
      return (error as Error).message;
    }
  };
  strictEqual(
    problem({ jobReuseMs: 1000 }),
    'jobReuseMs needs task "optional" or "required": only a task becomes a job',
  );
  strictEqual(
    problem({ jobAfterMs: 0 }),
    'jobAfterMs needs task "optional" or "required": only a task becomes a job',
  );
  match(problem({ task: "optional", jobReuseMs: 0 }), /^jobReuseMs must be an integer from 1 to /);
  match(problem({ task: "optional", jobAfterMs: -1 }), /^jobAfterMs must be an integer from 0 to /);
  strictEqual(problem({ task: "optional", jobAfterMs: 0, jobReuseMs: 5000 }), "");
});

Deno.test("jobs: while toolshed_job waits, the job's status messages reach a client that asked for progress", async () => {
  await withServer(async (server) => {
    const handle = (await call(server, "long_report", { ms: 1400, stepMs: 100 })).result!;
    const { id } = handle.structuredContent!.job as { id: string };
    const requestId = nextId++;
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: requestId,
      method: "tools/call",
      params: {
        name: "toolshed_job",
        arguments: { id },
        _meta: {
          progressToken: "wait",
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }));
    const progress: { progress: number; message?: string }[] = [];
    for (;;) {
      const line = await withHangGuard(server.nextLine(), "toolshed_job's answer");
      ok(line !== null);
      const message = JSON.parse(line);
      if (message.method === "notifications/progress") {
        strictEqual(message.params.progressToken, "wait");
        progress.push(message.params);
        continue;
      }
      if (message.id !== requestId) continue;
      deepStrictEqual(message.result.structuredContent, { steps: 14 });
      break;
    }
    ok(progress.length >= 2, `${progress.length} progress notifications`);
    for (const [index, each] of progress.entries()) {
      strictEqual(each.progress, index + 1, "progress counts up");
      match(each.message!, /^step \d+$/);
    }
  });
});
