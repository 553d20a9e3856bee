// How long Redis faults cost a task call (adr/0022), outside the test suite: one main.ts
// --http --redis process (--max-concurrency 4) on a real redis-server, which is stalled
// (SIGSTOP), resumed, stopped for 4 s and started again empty. Prints what each task call
// answered and how long it took; figures from one run on a noisy machine, not assertions.
// Then what they cost a plain call under --rate-limit (adr/0055): 40 at once, with Redis
// healthy, paused (SIGSTOP), slow (a loopback proxy holding its replies) and killed (SIGKILL),
// with the limit and without it.
//
//   deno run -A tests/redis_faults_measure.ts
import { proxyRedis, type RedisServer, startRedis, until } from "./_redis.ts";
import { type HttpServerProcess, spawnHttpServer } from "./_server_process.ts";
import { modernBody, modernHeaders } from "./_http_server.ts";

const redis = await startRedis();
const fixture = new URL("./conformance/fixture", import.meta.url).pathname;
const instance = await spawnHttpServer([
  "--redis",
  redis.url,
  "--max-concurrency",
  "4",
  "--dir",
  fixture,
]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));

let id = 1;
/** A task call: how long it took and what it answered ("task" or the error's message). */
async function taskCall(): Promise<{ ms: number; answer: string }> {
  const started = performance.now();
  const response = await fetch(instance.url, {
    method: "POST",
    headers: modernHeaders("tools/call", "slow_compute"),
    body: modernBody(id++, "tools/call", { name: "slow_compute", arguments: { seconds: 0.01 } }, {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    }),
  });
  const message = await response.json();
  return {
    ms: Math.round(performance.now() - started),
    answer: message.result?.resultType ?? message.error?.message,
  };
}

/** Calls until `done` holds of the answer (at most 500 tries); the time it took. */
async function untilAnswer(done: (answer: string) => boolean): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 500 && !done((await taskCall()).answer); i++) await sleep(20);
  return Math.round(performance.now() - started);
}

try {
  const healthy = await taskCall();
  say(`healthy: ${healthy.answer} in ${healthy.ms} ms`);
  redis.pause();
  const stalled = await Promise.all(Array.from({ length: 8 }, taskCall));
  say(`stalled, 8 at once: ${stalled.map((call) => call.ms).join(", ")} ms: ${stalled[0].answer}`);
  const after = await taskCall();
  say(`stalled, the next: ${after.ms} ms: ${after.answer}`);
  redis.resume();
  say(`after SIGCONT, tasks again within ${await untilAnswer((a) => a === "task")} ms`);
  await redis.stop();
  say(`after SIGTERM, refused within ${await untilAnswer((a) => a !== "task")} ms`);
  await sleep(4_000);
  await redis.start();
  say(`after an empty restart, tasks again within ${await untilAnswer((a) => a === "task")} ms`);
} finally {
  await instance.stop();
  await redis.stop();
}

/** A plain call (no task, no Redis of its own): how long it took, and whether it was served. */
async function plainCall(url: string): Promise<{ ms: number; served: boolean }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: modernHeaders("tools/call", "test_simple_text"),
    body: modernBody(id++, "tools/call", { name: "test_simple_text", arguments: {} }),
  });
  const message = await response.json();
  return { ms: performance.now() - started, served: message.result?.content !== undefined };
}

/** 40 plain calls at once: "median / max ms (served/40)". */
async function forty(url: string): Promise<string> {
  const calls = await Promise.all(Array.from({ length: 40 }, () => plainCall(url)));
  const ms = calls.map((call) => call.ms).sort((a, b) => a - b);
  const served = calls.filter((call) => call.served).length;
  return `median ${Math.round(ms[20])} ms, max ${Math.round(ms[39])} ms (${served}/40 served)`;
}

/** Until /readyz no longer mentions Redis and Redis decides every check again (bounded). */
async function settled(instance: HttpServerProcess): Promise<void> {
  await until(
    () => fetch(instance.url.replace(/\/mcp$/, "/readyz")).then((response) => response.text()),
    (text) => !text.includes("Redis"),
  );
  await sleep(1_200); // past the fallback's second
  await plainCall(instance.url); // answered in time: Redis decides every check again
}

/** The four faults under one main.ts, with `flags`, each line prefixed with `label`. */
async function rateLimitFaults(label: string, flags: string[]): Promise<void> {
  const redis: RedisServer = await startRedis();
  const proxy = proxyRedis(redis);
  const instance = await spawnHttpServer(["--redis", proxy.url, ...flags, "--dir", fixture]);
  try {
    await forty(instance.url); // warm
    say(`${label}, healthy: ${await forty(instance.url)}`);
    redis.pause();
    say(`${label}, paused: ${await forty(instance.url)}`);
    redis.resume();
    await settled(instance);
    proxy.hold();
    say(`${label}, slow: ${await forty(instance.url)}`);
    proxy.release();
    await settled(instance);
    await redis.kill();
    say(`${label}, killed: ${await forty(instance.url)}`);
  } finally {
    await instance.stop();
    proxy.close();
    await redis.stop();
  }
}

await rateLimitFaults("--rate-limit", ["--rate-limit", "100000/min"]);
await rateLimitFaults("no limit", []);
