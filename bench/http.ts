// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// The HTTP benchmark (deno task bench:http): `tools/call` of an echo tool over Streamable
// HTTP, 2026-07-28 stateless requests, against real server processes on 127.0.0.1: a bare
// `Deno.serve` that parses the body and answers (the ceiling), toolshed with `--http` three
// ways (no authentication; the shared token of TOOLSHED_HTTP_TOKEN; OAuth with `--auth-issuer`
// and a JWT access token in every request), and the official TypeScript SDK v2's stateless
// handler. The OAuth contestant's authorization server is a stand-in served by this process
// (bench/http/issuer.ts: metadata and keys only, tokens signed with jose); toolshed's
// verification of each token is the real one, and the issuer's requests are counted. The load
// generator is wrk (Debian package `wrk`), at 1 and 64 connections. Every contestant is up side
// by side for the whole run, and each round loads each in turn with one short burst (1 s by
// default) at 1 connection, then at 64, the order reversed every other round
// (bench/http/bursts.ts): on 2 shared cores one program's rate swings by half within seconds,
// so each ratio is taken within a round, between bursts a second or a few apart, and its median
// over the rounds is printed with its spread (min–max; interquartile range). Every answer is
// checked: after each process starts and after the bursts, a few requests go out with `fetch`
// and their whole answers are compared with the exact expected JSON (and a request without
// credentials must get 401 where credentials are asked for), and during each burst wrk's script
// counts every answer that is not a 200 carrying the echoed text (any such answer fails the
// benchmark). Memory: a fresh toolshed answers 10,000, then 100,000, then 300,000 requests in
// all, and its RSS is read after each (a fresh process as many times as rounds, at most five);
// so does one with OAuth, once (at its pace that takes minutes; not with --quick).
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
import { check } from "./http/request.ts";
import {
  type Burst,
  type BurstRound,
  figureOf,
  formatRatio,
  median,
  ratioTable,
  type RatioTarget,
  type RoundFigure,
  roundRatios,
  runBursts,
  verdictOf,
} from "./http/bursts.ts";
import { type HttpContestant, rssMb, type RunningServer, start } from "./http/server.ts";
import { removeScript, wrk } from "./http/wrk.ts";
import { machine, PERFORMANCE_PAGE, writeDocs } from "./e2e/report.ts";
import { againstCheckout } from "./_against.ts";
import { startOtlpSink } from "./_otel.ts";
import { DEFAULT_ALGORITHM, type StandInIssuer, startIssuer } from "./http/issuer.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const LISTEN = "127.0.0.1:0";
const CONNECTIONS = [1, 64] as const;
/** RSS is read after this many requests in all; the target compares the first two. */
const MEMORY_MARKS = [10_000, 100_000, 300_000] as const;
/** At most this many fresh toolshed processes answer MEMORY_MARKS requests (one per round). */
const MEMORY_RUNS = 5;

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

/** What the contestants' authorization server was asked. */
interface IssuerRequests {
  /** During the timed bursts (with the key set cached, none is expected). */
  timed: number;
  /** Requests the OAuth contestant answered in those bursts, each with its token verified. */
  verified: number;
  /** Over the OAuth processes' whole life: checks, warm-up and timed bursts. */
  all: number;
  /** How many OAuth processes were up (this commit's, and the --against tree's). */
  processes: number;
}

interface MemoryResult {
  /** RSS in MB after the number of requests in MEMORY_MARKS. */
  rssMb: number[];
  peakRssMb: number;
  /** Requests to the contestant's authorization server over the process's life. */
  issuerRequests?: number;
}

/** Everything one run measured. */
interface Measurement {
  /** Each round's bursts, by contestant key, then by connections. */
  rounds: BurstRound[];
  /** Each contestant's VmHWM at the end of the bursts, by key (one process each). */
  peakRssMb: Record<string, number>;
  issuer: IssuerRequests;
  /** One fresh toolshed per memory run. */
  memory: MemoryResult[];
  /** The same for toolshed with OAuth, measured once (not with --quick). */
  oauthMemory?: MemoryResult;
}

interface Target extends RatioTarget {
  /** The ratios measured (per round, or per memory run); none when not measured. */
  ratios(measured: Measurement): number[];
}

/** toolshed's ratio to `before` at a figure, in every round. */
const toolshedTo = (before: string, of: RoundFigure) => (measured: Measurement) =>
  roundRatios(measured.rounds, "toolshed", before, of);

