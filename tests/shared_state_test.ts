// What several instances share (adr/0016): tasks (lib/tasks/tasks.ts over a store and a bus)
// on three instances in this process, first sharing the in-memory store and bus (what one
// process does), then a real redis-server (lib/redis/: what instances behind a load balancer
// do); the requestState key ring in Redis; and main.ts processes sharing both. The Redis half
// needs `redis-server` on PATH (.ci/run installs it; tests/_redis.ts). Its faults are in
// tests/redis_faults_test.ts.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { createTasks, type Tasks } from "../lib/tasks/tasks.ts";
import { createMemoryTaskStore, type TaskStore } from "../lib/tasks/task_store.ts";
import { type Bus, createMemoryBus } from "../lib/tasks/bus.ts";
import { connectRedis, type RedisLink } from "../lib/redis/connection.ts";
import { createRedisTaskStore } from "../lib/redis/task_store.ts";
import { createRedisBus } from "../lib/redis/bus.ts";
import { createRedisKeyRing, KEY_ROTATION_MS } from "../lib/redis/key_ring.ts";
import { openState, SEALED_ELSEWHERE, sealState } from "../lib/rounds/request_state.ts";
import { recorder } from "./_diagnostics.ts";
import { events, spawnHttpServer, withHangGuard } from "./_server_process.ts";
import { RUN_REDIS, startRedis } from "./_redis.ts";

interface Shared {
  store: TaskStore;
  bus: Bus;
}

const ACCEPT = { action: "accept", content: { confirm: true } };

