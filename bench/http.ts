// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// The HTTP benchmark (deno task bench:http): `tools/call` of an echo tool over Streamable
// HTTP, 2026-07-28 stateless requests, against real server processes on 127.0.0.1: a bare
// `Deno.serve` that parses the body and answers (the ceiling), toolshed with `--http` three
// ways (no authentication; the shared token of TOOLSHED_HTTP_TOKEN; OAuth with `--auth-issuer`
// and a JWT access token in every request), and the official TypeScript SDK v2's stateless
// handler. The OAuth contestant's authorization server is a stand-in served by this process
// (bench/http/issuer.ts: metadata and keys only, tokens signed with jose); toolshed's
// verification of each token is the real one, and the issuer's requests are counted. The load
// generator is wrk (Debian package `wrk`), at 1 and 64 connections. Contestants are measured
// round by round, interleaved, each in a fresh process; every ratio is taken within a round
// before the median is taken. Every answer is checked: before each timed run a few requests go
// out with `fetch` and their whole answers are compared with the exact expected JSON (and a
// request without credentials must get 401 where credentials are asked for), and during the
// run wrk's script counts every answer that is not a 200 carrying the echoed text (any such
// answer fails the benchmark). Memory: a fresh toolshed answers 10,000, then 100,000, then
// 300,000 requests in all, and its RSS is read after each; so does one with OAuth, once, in the
// last round (at its pace that takes minutes; not with --quick).
//
//   deno run -A bench/http.ts [--rounds N] [--seconds S] [--quick] [--write-docs]
//                             [--against DIR] [--otel]
//                             [--json PATH] [--metrics] [--rate-limit]
//
// --otel runs this commit's `toolshed --http` (the unauthenticated contestant) with Deno's
// OpenTelemetry on, exporting to a sink served here (bench/_otel.ts); against a copy of this
// commit, the ratios are telemetry's cost.
//
// With --metrics, toolshed `--http` with `--metrics 127.0.0.1:0` runs beside the others in every
// round, and what counting requests costs is printed as its ratios to toolshed without (adr/0042).
//
// With --rate-limit, toolshed runs twice more in each round with `--rate-limit` set too high to
// ever refuse: its buckets in its memory, and in a redis-server this process starts on loopback
// (one EVALSHA per request); a table gives each ÷ toolshed without a limit.
import { parseArgs } from "node:util";
import { median } from "./e2e/measure.ts";
import { check } from "./http/request.ts";
import {
  cpuSeconds,
  type HttpContestant,
  rssMb,
  type RunningServer,
  start,
} from "./http/server.ts";
import { removeScript, wrk, type WrkResult } from "./http/wrk.ts";
import { machine, PERFORMANCE_PAGE, writeDocs } from "./e2e/report.ts";
import { againstCheckout, changeTable } from "./_against.ts";
import { startOtlpSink } from "./_otel.ts";
import { DEFAULT_ALGORITHM, type StandInIssuer, startIssuer } from "./http/issuer.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const LISTEN = "127.0.0.1:0";
const CONNECTIONS = [1, 64] as const;
/** RSS is read after this many requests in all; the target compares the first two. */
const MEMORY_MARKS = [10_000, 100_000, 300_000] as const;

/**
 * The busy work of the calibration contestant: about what toolshed's path does per request
 * beyond the bare server's (the Host/Origin guard, eight header reads, the validation ladder,
 * the core, the argument schema; ~2–3 µs in micro-benchmarks).
 */
const BUSY_US = 3;

const text = (value: string) => [{ type: "text", text: value }];
const serverInfo = (name: string, version: string) => ({
  "io.modelcontextprotocol/serverInfo": { name, version },
});

