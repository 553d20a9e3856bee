// Redis faults (adr/0022; lib/redis/connection.ts and what stands on it), each against a real
// redis-server on a free loopback port: a stall (SIGSTOP: the connections stay open, nothing
// answers), a kill longer than any fixed number of reconnection tries, a restart that leaves
// Redis empty, a blip under load, and a slow Redis (a loopback proxy holding its replies);
// first in this process (the link, tasks, the key ring), then through real `main.ts --http
// --redis` processes, with `--rate-limit` too. No test asserts how long anything
// takes: every wait is a bounded poll or a hang guard.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { connectRedis, type RedisLink } from "../lib/redis/connection.ts";
import { createRedisTaskStore } from "../lib/redis/task_store.ts";
import { createRedisBus } from "../lib/redis/bus.ts";
import { createRedisKeyRing } from "../lib/redis/key_ring.ts";
import { createTasks, MAX_RUNNING_TASKS, type Tasks } from "../lib/tasks/tasks.ts";
import { openState, sealState } from "../lib/rounds/request_state.ts";
import { messageOf } from "../lib/util/json.ts";
import { recorder } from "./_diagnostics.ts";
import { type HttpServerProcess, spawnHttpServer, withHangGuard } from "./_server_process.ts";
import { modernBody, modernHeaders } from "./_http_server.ts";
import { proxyRedis, RUN_REDIS, startRedis, until } from "./_redis.ts";
import { MAX_PENDING_CHECKS } from "../lib/redis/rate_buckets.ts";

const healthy = (link: RedisLink) => until(() => link.health(), (why) => why === undefined);
const unhealthy = (link: RedisLink) => until(() => link.health(), (why) => why !== undefined);

/** The sentence a promise rejected with, or "resolved" (bounded by a hang guard). */
const rejection = (promise: Promise<unknown>, what: string) =>
  withHangGuard(promise.then(() => "resolved", messageOf), what);

Deno.test({
  name:
    "connectRedis() fails a round trip within its deadline when Redis stops answering, at once while it is down, and answers again once it resumes",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const diagnostics = recorder();
    const link = await connectRedis(redis.url, diagnostics);
    try {
      strictEqual(await link.run((client) => client.ping()), "PONG");
      strictEqual(link.health(), undefined);
      redis.pause();
      const stalled = await rejection(link.run((client) => client.ping()), "a stalled PING");
      ok(stalled.startsWith("Redis is unreachable"), stalled);
      ok(link.health()?.startsWith("Redis is unreachable"), link.health());
      const meanwhile = await rejection(link.run((client) => client.get("k")), "a GET while down");
      ok(meanwhile.startsWith("Redis is unreachable (for "), meanwhile);
      redis.resume();
      strictEqual(await healthy(link), undefined, "healthy again");
      strictEqual(await link.run((client) => client.ping()), "PONG");
      const said = diagnostics.text();
      ok(said.includes("is unreachable (it did not answer within 2000 ms)"), said);
      ok(said.includes("answers again"), said);
    } finally {
      await link.close();
      await redis.stop();
    }
  },
});

/** Tasks over `link`, as one instance has them. */
async function tasksOver(link: RedisLink): Promise<Tasks> {
  const bus = await createRedisBus(link, recorder());
  return createTasks(createRedisTaskStore(link), bus);
}