/** Polls `read` until `done` holds (bounded), the last value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 250 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}

/** The checks, for instances sharing what `share()` gives each of them. */
function sharingChecks(kind: string, share: () => Promise<Shared>) {
  return [
    {
      name:
        `${kind}: a task created on one instance is read, answered and cancelled through the others`,
      async fn(instances: Tasks[]) {
        const [a, b, c] = instances;
        const live = await a.create(10_000);
        const asked = live.ask("elicitation/create", { message: "Delete?" }, "confirm");
        const waiting = await until(
          () => b.get(live.taskId),
          (task) => task?.status === "input_required",
        );
        deepStrictEqual(Object.keys(waiting?.inputRequests ?? {}), ["confirm"]);
        ok(await b.update(live.taskId, { confirm: ACCEPT, other: ACCEPT }));
        deepStrictEqual(
          await withHangGuard(asked, "the answer on the instance running it"),
          ACCEPT,
        );
        strictEqual(
          (await until(() => c.get(live.taskId), (t) => t?.status === "working"))?.status,
          "working",
        );
        live.complete({ content: [{ type: "text", text: "done" }] });
        const done = await until(() => c.get(live.taskId), (t) => t?.status === "completed");
        deepStrictEqual(done?.result, { content: [{ type: "text", text: "done" }] });

        const second = await a.create(10_000);
        const aborted = new Promise((resolve) =>
          second.controller.signal.addEventListener("abort", resolve, { once: true })
        );
        ok(await c.cancel(second.taskId));
        strictEqual((await b.get(second.taskId))?.status, "cancelled", "cancelled at once");
        await withHangGuard(aborted, "the handler's signal on the instance running it");
        second.complete({ content: [] }); // too late: a finished task never changes
        strictEqual((await b.get(second.taskId))?.status, "cancelled");
        ok(await b.cancel(second.taskId), "cancelling a finished task is acknowledged");
      },
    },
    {
      name: `${kind}: a task whose instance stopped renewing it has failed for every reader`,
      async fn(instances: Tasks[], shared: Shared) {
        const [a] = instances;
        const live = await a.create(10_000);
        a.close(); // the instance is gone: nothing renews its lease
        const later = createTasks(shared.store, shared.bus, () => Date.now() + 60_000);
        try {
          const failed = await later.get(live.taskId);
          strictEqual(failed?.status, "failed");
          strictEqual(
            (failed?.error as { message?: string }).message,
            "Internal error: the server instance running the task stopped",
          );
          strictEqual((await instances[1].get(live.taskId))?.status, "failed");
        } finally {
          later.close();
        }
      },
    },
    {
      name:
        `${kind}: an instance shutting down lets its tasks end within the grace and fails the rest at once`,
      async fn(instances: Tasks[]) {
        const [a, b] = instances;
        const quick = await a.create(10_000);
        const stuck = await a.create(10_000);
        const aborted = new Promise((resolve) =>
          stuck.controller.signal.addEventListener("abort", resolve, { once: true })
        );
        setTimeout(() => quick.complete({ content: [] }), 20);
        await withHangGuard(a.drain(300), "the drain");
        strictEqual((await b.get(quick.taskId))?.status, "completed", "it ended within the grace");
        const failed = await b.get(stuck.taskId);
        strictEqual(failed?.status, "failed", "failed at once, not when its lease runs out");
        strictEqual(
          (failed?.error as { message?: string }).message,
          "Internal error: the server instance running the task shut down",
        );
        await withHangGuard(aborted, "the stuck handler's signal");
      },
    },
    {
      name:
        `${kind}: a listener on another instance following a task hears each change, and the result whole from the store`,
      async fn(instances: Tasks[]) {
        const [a, b, c] = instances;
        const live = await a.create(10_000);
        const heard: string[] = [];
        const stop = b.onChange(
          (task, caller) => heard.push(`${task.status} ${JSON.stringify(task.result)} ${caller}`),
          new Set([live.taskId]),
        );
        const elsewhere: string[] = [];
        const stopElsewhere = c.onChange((task) => elsewhere.push(task.taskId), new Set(["x"]));
        try {
          live.progress("half way");
          const text = "q".repeat(50_000);
          live.complete({ content: [{ type: "text", text }] });
          const all = await until(() => Promise.resolve(heard), (lines) => lines.length === 2);
          deepStrictEqual(all, [
            "working undefined undefined",
            `completed ${JSON.stringify({ content: [{ type: "text", text }] })} undefined`,
          ]);
          deepStrictEqual(elsewhere, [], "a listener following other tasks hears nothing");
        } finally {
          stop();
          stopElsewhere();
        }
      },
    },
    {
      name: `${kind}: an unknown task is unknown to every instance`,
      async fn(instances: Tasks[]) {
        for (const tasks of instances) {
          strictEqual(await tasks.get("no-such-task"), undefined);
          strictEqual(await tasks.update("no-such-task", {}), false);
          strictEqual(await tasks.cancel("no-such-task"), false);
        }
      },
    },
  ].map((check) => ({
    name: check.name,
    async fn() {
      const shared = await share();
      const instances = [0, 1, 2].map(() => createTasks(shared.store, shared.bus));
      try {
        await check.fn(instances, shared);
      } finally {
        for (const tasks of instances) tasks.close();
        await (shared as Shared & { close?(): Promise<void> }).close?.();
      }
    },
  }));
}

for (
  const check of sharingChecks("memory", () => {
    const store = createMemoryTaskStore();
    const bus = createMemoryBus();
    return Promise.resolve({ store, bus });
  })
) Deno.test(check);

// ---------------------------------------------------------------- Redis

for (
  const check of sharingChecks("redis", async () => {
    // A server per check: each starts with nothing stored and hears only its own messages.
    const server = await startRedis();
    const diagnostics = recorder();
    const link: RedisLink = await connectRedis(server.url, diagnostics);
    const bus = await createRedisBus(link, diagnostics);
    return {
      store: createRedisTaskStore(link),
      bus,
      async close() {
        await link.close();
        await server.stop();
      },
    };
  })
) Deno.test({ ...check, ignore: !RUN_REDIS });

Deno.test({
  name: "redis: connecting to a port where nothing listens fails with a sentence naming the URL",
  ignore: !RUN_REDIS,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    let message = "";
    try {
      await connectRedis(`redis://user:secret@127.0.0.1:${port}`, recorder());
    } catch (error) {
      message = String(error);
    }
    ok(message.includes(`Cannot connect to Redis at redis://user:***@127.0.0.1:${port}`), message);
    ok(!message.includes("secret"), "the password is not shown");
  },
});

/** main.ts over HTTP serving the conformance fixture, with `flags`. */
const spawnInstance = (flags: string[], env: Record<string, string> = {}) =>
  spawnHttpServer(
    [...flags, "--dir", new URL("./conformance/fixture", import.meta.url).pathname],
    env,
  );