const CONTESTANTS: HttpContestant[] = [
  {
    key: "bare",
    label: "bare `Deno.serve` (the ceiling)",
    args: ["run", "-A", `${ROOT}bench/contestants/bare_http.ts`, LISTEN],
    result: (t) => ({ resultType: "complete", content: text(t) }),
  },
  {
    key: "toolshed",
    label: "toolshed `--http`",
    args: ["run", "-A", `${ROOT}main.ts`, "--http", LISTEN, "--tools", `${ROOT}bench/tools`],
    result: (t) => ({
      resultType: "complete",
      content: text(t),
      _meta: serverInfo("toolshed", "0.1.0"),
    }),
  },
  {
    key: "busy",
    label: `bare \`Deno.serve\` + ${BUSY_US} µs of JavaScript per request (calibration)`,
    args: ["run", "-A", `${ROOT}bench/contestants/bare_http.ts`, LISTEN, String(BUSY_US)],
    result: (t) => ({ resultType: "complete", content: text(t) }),
  },
  {
    key: "sdk",
    label: "official TS SDK v2 2.4.0, `createMcpHandler`",
    args: ["run", "-A", `${ROOT}bench/contestants/sdk_v2_http.ts`, LISTEN],
    result: (t) => ({
      resultType: "complete",
      content: text(t),
      _meta: serverInfo("sdk-v2", "1.0.0"),
    }),
  },
];

const TOOLSHED = CONTESTANTS.find((contestant) => contestant.key === "toolshed")!;

/** toolshed with one shared token every request must carry (TOOLSHED_HTTP_TOKEN, adr/0033). */
function sharedTokenContestant(): HttpContestant {
  const token = crypto.randomUUID();
  return {
    ...TOOLSHED,
    key: "token",
    label: "toolshed `--http`, shared token (`TOOLSHED_HTTP_TOKEN`)",
    env: { TOOLSHED_HTTP_TOKEN: token },
    authorization: () => Promise.resolve(`Bearer ${token}`),
  };
}

/**
 * toolshed (`main`) as an OAuth resource server of the stand-in issuer (adr/0038): every request
 * carries one JWT access token minted for the process's own URL, which its verifier checks with
 * the issuer's keys, cached after the first request.
 */
function oauthContestant(
  key: string,
  label: string,
  main: string,
  issuer: StandInIssuer,
): HttpContestant {
  return {
    ...TOOLSHED,
    key,
    label,
    args: [
      "run",
      "-A",
      main,
      "--http",
      LISTEN,
      "--tools",
      `${ROOT}bench/tools`,
      "--auth-issuer",
      issuer.url,
    ],
    issuer,
    authorization: async (url) => `Bearer ${await issuer.mint(url)}`,
  };
}

/** A per-caller limit no benchmark reaches: every request is checked, none is refused. */
const NEVER_REFUSED = "1000000000/s";

