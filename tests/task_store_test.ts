// Where tasks are kept (lib/tasks/task_store.ts; adr/0022): the memory store's bounds by count
// and by bytes, the bounded record of a finished task too large to keep, and the same byte
// budget in Redis (lib/redis/task_store.ts) against a real redis-server. The tasks on top
// (lib/tasks/tasks.ts) tell a result too large to keep whole to this instance's listens.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  createMemoryTaskStore,
  jsonBytes,
  keptRecord,
  type TaskRecord,
  type TaskStore,
} from "../lib/tasks/task_store.ts";
import { createMemoryBus } from "../lib/tasks/bus.ts";
import { createTasks } from "../lib/tasks/tasks.ts";
import { connectRedis } from "../lib/redis/connection.ts";
import { createRedisTaskStore } from "../lib/redis/task_store.ts";
import { recorder } from "./_diagnostics.ts";
import { RUN_REDIS, startRedis, until } from "./_redis.ts";

const createdAt = new Date().toISOString();
/** A task record: `working`, or `completed` with a text of `size` characters. */
const task = (taskId: string, size?: number): TaskRecord => ({
  taskId,
  status: size === undefined ? "working" : "completed",
  createdAt,
  lastUpdatedAt: createdAt,
  ttlMs: 60 * 60 * 1000,
  pollIntervalMs: 500,
  ...(size === undefined
    ? {}
    : { result: { content: [{ type: "text", text: "x".repeat(size) }] } }),
});
const put = (store: TaskStore, record: TaskRecord) =>
  store.put({ record, owner: "o", leaseUntil: Date.now() + 60_000 });
/** The ids of `ids` the store still holds. */
async function held(store: TaskStore, ids: string[]): Promise<string[]> {
  const found = await Promise.all(ids.map((id) => store.get(id)));
  return ids.filter((_, i) => found[i] !== undefined);
}

/** Budget checks for a store of 10 KB of finished tasks. */
async function budgetChecks(store: TaskStore) {
  await put(store, task("running"));
  const ids = ["f1", "f2", "f3", "f4"];
  for (const id of ids) {
    await put(store, task(id));
    await put(store, task(id, 3_000)); // each ~3.2 KB of JSON
  }
  deepStrictEqual(await held(store, ["running", ...ids]), ["running", "f2", "f3", "f4"]);
  const stored = await store.get("f4");
  strictEqual(stored?.record.status, "completed");
  strictEqual((stored?.record.result?.content as { text: string }[])[0].text.length, 3_000);
  // A later finished task evicts the oldest finished first, never the running one.
  await put(store, task("f5"));
  await put(store, task("f5", 6_000));
  deepStrictEqual(await held(store, ["running", ...ids, "f5"]), ["running", "f4", "f5"]);
}

Deno.test("createMemoryTaskStore() forgets the oldest finished tasks past its byte budget, never a running one", async () => {
  await budgetChecks(createMemoryTaskStore(100, Date.now, 10_000));
});

Deno.test("createMemoryTaskStore() forgets the oldest tasks past its count and the expired at once", async () => {
  let now = Date.now();
  const store = createMemoryTaskStore(3, () => now);
  for (const id of ["a", "b", "c", "d"]) await put(store, task(id));
  deepStrictEqual(await held(store, ["a", "b", "c", "d"]), ["b", "c", "d"]);
  now += 2 * 60 * 60 * 1000;
  deepStrictEqual(await held(store, ["b", "c", "d"]), []);
});

Deno.test("keptRecord() keeps a finished task within the bound as it is, and one beyond it failed with an error that says so", () => {
  const small = task("t", 100);
  strictEqual(keptRecord(small, 1_000), small);
  const large = task("t", 5_000);
  const kept = keptRecord(large, 1_000);
  deepStrictEqual(Object.keys(kept).sort(), [
    "createdAt",
    "error",
    "lastUpdatedAt",
    "pollIntervalMs",
    "status",
    "statusMessage",
    "taskId",
    "ttlMs",
  ]);
  strictEqual(kept.status, "failed");
  const message = `Internal error: the finished task takes ${
    jsonBytes(large)
  } bytes, more than the 1000 bytes a finished task may keep, so its result was not kept`;
  deepStrictEqual(kept.error, { code: -32603, message });
  strictEqual(kept.statusMessage, message);
  const running = task("t");
  strictEqual(keptRecord(running, 10), running, "a running task is not bounded here");
});

