// Scale test (issue 13), outside the test suite: three toolshed instances sharing a real
// redis-server, behind a real HAProxy (deploy/haproxy.cfg) and nginx (deploy/nginx.conf), all on
// loopback on this machine.
//
//   deno run -A tests/scale.ts          (deno task scale)
//
// Installs redis-server, haproxy and nginx with apt-get when they are missing (as root). Each
// check prints `ok - <what>` or `FAILED - <what>: <why>`; the last line counts them, and the exit
// code is 1 when any failed. Loops are bounded and nothing asserts how long anything takes (each
// request is bounded by a 10 s timeout only so that a hang fails instead of blocking).
//
// a. 30 calls through HAProxy are all answered, by at least two instances (round robin: three);
// b. a multi-round call whose second round lands on another instance completes (the key ring is
//    in Redis); two instances without --redis refuse the other's requestState (-32602);
// c. a task created on s1, read on s2 and cancelled on s3, followed by a subscriptions/listen
//    through HAProxy that hears it become `cancelled`;
// d. a 2025-era session through HAProxy: initialize, then 10 calls, all on the instance that
//    opened the session (the stick table on Mcp-Session-Id);
// e. an instance SIGKILLed during ~200 calls at concurrency 8: every call is answered or fails
//    cleanly (an HTTP error or a fetch error, never a hang), and calls after it all succeed; the
//    instance is started again on its port;
// f. a rolling restart (SIGTERM, exit, start again, /readyz 200, one instance at a time) while
//    calls go on at concurrency 4: not one call fails;
// g. checks a and d again through nginx (deploy/nginx.conf);
// h. Redis restarted empty (SIGTERM, then a new redis-server on its port) while plain calls go
//    on through HAProxy at concurrency 4: not one plain call fails, every /readyz stays 200
//    (saying Redis is unreachable, then not), and once all say Redis is back, a task created
//    before the restart is read and cancelled on other instances, the round 2 of a call begun
//    before it continues on another instance, and new tasks and multi-round calls work across
//    the instances;
// i. OAuth (issue 24): a second trio, o1-o3, with --auth-issuer (oidc-provider on loopback,
//    tests/_oidc.ts) and --public-url naming its own HAProxy, on its own Redis (the instances
//    above keep their flags); a call without a token is 401 naming HAProxy's URL, directly too.
//    Alice's and bob's tokens are minted for that URL. i.a. the bash tool `caller` prints each
//    caller's own subject: 24 calls through HAProxy, the two users interleaved at concurrency 6,
//    then both users on each instance; i.b. round 2 of alice's multi-round call is refused to
//    bob's token on another instance ("requestState was issued to another caller") and completes
//    with hers on a third, by name and through HAProxy; i.c. alice's task created on o1 is an
//    error, never the task, to bob's tasks/get and tasks/cancel on o2 and through HAProxy, and
//    still `working` to alice on o3.
// j. rate limits (issue 25) on the OAuth trio: the tool `limited` allows each caller 3 calls a
//    minute (`rateLimit`), its buckets in the trio's Redis. Alice's 3 calls through HAProxy are
//    answered; her 4th is 429 with Retry-After (-32031) on each of o1-o3 and through HAProxy;
//    bob's calls on the same instances are answered.

import {
  Child,
  ensure,
  freePort,
  Instance,
  lines,
  message,
  NGINX_CONF,
  note,
  say,
  sleep,
  startHaproxy,
  startRedis,
  waitForPort,
} from "./scale/_harness.ts";
import { startAuthServer } from "./_oidc.ts";

const REQUEST_TIMEOUT_MS = 10_000;
const CHECK_TIMEOUT_MS = 45_000;
const PROTOCOL = "2026-07-28";
const LEGACY = "2025-11-25";

function assert(condition: unknown, why: string): asserts condition {
  if (!condition) throw new Error(why);
}

// ------------------------------------------------------------------ requests

interface Answer {
  status: number;
  servedBy: string;
  sessionId: string | null;
  /** The JSON-RPC message answering the request (JSON or the last event of a stream). */
  body: Record<string, unknown> | undefined;
}

const meta = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL,
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: {},
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

let nextId = 1;

/** The headers and body of a 2026-07-28 request (with an OAuth access token: signed in). */
function request(method: string, params: Record<string, unknown>, name?: string, token?: string) {
  return {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: { ...params, _meta: meta },
    }),
  };
}