/** A redis-server on a free loopback port, without persistence, for the Redis contestant. */
async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const child = new Deno.Command("redis-server", {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 200; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Whether the toolshed at `main` knows `--auth-issuer` (a checkout from before OAuth does not). */
async function hasOAuth(main: string): Promise<boolean> {
  const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "--help"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return (decoder.decode(stdout) + decoder.decode(stderr)).includes("--auth-issuer");
}

interface LoadFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
}

/** What a contestant's authorization server was asked. */
interface IssuerRequests {
  /** During the timed runs (with the key set cached, none is expected). */
  timed: number;
  /** Requests toolshed answered in those runs, each with its token verified. */
  verified: number;
  /** Over the process's whole life: checks, warm-up and timed runs. */
  all: number;
}

interface RoundResult {
  /** By connection count. */
  load: Record<number, LoadFigures>;
  peakRssMb: number;
  issuer?: IssuerRequests;
}

interface MemoryResult {
  /** RSS in MB after the number of requests in MEMORY_MARKS. */
  rssMb: number[];
  peakRssMb: number;
  /** Requests to the contestant's authorization server over the process's life. */
  issuerRequests?: number;
}

interface Round {
  byKey: Record<string, RoundResult>;
  memory: MemoryResult;
  /** The same for toolshed with OAuth, measured in the last round only (not with --quick). */
  oauthMemory?: MemoryResult;
}

interface Target {
  figure: string;
  wanted: string;
  /** The round's ratio, or undefined when the round did not measure it. */
  ratio(round: Round): number | undefined;
  holds(ratio: number): boolean;
}

const TARGETS: Target[] = [
  {
    figure: "requests/s at 64 connections vs bare `Deno.serve`",
    wanted: "≥ 0.7×",
    ratio: (r) => r.byKey.toolshed.load[64].rps / r.byKey.bare.load[64].rps,
    holds: (x) => x >= 0.7,
  },
  {
    figure: "requests/s at 64 connections vs official SDK v2",
    wanted: "≥ 3×",
    ratio: (r) => r.byKey.toolshed.load[64].rps / r.byKey.sdk.load[64].rps,
    holds: (x) => x >= 3,
  },
  {
    figure: "p50 latency at 1 connection vs bare `Deno.serve`",
    wanted: "≤ 1.3×",
    ratio: (r) => r.byKey.toolshed.load[1].p50Ms / r.byKey.bare.load[1].p50Ms,
    holds: (x) => x <= 1.3,
  },
  {
    figure: `calibration: the bare server with ${BUSY_US} µs of busy work vs without`,
    wanted: "—",
    ratio: (r) => r.byKey.busy.load[64].rps / r.byKey.bare.load[64].rps,
    holds: () => true,
  },
  {
    figure: "memory flat: RSS after 100,000 requests vs after 10,000",
    wanted: "≤ 1.1×",
    ratio: (r) => r.memory.rssMb[1] / r.memory.rssMb[0],
    holds: (x) => x <= 1.1,
  },
  {
    figure: "memory flat with OAuth: RSS after 100,000 requests vs after 10,000",
    wanted: "≤ 1.1×",
    ratio: (r) => r.oauthMemory && r.oauthMemory.rssMb[1] / r.oauthMemory.rssMb[0],
    holds: (x) => x <= 1.1,
  },
];

/** A figure of one contestant in one round, for the tables of per-round ratios. */
const load = (connections: number, name: keyof LoadFigures) => (round: Round, key: string) =>
  round.byKey[key]?.load[connections]?.[name];
const RATIO_FIGURES = [
  { name: "req/s, 64 connections", of: load(64, "rps") },
  { name: "CPU per request, 64 connections", of: load(64, "cpuUsPerRequest") },
  { name: "req/s, 1 connection", of: load(1, "rps") },
  { name: "p50, 1 connection", of: load(1, "p50Ms") },
  { name: "p99, 1 connection", of: load(1, "p99Ms") },
  { name: "peak RSS", of: (round: Round, key: string) => round.byKey[key]?.peakRssMb },
];

/** What authentication costs: each way of knowing callers ÷ another, within each round. */
const AUTH_PAIRS = [
  { label: "shared token ÷ none", after: "token", before: "toolshed" },
  { label: "OAuth ÷ none", after: "oauth", before: "toolshed" },
  { label: "OAuth ÷ shared token", after: "oauth", before: "token" },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "5" },
      seconds: { type: "string", default: "5" },
      quick: { type: "boolean", default: false },
      "write-docs": { type: "boolean", default: false },
      json: { type: "string" },
      against: { type: "string" },
      otel: { type: "boolean", default: false },
      metrics: { type: "boolean", default: false },
      "rate-limit": { type: "boolean", default: false },
    },
  });
  const sink = values.otel ? startOtlpSink() : undefined;
  // With --against DIR, DIR's main.ts runs beside this one in every round (bench/_against.ts).
  const against = values.against === undefined ? undefined : await againstCheckout(values.against);
  if (against !== undefined && values["write-docs"]) {
    throw new Error("--against compares; it does not write the docs");
  }
  if (Deno.env.get("TOOLSHED_HTTP_TOKEN") !== undefined) {
    // Every contestant inherits this environment: toolshed would ask all of them for the token.
    throw new Error("Cannot run bench:http with TOOLSHED_HTTP_TOKEN set: unset it first");
  }
  const rounds = values.quick ? 1 : Number(values.rounds);
  const seconds = values.quick ? 2 : Number(values.seconds);
  await requireWrk();

  const issuer = await startIssuer();
  const oauth = oauthContestant(
    "oauth",
    `toolshed \`--http --auth-issuer\` (a JWT, ${DEFAULT_ALGORITHM}, key set cached)`,
    `${ROOT}main.ts`,
    issuer,
  );
  CONTESTANTS.splice(CONTESTANTS.indexOf(TOOLSHED) + 1, 0, sharedTokenContestant(), oauth);
  // Only this commit's unauthenticated contestant has telemetry on (the others copied it first).
  if (sink !== undefined) TOOLSHED.env = sink.env;
  const againstPairs = [{ label: "toolshed --http", after: "toolshed", before: "against" }];
  const notes: string[] = [];
  if (against !== undefined) {
    CONTESTANTS.push({
      ...TOOLSHED,
      env: undefined,
      key: "against",
      label: `${against.label} \`--http\``,
      args: ["run", "-A", against.main, "--http", LISTEN, "--tools", `${ROOT}bench/tools`],
    });
    if (await hasOAuth(against.main)) {
      const label = `${against.label} \`--http --auth-issuer\``;
      CONTESTANTS.push(oauthContestant("against-oauth", label, against.main, issuer));
      againstPairs.push({
        label: "toolshed --http --auth-issuer",
        after: "oauth",
        before: "against-oauth",
      });
    } else {
      notes.push(
        `${against.label} has no --auth-issuer: its OAuth contestant is skipped, and OAuth is ` +
          "compared with this commit's own rows only.",
      );
    }
  }

  if (values.metrics) {
    if (values["write-docs"]) throw new Error("--metrics compares; it does not write the docs");
    CONTESTANTS.push({
      ...TOOLSHED,
      key: "metrics",
      label: "toolshed `--http --metrics`",
      args: [...TOOLSHED.args, "--metrics", "127.0.0.1:0"],
    });
  }

  const redis = values["rate-limit"] ? await startRedis() : undefined;
  if (redis !== undefined) {
    if (values["write-docs"]) throw new Error("--rate-limit compares; it does not write the docs");
    const limited = (key: string, label: string, extra: string[]): HttpContestant => ({
      ...TOOLSHED,
      key,
      label: `toolshed \`--http --rate-limit ${NEVER_REFUSED}\`${label}`,
      args: [...TOOLSHED.args, "--rate-limit", NEVER_REFUSED, ...extra],
    });
    CONTESTANTS.push(
      limited("limited", "", []),
      limited("limited-redis", ` --redis`, ["--redis", redis.url]),
    );
  }
  const results: Round[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const byKey: Record<string, RoundResult> = {};
      // Rotate the order each round so that no contestant always runs first or last.
      const order = CONTESTANTS.map((_, i) => CONTESTANTS[(i + round) % CONTESTANTS.length]);
      for (const contestant of order) {
        progress(`Round ${round + 1}/${rounds}: ${contestant.label}`);
        byKey[contestant.key] = await measureRound(contestant, seconds);
      }
      progress(`Round ${round + 1}/${rounds}: toolshed memory over 300,000 requests`);
      results.push({ byKey, memory: await measureMemory(TOOLSHED) });
      if (round === rounds - 1 && !values.quick) {
        progress(`Round ${round + 1}/${rounds}: toolshed with OAuth, memory over 300,000 requests`);
        results[round].oauthMemory = await measureMemory(oauth);
      }
    }
  } finally {
    await removeScript();
    await issuer.close();
    if (sink !== undefined) {
      console.log(`With --otel: ${sink.exports()} OTLP exports received from toolshed --http`);
      await sink.close();
    }
    await redis?.stop();
  }

  const report = summarize(results, seconds);
  const tables = render(report);
  console.log(tables);
  if (against !== undefined) {
    console.log(
      `\nThis commit ÷ ${against.label}: medians of per-round ratios (each round's in brackets).\n\n` +
        changeTable(results, againstPairs, RATIO_FIGURES) +
        notes.map((note) => `\n\n${note}`).join(""),
    );
  }
  if (values.metrics) {
    console.log(
      `\nWith --metrics ÷ without: medians of per-round ratios (each round's in brackets).\n\n` +
        changeTable(results, [
          { label: "toolshed --http --metrics", after: "metrics", before: "toolshed" },
        ], RATIO_FIGURES),
    );
  }
  if (redis !== undefined) {
    console.log(
      `\nWith --rate-limit ${NEVER_REFUSED} ÷ without: medians of per-round ratios (each round's ` +
        `in brackets).\n\n` +
        changeTable(results, [
          { label: "local buckets", after: "limited", before: "toolshed" },
          { label: "buckets in Redis", after: "limited-redis", before: "toolshed" },
        ], RATIO_FIGURES),
    );
  }
  if (values.json !== undefined) {
    await Deno.writeTextFile(values.json, JSON.stringify(report, null, 2) + "\n");
    progress(`Wrote ${values.json}`);
  }
  if (values["write-docs"]) {
    await writeDocs(`${ROOT}${PERFORMANCE_PAGE}`, "http", tables);
    progress(`Updated the HTTP tables of ${PERFORMANCE_PAGE}`);
  }
}