Deno.test("createTasks() stores a result too large to keep bounded, and tells this instance's listeners the whole of it", async () => {
  const store = createMemoryTaskStore(100, Date.now, 40_000); // keeps at most 10,000 bytes
  const tasks = createTasks(store, createMemoryBus());
  const heard: TaskRecord[] = [];
  tasks.onChange((record) => heard.push(record));
  try {
    const live = await tasks.create(10_000);
    const text = "y".repeat(20_000);
    live.complete({ content: [{ type: "text", text }] });
    const kept = await until(
      () => tasks.get(live.taskId),
      (record) => record?.status !== "working",
    );
    strictEqual(kept?.status, "failed");
    ok(kept?.error?.message?.toString().includes("more than the 10000 bytes"), kept?.statusMessage);
    const finished = await until(
      () => heard.filter((r) => r.status !== "working"),
      (r) => r.length > 0,
    );
    deepStrictEqual(finished.map((record) => record.status), ["completed"], "once, whole");
    strictEqual((finished[0].result?.content as { text: string }[])[0].text, text);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the bus delivers nothing more
    deepStrictEqual(heard.filter((r) => r.status !== "working").length, 1);
  } finally {
    tasks.close();
  }
});

Deno.test({
  name:
    "createRedisTaskStore() forgets the oldest finished tasks past its byte budget in Redis, never a running one",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const link = await connectRedis(redis.url, recorder());
    try {
      // The stored JSON carries the owner and lease too: the same four fit in 10,200 bytes.
      await budgetChecks(createRedisTaskStore(link, Date.now, 10_200));
      const total = await link.run((client) => client.get("toolshed:finished-bytes"));
      ok(Number(total) <= 10_200, `${total} bytes counted`);
      strictEqual(await link.run((client) => client.zCard("toolshed:finished")), 2);
    } finally {
      await link.close();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "createRedisTaskStore() counts a finished task once when it is finished again after its key went",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const link = await connectRedis(redis.url, recorder());
    try {
      const store = createRedisTaskStore(link, Date.now, 1_000_000);
      await put(store, task("again", 3_000));
      // Its key expires (or is evicted) while the index still names it; then it is put again.
      await link.run((client) => client.del("toolshed:task:again"));
      await put(store, task("again", 3_000));
      const size = await link.run((client) => client.hGet("toolshed:finished-sizes", "again"));
      const total = await link.run((client) => client.get("toolshed:finished-bytes"));
      strictEqual(Number(total), Number(size), "counted once");
    } finally {
      await link.close();
      await redis.stop();
    }
  },
});

Deno.test("createTasks() binds a task to its caller: another caller (or none) cannot get, update, cancel or hear of it", async () => {
  const tasks = createTasks(createMemoryTaskStore(), createMemoryBus());
  const alice = JSON.stringify(["https://issuer.example", "alice"]);
  const bob = JSON.stringify(["https://issuer.example", "bob"]);
  const heard: [string, string | undefined][] = [];
  const stop = tasks.onChange((task, caller) => heard.push([task.status, caller]));
  try {
    const live = await tasks.create(60_000, alice);
    const { taskId } = live;
    ok(await tasks.get(taskId, alice));
    strictEqual(await tasks.get(taskId, bob), undefined);
    strictEqual(await tasks.get(taskId, undefined), undefined);
    strictEqual(await tasks.update(taskId, {}, bob), false);
    strictEqual(await tasks.cancel(taskId, bob), false);
    strictEqual((await tasks.get(taskId, alice))?.status, "working", "bob's cancel did nothing");
    strictEqual(await tasks.cancel(taskId, alice), true);
    strictEqual((await tasks.get(taskId, alice))?.status, "cancelled");
    // Listeners are told whose each change is, to tell only that caller (through the bus, a
    // turn later).
    await new Promise((resolve) => setTimeout(resolve, 0));
    ok(
      heard.some(([status, caller]) => status === "cancelled" && caller === alice),
      JSON.stringify(heard),
    );
  } finally {
    stop();
    tasks.close();
  }
});