Deno.test({
  name:
    "createTasks() over Redis: creations that fail while Redis is down hold nothing, and tasks start again once it is back",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const link = await connectRedis(redis.url, recorder());
    const tasks = await tasksOver(link);
    try {
      await redis.stop();
      ok(await unhealthy(link), "the link knows Redis is gone");
      // The same refusal every time, but for how long Redis has been gone (which may pass a
      // second while the creations go on: compared without it).
      const failures = new Set<string>();
      for (let i = 0; i < MAX_RUNNING_TASKS + 44; i++) {
        const message = await rejection(tasks.create(10_000), "a creation while down");
        failures.add(message.replace(/\(for \d+ s\)/, "(for N s)"));
      }
      deepStrictEqual(
        [...failures],
        ["Internal error: tasks are unavailable: Redis is unreachable (for N s)"],
      );
      ok(tasks.refusal()?.startsWith("tasks are unavailable: Redis is unreachable"));
      await redis.start(); // empty, on the same port
      strictEqual(await healthy(link), undefined);
      strictEqual(tasks.refusal(), undefined, "nothing of the failed creations is left running");
      const live = await tasks.create(10_000);
      strictEqual((await tasks.get(live.taskId))?.status, "working");
    } finally {
      tasks.close();
      await link.close();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "after Redis restarts empty, a task running on one instance is visible on another as soon as both are back, and every key ring converges on the key held before",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const [linkA, linkB] = await Promise.all([0, 1].map(() => connectRedis(redis.url, recorder())));
    const [a, b] = await Promise.all([tasksOver(linkA), tasksOver(linkB)]);
    const links = [linkA, linkB];
    try {
      const ringA = createRedisKeyRing(linkA);
      const binding = { method: "tools/call", name: "t", args: {} };
      const sealed = await sealState(await ringA.signing(), binding, { round: 1 });
      const live = await a.create(60_000);
      strictEqual((await b.get(live.taskId))?.status, "working");

      await redis.stop();
      await Promise.all(links.map(unhealthy));
      await redis.start(); // empty
      await Promise.all(links.map(healthy));
      strictEqual((await b.get(live.taskId))?.status, "working", "visible at once");
      live.complete({ content: [] });
      strictEqual(
        (await until(() => b.get(live.taskId), (task) => task?.status === "completed"))?.status,
        "completed",
      );

      // An instance that held no key before the restart reads the one the others hold.
      const linkC = await connectRedis(redis.url, recorder());
      links.push(linkC);
      const ringC = createRedisKeyRing(linkC);
      deepStrictEqual(await openState(await ringC.verifying(), sealed, binding), { round: 1 });
      const resealed = await sealState(await ringC.signing(), binding, { round: 2 });
      deepStrictEqual(await openState(await ringA.verifying(), resealed, binding), { round: 2 });
    } finally {
      a.close();
      b.close();
      await Promise.all(links.map((link) => link.close()));
      await redis.stop();
    }
  },
});

// ---------------------------------------------------------------- main.ts processes

/** main.ts over HTTP serving the conformance fixture, with `flags`. */
const spawnInstance = (flags: string[]) =>
  spawnHttpServer([...flags, "--dir", new URL("./conformance/fixture", import.meta.url).pathname]);

let nextId = 1;
/** A 2026-07-28 request declaring elicitation and the tasks extension; its JSON-RPC answer. */
async function post(url: string, method: string, params: Record<string, unknown>) {
  const name = typeof params.name === "string" ? params.name : params.taskId as string | undefined;
  const response = await fetch(url, {
    method: "POST",
    headers: modernHeaders(method, name),
    body: modernBody(nextId++, method, params, {
      elicitation: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    }),
  });
  return await response.json();
}

/** A call of slow_compute (a task while it runs): the JSON-RPC answer. */
/**
 * How long a task call's tool runs when the test asserts it became a task (or failed as one):
 * a call that ends within its first turn answers as a plain call (adr/0016), which a loaded
 * machine can make a 10 ms tool do.
 */
const OUTLIVES_FIRST_TURN = 0.2;
const taskCall = (url: string, seconds: number) =>
  post(url, "tools/call", { name: "slow_compute", arguments: { seconds, label: "faults" } });
/** A call that never touches Redis. */
const plainCall = (url: string) =>
  post(url, "tools/call", { name: "test_simple_text", arguments: {} });