/** A fresh process: checked, warmed up, then one timed run per connection count. */
async function measureRound(contestant: HttpContestant, seconds: number): Promise<RoundResult> {
  const asked = () => contestant.issuer?.requests() ?? 0;
  const askedBefore = asked();
  const server = await start(contestant);
  try {
    await check(contestant, server);
    // Warm-up: let the JIT see the hot path, and every connection be opened once.
    expectGood(contestant, await wrk({ ...runOf(server), connections: 64, seconds: 2 }));
    const load: Record<number, LoadFigures> = {};
    const issuer: IssuerRequests = { timed: 0, verified: 0, all: 0 };
    for (const connections of CONNECTIONS) {
      await check(contestant, server);
      const cpuBefore = cpuSeconds(server.pid);
      const askedBeforeRun = asked();
      const run = expectGood(contestant, await wrk({ ...runOf(server), connections, seconds }));
      const cpuUsPerRequest = (cpuSeconds(server.pid) - cpuBefore) * 1e6 / run.requests;
      issuer.timed += asked() - askedBeforeRun;
      issuer.verified += run.requests;
      load[connections] = { rps: run.rps, p50Ms: run.p50Ms, p99Ms: run.p99Ms, cpuUsPerRequest };
    }
    await check(contestant, server);
    issuer.all = asked() - askedBefore;
    return {
      load,
      peakRssMb: rssMb(server.pid, "VmHWM"),
      ...(contestant.issuer === undefined ? {} : { issuer }),
    };
  } finally {
    await server.close();
  }
}

