// deno-lint-ignore-file no-console -- a load script prints its report for people
// Load tests (issue 5), outside the test suite: real server processes over real pipes.
//
//   deno run -A tests/load.ts [--quick]
//
// (a) 100,000 pipelined requests at 256 in flight are all answered correctly, and the
//     server's peak RSS (VmHWM) after them is within 10% of its peak after 10,000;
// (b) a client that stops reading stdout: the server stops reading stdin (our writes
//     block), its RSS stays flat while we do not read, and everything arrives in full after;
// (c) --max-concurrency 8: of 50 sleeping calls sent at once, at most 8 run at a time and
//     all 50 are answered (a run with the default cap shows the fixture does see overlap).
//
// Prints the figures and exits 1 if any check fails. Linux only (it reads /proc).
import { parseArgs } from "node:util";
import { concatBytes } from "../lib/util/bytes.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TOOLS = `${ROOT}tests/fixtures/load_tools`;
const KIB = 1024;
const MIB = 1024 * KIB;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const { values: flags } = parseArgs({ args: Deno.args, options: { quick: { type: "boolean" } } });
const quick = flags.quick === true;

interface Check {
  name: string;
  figure: string;
  ok: boolean;
}
const checks: Check[] = [];

function check(name: string, figure: string, ok: boolean): void {
  checks.push({ name, figure, ok });
  console.log(`${ok ? "PASS" : "FAIL"}  ${name}: ${figure}`);
}

interface Server {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  stderr: Promise<string>;
}

function spawn(extra: string[] = []): Server {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "--tools", TOOLS, ...extra],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return { child, writer: child.stdin.getWriter(), stderr: new Response(child.stderr).text() };
}

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), or NaN once the process is gone. */
function procKib(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return match ? Number(match[1]) * KIB : NaN;
  } catch {
    return NaN;
  }
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/** Yields stdout lines; copes with lines of many MiB by scanning only new bytes. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let parts: Uint8Array[] = [];
  for await (const chunk of stream) {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, newline));
      yield decoder.decode(concatBytes(parts));
      parts = [];
      start = newline + 1;
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  }
}

function echoRequest(id: number, text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text }, _meta: META },
  }) + "\n";
}

type Response = {
  id?: unknown;
  result?: { content?: { text?: unknown }[]; structuredContent?: { most?: unknown } };
  error?: unknown;
};

async function close(server: Server): Promise<number> {
  await server.writer.close().catch(() => {});
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 15_000);
  const { code } = await server.child.status;
  clearTimeout(timer);
  await server.stderr;
  return code;
}

/** (a) `count` echo requests with at most `window` in flight; returns the server's VmHWM. */
async function pipelined(count: number, window: number): Promise<{ hwm: number; wrong: number }> {
  const server = spawn();
  const pid = server.child.pid;
  let sent = 0;
  let answered = 0;
  let wrong = 0;
  const seen = new Uint8Array(count + 1);
  const textOf = (id: number) => `load-${id}-${"x".repeat(id % 64)}`;

  function sendUpTo(limit: number): Promise<void> {
    let batch = "";
    while (sent < limit && sent < count) batch += echoRequest(++sent, textOf(sent));
    return batch === "" ? Promise.resolve() : server.writer.write(encoder.encode(batch));
  }

  const started = performance.now();
  await sendUpTo(window);
  let writing = Promise.resolve();
  for await (const line of lines(server.child.stdout)) {
    const response: Response = JSON.parse(line);
    const id = response.id as number;
    if (
      !Number.isSafeInteger(id) || id < 1 || id > count || seen[id] === 1 ||
      response.result?.content?.[0]?.text !== textOf(id)
    ) {
      wrong++;
    } else seen[id] = 1;
    answered++;
    if (answered === count) break;
    // Refill the window in batches, as a pipelining client does.
    if (sent - answered <= window - 32) writing = writing.then(() => sendUpTo(answered + window));
  }
  await writing;
  const seconds = (performance.now() - started) / 1000;
  const hwm = procKib(pid, "VmHWM");
  const code = await close(server);
  console.log(
    `      ${count} requests answered in ${seconds.toFixed(1)} s ` +
      `(${Math.round(count / seconds)}/s), peak RSS ${mib(hwm)}, exit code ${code}`,
  );
  return { hwm, wrong: wrong + (answered === count ? 0 : count - answered) };
}

