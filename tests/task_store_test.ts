// Where tasks are kept (lib/tasks/task_store.ts; adr/0022, adr/0060): the memory store's bounds
// by count and by the bytes finished tasks hold, the bounded record of a finished task too large
// to keep, and the same byte budget in Redis (lib/redis/task_store.ts) against a real
// redis-server. The tasks on top (lib/tasks/tasks.ts) tell a result too large to keep whole to
// this instance's listens, and send no result over the bus.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  createMemoryTaskStore,
  FINISHED_TASK_OVERHEAD_BYTES,
  fromKeptBytes,
  keptBytes,
  type StoredTask,
  type TaskRecord,
  type TaskStore,
} from "../lib/tasks/task_store.ts";
import { type Bus, createMemoryBus } from "../lib/tasks/bus.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { createTasks } from "../lib/tasks/tasks.ts";
import { connectRedis } from "../lib/redis/connection.ts";
import { createRedisTaskStore } from "../lib/redis/task_store.ts";
import { recorder } from "./_diagnostics.ts";
import { RUN_REDIS, startRedis, until } from "./_redis.ts";

const createdAt = new Date().toISOString();
/** A task record: `working`, or `completed` with a text of `size` characters (`char` each). */
const task = (taskId: string, size?: number, char = "x"): TaskRecord => ({
  taskId,
  status: size === undefined ? "working" : "completed",
  createdAt,
  lastUpdatedAt: createdAt,
  ttlMs: 60 * 60 * 1000,
  pollIntervalMs: 500,
  ...(size === undefined
    ? {}
    : { result: { content: [{ type: "text", text: char.repeat(size) }] } }),
});
const stored = (record: TaskRecord): StoredTask => ({
  record,
  owner: "o",
  leaseUntil: Date.now() + 60_000,
});
const put = (store: TaskStore, record: TaskRecord) => store.put(stored(record));
/** What the memory store counts for a finished task: its JSON in UTF-8, and its overhead. */
const held = (record: TaskRecord) =>
  new TextEncoder().encode(JSON.stringify(stored(record))).length + FINISHED_TASK_OVERHEAD_BYTES;
/** The ids of `ids` the store still holds. */
async function kept(store: TaskStore, ids: string[]): Promise<string[]> {
  const found = await Promise.all(ids.map((id) => store.get(id)));
  return ids.filter((_, i) => found[i] !== undefined);
}

/**
 * Budget checks for a store with room for four finished tasks of 2,000 characters, not five (a
 * finished task may take a quarter of the budget).
 */
async function budgetChecks(store: TaskStore) {
  await put(store, task("running"));
  const ids = ["f1", "f2", "f3", "f4", "f5"];
  for (const id of ids) {
    await put(store, task(id));
    await put(store, task(id, 2_000));
  }
  deepStrictEqual(await kept(store, ["running", ...ids]), ["running", "f2", "f3", "f4", "f5"]);
  const stored = await store.get("f5");
  strictEqual(stored?.record.status, "completed");
  strictEqual((stored?.record.result?.content as { text: string }[])[0].text.length, 2_000);
  // A later finished task evicts the oldest finished first, never the running one.
  await put(store, task("f6"));
  await put(store, task("f6", 2_000));
  deepStrictEqual(await kept(store, ["running", ...ids, "f6"]), [
    "running",
    "f3",
    "f4",
    "f5",
    "f6",
  ]);
}

Deno.test("createMemoryTaskStore() forgets the oldest finished tasks past its byte budget, never a running one", async () => {
  // Each holds ~2,200 bytes of JSON and FINISHED_TASK_OVERHEAD_BYTES.
  await budgetChecks(createMemoryTaskStore(100, Date.now, 12_000));
});

Deno.test("createMemoryTaskStore() forgets the oldest tasks past its count and the expired at once", async () => {
  let now = Date.now();
  const store = createMemoryTaskStore(3, () => now);
  for (const id of ["a", "b", "c", "d"]) await put(store, task(id));
  deepStrictEqual(await kept(store, ["a", "b", "c", "d"]), ["b", "c", "d"]);
  now += 2 * 60 * 60 * 1000;
  deepStrictEqual(await kept(store, ["b", "c", "d"]), []);
});