/** The headers of a 2026-07-28 request over HTTP. */
const headers = (method: string, name?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name }),
});

/** A 2026-07-28 request (id 1) declaring elicitation and the tasks extension. */
const request = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {
        elicitation: {},
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
    },
  },
});

/** Posts `request(method, params)`; the JSON-RPC answer. */
async function post(url: string, method: string, params: Record<string, unknown>, name?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: headers(method, name),
    body: JSON.stringify(request(method, params)),
  });
  return await response.json();
}

/** Calls `slow_compute` (a task of a minute) on `url`; the id of the task it became. */
async function startSlowTask(url: string, label: string): Promise<string> {
  const created = await post(
    url,
    "tools/call",
    { name: "slow_compute", arguments: { seconds: 60, label } },
    "slow_compute",
  );
  const taskId = created.result?.taskId;
  ok(typeof taskId === "string", JSON.stringify(created));
  return taskId;
}

Deno.test("memory: a task of another instance is refused naming it, and that instance's stderr says once that tasks need --redis", async () => {
  const [a, b] = await Promise.all([
    spawnInstance(["--instance", "alpha"]),
    spawnInstance(["--instance", "beta"]),
  ]);
  let stopped = false;
  try {
    const taskId = await startSlowTask(a.url, "alone");
    ok(taskId.startsWith("alpha."), taskId);
    strictEqual((await post(a.url, "tasks/get", { taskId }, taskId)).result?.status, "working");
    const expected = {
      code: -32602,
      message: `Unknown task: "${taskId}" is run by instance "alpha", and this instance keeps ` +
        "its tasks in memory (the server's instances need --redis to share tasks)",
      data: { taskId },
    };
    deepStrictEqual((await post(b.url, "tasks/get", { taskId }, taskId)).error, expected);
    deepStrictEqual((await post(b.url, "tasks/cancel", { taskId }, taskId)).error, expected);
    // An id of no instance's shape is only unknown.
    const unknown = await post(b.url, "tasks/get", { taskId: "t-1" }, "t-1");
    strictEqual(
      unknown.error?.message,
      'Unknown task: "t-1" (it never existed, or it has expired)',
    );
    stopped = true;
    const [, { stderr }] = await Promise.all([a.stop(), b.stop()]);
    strictEqual(
      stderr.filter((line) => line.includes('a task of instance "alpha" reached this')).length,
      1,
      stderr.join("\n"),
    );
  } finally {
    if (!stopped) await Promise.all([a.stop(), b.stop()]);
  }
});

Deno.test({
  name:
    "redis: two main.ts instances with --redis share a task: created on one, read and cancelled on the other, followed by a listen on the first",
  ignore: !RUN_REDIS,
  async fn() {
    const server = await startRedis();
    const flags = ["--redis", server.url];
    const env = { TOOLSHED_STATE_KEY: "a-test-secret-that-is-long-enough-0123456789" };
    const [a, b] = await Promise.all([spawnInstance(flags, env), spawnInstance(flags, env)]);
    try {
      const taskId = await startSlowTask(a.url, "shared");
      const read = await post(b.url, "tasks/get", { taskId }, taskId);
      deepStrictEqual([read.result?.taskId, read.result?.status], [taskId, "working"]);
      // A listen on A follows the task; the cancellation through B reaches it.
      const listening = await fetch(a.url, {
        method: "POST",
        headers: headers("subscriptions/listen"),
        body: JSON.stringify(
          request("subscriptions/listen", { notifications: { taskIds: [taskId] } }),
        ),
      });
      const stream = events(listening.body!);
      const ack = (await withHangGuard(stream.next(), "the acknowledgement")).value;
      deepStrictEqual((ack as { params: unknown }).params, {
        _meta: { "io.modelcontextprotocol/subscriptionId": 1 },
        notifications: { taskIds: [taskId] },
      });
      const cancelled = await post(b.url, "tasks/cancel", { taskId }, taskId);
      strictEqual(cancelled.result?.resultType, "complete");
      strictEqual((await post(a.url, "tasks/get", { taskId }, taskId)).result?.status, "cancelled");
      const notice = (await withHangGuard(stream.next(), "the task's change")).value as {
        method: string;
        params: { taskId: string; status: string };
      };
      deepStrictEqual(
        [notice.method, notice.params.taskId, notice.params.status],
        ["notifications/tasks", taskId, "cancelled"],
      );
      await stream.return(undefined);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await server.stop();
    }
  },
});