/** The JSON-RPC messages of an event stream, as they arrive. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  let data = "";
  for await (const line of lines(body)) {
    if (line.startsWith("data:")) data += line.slice(5).trimStart();
    else if (line === "" && data !== "") {
      yield JSON.parse(data);
      data = "";
    }
  }
}

async function send(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const type = response.headers.get("content-type") ?? "";
  let message: Record<string, unknown> | undefined;
  if (type.includes("text/event-stream")) {
    for await (const event of events(response.body!)) if ("id" in event) message = event;
  } else if (type.includes("json")) {
    message = await response.json();
  } else {
    await response.body?.cancel();
  }
  return {
    status: response.status,
    servedBy: response.headers.get("x-served-by") ?? "",
    sessionId: response.headers.get("mcp-session-id"),
    body: message,
  };
}

/** A 2026-07-28 request to `url` (with `token`: as the user it was issued to). */
function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
  name?: string,
  token?: string,
) {
  const { headers, body } = request(method, params, name, token);
  return send(url, headers, body);
}

interface CallResult {
  content?: { type: string; text?: string }[];
  isError?: boolean;
  resultType?: string;
  requestState?: string;
  taskId?: string;
  status?: string;
}

const result = (answer: Answer) => (answer.body?.result ?? {}) as CallResult;
const text = (answer: Answer) => result(answer).content?.[0]?.text;
const show = (answer: Answer) => `HTTP ${answer.status} ${JSON.stringify(answer.body)}`;

/** `whoami` through `url`: the pid it answered, or a thrown reason. */
async function whoami(url: string, delayMs = 0): Promise<Answer & { pid: string }> {
  const args = delayMs > 0 ? { delayMs } : {};
  const answer = await post(url, "tools/call", { name: "whoami", arguments: args }, "whoami");
  const pid = text(answer);
  if (answer.status !== 200 || result(answer).isError || !/^\d+$/.test(pid ?? "")) {
    throw new Error(`whoami not answered: ${show(answer)}`);
  }
  return { ...answer, pid: pid! };
}

/** Runs `total` calls of `call` at `concurrency` (or until `stop()` holds, when total is Infinity). */
async function callLoop(
  concurrency: number,
  total: number,
  call: () => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let started = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (started < total && !stop()) {
      started++;
      await call();
    }
  }));
}

// ------------------------------------------------------------------ the checks

let passed = 0;
let failed = 0;

async function check(what: string, fn: () => Promise<string | void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no end (check timed out)")), CHECK_TIMEOUT_MS);
      }),
    ]);
    passed++;
    say(`ok - ${what}${detail ? ` (${detail})` : ""}`);
  } catch (error) {
    failed++;
    say(`FAILED - ${what}: ${message(error).replaceAll("\n", " ")}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Check a: 30 calls through `front`, all answered, by ≥ 2 instances. */
async function spread(front: string): Promise<string> {
  const servedBy = new Map<string, number>();
  const pids = new Set<string>();
  for (let i = 0; i < 30; i++) {
    const answer = await whoami(front);
    servedBy.set(answer.servedBy, (servedBy.get(answer.servedBy) ?? 0) + 1);
    pids.add(answer.pid);
  }
  const spreadText = [...servedBy].map(([name, n]) => `${name}: ${n}`).join(", ");
  assert(pids.size >= 2, `all 30 calls answered by one process (${spreadText})`);
  assert(servedBy.size >= 2, `X-Served-By named one instance (${spreadText})`);
  return `30 answered; ${spreadText}; ${pids.size} pids`;
}

/** Check d: a 2025-era session through `front`, all of it on the instance that opened it. */
async function session(front: string): Promise<string> {
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const opened = await send(
    front,
    base,
    JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "scale-test", version: "1.0.0" },
      },
    }),
  );
  assert(opened.status === 200 && opened.sessionId, `initialize: ${show(opened)}`);
  const id = opened.sessionId;
  const headers = { ...base, "mcp-session-id": id, "mcp-protocol-version": LEGACY };
  const initialized = await send(
    front,
    headers,
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  );
  assert(initialized.status === 202, `notifications/initialized: HTTP ${initialized.status}`);
  const servers = new Set([opened.servedBy]);
  const pids = new Set<string>();
  for (let i = 0; i < 10; i++) {
    const answer = await send(
      front,
      headers,
      JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      }),
    );
    const pid = text(answer);
    assert(answer.status === 200 && /^\d+$/.test(pid ?? ""), `call ${i + 1}: ${show(answer)}`);
    servers.add(answer.servedBy);
    pids.add(pid!);
  }
  assert(servers.size === 1 && pids.size === 1, `served by ${[...servers]} (pids ${[...pids]})`);
  return `session ${id.split(".")[0]}.…, initialize and 10 calls on ${opened.servedBy}`;
}

/** GET /readyz of `instance`: the status and the text. */
async function readiness(instance: Instance): Promise<[number, string]> {
  const response = await fetch(`http://127.0.0.1:${instance.port}/readyz`, {
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return [response.status, (await response.text()).trim()];
}

/** Until `done` holds of every instance's /readyz (bounded); throws naming the last seen. */
async function everyReadiness(
  instances: Instance[],
  done: (status: number, text: string) => boolean,
  what: string,
): Promise<void> {
  let seen: [number, string][] = [];
  for (let i = 0; i < 200; i++) {
    seen = await Promise.all(instances.map(readiness));
    if (seen.every(([status, text]) => done(status, text))) return;
    await sleep(50);
  }
  throw new Error(`${what}: ${seen.map(([status, text]) => `${status} ${text}`).join(" | ")}`);
}

// ------------------------------------------------------------------ set-up

const cleanups: (() => Promise<unknown>)[] = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error) => note(`while stopping: ${message(error)}`));
  }
}
const onInterrupt = () => cleanUp().finally(() => Deno.exit(130));
Deno.addSignalListener("SIGINT", onInterrupt);

