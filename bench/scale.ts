// Scale benchmark (issue 13, adr/0019): requests/s, p99 and CPU per request through HAProxy
// (deploy/haproxy.cfg) with 1 and 3 toolshed instances, in memory and with Redis, for three
// kinds of call; and, without a balancer, one process against N processes sharing one port
// (SO_REUSEPORT). Every figure is also given as a ratio to the baseline measured in the same
// repetition: one instance, in memory, plain calls, through HAProxy.
//
//   deno run -A bench/scale.ts [--seconds 5] [--reps 3] [--connections 16] [--processes N]
//
// Installs redis-server, haproxy and wrk with apt-get when they are missing (tests/scale/
// _harness.ts, shared with tests/scale.ts). Loopback only. The load generator is wrk (one
// thread, keep-alive connections, each sending the same POST). Calls:
//   plain   tools/call of `whoami` (no Redis at all, either way);
//   task    tools/call of `quick_task` declaring the tasks extension: stored as a task, answered
//           with it, completed 5 ms later (with --redis: EVAL + PUBLISH twice per call);
//   round2  the second round of `ask_name`, carrying a requestState sealed by the deployment's
//           key (the key ring is read from Redis once a day per instance, then cached).
// CPU per request: utime+stime from /proc/<pid>/stat of each process, before and after a run,
// divided by the requests wrk completed; toolshed instances, HAProxy and redis-server apart.
// Configurations all run at once (idle between their turns) and are interleaved within each
// repetition, so that the machine's other load falls on all of them alike.
import {
  type Child,
  ensure,
  freePort,
  Instance,
  message,
  note,
  ROOT,
  say,
  sleep,
  startHaproxy,
  startRedis,
  waitForPort,
} from "../tests/scale/_harness.ts";

const PROTOCOL = "2026-07-28";
const STATE_KEY = "bench-scale-state-key-0123456789abcdef0123456789";
const REUSE_PORT = `${ROOT}bench/scale/reuse_port.ts`;

function flag(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(Deno.args[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`--${name} takes a positive integer, not "${Deno.args[at + 1]}"`);
  }
  return value;
}

const SECONDS = flag("seconds", 5);
const REPS = flag("reps", 3);
const CONNECTIONS = flag("connections", 16);
const PROCESSES = flag("processes", navigator.hardwareConcurrency);
const WARM_UP_SECONDS = 2;

// ------------------------------------------------------------------ requests

type Kind = "plain" | "task" | "round2";

interface Call {
  headers: Record<string, string>;
  body: string;
}

function call(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        ...extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": PROTOCOL,
          "io.modelcontextprotocol/clientCapabilities": {
            elicitation: {},
            extensions: { "io.modelcontextprotocol/tasks": {} },
          },
        },
      },
    }),
  };
}

interface CallResult {
  content?: { text?: string }[];
  resultType?: string;
  requestState?: string;
}

async function send(url: string, { headers, body }: Call): Promise<CallResult> {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`);
  const answer = JSON.parse(text);
  if (answer.error) throw new Error(`error: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** The request of `kind` for the deployment at `url`, tried once. */
async function requestOf(kind: Kind, url: string): Promise<Call> {
  switch (kind) {
    case "plain": {
      const plain = call("whoami", {});
      const result = await send(url, plain);
      if (!/^\d+$/.test(result.content?.[0]?.text ?? "")) {
        throw new Error(`whoami: ${JSON.stringify(result)}`);
      }
      return plain;
    }
    case "task": {
      const task = call("quick_task", {});
      const result = await send(url, task);
      if (result.resultType !== "task") throw new Error(`quick_task: ${JSON.stringify(result)}`);
      return task;
    }
    case "round2": {
      const first = await send(url, call("ask_name", {}));
      if (first.resultType !== "input_required" || !first.requestState) {
        throw new Error(`ask_name round 1: ${JSON.stringify(first)}`);
      }
      const second = call("ask_name", {}, {
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
        requestState: first.requestState,
      });
      const result = await send(url, second);
      if (result.content?.[0]?.text !== "Hello, Ada!") {
        throw new Error(`ask_name round 2: ${JSON.stringify(result)}`);
      }
      return second;
    }
  }
}

// ------------------------------------------------------------------ measuring

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

interface Run {
  rps: number;
  p99Ms: number;
  requests: number;
  failures: number;
  /** CPU seconds per request, in microseconds: the toolshed processes, HAProxy, redis-server. */
  instanceUs: number;
  haproxyUs: number;
  redisUs: number;
}

function milliseconds(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value);
  if (!match) throw new Error(`wrk: a latency "${value}" not understood`);
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2] as "us" | "ms" | "s" | "m"];
  return Number(match[1]) * scale;
}