/** Resolves "blocked" if `promise` has not settled within `ms`. */
function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<"settled" | "blocked"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const blocked = new Promise<"blocked">((resolve) =>
    timer = setTimeout(() => resolve("blocked"), ms)
  );
  return Promise.race([promise.then(() => "settled" as const), blocked]).finally(() =>
    clearTimeout(timer)
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** (b) Large requests to a server whose stdout nobody reads, then read everything. */
async function slowReader(): Promise<void> {
  const count = quick ? 250 : 500;
  const textBytes = 100 * KIB;
  const server = spawn();
  const pid = server.child.pid;
  await sleep(300); // let the server start and load its tools
  const baseline = procKib(pid, "VmRSS");
  const textOf = (id: number) => String(id % 10).repeat(textBytes);

  // Write until a write has not completed for a second: the server has stopped reading.
  let written = 0;
  let pending: Promise<void> | undefined;
  for (let id = 1; id <= count; id++) {
    const write = server.writer.write(encoder.encode(echoRequest(id, textOf(id))));
    if (await settlesWithin(write, 1_000) === "blocked") {
      pending = write;
      break;
    }
    written = id;
  }
  const blockedAt = written;
  // While we do not read: the server's RSS, sampled, and whether our write moves.
  const samples: number[] = [];
  for (let i = 0; i < 12; i++) {
    samples.push(procKib(pid, "VmRSS"));
    await sleep(250);
  }
  const stillBlocked = pending !== undefined &&
    await settlesWithin(pending, 0) === "blocked";
  const first = samples[0];
  const most = Math.max(...samples);

  // Now read everything, and write the rest meanwhile.
  const rest = (async () => {
    await pending;
    for (let id = blockedAt + 2; id <= count; id++) {
      await server.writer.write(encoder.encode(echoRequest(id, textOf(id))));
    }
  })();
  let answered = 0;
  let wrong = 0;
  const seen = new Set<number>();
  for await (const line of lines(server.child.stdout)) {
    const response: Response = JSON.parse(line);
    const id = response.id as number;
    if (seen.has(id) || response.result?.content?.[0]?.text !== textOf(id)) wrong++;
    seen.add(id);
    if (++answered === count) break;
  }
  await rest;
  const hwm = procKib(pid, "VmHWM");
  const code = await close(server);

  check(
    "slow reader: stdin consumption stops",
    pending === undefined
      ? `every one of ${count} writes of ${textBytes / KIB} KiB completed: no backpressure seen`
      : `writes block after ${blockedAt} requests (${mib(blockedAt * textBytes)} of ` +
        `${mib(count * textBytes)}) and stay blocked for 3 s: ${stillBlocked}`,
    pending !== undefined && stillBlocked,
  );
  check(
    "slow reader: RSS stays flat while the client does not read",
    `baseline ${mib(baseline)}; while blocked ${mib(first)} first, ${mib(most)} most ` +
      `(${samples.length} samples over 3 s); peak over the whole run ${mib(hwm)}`,
    most <= first * 1.05 + 2 * MIB && most - baseline < 256 * MIB,
  );
  check(
    "slow reader: everything arrives in full once the client reads",
    `${answered} of ${count} answered, ${wrong} wrong or repeated, exit code ${code}`,
    answered === count && wrong === 0 && code === 0,
  );
}

/** (c) 50 sleeping calls at once; the most that ran together, and how many were answered. */
async function concurrency(
  cap: number | undefined,
): Promise<{ most: number; answered: number; code: number | undefined; stderr: string }> {
  const calls = 50;
  const server = spawn(cap === undefined ? [] : ["--max-concurrency", String(cap)]);
  let batch = "";
  for (let id = 1; id <= calls; id++) {
    batch += JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "sleep", arguments: { ms: 200 }, _meta: META },
    }) + "\n";
  }
  await server.writer.write(encoder.encode(batch)).catch(() => {});
  let most = 0;
  let answered = 0;
  for await (const line of lines(server.child.stdout)) {
    const response: Response = JSON.parse(line);
    const seen = response.result?.structuredContent?.most;
    if (typeof seen === "number") {
      most = Math.max(most, seen);
      answered++;
    }
    if (answered === calls) break;
  }
  const code = await close(server);
  return { most, answered, code, stderr: await server.stderr };
}

