// Rate limits shared through a real redis-server (issue 25, adr/0043, adr/0055): buckets shared
// by two servers on one Redis, and a paused Redis (SIGSTOP) that neither hangs a request nor lifts
// the limit, and checks that never wait for the link to give up on a stalled Redis, nor pile up
// in it. Slow tier: redis-server (tests/fast_tier.ts). Nothing here asserts how long anything
// takes.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { connectRedis, type RedisLink } from "../lib/redis/connection.ts";
import { createRedisBuckets, MAX_PENDING_CHECKS } from "../lib/redis/rate_buckets.ts";
import { type BucketLimit, createLocalBuckets } from "../lib/util/token_buckets.ts";
import { recorder } from "./_diagnostics.ts";
import { withHangGuard } from "./_server_process.ts";
import { proxyRedis, RUN_REDIS, startRedis, until } from "./_redis.ts";
import { httpServer } from "./_rate_limited.ts";

Deno.test({
  name:
    "rate limit through Redis: two servers on one Redis share a caller's bucket (429 on either), in keys that expire and name no caller",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const one = await httpServer({ rateLimit: "3/min", redis: redis.url, instanceName: "one" });
    const two = await httpServer({ rateLimit: "3/min", redis: redis.url, instanceName: "two" });
    const link = await connectRedis(redis.url, recorder());
    try {
      strictEqual((await one.call("echo")).status, 200);
      strictEqual((await two.call("echo")).status, 200);
      strictEqual((await one.call("echo")).status, 200);
      for (const peer of [two, one]) {
        const refused = await peer.call("echo");
        deepStrictEqual([refused.status, refused.body.error?.code], [429, -32031]);
        ok(
          Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 20,
          String(refused.retryAfter),
        );
      }
      const keys = await link.run((client) => client.keys("toolshed:rate:*"));
      strictEqual(keys.length, 1, keys.join(" "));
      ok(!keys[0].includes("127.0.0.1") && keys[0].length < 50, keys[0]);
      const ttl = await link.run((client) => client.pTTL(keys[0]));
      ok(ttl > 0 && ttl <= 60_000, `the bucket expires when full again (${ttl} ms)`);
      // A tool's bucket is another key, shared the same way.
      strictEqual((await two.call("deploy")).status, 429, "the caller's own limit refuses first");
    } finally {
      await link.close();
      await one.close();
      await two.close();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "rate limit through Redis, paused (SIGSTOP): requests are answered by the instance's own buckets, the limit still holds, and Redis decides again once it resumes",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const peer = await httpServer({ rateLimit: "2/min", redis: redis.url });
    try {
      strictEqual((await peer.call("echo")).status, 200);
      strictEqual((await peer.call("echo")).status, 200);
      strictEqual((await peer.call("echo")).status, 429, "Redis's bucket is used up");
      redis.pause();
      // Decided here: a fresh local bucket of 2, then refused; none of them waits for Redis.
      const during = [];
      for (let i = 0; i < 3; i++) {
        during.push((await withHangGuard(peer.call("echo"), "a call while paused")).status);
      }
      deepStrictEqual(during, [200, 200, 429]);
      ok(
        peer.diagnostics.text().includes("Rate limits are kept by this instance alone"),
        peer.diagnostics.text(),
      );
      redis.resume();
      const back = await until(
        () => peer.call("echo").then(() => peer.diagnostics.text()),
        (said) => said.includes("Rate limits are shared through Redis again"),
      );
      ok(back.includes("shared through Redis again"), back);
    } finally {
      redis.resume();
      await peer.close();
      await redis.stop();
    }
  },
});

/** Caller `i`'s bucket of 1000/min. */
const limitsOf = (i: number): BucketLimit[] => [
  { key: `c caller ${i}`, capacity: 1000, intervalMs: 60 },
];
/** Until the link counts Redis as unreachable (bounded): it gave up waiting for an answer. */
const givenUp = (link: RedisLink) => until(() => link.health(), (why) => why !== undefined);