const TARGETS: Target[] = [
  {
    figure: "requests/s at 64 connections vs bare `Deno.serve`",
    wanted: "≥ 0.7×",
    ratios: toolshedTo("bare", figureOf(64, "rps")),
    meets: (x) => x >= 0.7,
  },
  {
    figure: "requests/s at 64 connections vs official SDK v2",
    wanted: "≥ 3×",
    ratios: toolshedTo("sdk", figureOf(64, "rps")),
    meets: (x) => x >= 3,
  },
  {
    figure: "p50 latency at 1 connection vs bare `Deno.serve`",
    wanted: "≤ 1.3×",
    ratios: toolshedTo("bare", figureOf(1, "p50Ms")),
    meets: (x) => x <= 1.3,
  },
  {
    figure: `calibration: the bare server with ${BUSY_US} µs of busy work vs without`,
    wanted: "—",
    ratios: (m) => roundRatios(m.rounds, "busy", "bare", figureOf(64, "rps")),
    meets: () => true,
  },
  {
    figure: "memory flat: RSS after 100,000 requests vs after 10,000",
    wanted: "≤ 1.1×",
    ratios: (m) => m.memory.map((run) => run.rssMb[1] / run.rssMb[0]),
    meets: (x) => x <= 1.1,
  },
  {
    figure: "memory flat with OAuth: RSS after 100,000 requests vs after 10,000",
    wanted: "≤ 1.1×",
    ratios: (m) => m.oauthMemory ? [m.oauthMemory.rssMb[1] / m.oauthMemory.rssMb[0]] : [],
    meets: (x) => x <= 1.1,
  },
];

/** The figures of the tables of ratios: per round from the bursts, peak RSS once per process. */
function ratioFigures(measured: Measurement) {
  const perRound = (of: RoundFigure) => (after: string, before: string) =>
    roundRatios(measured.rounds, after, before, of);
  const peak = measured.peakRssMb;
  return [
    { name: "req/s, 64 connections", ratios: perRound(figureOf(64, "rps")) },
    { name: "CPU per request, 64 connections", ratios: perRound(figureOf(64, "cpuUsPerRequest")) },
    { name: "req/s, 1 connection", ratios: perRound(figureOf(1, "rps")) },
    { name: "p50, 1 connection", ratios: perRound(figureOf(1, "p50Ms")) },
    { name: "p99, 1 connection", ratios: perRound(figureOf(1, "p99Ms")) },
    {
      name: "peak RSS (one process each)",
      ratios: (after: string, before: string) =>
        peak[after] === undefined || peak[before] === undefined ? [] : [peak[after] / peak[before]],
    },
  ];
}

/** What authentication costs: each way of knowing callers ÷ another, within each round. */
const AUTH_PAIRS = [
  { label: "shared token ÷ none", after: "token", before: "toolshed" },
  { label: "OAuth ÷ none", after: "oauth", before: "toolshed" },
  { label: "OAuth ÷ shared token", after: "oauth", before: "token" },
];

/**
 * The order of the bursts within a round (reversed every other round): each contestant beside
 * the one its ratios divide by, a second apart, where it can be.
 */
