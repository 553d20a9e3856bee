// Rate limits (issue 25, adr/0043) through the server createServer builds: refused over stdio
// with the JSON-RPC error whose data says when to retry, over HTTP with 429 and Retry-After in
// both eras; per caller (--rate-limit) and per caller of a tool (`rateLimit`); one caller over
// its limit does not refuse another; buckets shared by two servers on one real Redis, and a
// paused Redis (SIGSTOP) that neither hangs a request nor lifts the limit, and checks that never
// wait for the link to give up on a stalled Redis, nor pile up in it. Nothing here asserts how
// long anything takes.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { createServer, type ServerConfig } from "../lib/server/create_server.ts";
import type { HttpServer } from "../lib/transports/http/server.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { AuthInfo } from "../lib/primitives/types.ts";
import { extract } from "../lib/wire/extract.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import { connectRedis, type RedisLink } from "../lib/redis/connection.ts";
import { createRedisBuckets, MAX_PENDING_CHECKS } from "../lib/redis/rate_buckets.ts";
import { type BucketLimit, createLocalBuckets } from "../lib/util/token_buckets.ts";
import { recorder } from "./_diagnostics.ts";
import { collector, feed } from "./_memory_streams.ts";
import { modernHeaders } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";
import { proxyRedis, RUN_REDIS, startRedis, until } from "./_redis.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
};
const LEGACY = "2025-11-25";

function tool(name: string, rateLimit?: string): Tool {
  return checkDefinition(
    {
      description: name,
      inputSchema: { type: "object" },
      ...(rateLimit === undefined ? {} : { rateLimit }),
      handler: () => `${name} ran`,
    },
    name,
    `tools/${name}.ts`,
  );
}

const TOOLS = [tool("echo"), tool("deploy", "2/min")];

function serverWith(config: Partial<ServerConfig> = {}) {
  const diagnostics = recorder();
  return createServer({
    primitives: { tools: TOOLS },
    diagnostics,
    shutdownGraceMs: 2_000,
    ...config,
  }).then((server) => ({ server, diagnostics }));
}

// deno-lint-ignore no-explicit-any
type Message = any;

const callOf = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: META },
});