/** A fresh process answers MEMORY_MARKS requests in all at 64 connections; RSS at each. */
async function measureMemory(contestant: HttpContestant): Promise<MemoryResult> {
  const asked = () => contestant.issuer?.requests() ?? 0;
  const askedBefore = asked();
  const server = await start(contestant);
  try {
    await check(contestant, server);
    const rss: number[] = [];
    let answered = 0;
    for (const mark of MEMORY_MARKS) {
      const run = await wrk({
        ...runOf(server),
        connections: 64,
        seconds: 600,
        limit: mark - answered,
      });
      answered += expectGood(contestant, run).requests;
      rss.push(rssMb(server.pid, "VmRSS"));
    }
    await check(contestant, server);
    return {
      rssMb: rss,
      peakRssMb: rssMb(server.pid, "VmHWM"),
      ...(contestant.issuer === undefined ? {} : { issuerRequests: asked() - askedBefore }),
    };
  } finally {
    await server.close();
  }
}

/** What wrk needs of a running server: its URL and the credentials its requests carry. */
function runOf(server: RunningServer): { url: string; authorization?: string } {
  return { url: server.url, authorization: server.authorization };
}

function expectGood(contestant: HttpContestant, run: WrkResult): WrkResult {
  if (run.bad > 0 || run.requests === 0) {
    throw new Error(
      `${contestant.label}: ${run.bad} of ${run.requests} answers were wrong or failed`,
    );
  }
  return run;
}