console.log(`toolshed load test${quick ? " (quick)" : ""}: ${Deno.version.deno}, tools ${TOOLS}\n`);

console.log("(a) pipelined requests, 256 in flight");
// Peak RSS is noisy (V8 grows its heap lazily): rounds interleave the two sizes, and the
// ratio is the median of the rounds' ratios.
const rounds: { small: number; large: number }[] = [];
let wrong = 0;
for (let round = 0; round < 3; round++) {
  const small = await pipelined(quick ? 2_000 : 10_000, 256);
  const large = await pipelined(quick ? 20_000 : 100_000, 256);
  rounds.push({ small: small.hwm, large: large.hwm });
  wrong += small.wrong + large.wrong;
}
check("pipelined: every request answered correctly", `${wrong} wrong or missing`, wrong === 0);
const ratios = rounds.map((round) => round.large / round.small).sort((a, b) => a - b);
const middle = rounds.map((round) => round.large / round.small).indexOf(ratios[1]);
check(
  "pipelined: peak RSS after 10x the requests is within 10%",
  `median round ${mib(rounds[middle].large)} vs ${mib(rounds[middle].small)}: ` +
    `${ratios[1].toFixed(3)}x (rounds: ${ratios.map((ratio) => ratio.toFixed(3)).join(", ")})`,
  ratios[1] <= 1.1,
);

// The RSS ratio above includes what V8 and the allocator keep after collecting; a leak is
// what the heap still holds after a full collection, which must not grow with the requests.
const leakCounts = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const probe = await new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    "--v8-flags=--expose-gc",
    `${ROOT}tests/_heap_probe.ts`,
    ...leakCounts.map(String),
  ],
  stderr: "inherit",
}).output();
const { heapAfter } = JSON.parse(decoder.decode(probe.stdout) || '{"heapAfter":[]}') as {
  heapAfter: number[];
};
const growth = heapAfter.length === leakCounts.length
  ? heapAfter[heapAfter.length - 1] - heapAfter[0]
  : Infinity;
check(
  "pipelined: the heap after a full collection does not grow with the requests served",
  `after ${leakCounts.join(", ")} calls in process: ${heapAfter.map(mib).join(", ")} ` +
    `(${(growth / KIB).toFixed(0)} KiB more)`,
  probe.success && growth < MIB,
);

console.log("\n(b) a client that stops reading stdout");
await slowReader();

console.log("\n(c) concurrency cap");
const capped = await concurrency(8);
if (capped.answered === 0 && capped.code === 2) {
  check(
    "cap: --max-concurrency 8",
    `the server refused the flag: ${capped.stderr.split("\n")[0]}`,
    false,
  );
} else {
  check(
    "cap: with --max-concurrency 8, at most 8 of 50 calls run at once",
    `most at once ${capped.most}, ${capped.answered} of 50 answered`,
    capped.most <= 8 && capped.most > 1 && capped.answered === 50,
  );
}
const uncapped = await concurrency(undefined);
check(
  "cap: with the default cap (64), the same 50 calls overlap",
  `most at once ${uncapped.most}, ${uncapped.answered} of 50 answered`,
  uncapped.most > 8 && uncapped.answered === 50,
);

const failed = checks.filter((entry) => !entry.ok);
console.log(`\n${checks.length - failed.length} of ${checks.length} checks passed`);
if (failed.length > 0) Deno.exit(1);