const BURST_ORDER = [
  "busy",
  "bare",
  "toolshed",
  "against",
  "metrics",
  "limited",
  "limited-redis",
  "token",
  "oauth",
  "against-oauth",
  "sdk",
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "10" },
      seconds: { type: "string", default: "1" },
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
  const rounds = values.quick ? 2 : Number(values.rounds);
  const seconds = values.quick ? 1 : Number(values.seconds);
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
  let measured: Measurement;
  try {
    const bursts = await measureBursts(rounds, seconds);
    const memory: MemoryResult[] = [];
    const memoryRuns = values.quick ? 1 : Math.min(rounds, MEMORY_RUNS);
    for (let run = 0; run < memoryRuns; run++) {
      progress(`Memory ${run + 1}/${memoryRuns}: toolshed over 300,000 requests`);
      memory.push(await measureMemory(TOOLSHED));
    }
    measured = { ...bursts, memory };
    if (!values.quick) {
      progress("Memory: toolshed with OAuth over 300,000 requests");
      measured.oauthMemory = await measureMemory(oauth);
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

  const report = summarize(measured, seconds);
  const tables = render(report);
  console.log(tables);
  if (against !== undefined) {
    console.log(
      `\nThis commit ÷ ${against.label}: medians of per-round ratios (min–max; interquartile range).\n\n` +
        ratioTable(againstPairs, ratioFigures(measured)) +
        notes.map((note) => `\n\n${note}`).join(""),
    );
  }
  if (values.metrics) {
    console.log(
      `\nWith --metrics ÷ without: medians of per-round ratios (min–max; interquartile range).\n\n` +
        ratioTable([
          { label: "toolshed --http --metrics", after: "metrics", before: "toolshed" },
        ], ratioFigures(measured)),
    );
  }
  if (redis !== undefined) {
    console.log(
      `\nWith --rate-limit ${NEVER_REFUSED} ÷ without: medians of per-round ratios (min–max; ` +
        `interquartile range).\n\n` +
        ratioTable([
          { label: "local buckets", after: "limited", before: "toolshed" },
          { label: "buckets in Redis", after: "limited-redis", before: "toolshed" },
        ], ratioFigures(measured)),
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

/** Every contestant up side by side, checked, loaded in turn by bursts, then checked again. */
async function measureBursts(
  rounds: number,
  seconds: number,
): Promise<Pick<Measurement, "rounds" | "peakRssMb" | "issuer">> {
  const issuers = [...new Set(CONTESTANTS.flatMap((contestant) => contestant.issuer ?? []))];
  const asked = () => sum(issuers.map((issuer) => issuer.requests()));
  const askedAtFirst = asked();
  const order = BURST_ORDER.flatMap((key) => CONTESTANTS.filter((c) => c.key === key));
  const unplaced = CONTESTANTS.filter((contestant) => !order.includes(contestant));
  if (unplaced.length > 0) {
    throw new Error(`Cannot order the bursts: "${unplaced[0].key}" has no place in BURST_ORDER`);
  }
  const running = new Map<string, RunningServer>();
  try {
    for (const contestant of CONTESTANTS) {
      progress(`Starting ${contestant.label}`);
      const server = await start(contestant);
      running.set(contestant.key, server);
      await check(contestant, server);
    }
    const askedBefore = asked();
    const taken = await runBursts(
      order.map(({ key, label }) => {
        const { url, authorization, pid } = running.get(key)!;
        return { key, label, url, authorization, pid };
      }),
      { rounds, seconds, connections: CONNECTIONS, progress },
    );
    const timed = asked() - askedBefore;
    for (const contestant of CONTESTANTS) await check(contestant, running.get(contestant.key)!);
    return {
      rounds: taken,
      peakRssMb: Object.fromEntries(
        [...running].map(([key, server]) => [key, rssMb(server.pid, "VmHWM")]),
      ),
      issuer: {
        timed,
        verified: sum(taken.flatMap((round) => CONNECTIONS.map((c) => round.oauth[c].requests))),
        all: asked() - askedAtFirst,
        processes: CONTESTANTS.filter((contestant) => contestant.issuer !== undefined).length,
      },
    };
  } finally {
    await Promise.all([...running.values()].map((server) => server.close()));
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
        url: server.url,
        authorization: server.authorization,
        connections: 64,
        seconds: 600,
        limit: mark - answered,
      });
      if (run.bad > 0 || run.requests === 0) {
        throw new Error(
          `${contestant.label}: ${run.bad} of ${run.requests} answers were wrong or failed`,
        );
      }
      answered += run.requests;
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

function summarize(measured: Measurement, seconds: number) {
  const medians: Record<string, { load: Record<number, BurstMedians>; peakRssMb: number }> = {};
  for (const { key } of CONTESTANTS) {
    const load: Record<number, BurstMedians> = {};
    for (const c of CONNECTIONS) {
      const of = (name: keyof BurstMedians) =>
        median(measured.rounds.map((round) => round[key][c][name]));
      load[c] = {
        rps: of("rps"),
        p50Ms: of("p50Ms"),
        p99Ms: of("p99Ms"),
        cpuUsPerRequest: of("cpuUsPerRequest"),
      };
    }
    medians[key] = { load, peakRssMb: measured.peakRssMb[key] };
  }
  const memoryOf = (runs: MemoryResult[]) => ({
    rssMb: MEMORY_MARKS.map((_, i) => median(runs.map((run) => run.rssMb[i]))),
    peakRssMb: median(runs.map((run) => run.peakRssMb)),
    runs: runs.length,
  });
  const targets = TARGETS.map((target) => {
    const ratios = target.ratios(measured);
    return {
      figure: target.figure,
      wanted: target.wanted,
      ratios,
      verdict: ratios.length === 0 ? undefined : verdictOf(target, ratios),
    };
  });
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    deno: Deno.version.deno,
    wrk: "4.1",
    rounds: measured.rounds.length,
    secondsPerBurst: seconds,
    contestants: CONTESTANTS.map(({ key, label }) => ({ key, label })),
    medians,
    memory: memoryOf(measured.memory),
    oauthMemory: measured.oauthMemory && memoryOf([measured.oauthMemory]),
    issuer: { ...measured.issuer, overMemoryRun: measured.oauthMemory?.issuerRequests },
    authentication: ratioTable(AUTH_PAIRS, ratioFigures(measured)),
    targets,
    rounds_raw: measured.rounds,
  };
}

/** The figures of a burst that the main table gives the medians of. */
type BurstMedians = Omit<Burst, "requests">;

type Report = ReturnType<typeof summarize>;

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function render(report: Report): string {
  const fixed = (value: number, digits: number) =>
    value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const lines = [
    `Measured ${report.date} on ${report.machine}, Deno ${report.deno}, wrk ${report.wrk}: ` +
    `medians of ${report.rounds} rounds of ${report.secondsPerBurst} s bursts ` +
    `(\`deno task bench:http\`): every contestant up side by side for the whole run, each round ` +
    `loading each in turn at 1 connection, then at 64, the order reversed every other round. ` +
    `Ratios are medians of per-round ratios, with their spread over the rounds (min–max; ` +
    `interquartile range). CPU is the server process's user + system time over a burst ÷ ` +
    `requests; the load generator shares the same cores. Peak RSS is each process's at the end ` +
    `of the bursts.`,
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
    return `${who} (a fresh process, 64 connections, every answer checked` +
      `${memory.runs > 1 ? `, medians of ${memory.runs} runs` : ""}): ` +
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
      : rssLine("With OAuth, measured once", oauthMemory),
    "",
    `What authentication costs per request: toolshed \`--http\` with no authentication ` +
      `("none"), with the shared token, and with OAuth (\`--auth-issuer\`: one JWT access token ` +
      `in every request, ${DEFAULT_ALGORITHM}, \`typ: at+jwt\`, for the audience ` +
      `\`http://127.0.0.1:PORT/mcp\` of the process under test, checked by toolshed's real ` +
      `verifier, lib/auth with jose, against the issuer's key set cached after the first ` +
      `request), each ÷ another: the median of per-round ratios (min–max; interquartile range).`,
    "",
    report.authentication,
    "",
    `The authorization server is a stand-in (\`bench/http/issuer.ts\`, served on 127.0.0.1 by ` +
      `the benchmark process): RFC 8414 metadata with \`issuer\` and \`jwks_uri\`, and a key ` +
      `set of one ${DEFAULT_ALGORITHM} key; tokens signed with jose 6.2.18; no sign-in, token ` +
      `endpoint or introspection. It was asked ${issuer.timed} times during the bursts (warm-up ` +
      `included), in which toolshed verified ${fixed(issuer.verified, 0)} tokens; ` +
      `${
        issuer.processes === 1 ? "the OAuth process" : `the ${issuer.processes} OAuth processes`
      } ` +
      `asked it ${issuer.all} times in all` +
      (report.oauthMemory === undefined
        ? "."
        : `, and the one that answered 300,000 requests ${issuer.overMemoryRun}.`),
    "",
    "| target | wanted | toolshed, median (min–max; IQR) | met in |",
    "|---|---|---|---|",
  );
  for (const { figure, wanted, verdict } of report.targets) {
    if (verdict === undefined) {
      lines.push(`| ${figure} | ${wanted} | not measured (--quick) | — |`);
      continue;
    }
    const judged = wanted !== "—";
    const mark = !judged ? "" : verdict.holds ? " ✓ met" : " ✗ missed";
    lines.push(
      `| ${figure} | ${wanted} | ${formatRatio(verdict.spread)}${mark} | ${
        judged ? `${verdict.met} of ${verdict.spread.count}` : "—"
      } |`,
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