function summarize(results: Round[], seconds: number) {
  const medians: Record<string, RoundResult> = {};
  for (const { key } of CONTESTANTS) {
    const mine = results.map((round) => round.byKey[key]);
    const load: Record<number, LoadFigures> = {};
    for (const c of CONNECTIONS) {
      const of = (pick: (f: LoadFigures) => number) => median(mine.map((r) => pick(r.load[c])));
      load[c] = {
        rps: of((f) => f.rps),
        p50Ms: of((f) => f.p50Ms),
        p99Ms: of((f) => f.p99Ms),
        cpuUsPerRequest: of((f) => f.cpuUsPerRequest),
      };
    }
    medians[key] = { load, peakRssMb: median(mine.map((r) => r.peakRssMb)) };
  }
  const memoryOf = (runs: MemoryResult[]) => ({
    rssMb: MEMORY_MARKS.map((_, i) => median(runs.map((run) => run.rssMb[i]))),
    peakRssMb: median(runs.map((run) => run.peakRssMb)),
  });
  const oauthMemoryRounds = results.flatMap((round) => round.oauthMemory ?? []);
  // The issuer's requests are summed over the rounds: any at all during a timed run is news.
  const oauthRounds = results.map((round) => round.byKey.oauth.issuer!);
  const issuer = {
    timed: sum(oauthRounds.map((r) => r.timed)),
    verified: sum(oauthRounds.map((r) => r.verified)),
    perProcess: oauthRounds.map((r) => r.all),
    overMemoryRun: results.flatMap((round) => round.oauthMemory?.issuerRequests ?? []),
  };
  const targets = TARGETS.map((target) => {
    const perRound = results.flatMap((round) => target.ratio(round) ?? []);
    const ratio = perRound.length === 0 ? NaN : median(perRound);
    return {
      figure: target.figure,
      wanted: target.wanted,
      ratio,
      perRound,
      holds: target.holds(ratio),
    };
  });
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    deno: Deno.version.deno,
    wrk: "4.1",
    rounds: results.length,
    secondsPerRun: seconds,
    contestants: CONTESTANTS.map(({ key, label }) => ({ key, label })),
    medians,
    memory: memoryOf(results.map((round) => round.memory)),
    oauthMemory: oauthMemoryRounds.length === 0 ? undefined : memoryOf(oauthMemoryRounds),
    issuer,
    authentication: changeTable(results, AUTH_PAIRS, RATIO_FIGURES),
    targets,
    rounds_raw: results,
  };
}

