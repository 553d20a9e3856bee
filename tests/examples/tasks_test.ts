// examples/tasks: what its README promises, through a real main.ts over stdio. It type-checks; a
// 2026-07-28 client that declares the tasks extension gets a task at once, follows it with
// tasks/get (the progress message as its statusMessage) to the tool's result, and tasks/cancel
// ends one; a client without the extension gets a plain call.
import assert from "node:assert/strict";
import { type ServerProcess, spawnServer, withHangGuard } from "../_server_process.ts";
import { exampleDir, modernMeta } from "./_example.ts";

const DIR = exampleDir("tasks");
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** Sends requests over one stdio connection and reads their answers by id. */
function client(server: ServerProcess) {
  let lastId = 0;
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const reading = (async () => {
    for (;;) {
      const line = await server.nextLine();
      if (line === null) return;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
    }
  })();
  return {
    async ask(method: string, params: Record<string, unknown>, capabilities: object = TASKS) {
      const id = ++lastId;
      const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      await server.send(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method,
        params: { ...params, _meta: modernMeta(capabilities as Record<string, unknown>) },
      }));
      const message = await withHangGuard(answer, `the answer to ${method}`);
      assert.ok(message.result, JSON.stringify(message));
      return message.result as Record<string, unknown>;
    },
    reading,
  };
}

/** tasks/get until the task's status is one of `statuses`, or `until` holds (a bounded loop). */
async function follow(
  ask: ReturnType<typeof client>["ask"],
  taskId: string,
  statuses: string[],
  until: (task: Record<string, unknown>) => boolean = () => false,
): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  for (let poll = 0; poll < 1000; poll++) {
    const task = await ask("tasks/get", { taskId });
    seen.push(task);
    if (statuses.includes(task.status as string) || until(task)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task "${taskId}" never reached ${statuses.join(" or ")}`);
}

Deno.test("examples/tasks: build_report runs as a task, followed to its result; cancelled on request; plain without the extension", async () => {
  const server = spawnServer(["--dir", DIR]);
  const { ask, reading } = client(server);
  try {
    const call = (steps: number, stepMs: number, capabilities?: object) =>
      ask("tools/call", { name: "build_report", arguments: { steps, stepMs } }, capabilities);

    const created = await call(3, 200);
    assert.deepEqual([created.resultType, created.status], ["task", "working"]);
    const taskId = created.taskId as string;
    const seen = await follow(ask, taskId, ["completed", "failed", "cancelled"]);
    const done = seen.at(-1)!;
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(done.result, { content: [{ type: "text", text: "Report ready: 3 steps" }] });

    // Its progress message is the task's statusMessage while it works; tasks/cancel ends it.
    const long = await call(20, 300);
    const working = await follow(ask, long.taskId as string, ["completed", "failed", "cancelled"], (
      task,
    ) => task.statusMessage !== undefined);
    assert.match(String(working.at(-1)!.statusMessage), /^Step \d+ of 20$/);
    await ask("tasks/cancel", { taskId: long.taskId });
    // A cancellation is final at once.
    assert.equal((await ask("tasks/get", { taskId: long.taskId })).status, "cancelled");

    const plain = await call(2, 10, {});
    assert.deepEqual([plain.resultType, plain.content], [
      "complete",
      [{ type: "text", text: "Report ready: 2 steps" }],
    ]);
  } finally {
    const { code } = await server.finish();
    await reading;
    assert.equal(code, 0);
  }
});