Deno.test("rate limit over stdio: the request over the caller's limit is a -32031 error whose data says when to retry; initialize counts, notifications and ping do not", async () => {
  const { server } = await serverWith({ rateLimit: "3/min" });
  const input = feed();
  const output = collector();
  const stdio = server.serveStdio({ input, output });
  const send = (message: Message) =>
    input.push(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  const call = (id: number) => ({
    id,
    method: "tools/call",
    params: { name: "echo", arguments: {} },
  });
  try {
    send({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    send({ method: "notifications/initialized" });
    for (let id = 2; id <= 4; id++) send(call(id));
    send({ id: 5, method: "ping" });
    await withHangGuard(output.untilLines(5), "five answers");
    const [initialized, a, b, refused, ping] = output.lines() as Message[];
    strictEqual(initialized.result?.protocolVersion, LEGACY);
    for (const answer of [a, b]) strictEqual(answer.result?.content?.[0]?.text, "echo ran");
    strictEqual(refused.id, 4);
    strictEqual(refused.error.code, -32031);
    strictEqual(
      refused.error.message,
      `Rate limited: this caller's limit of "3/min" is used up; retry after 20 s`,
    );
    deepStrictEqual(refused.error.data, { retryAfterSeconds: 20, limit: "3/min" });
    deepStrictEqual([ping.id, ping.result], [5, {}]);
  } finally {
    input.end();
    await withHangGuard(stdio.done, "the end of input");
    await server.close();
  }
});

Deno.test("rate limit of a tool: each caller may call it that often, other tools are not counted, and another caller is not refused", async () => {
  const { server } = await serverWith();
  const as = (subject: string): AuthInfo => ({
    subject,
    clientId: "app",
    scopes: [],
    issuer: "https://issuer.example",
    expiresAt: undefined,
    claims: { sub: subject },
  });
  let id = 0;
  /** One tools/call through the core, as the OAuth step hands it over (its `caller` fact). */
  const call = async (name: string, auth?: AuthInfo) => {
    const request = extract(new TextEncoder().encode(JSON.stringify(callOf(++id, name))));
    if (request.kind !== "request") throw new Error(request.kind);
    return await server.core.handle({
      request,
      controller: new AbortController(),
      closing: undefined,
      session: undefined,
      outlet: { notify() {}, outbound: undefined },
      origin: IN_PROCESS,
      facts: auth && { caller: auth },
    }) as Message;
  };
  try {
    const alice = as("alice");
    for (let i = 0; i < 2; i++) {
      strictEqual((await call("deploy", alice)).result?.isError, undefined);
    }
    const refused = await call("deploy", alice);
    strictEqual(refused.error?.code, -32031, JSON.stringify(refused));
    strictEqual(
      refused.error.message,
      `Rate limited: this caller's limit of "2/min" on tool "deploy" is used up; retry after 30 s`,
    );
    for (let i = 0; i < 10; i++) {
      strictEqual((await call("echo", alice)).result?.content?.[0]?.text, "echo ran", "no limit");
    }
    const bob = as("bob");
    strictEqual((await call("deploy", bob)).result?.content?.[0]?.text, "deploy ran", "bob");
    // The same subject at another issuer is another caller.
    const elsewhere = { ...alice, issuer: "https://other.example" };
    strictEqual((await call("deploy", elsewhere)).result?.content?.[0]?.text, "deploy ran");
    // In process (no token, no session, no address): one caller, the transport.
    strictEqual((await call("deploy")).result?.content?.[0]?.text, "deploy ran");
    strictEqual((await call("deploy")).result?.content?.[0]?.text, "deploy ran");
    strictEqual((await call("deploy")).error?.code, -32031);
    strictEqual((await call("deploy", alice)).error?.code, -32031, "alice still refused");
  } finally {
    await server.close();
  }
});

/** An HTTP server of `config`, and how to post to it. */
async function httpServer(config: Partial<ServerConfig>) {
  const { server, diagnostics } = await serverWith({ http: true, ...config });
  const http: HttpServer = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  let id = 0;
  return {
    server,
    diagnostics,
    url: http.url,
    /** A 2026-07-28 tools/call: the status, Retry-After and the JSON-RPC answer. */
    async call(name: string) {
      const response = await fetch(http.url, {
        method: "POST",
        headers: modernHeaders("tools/call", name),
        body: JSON.stringify(callOf(++id, name)),
        signal: AbortSignal.timeout(10_000),
      });
      return {
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        body: await response.json() as Message,
      };
    },
    async close() {
      await withHangGuard(http.shutdown("the test is over"), "shutdown");
      await withHangGuard(http.done, "the server closing");
      await server.close();
    },
  };
}

Deno.test("rate limit over HTTP, 2026-07-28: 429 with Retry-After, the body the JSON-RPC error", async () => {
  const peer = await httpServer({ rateLimit: "2/min burst 1" });
  try {
    const first = await peer.call("echo");
    deepStrictEqual([first.status, first.retryAfter], [200, null]);
    const refused = await peer.call("echo");
    strictEqual(refused.status, 429);
    strictEqual(refused.retryAfter, "30");
    strictEqual(refused.body.error.code, -32031);
    deepStrictEqual(refused.body.error.data, { retryAfterSeconds: 30, limit: "2/min burst 1" });
  } finally {
    await peer.close();
  }
});

Deno.test("rate limit over HTTP, 2025-era sessions: each session is a caller (429 with Retry-After in the session), initialize counts against the address", async () => {
  const peer = await httpServer({ rateLimit: "3/min" });
  const post = async (body: Message, session?: string) => {
    const response = await fetch(peer.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session === undefined
          ? {}
          : { "mcp-session-id": session, "mcp-protocol-version": LEGACY }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      session: response.headers.get("mcp-session-id"),
      body: text === "" ? undefined : JSON.parse(text),
    };
  };
  const initialize = (id: number) => ({
    id,
    method: "initialize",
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const call = (id: number) => ({
    id,
    method: "tools/call",
    params: { name: "echo", arguments: {} },
  });
  try {
    const a = await post(initialize(1));
    const b = await post(initialize(2));
    ok(a.session && b.session, "two sessions");
    for (let i = 0; i < 3; i++) {
      const answer = await post(call(10 + i), a.session!);
      strictEqual(answer.status, 200, JSON.stringify(answer.body));
    }
    const refused = await post(call(20), a.session!);
    deepStrictEqual([refused.status, refused.retryAfter], [429, "20"]);
    strictEqual(refused.body.error.code, -32031);
    const other = await post(call(21), b.session!);
    strictEqual(other.status, 200, "the other session is another caller");
    strictEqual(other.body.result.content[0].text, "echo ran");
    // The address has opened two sessions; a third initialize takes its last token, a fourth
    // is refused with 429 (no session is opened).
    strictEqual((await post(initialize(3))).status, 200);
    const fourth = await post(initialize(4));
    deepStrictEqual([fourth.status, fourth.retryAfter, fourth.session], [429, "20", null]);
  } finally {
    await peer.close();
  }
});

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