type Report = ReturnType<typeof summarize>;

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function render(report: Report): string {
  const fixed = (value: number, digits: number) =>
    value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = [
    `Measured ${report.date} on ${report.machine}, Deno ${report.deno}, wrk ${report.wrk}: ` +
    `medians of ${report.rounds} interleaved rounds of ${report.secondsPerRun} s runs ` +
    `(\`deno task bench:http\`), each contestant a fresh process per round. Ratios are medians ` +
    `of per-round ratios. CPU is the server process's user + system time over the run ÷ ` +
    `requests; the load generator shares the same cores.`,
    "",
    "| server | req/s, 1 conn | p50 ms, 1 conn | p99 ms, 1 conn | CPU µs/req, 1 conn | req/s, 64 conns | p50 ms, 64 conns | p99 ms, 64 conns | CPU µs/req, 64 conns | peak RSS MB |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const contestant of report.contestants) {
    const r = report.medians[contestant.key];
    const [one, many] = [r.load[1], r.load[64]];
    lines.push(
      `| ${contestant.label} | ${fixed(one.rps, 0)} | ${fixed(one.p50Ms, 3)} | ${
        fixed(one.p99Ms, 3)
      } | ${fixed(one.cpuUsPerRequest, 1)} | ${fixed(many.rps, 0)} | ${fixed(many.p50Ms, 3)} | ${
        fixed(many.p99Ms, 3)
      } | ${fixed(many.cpuUsPerRequest, 1)} | ${fixed(r.peakRssMb, 1)} |`,
    );
  }
  const rssLine = (who: string, memory: Report["memory"]) => {
    const [after10k, after100k, after300k] = memory.rssMb;
    return `${who} (a fresh process, 64 connections, every answer checked): ` +
      `${fixed(after10k, 1)} MB after 10,000 requests, ${fixed(after100k, 1)} MB after ` +
      `100,000, ${fixed(after300k, 1)} MB after 300,000 (peak ${fixed(memory.peakRssMb, 1)} MB).`;
  };
  const { issuer, oauthMemory } = report;
  lines.push(
    "",
    rssLine("toolshed's RSS", report.memory),
    "",
    oauthMemory === undefined
      ? "With OAuth: not measured (--quick)."
      : rssLine("With OAuth, measured once in the last round", oauthMemory),
    "",
    `What authentication costs per request: toolshed \`--http\` with no authentication ` +
      `("none"), with the shared token, and with OAuth (\`--auth-issuer\`: one JWT access token ` +
      `in every request, ${DEFAULT_ALGORITHM}, \`typ: at+jwt\`, for the audience ` +
      `\`http://127.0.0.1:PORT/mcp\` of the process under test, checked by toolshed's real ` +
      `verifier, lib/auth with jose, against the issuer's key set cached after the first ` +
      `request), each ÷ another: the median of per-round ratios (each round's in brackets).`,
    "",
    report.authentication,
    "",
    `The authorization server is a stand-in (\`bench/http/issuer.ts\`, served on 127.0.0.1 by ` +
      `the benchmark process): RFC 8414 metadata with \`issuer\` and \`jwks_uri\`, and a key ` +
      `set of one ${DEFAULT_ALGORITHM} key; tokens signed with jose 6.2.18; no sign-in, token ` +
      `endpoint or introspection. It was asked ${issuer.timed} times during the OAuth ` +
      `contestant's timed runs, in which toolshed verified ${fixed(issuer.verified, 0)} tokens; ` +
      `each OAuth process asked it ${issuer.perProcess.join(", ")} times in all (per round)` +
      (issuer.overMemoryRun.length === 0
        ? "."
        : `, and the one that answered 300,000 requests ${issuer.overMemoryRun.join(", ")}.`),
    "",
    "| target | wanted | toolshed | per round |",
    "|---|---|---|---|",
  );
  for (const target of report.targets) {
    lines.push(
      target.perRound.length === 0
        ? `| ${target.figure} | ${target.wanted} | not measured (--quick) | — |`
        : `| ${target.figure} | ${target.wanted} | ${fixed(target.ratio, 2)}×${
          target.wanted === "—" ? "" : target.holds ? " ✓ met" : " ✗ missed"
        } | ${target.perRound.map((x) => fixed(x, 2)).join(", ")} |`,
    );
  }
  return lines.join("\n");
}

async function requireWrk(): Promise<void> {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
  } catch {
    throw new Error("Cannot run wrk: install it (Debian: apt-get install -y wrk)");
  }
}

function progress(message: string): void {
  console.error(message);
}

if (import.meta.main) await main();