/** GET /readyz: the status and the text. */
async function readiness(url: string): Promise<[number, string]> {
  const response = await fetch(url.replace(/\/mcp$/, "/readyz"));
  return [response.status, (await response.text()).trim()];
}
/** Until /readyz no longer mentions Redis (bounded). */
const backWithRedis = (instance: HttpServerProcess) =>
  until(() => readiness(instance.url), ([, text]) => !text.includes("Redis"));

/** What a process wrote on stderr that says a promise went unhandled or a request crashed. */
const crashes = (stderr: string[]) =>
  stderr.filter((line) =>
    /Uncaught|unhandled|failed:? *$|Request "tools\/call" failed/i.test(line)
  );

Deno.test({
  name:
    "main.ts --redis: a stalled Redis fails task calls within seconds holding no slot, plain calls and /readyz still answer, and tasks work again once it resumes",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const instance = await spawnInstance(["--redis", redis.url, "--max-concurrency", "4"]);
    let stopped = false;
    try {
      strictEqual((await taskCall(instance.url, OUTLIVES_FIRST_TURN)).result?.resultType, "task");
      redis.pause();
      // Twice as many task calls as there are slots: none may keep one.
      const answers = await withHangGuard(
        Promise.all(Array.from({ length: 8 }, () => taskCall(instance.url, OUTLIVES_FIRST_TURN))),
        "task calls while Redis is stalled",
      );
      for (const answer of answers) {
        strictEqual(answer.error?.code, -32603, JSON.stringify(answer));
        ok(
          /^Internal error: tasks are unavailable: Redis is unreachable/.test(answer.error.message),
          answer.error.message,
        );
      }
      const plain = await withHangGuard(plainCall(instance.url), "a plain call");
      ok(plain.result?.content, JSON.stringify(plain));
      const [status, text] = await readiness(instance.url);
      strictEqual(status, 200, "ready: what does not need Redis is served");
      ok(/^ready \(.*\); Redis is unreachable \(for \d+ s\)$/.test(text), text);

      redis.resume();
      await backWithRedis(instance);
      strictEqual((await taskCall(instance.url, OUTLIVES_FIRST_TURN)).result?.resultType, "task");
      stopped = true;
      const { stderr } = await instance.stop();
      deepStrictEqual(crashes(stderr), []);
    } finally {
      if (!stopped) await instance.stop();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "main.ts --redis: Redis gone for longer than five reconnection tries, then a blip under load: task calls fail at once meanwhile, hold nothing, and all work again after",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const instance = await spawnInstance(["--redis", redis.url]);
    let stopped = false;
    try {
      await redis.stop();
      await until(() => readiness(instance.url), ([, text]) => text.includes("Redis"));
      // The old strategy gave up after five tries (~3 s): wait past them.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const refused = await taskCall(instance.url, OUTLIVES_FIRST_TURN);
      ok(
        /^Internal error: tasks are unavailable: Redis is unreachable \(for \d+ s\)$/.test(
          refused.error?.message,
        ),
        JSON.stringify(refused),
      );
      ok((await plainCall(instance.url)).result?.content, "plain calls are untouched");
      await redis.start();
      await backWithRedis(instance);
      strictEqual((await taskCall(instance.url, OUTLIVES_FIRST_TURN)).result?.resultType, "task");

      // A blip under load: more failed calls than tasks may run, while calls keep coming.
      let answered = 0;
      let failed = 0;
      let stop = false;
      const load = Promise.all(Array.from({ length: 16 }, async () => {
        while (!stop) {
          const answer = await taskCall(instance.url, 0.01);
          if (answer.result?.resultType === "task") answered++;
          else failed++;
        }
      }));
      await until(() => answered, (n) => n >= 20);
      await redis.stop();
      await until(() => failed, (n) => n > MAX_RUNNING_TASKS + 20, 1_000);
      await redis.start();
      await backWithRedis(instance);
      stop = true;
      await withHangGuard(load, "the calls under load");
      ok(failed > MAX_RUNNING_TASKS, `${failed} calls failed during the blip`);
      const after = await Promise.all(
        Array.from({ length: 20 }, () => taskCall(instance.url, OUTLIVES_FIRST_TURN)),
      );
      deepStrictEqual(
        after.map((answer) => answer.result?.resultType ?? answer.error?.message),
        after.map(() => "task"),
      );
      stopped = true;
      const { stderr } = await instance.stop();
      deepStrictEqual(crashes(stderr), []);
    } finally {
      if (!stopped) await instance.stop();
      await redis.stop();
    }
  },
});