Deno.test({
  name:
    "redis: a main.ts instance stopped by SIGTERM fails the tasks it runs at once for the instances that remain",
  ignore: !RUN_REDIS,
  async fn() {
    const server = await startRedis();
    const flags = ["--redis", server.url, "--shutdown-grace", "200"];
    const [a, b] = await Promise.all([spawnInstance(flags), spawnInstance(flags)]);
    try {
      const taskId = await startSlowTask(a.url, "stopped");
      await a.stop();
      // Within the lease (15 s): failed because A said so when it stopped, not by expiry.
      const read = await post(b.url, "tasks/get", { taskId }, taskId);
      deepStrictEqual(
        [read.result?.status, read.result?.error?.message],
        ["failed", "Internal error: the server instance running the task shut down"],
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await server.stop();
    }
  },
});

/** Round 1 of a multi-round call on `first`, round 2 on `second`: the second's answer. */
async function roundsAcross(first: string, second: string) {
  const call = { name: "test_input_required_result_elicitation", arguments: {} };
  const asked = await post(first, "tools/call", call, call.name);
  strictEqual(asked.result?.resultType, "input_required", JSON.stringify(asked));
  return await post(second, "tools/call", {
    ...call,
    inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
    requestState: asked.result.requestState,
  }, call.name);
}

Deno.test({
  name:
    "redis: a multi-round call continues on another instance with the key ring in Redis, and fails there without a shared key",
  ignore: !RUN_REDIS,
  async fn() {
    const server = await startRedis();
    const shared = await Promise.all([0, 1].map(() => spawnInstance(["--redis", server.url])));
    const alone = await Promise.all([0, 1].map(() => spawnInstance([])));
    try {
      const continued = await roundsAcross(shared[0].url, shared[1].url);
      deepStrictEqual(continued.result?.content, [{ type: "text", text: "Hello, Ada!" }]);
      const refused = await roundsAcross(alone[0].url, alone[1].url);
      deepStrictEqual(refused.error, {
        code: -32602,
        message: `Invalid requestState: ${SEALED_ELSEWHERE}`,
      });
      // The instance that got the other's state says so on its stderr, once.
      await roundsAcross(alone[0].url, alone[1].url);
      const { stderr } = await alone[1].stop();
      strictEqual(
        stderr.filter((line) => line.includes("A requestState sealed with another key")).length,
        1,
        stderr.join("\n"),
      );
    } finally {
      await Promise.all([...shared, ...alone].map((instance) => instance.stop()));
      await server.stop();
    }
  },
});

Deno.test({
  name: "redis: the key ring makes one key a day for every instance, and still opens yesterday's",
  ignore: !RUN_REDIS,
  async fn() {
    const server = await startRedis();
    const link = await connectRedis(server.url, recorder());
    try {
      const day = KEY_ROTATION_MS;
      const binding = { method: "tools/call", name: "t", args: {} };
      const at = (ms: number) => createRedisKeyRing(link, () => ms);
      const sealed = await sealState(await at(10 * day + 5).signing(), binding, { k: 1 });
      deepStrictEqual(await openState(await at(10 * day + 9).verifying(), sealed, binding), {
        k: 1,
      });
      deepStrictEqual(await openState(await at(11 * day + 1).verifying(), sealed, binding), {
        k: 1,
      });
      strictEqual(
        await openState(await at(12 * day + 1).verifying(), sealed, binding),
        SEALED_ELSEWHERE,
      );
      const resealed = await sealState(await at(11 * day).signing(), binding, { k: 2 });
      strictEqual(
        await openState(await at(10 * day).verifying(), resealed, binding),
        SEALED_ELSEWHERE,
        "each day signs with a key of its own",
      );
    } finally {
      await link.close();
      await server.stop();
    }
  },
});