async function wrk(
  url: string,
  request: Call,
  temp: string,
  pids: { instances: number[]; haproxy?: number; redis?: number },
  seconds = SECONDS,
): Promise<Run> {
  const script = `${temp}/wrk-${crypto.randomUUID()}.lua`;
  const lua = [
    `wrk.method = "POST"`,
    `wrk.body = [==[${request.body}]==]`,
    ...Object.entries(request.headers).map(([name, value]) =>
      `wrk.headers["${name}"] = [==[${value}]==]`
    ),
  ].join("\n");
  await Deno.writeTextFile(script, lua + "\n");
  const cpu = () => ({
    instances: pids.instances.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    haproxy: cpuSeconds(pids.haproxy),
    redis: cpuSeconds(pids.redis),
  });
  const before = cpu();
  const { stdout, success, stderr } = await new Deno.Command("wrk", {
    args: [
      "-t1",
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      script,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const after = cpu();
  const out = new TextDecoder().decode(stdout);
  if (!success) throw new Error(`wrk failed: ${new TextDecoder().decode(stderr)}`);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p99 = /^\s+99%\s+(\S+)$/m.exec(out)?.[1];
  if (!requests || !rps || !p99) throw new Error(`wrk output not understood:\n${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const failures = non2xx + (socket ? socket.slice(1).reduce((s, n) => s + Number(n), 0) : 0);
  const per = (seconds: number) => seconds / requests * 1e6;
  return {
    rps,
    p99Ms: milliseconds(p99),
    requests,
    failures,
    instanceUs: per(after.instances - before.instances),
    haproxyUs: per(after.haproxy - before.haproxy),
    redisUs: per(after.redis - before.redis),
  };
}

// ------------------------------------------------------------------ deployments

interface Deployment {
  name: string;
  url: string;
  kinds: Kind[];
  instances: Instance[];
  haproxy?: Child;
  redis: boolean;
}

const cleanups: (() => Promise<unknown>)[] = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error) => note(`while stopping: ${message(error)}`));
  }
}

async function instances(
  prefix: string,
  count: number,
  redisUrl: string | undefined,
): Promise<Instance[]> {
  const list = Array.from({ length: count }, (_, i) =>
    new Instance(
      `${prefix}${i + 1}`,
      freePort(),
      redisUrl === undefined
        ? { env: { TOOLSHED_STATE_KEY: STATE_KEY } }
        : { extra: ["--redis", redisUrl] },
    ));
  cleanups.push(() => Promise.all(list.map((instance) => instance.stop())));
  await Promise.all(list.map((instance) => instance.start()));
  return list;
}

async function behindHaproxy(
  temp: string,
  name: string,
  count: number,
  redisUrl: string | undefined,
): Promise<Deployment> {
  const list = await instances(name.replace(/\W/g, ""), count, redisUrl);
  const haproxy = await startHaproxy(temp, list.map((instance) => instance.port));
  cleanups.push(() => haproxy.child.stop("SIGUSR1"));
  return {
    name,
    url: haproxy.url,
    kinds: ["plain", "task", "round2"],
    instances: list,
    haproxy: haproxy.child,
    redis: redisUrl !== undefined,
  };
}

/** `count` main.ts processes on one port (SO_REUSEPORT), in memory, no balancer. */
async function sharingPort(count: number): Promise<Deployment> {
  const port = freePort();
  const list = Array.from({ length: count }, (_, i) =>
    new Instance(`p${i + 1}`, port, {
      denoFlags: ["--unstable-net", "--preload", REUSE_PORT],
      env: { TOOLSHED_STATE_KEY: STATE_KEY },
    }));
  cleanups.push(() => Promise.all(list.map((instance) => instance.stop())));
  for (const instance of list) await instance.start();
  await waitForPort(port, "the processes sharing a port");
  return {
    name: `${count} processes, one port`,
    url: `http://127.0.0.1:${port}/mcp`,
    kinds: ["plain"],
    instances: list,
    redis: false,
  };
}

// ------------------------------------------------------------------ the run

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `median [min–max]` with `digits` decimals. */
function spread(values: number[], digits = 0): string {
  const fixed = (n: number) => n.toFixed(digits);
  return `${fixed(median(values))} [${fixed(Math.min(...values))}–${fixed(Math.max(...values))}]`;
}

async function main(): Promise<void> {
  await ensure("redis-server", ["--version"], "redis-server");
  await ensure("haproxy", ["-v"], "haproxy");
  await ensure("wrk", ["-v"], "wrk");
  const temp = await Deno.makeTempDir({ prefix: "toolshed-bench-scale-" });
  cleanups.push(() => Deno.remove(temp, { recursive: true }));
  const redis = await startRedis();
  cleanups.push(() => redis.child.stop());

  const deployments: Deployment[] = [
    await behindHaproxy(temp, "1 instance, memory", 1, undefined),
    await behindHaproxy(temp, "1 instance, Redis", 1, redis.url),
    await behindHaproxy(temp, "2 instances, memory", 2, undefined),
    await behindHaproxy(temp, "3 instances, memory", 3, undefined),
    await behindHaproxy(temp, "3 instances, Redis", 3, redis.url),
  ];
  const single = deployments[0].instances[0];
  deployments.push({
    name: "1 process, no balancer",
    url: single.url,
    kinds: ["plain"],
    instances: [single],
    redis: false,
  });
  if (PROCESSES > 1) deployments.push(await sharingPort(PROCESSES));

  const plan: { deployment: Deployment; kind: Kind; request: Call; runs: Run[] }[] = [];
  for (const deployment of deployments) {
    for (const kind of deployment.kinds) {
      plan.push({ deployment, kind, request: await requestOf(kind, deployment.url), runs: [] });
    }
  }
  const cores = navigator.hardwareConcurrency;
  note(
    `${plan.length} runs of ${SECONDS} s, ${REPS} times, ${CONNECTIONS} connections, ` +
      `${cores} cores (about ${
        Math.ceil(plan.length * (REPS * (SECONDS + 1) + WARM_UP_SECONDS + 1) / 60)
      } minutes)`,
  );
  // One unmeasured run of each first: every process has compiled its hot paths (V8 tiers up
  // per process, so three instances each need their own warm-up).
  for (const entry of plan) {
    await wrk(entry.deployment.url, entry.request, temp, { instances: [] }, WARM_UP_SECONDS);
  }
  const baselines: number[] = [];
  const ratios = new Map<(typeof plan)[number], number[]>();
  for (let rep = 0; rep < REPS; rep++) {
    let baseline = 0;
    for (const entry of plan) {
      await sleep(500); // the previous run's connections close
      const { deployment } = entry;
      const run = await wrk(deployment.url, entry.request, temp, {
        instances: deployment.instances.map((instance) => instance.pid!),
        haproxy: deployment.haproxy?.process.pid,
        redis: deployment.redis ? redis.child.process.pid : undefined,
      });
      if (entry === plan[0]) {
        baseline = run.rps;
        baselines.push(run.rps);
      }
      entry.runs.push(run);
      ratios.set(entry, [...ratios.get(entry) ?? [], run.rps / baseline]);
      note(
        `rep ${rep + 1}: ${deployment.name}, ${entry.kind}: ${run.rps.toFixed(0)} req/s, ` +
          `p99 ${run.p99Ms.toFixed(2)} ms, ${run.failures} failed`,
      );
    }
  }

  say(
    `\nbench/scale.ts: Deno ${Deno.version.deno}, ${cores} cores, ${SECONDS} s per run, ${REPS} ` +
      `repetitions, wrk -t1 -c${CONNECTIONS}; median [min–max]; ratio = req/s ÷ the baseline ` +
      `(first row) of the same repetition\n`,
  );
  say(
    "| deployment | call | req/s | × baseline | p99 ms | toolshed CPU µs/req | HAProxy µs/req | " +
      "Redis µs/req | failed |",
  );
  say("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const entry of plan) {
    const { runs } = entry;
    const failed = runs.reduce((sum, run) => sum + run.failures, 0);
    const total = runs.reduce((sum, run) => sum + run.requests, 0);
    say(
      `| ${entry.deployment.name} | ${entry.kind} | ${spread(runs.map((r) => r.rps))} | ${
        spread(ratios.get(entry)!, 2)
      } | ${spread(runs.map((r) => r.p99Ms), 2)} | ${spread(runs.map((r) => r.instanceUs))} | ${
        entry.deployment.haproxy ? spread(runs.map((r) => r.haproxyUs)) : "–"
      } | ${
        entry.deployment.redis ? spread(runs.map((r) => r.redisUs)) : "–"
      } | ${failed}/${total} |`,
    );
  }
}

try {
  await main();
} catch (error) {
  say(`bench/scale.ts failed: ${message(error)}`);
  await cleanUp();
  Deno.exit(1);
}
await cleanUp();