Deno.test("keptBytes() keeps a finished task within the bound as it is, and one beyond it failed with an error that says so", () => {
  const small = stored(task("t", 100));
  deepStrictEqual(fromKeptBytes(keptBytes(small, 1_000)), small);
  const large = stored(task("t", 5_000));
  const bounded = fromKeptBytes(keptBytes(large, 1_000));
  deepStrictEqual([bounded.owner, bounded.leaseUntil], [large.owner, large.leaseUntil]);
  const kept = bounded.record;
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
    new TextEncoder().encode(JSON.stringify(large)).length
  } bytes, more than the 1000 bytes a finished task may keep, so its result was not kept`;
  deepStrictEqual(kept.error, { code: -32603, message });
  strictEqual(kept.statusMessage, message);
  const running = stored({ ...task("t"), statusMessage: "y".repeat(100) });
  deepStrictEqual(fromKeptBytes(keptBytes(running, 10)), running, "a running task is not bounded");
});

Deno.test("keptBytes() counts a finished task's JSON as the bytes TextEncoder makes of it", () => {
  // A lone surrogate reaches it escaped by JSON.stringify, as ASCII.
  for (
    const text of ["", "abc", "é", "€", "😀", "x😀é€", "a\ud800b", "\udc00", "\ud800\ud800\udc00"]
  ) {
    const done = stored({ ...task("t", 0), statusMessage: text });
    const bytes = new TextEncoder().encode(JSON.stringify(done)).length;
    deepStrictEqual(fromKeptBytes(keptBytes(done, bytes)), done, JSON.stringify(text));
    const over = fromKeptBytes(keptBytes(done, bytes - 1)).record;
    strictEqual(over.status, "failed", JSON.stringify(text));
    ok(over.statusMessage?.includes(`takes ${bytes} bytes`), over.statusMessage);
  }
});

Deno.test("createMemoryTaskStore() counts each finished task as the bytes it holds: its JSON in UTF-8 (not its characters) and the overhead of keeping it", async () => {
  // 3,000 bytes of text each in UTF-8, in 3,000, 1,500, 1,000 and 750 characters.
  const records = [
    task("t1", 3_000, "x"),
    task("t2", 1_500, "é"),
    task("t3", 1_000, "€"),
    task("t4", 750, "😀"),
  ];
  deepStrictEqual(new Set(records.map(held)).size, 1, "the same bytes each");
  // Room for the four, not one byte more.
  const budget = 4 * held(records[0]);
  const store = createMemoryTaskStore(100, Date.now, budget);
  await put(store, task("running"));
  for (const record of records) await put(store, record);
  strictEqual(store.heldBytes?.(), budget, "a running task holds no finished bytes");
  deepStrictEqual(await kept(store, ["running", "t1", "t2", "t3", "t4"]), [
    "running",
    "t1",
    "t2",
    "t3",
    "t4",
  ]);
  await put(store, task("t5", 0));
  deepStrictEqual(await kept(store, ["t1", "t2", "t3", "t4", "t5"]), ["t2", "t3", "t4", "t5"]);
  strictEqual(store.heldBytes?.(), budget - held(records[0]) + held(task("t5", 0)));
  // Finished again (a late write): counted once.
  await put(store, task("t5", 0));
  strictEqual(store.heldBytes?.(), budget - held(records[0]) + held(task("t5", 0)));
});

Deno.test("createMemoryTaskStore() frees a forgotten finished task's bytes at once, not at V8's next collection", async () => {
  const mib = 1024 * 1024;
  const store = createMemoryTaskStore(100, Date.now, 4.5 * mib); // four of 1 MiB
  const result = { content: [{ type: "text", text: "z".repeat(mib) }] };
  const finished = (taskId: string): TaskRecord => ({ ...task(taskId, 0), result });
  for (const id of ["a", "b", "c", "d"]) await put(store, finished(id));
  const before = Deno.memoryUsage().external;
  const more = ["e", "f", "g", "h", "i", "j", "k", "l"];
  for (const id of more) await put(store, finished(id));
  deepStrictEqual(await kept(store, ["a", "h", "i", "j", "k", "l"]), ["i", "j", "k", "l"]);
  const grown = Deno.memoryUsage().external - before;
  // Each put makes 1 MiB of bytes and lets go of the oldest 1 MiB: nothing piles up.
  ok(grown < mib, `external memory grew by ${(grown / mib).toFixed(1)} MiB`);
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

Deno.test("createTasks() sends no result over the bus: an instance whose listener follows the task reads it from the store, and no other reads it", async () => {
  const shared = createMemoryTaskStore();
  const bus = createMemoryBus();
  const sent: JsonObject[] = [];
  const recorded: Bus = {
    publish: (message) => (sent.push(message), bus.publish(message)),
    subscribe: (handler) => bus.subscribe(handler),
  };
  /** The shared store, counting the reads of one instance. */
  const counted = () => {
    const reads = { count: 0 };
    const store: TaskStore = {
      ...shared,
      put: (task) => shared.put(task),
      get: (taskId) => (reads.count++, shared.get(taskId)),
    };
    return { store, reads };
  };
  const [a, b, c] = [counted(), counted(), counted()];
  const [runner, follower, bystander] = [a, b, c].map(({ store }) => createTasks(store, recorded));
  const text = "r".repeat(100_000);
  const heard: Record<string, TaskRecord[]> = { runner: [], follower: [], bystander: [] };
  try {
    const live = await runner.create(10_000);
    runner.onChange((record) => heard.runner.push(record), new Set([live.taskId]));
    follower.onChange((record) => heard.follower.push(record), new Set([live.taskId]));
    bystander.onChange((record) => heard.bystander.push(record), new Set(["another"]));
    live.progress("half way");
    live.complete({ content: [{ type: "text", text }] });
    const followed = await until(() => heard.follower, (all) => all.length === 2);
    deepStrictEqual(followed.map((record) => record.status), ["working", "completed"]);
    deepStrictEqual(followed[1].result, { content: [{ type: "text", text }] });
    deepStrictEqual(heard.runner.map((record) => record.status), ["working", "completed"]);
    deepStrictEqual(heard.runner[1].result, { content: [{ type: "text", text }] }, "whole, here");
    deepStrictEqual(heard.bystander, []);
    ok(sent.length >= 2, "the changes went over the bus");
    ok(sent.every((message) => !JSON.stringify(message).includes(text)), "without the result");
    deepStrictEqual([a.reads.count, b.reads.count, c.reads.count], [0, 1, 0]);
  } finally {
    for (const tasks of [runner, follower, bystander]) tasks.close();
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
      // Each ~2,200 bytes of JSON in Redis.
      await budgetChecks(createRedisTaskStore(link, Date.now, 10_000));
      const total = await link.run((client) => client.get("toolshed:finished-bytes"));
      ok(Number(total) <= 10_000, `${total} bytes counted`);
      strictEqual(await link.run((client) => client.zCard("toolshed:finished")), 4);
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

/** A reuse window's name (adr/0070): set once, kept for its window, then gone. */
async function namingChecks(store: TaskStore) {
  strictEqual(await store.named!("k"), undefined);
  strictEqual(await store.nameOnce!("k", "first", 300), "first");
  strictEqual(await store.nameOnce!("k", "second", 300), "first", "a name is set once");
  strictEqual(await store.named!("k"), "first");
  strictEqual(await store.nameOnce!("other", "second", 60_000), "second");
  strictEqual(await until(() => store.named!("k"), (id) => id === undefined), undefined);
  strictEqual(await store.nameOnce!("k", "third", 60_000), "third", "named anew after it");
  strictEqual(await store.named!("other"), "second");
}

Deno.test("createMemoryTaskStore() names a task for a reuse window once, until the window passes", async () => {
  await namingChecks(createMemoryTaskStore());
});

Deno.test({
  name: "createRedisTaskStore() names a task for a reuse window once (SET NX PX), until it passes",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const link = await connectRedis(redis.url, recorder());
    try {
      await namingChecks(createRedisTaskStore(link));
    } finally {
      await link.close();
      await redis.stop();
    }
  },
});