Deno.test({
  name:
    "createRedisBuckets(): with Redis paused (SIGSTOP), 40 concurrent checks are each decided by the local buckets while the link still waits on Redis, not once it gives up",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const diagnostics = recorder();
    const link = await connectRedis(redis.url, diagnostics);
    const buckets = createRedisBuckets(link, createLocalBuckets(), diagnostics);
    try {
      strictEqual(await buckets.take(limitsOf(0)), undefined, "Redis decides");
      redis.pause();
      const verdicts = await withHangGuard(
        Promise.all(Array.from({ length: 40 }, (_, i) => buckets.take(limitsOf(i)))),
        "checks while Redis is paused",
      );
      // The link gives up on a round trip only at its own deadline (2 s): a check answered
      // while it still waits did not wait for Redis.
      strictEqual(link.health(), undefined, "decided before the link gave up on Redis");
      deepStrictEqual(verdicts, verdicts.map(() => undefined));
      ok(diagnostics.text().includes("Rate limits are kept by this instance alone"));
      ok(await givenUp(link), "Redis really was stalled meanwhile");
    } finally {
      await link.close();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "createRedisBuckets(): while Redis's replies are held, at most MAX_PENDING_CHECKS checks are sent to it however many come at once, and none after one is overdue",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const proxy = proxyRedis(redis);
    const diagnostics = recorder();
    const link = await connectRedis(proxy.url, diagnostics);
    const buckets = createRedisBuckets(link, createLocalBuckets(), diagnostics);
    try {
      strictEqual(await buckets.take(limitsOf(0)), undefined, "Redis decides");
      const before = proxy.sent("EVALSHA") + proxy.sent("EVAL");
      proxy.hold();
      const many = 4 * MAX_PENDING_CHECKS;
      const first = Array.from({ length: many }, (_, i) => buckets.take(limitsOf(i)));
      const decided = await withHangGuard(Promise.all(first), "checks while replies are held");
      deepStrictEqual(decided, decided.map(() => undefined));
      strictEqual(link.health(), undefined, "decided before the link gave up on Redis");
      const again = Array.from({ length: many }, (_, i) => buckets.take(limitsOf(many + i)));
      await withHangGuard(Promise.all(again), "checks after one was overdue");
      ok(await givenUp(link), "the link gives up on the held replies");
      const sent = proxy.sent("EVALSHA") + proxy.sent("EVAL") - before;
      ok(sent > 0 && sent <= MAX_PENDING_CHECKS, `${sent} checks sent to a stalled Redis`);
    } finally {
      await link.close();
      proxy.close();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "createRedisBuckets(): a late answer from a slow Redis decides nothing, and after a fallback one check at a time asks Redis until one is answered in time",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const proxy = proxyRedis(redis);
    const diagnostics = recorder();
    // A link that never gives up here: only the buckets' own deadline decides.
    const link = await connectRedis(proxy.url, diagnostics, { deadlineMs: 60_000 });
    const buckets = createRedisBuckets(link, createLocalBuckets(), diagnostics);
    const sent = () => proxy.sent("EVALSHA") + proxy.sent("EVAL");
    const batch = (from: number) =>
      Promise.all(Array.from({ length: 10 }, (_, i) => buckets.take(limitsOf(from + i))));
    try {
      strictEqual(await buckets.take(limitsOf(0)), undefined, "Redis decides");
      proxy.hold();
      strictEqual(
        await withHangGuard(
          Promise.resolve(buckets.take(limitsOf(1))),
          "a check while replies are held",
          10_000,
        ),
        undefined,
      );
      proxy.release(); // the late answer: dropped
      const before = sent();
      // Local for FALLBACK_MS; then the first batch to ask Redis sends one check, not ten.
      let round = 0;
      const after = await until(() => batch(100 * ++round).then(sent), (n) => n > before);
      strictEqual(after - before, 1, "one check asked Redis, the rest of its batch was local");
      await batch(5_000);
      strictEqual(sent() - after, 10, "answered in time: every check asks Redis again");
      const said = diagnostics.text();
      strictEqual(said.split("Rate limits are shared through Redis again").length - 1, 1, said);
      ok(said.indexOf("kept by this instance alone") < said.indexOf("shared through"), said);
    } finally {
      await link.close();
      proxy.close();
      await redis.stop();
    }
  },
});