/** Round 1 of a multi-round call on `first`, round 2 on `second`: the second's answer. */
async function roundsAcross(first: string, second: string) {
  const call = { name: "test_input_required_result_elicitation", arguments: {} };
  const asked = await post(first, "tools/call", call);
  strictEqual(asked.result?.resultType, "input_required", JSON.stringify(asked));
  return await post(second, "tools/call", {
    ...call,
    inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
    requestState: asked.result.requestState,
  });
}

Deno.test({
  name:
    "main.ts --redis: after Redis restarts empty, a running task is visible on every instance and multi-round calls continue across them, one started since included",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const flags = ["--redis", redis.url];
    const instances = await Promise.all([0, 1].map(() => spawnInstance(flags)));
    const [a, b] = instances;
    try {
      const hello = [{ type: "text", text: "Hello, Ada!" }];
      deepStrictEqual((await roundsAcross(a.url, b.url)).result?.content, hello);
      const created = await taskCall(a.url, 60);
      const taskId = created.result?.taskId;
      ok(typeof taskId === "string", JSON.stringify(created));

      await redis.stop();
      await Promise.all(
        instances.map((instance) =>
          until(() => readiness(instance.url), ([, text]) => text.includes("Redis"))
        ),
      );
      await redis.start(); // empty
      await Promise.all(instances.map(backWithRedis));
      strictEqual((await post(b.url, "tasks/get", { taskId })).result?.status, "working");
      deepStrictEqual((await roundsAcross(b.url, a.url)).result?.content, hello);
      const c = await spawnInstance(flags); // it held no key before
      instances.push(c);
      deepStrictEqual((await roundsAcross(a.url, c.url)).result?.content, hello);
      deepStrictEqual((await roundsAcross(c.url, b.url)).result?.content, hello);
      strictEqual((await post(c.url, "tasks/cancel", { taskId })).result?.resultType, "complete");
      strictEqual((await post(a.url, "tasks/get", { taskId })).result?.status, "cancelled");
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "createTasks() over Redis: a task that finishes while Redis is down is announced once it is back",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const link = await connectRedis(redis.url, recorder());
    const tasks = await tasksOver(link);
    const heard: string[] = [];
    tasks.onChange((record) => heard.push(`${record.taskId} ${record.status}`));
    try {
      const live = await tasks.create(10_000);
      await redis.stop();
      ok(await unhealthy(link), "the link knows Redis is gone");
      live.complete({ content: [{ type: "text", text: "done while down" }] });
      await redis.start(); // empty, on the same port
      strictEqual(await healthy(link), undefined);
      const lines = await until(() => heard, (all) => all.includes(`${live.taskId} completed`));
      ok(lines.includes(`${live.taskId} completed`), lines.join("; "));
      strictEqual((await tasks.get(live.taskId))?.status, "completed");
    } finally {
      tasks.close();
      await link.close();
      await redis.stop();
    }
  },
});

// ---------------------------------------------------------------- --rate-limit (adr/0055)

/** A limit no test reaches: every check is asked of Redis, none refused. */
const AMPLE = ["--rate-limit", "100000/min"];
/** `count` plain calls at once (bounded by a hang guard): their answers. */
const plainCalls = (url: string, count: number, what: string) =>
  withHangGuard(Promise.all(Array.from({ length: count }, () => plainCall(url))), what);