async function main(): Promise<void> {
  await ensure("redis-server", ["--version"], "redis-server");
  await ensure("haproxy", ["-v"], "haproxy");

  const temp = await Deno.makeTempDir({ prefix: "toolshed-scale-" });
  cleanups.push(() => Deno.remove(temp, { recursive: true }));

  let redis = await startRedis();
  cleanups.push(() => redis.child.stop());
  const redisUrl = redis.url;

  const instances = ["s1", "s2", "s3"].map((name) =>
    new Instance(name, freePort(), ["--redis", redisUrl])
  );
  cleanups.push(() => Promise.all(instances.map((instance) => instance.stop())));
  await Promise.all(instances.map((instance) => instance.start()));
  const [s1, s2, s3] = instances;

  const haproxy = await startHaproxy(temp, instances.map((instance) => instance.port));
  cleanups.push(() => haproxy.child.stop("SIGUSR1")); // SIGUSR1: a soft stop, streams finish
  const front = haproxy.url;
  note(
    `redis ${redis.port}, s1 ${s1.port}, s2 ${s2.port}, s3 ${s3.port}, haproxy ${haproxy.port}`,
  );

  /** Until HAProxy has sent a call to `instance` (it checks /readyz every 500 ms). */
  async function backInRotation(instance: Instance): Promise<void> {
    for (let i = 0; i < 60; i++) {
      if ((await whoami(front)).servedBy === instance.name) return;
      await sleep(100);
    }
    throw new Error(`HAProxy never sent a call to ${instance.name} again`);
  }

  await check(
    "a. 30 calls through HAProxy are all answered, spread over the instances",
    () => spread(front),
  );

  await check(
    "b. a multi-round call continues on another instance (key ring in Redis), and fails there without --redis",
    async () => {
      const call = { name: "ask_name", arguments: {} };
      let first: Answer | undefined;
      let second: Answer | undefined;
      for (let attempt = 0; attempt < 5; attempt++) {
        first = await post(front, "tools/call", call, call.name);
        assert(
          result(first).resultType === "input_required" && result(first).requestState,
          `round 1: ${show(first)}`,
        );
        second = await post(front, "tools/call", {
          ...call,
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: result(first).requestState,
        }, call.name);
        if (second.servedBy !== first.servedBy) break;
      }
      assert(first && second, "no rounds");
      assert(
        second.servedBy !== first.servedBy,
        `both rounds on ${first.servedBy} in 5 attempts`,
      );
      assert(text(second) === "Hello, Ada!", `round 2 on ${second.servedBy}: ${show(second)}`);

      // The counter-check: two instances with no shared key.
      const alone = [new Instance("", freePort(), []), new Instance("", freePort(), [])];
      try {
        await Promise.all(alone.map((instance) => instance.start()));
        const asked = await post(alone[0].url, "tools/call", call, call.name);
        assert(result(asked).requestState, `alone, round 1: ${show(asked)}`);
        const refused = await post(alone[1].url, "tools/call", {
          ...call,
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: result(asked).requestState,
        }, call.name);
        const error = refused.body?.error as { code?: number } | undefined;
        assert(error?.code === -32602, `alone, round 2 not refused: ${show(refused)}`);
      } finally {
        await Promise.all(alone.map((instance) => instance.stop()));
      }
      return `round 1 on ${first.servedBy}, round 2 on ${second.servedBy}; without Redis -32602`;
    },
  );

  await check(
    "c. a task created on s1, read on s2, cancelled on s3; a listen through HAProxy hears `cancelled`",
    async () => {
      const created = await post(
        s1.url,
        "tools/call",
        { name: "wait_for_cancel", arguments: {} },
        "wait_for_cancel",
      );
      const taskId = result(created).taskId;
      assert(
        result(created).resultType === "task" && typeof taskId === "string",
        `no task: ${show(created)}`,
      );
      const read = await post(s2.url, "tasks/get", { taskId }, taskId);
      assert(result(read).status === "working", `tasks/get on s2: ${show(read)}`);

      // The listen goes through HAProxy, to an instance other than the canceller (s3): round
      // robin gives one within three attempts.
      let listenAbort = new AbortController();
      let listening: Response | undefined;
      for (let attempt = 0; attempt < 6; attempt++) {
        const { headers, body } = request("subscriptions/listen", {
          notifications: { taskIds: [taskId] },
        });
        listenAbort = new AbortController();
        listening = await fetch(front, {
          method: "POST",
          headers,
          body,
          signal: listenAbort.signal,
        });
        if (listening.headers.get("x-served-by") !== s3.name) break;
        listenAbort.abort();
        await listening.body?.cancel().catch(() => {});
      }
      assert(listening, "no listen");
      const listenedOn = listening.headers.get("x-served-by");
      try {
        assert(listenedOn !== s3.name, "every listen through HAProxy landed on s3");
        assert(listening.status === 200 && listening.body, `listen: HTTP ${listening.status}`);
        const stream = events(listening.body);
        const guard = setTimeout(() => listenAbort.abort(), 20_000);
        try {
          const ack = await stream.next();
          assert(!ack.done, "the listen stream ended before its acknowledgement");
          const cancelled = await post(s3.url, "tasks/cancel", { taskId }, taskId);
          assert(cancelled.status === 200 && !cancelled.body?.error, show(cancelled));
          let heard: Record<string, unknown> | undefined;
          for await (const event of stream) {
            const params = event.params as { taskId?: string; status?: string } | undefined;
            if (
              event.method === "notifications/tasks" && params?.taskId === taskId &&
              params.status === "cancelled"
            ) {
              heard = event;
              break;
            }
          }
          assert(heard, "the listen stream ended without notifications/tasks `cancelled`");
        } finally {
          clearTimeout(guard);
        }
      } finally {
        listenAbort.abort();
      }
      const after = await post(s1.url, "tasks/get", { taskId }, taskId);
      assert(result(after).status === "cancelled", `tasks/get on s1 after: ${show(after)}`);
      return `listen held on ${listenedOn}`;
    },
  );

  await check(
    "d. a 2025-era session through HAProxy stays on the instance that opened it",
    () => session(front),
  );

  await check(
    "e. an instance SIGKILLed during 200 20 ms calls at concurrency 8: answered or failed cleanly, then all succeed",
    async () => {
      const victim = s2;
      let answered = 0;
      let clean = 0;
      let hung = 0;
      let done = 0;
      let killed = false;
      const reasons = new Set<string>();
      await callLoop(8, 200, async () => {
        try {
          await whoami(front, 20);
          answered++;
        } catch (error) {
          if (error instanceof DOMException && error.name === "TimeoutError") hung++;
          else clean++;
          reasons.add(message(error).slice(0, 120));
        }
        if (++done === 60 && !killed) {
          killed = true;
          victim.child?.kill("SIGKILL");
        }
      });
      assert(killed, "the instance was never killed");
      await victim.stop();
      assert(hung === 0, `${hung} calls hung (${[...reasons].join("; ")})`);
      let after = 0;
      for (let i = 0; i < 30; i++) {
        await whoami(front);
        after++;
      }
      await victim.start();
      await backInRotation(victim);
      return `${answered} answered, ${clean} failed cleanly${
        clean ? ` (${[...reasons].join("; ")})` : ""
      }, then ${after}/30 succeeded; ${victim.name} restarted on port ${victim.port}`;
    },
  );

  await check(
    "f. a rolling restart (SIGTERM, exit, start, /readyz) while 20 ms calls go on at concurrency 4: none fails",
    async () => {
      let stop = false;
      let answered = 0;
      const failures: string[] = [];
      const loop = callLoop(4, Infinity, async () => {
        try {
          await whoami(front, 20);
          answered++;
        } catch (error) {
          failures.push(message(error).slice(0, 160));
        }
      }, () => stop);
      const codes: string[] = [];
      try {
        for (const instance of instances) {
          await sleep(300);
          const status = await instance.stop("SIGTERM");
          codes.push(`${instance.name} exited ${status?.code}`);
          await instance.start();
          await backInRotation(instance);
        }
        await sleep(300);
      } finally {
        stop = true;
        await loop;
      }
      assert(
        failures.length === 0,
        `${failures.length} of ${answered + failures.length} failed: ${failures.slice(0, 3)}`,
      );
      return `${answered} calls, 0 failed; ${codes.join(", ")}`;
    },
  );

  // g. nginx in front of the same instances.
  let nginxFront: string | undefined;
  await check("g. nginx starts with deploy/nginx.conf in front of the same instances", async () => {
    await ensure("nginx", ["-v"], "nginx");
    const nginxPort = freePort();
    const ports = [nginxPort, s1.port, s2.port, s3.port];
    const conf = (await Deno.readTextFile(NGINX_CONF)).replaceAll(
      /127\.0\.0\.1:808([0-3])\b/g,
      (_, n) => `127.0.0.1:${ports[Number(n)]}`,
    );
    await Deno.writeTextFile(`${temp}/nginx.conf`, conf);
    await Deno.mkdir(`${temp}/logs`, { recursive: true });
    const nginx = new Child("nginx", "nginx", [
      "-p",
      temp,
      "-c",
      `${temp}/nginx.conf`,
      "-e",
      "stderr",
      "-g",
      `daemon off; pid ${temp}/nginx.pid;`,
    ]);
    cleanups.push(() => nginx.stop("SIGQUIT"));
    await waitForPort(nginxPort, `nginx (${nginx.tail()})`);
    nginxFront = `http://127.0.0.1:${nginxPort}/mcp`;
  });
  if (nginxFront !== undefined) {
    const through = nginxFront;
    await check(
      "g.a. 30 calls through nginx are all answered, spread over the instances",
      () => spread(through),
    );
    await check(
      "g.d. a 2025-era session through nginx stays on the instance that opened it",
      () => session(through),
    );
  }

  await check(
    "h. Redis restarted empty during plain calls: none fails, then tasks and multi-round calls across instances work again",
    async () => {
      const ask = { name: "ask_name", arguments: {} };
      const answerName = { name: { action: "accept", content: { name: "Ada" } } };
      const created = await post(s1.url, "tools/call", {
        name: "wait_for_cancel",
        arguments: {},
      }, "wait_for_cancel");
      const taskId = result(created).taskId;
      assert(typeof taskId === "string", `no task: ${show(created)}`);
      const begun = await post(s1.url, "tools/call", ask, ask.name);
      assert(result(begun).requestState, `round 1 before the restart: ${show(begun)}`);

      let stop = false;
      let answered = 0;
      const failures: string[] = [];
      const loop = callLoop(4, Infinity, async () => {
        try {
          await whoami(front);
          answered++;
        } catch (error) {
          failures.push(message(error).slice(0, 160));
        }
      }, () => stop);
      try {
        await redis.child.stop();
        await everyReadiness(
          instances,
          (status, text) => status === 200 && text.includes("Redis is unreachable"),
          "/readyz did not say Redis is unreachable",
        );
        redis = await startRedis(redis.port); // empty
        await everyReadiness(
          instances,
          (status, text) => status === 200 && !text.includes("Redis"),
          "/readyz did not say Redis is back",
        );
      } finally {
        stop = true;
        await loop;
      }
      assert(failures.length === 0, `${failures.length} plain calls failed: ${failures[0]}`);

      const read = await post(s2.url, "tasks/get", { taskId }, taskId);
      assert(result(read).status === "working", `the task on s2 after: ${show(read)}`);
      const cancelled = await post(s3.url, "tasks/cancel", { taskId }, taskId);
      assert(cancelled.status === 200 && !cancelled.body?.error, show(cancelled));
      const after = await post(s1.url, "tasks/get", { taskId }, taskId);
      assert(result(after).status === "cancelled", `the task on s1 after: ${show(after)}`);

      const continued = await post(s2.url, "tools/call", {
        ...ask,
        inputResponses: answerName,
        requestState: result(begun).requestState,
      }, ask.name);
      assert(text(continued) === "Hello, Ada!", `round 2 of before, on s2: ${show(continued)}`);
      for (const [first, second] of [[s2, s3], [s3, s1]]) {
        const asked = await post(first.url, "tools/call", ask, ask.name);
        const again = await post(second.url, "tools/call", {
          ...ask,
          inputResponses: answerName,
          requestState: result(asked).requestState,
        }, ask.name);
        assert(text(again) === "Hello, Ada!", `${first.name} then ${second.name}: ${show(again)}`);
      }
      const fresh = await post(s3.url, "tools/call", {
        name: "wait_for_cancel",
        arguments: {},
      }, "wait_for_cancel");
      const freshId = result(fresh).taskId;
      assert(typeof freshId === "string", `no new task: ${show(fresh)}`);
      const freshRead = await post(s1.url, "tasks/get", { taskId: freshId }, freshId);
      assert(result(freshRead).status === "working", `the new task on s1: ${show(freshRead)}`);
      await post(s2.url, "tasks/cancel", { taskId: freshId }, freshId);
      return `${answered} plain calls during the restart, 0 failed; tasks and rounds across s1-s3`;
    },
  );

  // i. OAuth: a trio of its own, so that the checks above keep their unauthenticated instances.
  interface SignedIn {
    readonly token: string;
    readonly clientId: string;
  }
  let oauth:
    | { front: string; trio: Instance[]; alice: SignedIn; bob: SignedIn; at: (a: Answer) => string }
    | undefined;
  await check(
    "i. an OAuth trio (--auth-issuer, --public-url = its HAProxy, its own Redis) starts; without a token 401, naming the HAProxy URL",
    async () => {
      const as = await startAuthServer({ scopes: "mcp" });
      cleanups.push(() => as.stop());
      const oauthRedis = await startRedis();
      cleanups.push(() => oauthRedis.child.stop());
      const haproxyPort = freePort();
      const publicUrl = `http://127.0.0.1:${haproxyPort}/mcp`;
      const trio = ["o1", "o2", "o3"].map((name) =>
        new Instance(name, freePort(), [
          "--redis",
          oauthRedis.url,
          "--auth-issuer",
          as.issuer,
          "--public-url",
          publicUrl,
        ])
      );
      cleanups.push(() => Promise.all(trio.map((instance) => instance.stop())));
      await Promise.all(trio.map((instance) => instance.start()));
      const proxy = await startHaproxy(temp, trio.map((instance) => instance.port), haproxyPort);
      cleanups.push(() => proxy.child.stop("SIGUSR1"));
      note(
        `issuer ${as.port}, redis ${oauthRedis.port}, ${
          trio.map((instance) => `${instance.name} ${instance.port}`).join(", ")
        }, haproxy ${proxy.port}`,
      );

      // The resource every instance names is HAProxy's, whichever instance answers.
      const metadata = `http://127.0.0.1:${haproxyPort}/.well-known/oauth-protected-resource/mcp`;
      for (const url of [proxy.url, trio[0].url]) {
        const { headers, body } = request(
          "tools/call",
          { name: "caller", arguments: {} },
          "caller",
        );
        const response = await fetch(url, {
          method: "POST",
          headers,
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await response.body?.cancel();
        const challenge = response.headers.get("www-authenticate") ?? "";
        assert(
          response.status === 401 && challenge.includes(`resource_metadata="${metadata}"`),
          `no token, at ${url}: HTTP ${response.status} ${challenge}`,
        );
      }

      const signIn = async (user: string): Promise<SignedIn> => {
        as.signInAs(user);
        const login = await as.login({ scope: "mcp", resource: publicUrl });
        return { token: login.accessToken, clientId: login.clientId };
      };
      const alice = await signIn("alice");
      const bob = await signIn("bob");
      /** The trio's instance that answered through HAProxy (X-Served-By says s1, s2 or s3). */
      const at = (answer: Answer) =>
        trio[Number(answer.servedBy.replace(/^s/, "")) - 1]?.name ?? `"${answer.servedBy}"`;
      oauth = { front: proxy.url, trio, alice, bob, at };
      return `HAProxy ${proxy.port} in front of o1-o3; alice and bob signed in`;
    },
  );
  if (oauth !== undefined) {
    const { front, trio, alice, bob, at } = oauth;
    const [o1, o2, o3] = trio;
    const users = [["alice", alice], ["bob", bob]] as const;
    /** Calls `caller` as `user`; throws unless it printed that user, its client id and scope. */
    const caller = async (url: string, [user, { token, clientId }]: (typeof users)[number]) => {
      const answer = await post(
        url,
        "tools/call",
        { name: "caller", arguments: {} },
        "caller",
        token,
      );
      const printed = text(answer) ?? "";
      assert(
        answer.status === 200 && !result(answer).isError &&
          printed === `${user}\nclient_id: ${clientId}\nscopes: mcp`,
        `caller as ${user} at ${url}: ${show(answer)}`,
      );
      return answer;
    };

    await check(
      "i.a. the bash tool caller answers each caller's own subject: 24 calls through HAProxy at concurrency 6, alternating alice and bob, and both on each of o1-o3",
      async () => {
        const servedBy = { alice: new Set<string>(), bob: new Set<string>() };
        let n = 0;
        await callLoop(6, 24, async () => {
          const who = users[n++ % 2];
          servedBy[who[0]].add(at(await caller(front, who)));
        });
        for (const [user, names] of Object.entries(servedBy)) {
          assert(names.size >= 2, `every call of ${user} on ${[...names]}`);
        }
        for (const instance of trio) {
          for (const who of users) await caller(instance.url, who);
        }
        return `through HAProxy alice on ${[...servedBy.alice].sort()}, bob on ${
          [...servedBy.bob].sort()
        }`;
      },
    );

    await check(
      "i.b. a multi-round call begun by alice: bob's token cannot continue it on another instance, alice's does",
      async () => {
        const ask = { name: "ask_name", arguments: {} };
        const answerName = { name: { action: "accept", content: { name: "Ada" } } };
        /** Round 2 of `begun` as `token`, at `url`. */
        const round2 = (url: string, begun: Answer, token: string) =>
          post(
            url,
            "tools/call",
            {
              ...ask,
              inputResponses: answerName,
              requestState: result(begun).requestState,
            },
            ask.name,
            token,
          );
        const refused = (answer: Answer) =>
          text(answer) !== "Hello, Ada!" &&
          /requestState was issued to another caller/.test(JSON.stringify(answer.body));

        // Named instances: begun on o1, bob on o2, alice on o3.
        const begun = await post(o1.url, "tools/call", ask, ask.name, alice.token);
        assert(result(begun).requestState, `round 1 on o1: ${show(begun)}`);
        const hijacked = await round2(o2.url, begun, bob.token);
        assert(refused(hijacked), `bob's round 2 on o2: ${show(hijacked)}`);
        const continued = await round2(o3.url, begun, alice.token);
        assert(text(continued) === "Hello, Ada!", `alice's round 2 on o3: ${show(continued)}`);

        // Through HAProxy: each round 2 served by another instance than round 1 (round robin).
        let seen = "";
        for (let attempt = 0; attempt < 5 && seen === ""; attempt++) {
          const first = await post(front, "tools/call", ask, ask.name, alice.token);
          assert(result(first).requestState, `round 1 through HAProxy: ${show(first)}`);
          const theirs = await round2(front, first, bob.token);
          assert(refused(theirs), `bob's round 2 through HAProxy: ${show(theirs)}`);
          const hers = await round2(front, first, alice.token);
          assert(text(hers) === "Hello, Ada!", `alice's round 2 through HAProxy: ${show(hers)}`);
          if (at(theirs) !== at(first) && at(hers) !== at(first)) {
            seen = `through HAProxy round 1 on ${at(first)}, bob refused on ${at(theirs)}, ` +
              `alice's round 2 on ${at(hers)}`;
          }
        }
        assert(seen, "5 attempts through HAProxy never had round 2 on another instance");
        const error = hijacked.body?.error as { code?: number } | undefined;
        return `bob refused on o2 (${error ? `error ${error.code}` : "an error result"}), ` +
          `alice completed on o3; ${seen}`;
      },
    );

    await check(
      "i.c. alice's task created on o1: bob's tasks/get and tasks/cancel on o2 and through HAProxy are errors, never the task (as for a task that never existed); alice reads it on o3",
      async () => {
        const created = await post(
          o1.url,
          "tools/call",
          {
            name: "wait_for_cancel",
            arguments: {},
          },
          "wait_for_cancel",
          alice.token,
        );
        const taskId = result(created).taskId;
        assert(
          result(created).resultType === "task" && typeof taskId === "string",
          `no task: ${show(created)}`,
        );
        /** The error `id` got, with the id itself left out. */
        const errorOf = (answer: Answer, id: string) =>
          JSON.stringify(answer.body?.error ?? null).replaceAll(id, "<id>");
        /**
         * Bob's attempt (his token accepted: HTTP 200): an error, no result, and the very error
         * a task id that never existed gets from him there, so it tells him nothing of the task.
         */
        const refusedToBob = async (url: string, method: string, where: string) => {
          const answer = await post(url, method, { taskId }, taskId, bob.token);
          const ghostId = taskId.replace(/[^.]*$/, crypto.randomUUID()); // "o1.<another uuid>"
          const ghost = await post(url, method, { taskId: ghostId }, ghostId, bob.token);
          assert(
            answer.status === 200 && answer.body?.error !== undefined &&
              answer.body?.result === undefined,
            `bob's ${method} ${where}: ${show(answer)}`,
          );
          assert(
            errorOf(answer, taskId) === errorOf(ghost, ghostId),
            `bob's ${method} ${where} is not the error of a task that never existed: ` +
              `${show(answer)} against ${show(ghost)}`,
          );
          return { answer, error: answer.body.error as { code?: number } };
        };
        const refusals: string[] = [];
        for (const method of ["tasks/get", "tasks/cancel"]) {
          const { error } = await refusedToBob(o2.url, method, "on o2");
          refusals.push(`${method} ${error.code}`);
        }
        const hers = await post(o3.url, "tasks/get", { taskId }, taskId, alice.token);
        assert(result(hers).status === "working", `alice's tasks/get on o3: ${show(hers)}`);

        const through: string[] = [];
        for (const method of ["tasks/get", "tasks/cancel"]) {
          const { answer } = await refusedToBob(front, method, "through HAProxy");
          through.push(at(answer));
        }
        const still = await post(front, "tasks/get", { taskId }, taskId, alice.token);
        assert(result(still).status === "working", `alice's tasks/get after: ${show(still)}`);

        const cancelled = await post(o2.url, "tasks/cancel", { taskId }, taskId, alice.token);
        assert(cancelled.status === 200 && !cancelled.body?.error, show(cancelled));
        const after = await post(o1.url, "tasks/get", { taskId }, taskId, alice.token);
        assert(result(after).status === "cancelled", `alice's tasks/get on o1: ${show(after)}`);
        return `bob on o2: ${refusals.join(", ")}; through HAProxy refused on ${through}; ` +
          `alice read it working on o3 and through HAProxy (${at(still)}), cancelled it on o2`;
      },
    );

    await check(
      "j. a caller over a tool's rate limit (3/min, buckets in Redis) is refused with 429 and Retry-After on each of o1-o3 and through HAProxy; another caller is not",
      async () => {
        const limited = (url: string, token: string) =>
          post(url, "tools/call", { name: "limited", arguments: {} }, "limited", token);
        const servedBy = new Set<string>();
        for (let i = 0; i < 3; i++) {
          const answer = await limited(front, alice.token);
          assert(answer.status === 200 && /^\d+$/.test(text(answer) ?? ""), show(answer));
          servedBy.add(at(answer));
        }
        const waits: string[] = [];
        for (const url of [o1.url, o2.url, o3.url, front]) {
          const response = await fetch(url, {
            method: "POST",
            ...request("tools/call", { name: "limited", arguments: {} }, "limited", alice.token),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const body = await response.json();
          const retryAfter = Number(response.headers.get("retry-after"));
          assert(
            response.status === 429 && body.error?.code === -32031 && retryAfter >= 1 &&
              body.error.data?.retryAfterSeconds === retryAfter,
            `alice's 4th call at ${url}: HTTP ${response.status} ${JSON.stringify(body)}`,
          );
          waits.push(String(retryAfter));
        }
        for (const url of [o1.url, o2.url, front]) {
          const answer = await limited(url, bob.token);
          assert(
            answer.status === 200 && /^\d+$/.test(text(answer) ?? ""),
            `bob at ${url}: ${show(answer)}`,
          );
        }
        return `alice's 3 calls on ${[...servedBy].sort()}, then 429 on o1, o2, o3 and HAProxy ` +
          `(Retry-After ${waits.join(", ")} s); bob answered on o1, o2 and HAProxy`;
      },
    );
  }
}

const started = performance.now();
try {
  await main();
} catch (error) {
  failed++;
  say(`FAILED - set-up: ${message(error)}`);
} finally {
  await cleanUp();
  Deno.removeSignalListener("SIGINT", onInterrupt);
}
note(`took ${((performance.now() - started) / 1000).toFixed(1)} s`);
say(`scale checks: ${passed} passed, ${failed} failed`);
Deno.exit(failed === 0 ? 0 : 1);