/** Whether every answer is a tool's result. */
const allServed = (answers: { result?: { content?: unknown } }[]) =>
  answers.every((answer) => answer.result?.content !== undefined);
/** Until the link has given up on Redis (/readyz says so; bounded). */
const givenUp = (instance: HttpServerProcess) =>
  until(() => readiness(instance.url), ([, text]) => text.includes("Redis"));
/** Until a call finds Redis deciding again (stderr says so; bounded). */
const sharedAgain = (instance: HttpServerProcess) =>
  until(
    () => plainCall(instance.url).then(() => instance.stderr().join("\n")),
    (said) => said.includes("Rate limits are shared through Redis again"),
  );

Deno.test({
  name:
    "main.ts --redis --rate-limit: with Redis paused (SIGSTOP), 40 concurrent calls are all answered while the link still waits on Redis; killed, all are answered; Redis decides again once back",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const instance = await spawnInstance(["--redis", redis.url, ...AMPLE]);
    let stopped = false;
    try {
      ok(allServed([await plainCall(instance.url)]), "Redis decides");
      redis.pause();
      const paused = await plainCalls(instance.url, 40, "calls while Redis is paused");
      // The link gives up on a round trip only at its own deadline (2 s), and /readyz says so
      // from then on: calls answered before it did not wait for Redis.
      const [, text] = await readiness(instance.url);
      ok(!text.includes("Redis"), `every call was answered before the link gave up: ${text}`);
      ok(allServed(paused), JSON.stringify(paused.find((answer) => !answer.result)));
      ok((await givenUp(instance))[1].includes("Redis"), "Redis really was stalled meanwhile");
      redis.resume();
      await backWithRedis(instance);
      ok((await sharedAgain(instance)).includes("shared through Redis again"));

      await redis.kill();
      ok(allServed(await plainCalls(instance.url, 40, "calls with Redis killed")));
      await redis.start(); // empty: the buckets start afresh, the script is loaded again
      await backWithRedis(instance);
      ok(allServed([await plainCall(instance.url)]));
      stopped = true;
      const { stderr } = await instance.stop();
      deepStrictEqual(crashes(stderr), []);
      ok(stderr.some((line) => line.includes("Rate limits are kept by this instance alone")));
    } finally {
      if (!stopped) await instance.stop();
      redis.resume();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "main.ts --redis --rate-limit, Redis slow (a proxy holds its replies): 100 concurrent calls are answered without them before the link gives up, at most MAX_PENDING_CHECKS checks are sent meanwhile, and the late replies change nothing",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const proxy = proxyRedis(redis);
    // Slots for every call at once: only the bound on checks may hold them back.
    const flags = ["--redis", proxy.url, ...AMPLE, "--max-concurrency", "256"];
    const instance = await spawnInstance(flags);
    let stopped = false;
    try {
      ok(allServed([await plainCall(instance.url)]), "Redis decides");
      const before = proxy.sent("EVALSHA") + proxy.sent("EVAL");
      proxy.hold();
      const slow = await plainCalls(instance.url, 100, "calls while Redis's replies are held");
      const [, text] = await readiness(instance.url);
      ok(!text.includes("Redis"), `every call was answered before the link gave up: ${text}`);
      ok(allServed(slow), JSON.stringify(slow.find((answer) => !answer.result)));
      const sent = proxy.sent("EVALSHA") + proxy.sent("EVAL") - before;
      ok(sent > 0 && sent <= MAX_PENDING_CHECKS, `${sent} checks sent to a slow Redis`);
      proxy.release(); // late, or after the link gave up: either way dropped
      ok((await sharedAgain(instance)).includes("shared through Redis again"));
      ok(allServed(await plainCalls(instance.url, 40, "calls once Redis answers again")));
      stopped = true;
      const { stderr } = await instance.stop();
      deepStrictEqual(crashes(stderr), []);
    } finally {
      if (!stopped) await instance.stop();
      proxy.close();
      await redis.stop();
    }
  },
});
