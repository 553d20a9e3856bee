// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// The end-to-end stdio benchmark (deno task bench:e2e): real server processes, real pipes,
// every response checked. Contestants are measured round by round, interleaved, and every
// ratio is taken within a round before the median is taken, so machine noise that hits
// one round hits every contestant in it.
//
//   deno run -A bench/e2e.ts [--rounds N] [--quick] [--write-docs] [--against DIR] [--otel]
//                            [--metrics] [--rate-limit] [--burst-rounds N] [--burst-ms MS]
//
// After the rounds, the pipelined targets are measured again in bursts (bench/e2e/bursts.ts): the
// bare loop, toolshed from main.ts and as installed, and the SDK up side by side, each loaded in
// turn for --burst-ms (750; 250 with --quick) in each of --burst-rounds rounds (11; 3 with
// --quick), the order reversed every other round. Those ratios give the pipelined verdicts; the
// tables stay the rounds'.
//
// With --rate-limit, toolshed runs a second time in each era with `--rate-limit` set too high to
// ever refuse (every request checks its caller's bucket), and a table gives limited ÷ unlimited.
//
// With --metrics, toolshed with `--metrics 127.0.0.1:0` runs beside it in every round, and what
// counting requests costs is printed as its ratios to toolshed without (adr/0042).
//
// --otel runs this commit's toolshed with Deno's OpenTelemetry on, exporting to a sink served
// here (bench/_otel.ts); against a copy of this commit, the ratios are telemetry's cost.
//
// Toolshed runs from source (`deno run -A main.ts`) and as installed: the npm package's split,
// minified bundle, built afresh from this commit into a temporary folder and run as its bin runs
// it (bench/_installed.ts); with --against DIR too, the installed row is this commit's.
// Prints the tables and issue 42's stdio targets as verdicts over the rounds and bursts, writes
// bench/results/e2e-latest.json, and with --write-docs puts both into docs/performance.md
// between the e2e markers.
import { parseArgs } from "node:util";
import type { Contestant } from "./e2e/client.ts";
import { measureRound, median, type RoundResult, type Workload } from "./e2e/measure.ts";
import {
  checkBurstOptions,
  runStdioBursts,
  type StdioBurstOptions,
  type StdioBurstRound,
} from "./e2e/bursts.ts";
import { machine, PERFORMANCE_PAGE, writeDocs } from "./e2e/report.ts";
import { againstCheckout, changeTable } from "./_against.ts";
import { buildInstalled, installedArgs } from "./_installed.ts";
import { startOtlpSink } from "./_otel.ts";
import {
  formatRatio,
  type RatioTarget,
  roundRatios,
  spreadOf,
  type Verdict,
  verdictLine,
  verdictOf,
} from "./http/bursts.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const KIB = 1024;
const MIB = 1024 * KIB;

/** The 16 MiB echo needs lines past the default --max-message-bytes (4 MiB). */
const BIG_LINES = ["--max-message-bytes", String(32 * 1024 * 1024)];

/** Toolshed's own arguments, the same from source and as installed. */
const TOOLSHED_ARGS = ["--tools", `${ROOT}bench/tools`, ...BIG_LINES];

/** The contestants of every run, with the installed toolshed's bundle at `installed`. */
export function contestantsOf(installed: string): Contestant[] {
  return [
    {
      key: "bare",
      label: "bare Deno loop (the ceiling)",
      args: ["run", "-A", `${ROOT}bench/contestants/bare_loop.ts`],
      era: "modern",
    },
    {
      key: "toolshed-modern",
      label: "toolshed, 2026-07-28 requests",
      args: ["run", "-A", `${ROOT}main.ts`, ...TOOLSHED_ARGS],
      era: "modern",
    },
    {
      key: "installed",
      label: "toolshed installed (npm bundle), 2026-07-28",
      args: ["run", "-A", ...installedArgs(installed, TOOLSHED_ARGS)],
      era: "modern",
    },
    {
      key: "toolshed-legacy",
      label: "toolshed, 2025-11-25 session",
      args: ["run", "-A", `${ROOT}main.ts`, ...TOOLSHED_ARGS],
      era: "legacy",
    },
    {
      key: "sdk-v2",
      label: "official TS SDK v2 2.4.0, 2026-07-28",
      args: ["run", "-A", `${ROOT}bench/contestants/sdk_v2_server.ts`],
      era: "modern",
    },
  ];
}

/** Toolshed from source, by era: --metrics and --rate-limit run a variant of each. */
const TOOLSHED = ["toolshed-modern", "toolshed-legacy"];
/** The columns of the targets' table: toolshed from source and as installed. */
const TARGET_KEYS = ["toolshed-modern", "installed", "toolshed-legacy"];
/** A per-caller limit no benchmark reaches: every request is checked, none is refused. */
const NEVER_REFUSED = "1000000000/s";

interface Target {
  figure: string;
  target: string;
  /** The ratio for one toolshed contestant in one round. */
  ratio(round: Record<string, RoundResult>, key: string): number;
  holds(ratio: number): boolean;
}

const perByte = (result: RoundResult, size: number) => result.payloadMs[size] / size;

/** One round of bench:e2e: each contestant's figures, by key. */
type E2eRound = Record<string, RoundResult>;

/** An issue 42 target on a ratio within a round: `key`'s figure ÷ `before`'s. */
interface RatioWithin extends RatioTarget {
  key: string;
  before: string;
}

/**
 * A stdio target, on the rounds of bench:e2e (each contestant run whole in turn) or on the
 * bursts (every server up side by side, bench/e2e/bursts.ts).
 */
type StdioTarget =
  | RatioWithin & { from: "rounds"; of(round: E2eRound, key: string): number | undefined }
  | RatioWithin & { from: "bursts"; of(round: StdioBurstRound, key: string): number | undefined };

/** Issue 42's stdio targets (adr/0074), for main.ts and for the installed toolshed. */
export const STDIO_TARGETS: StdioTarget[] = (
  [["toolshed-modern", "main.ts"], ["installed", "the installed toolshed"]] as const
).flatMap(([key, who]): StdioTarget[] => [
  {
    from: "rounds",
    key,
    before: "bare",
    figure: `peak RSS, ${who} ÷ the bare loop`,
    wanted: "≤ 1.3×",
    meets: (ratio: number) => ratio <= 1.3,
    of: (round, each) => round[each]?.peakRssMb,
  },
  {
    from: "bursts",
    key,
    before: "sdk-v2",
    figure: `pipelined req/s in bursts, ${who} ÷ the official SDK v2`,
    wanted: "≥ 4×",
    meets: (ratio: number) => ratio >= 4,
    of: (round, each) => round[each]?.rps,
  },
]);

/** The contestants of the bursts: those the pipelined targets divide, and the bare loop. */
export const BURST_KEYS = ["bare", "toolshed-modern", "installed", "sdk-v2"];

/** What the stdio targets are measured on: the rounds, and the rounds of bursts. */
export interface StdioMeasured {
  rounds: readonly E2eRound[];
  bursts: readonly StdioBurstRound[];
}

/** A target's verdict over its rounds (of bench:e2e or of bursts): its ratio taken within each. */
export function stdioVerdict(target: StdioTarget, measured: StdioMeasured): Verdict {
  const ratios = target.from === "rounds"
    ? roundRatios(measured.rounds, target.key, target.before, target.of)
    : roundRatios(measured.bursts, target.key, target.before, target.of);
  return verdictOf(target, ratios);
}

/** The targets' verdicts as the lines under the tables, saying which come from bursts. */
function verdictLines(
  measured: StdioMeasured,
  bursts: StdioBurstOptions,
  contestants: readonly Contestant[],
): string {
  const rps = contestants.filter((contestant) => BURST_KEYS.includes(contestant.key)).map(
    ({ key, label }) => {
      const figures = measured.bursts.flatMap((round) => round[key] ? [round[key].rps] : []);
      return `${label} ${Math.round(median(figures)).toLocaleString("en-US")}`;
    },
  );
  return [
    `Issue 42's stdio targets, each ratio taken within a round, the median over the rounds ` +
    `(min–max; interquartile range). Peak RSS comes from the ${measured.rounds.length} rounds ` +
    `above; pipelined req/s from ${measured.bursts.length} rounds of bursts: every server up ` +
    `side by side, each warmed by one uncounted ${bursts.warmMs} ms burst, then loaded in turn ` +
    `for ${bursts.ms} ms at ${bursts.inFlight} in flight, the order reversed every other round ` +
    `(bench/e2e/bursts.ts).`,
    "",
    ...STDIO_TARGETS.map((target) => `- ${verdictLine(target, stdioVerdict(target, measured))}`),
    "",
    `Pipelined req/s in the bursts, medians: ${rps.join("; ")}.`,
    "",
    ceilingLine(measured.bursts),
  ].join("\n");
}

/**
 * What the bursts say of the ceiling: the bare loop ÷ the SDK, the most any server doing the echo
 * over stdio on this Deno can show against it, and toolshed ÷ the bare loop, per round.
 */
export function ceilingLine(bursts: readonly StdioBurstRound[]): string {
  const rps = (round: StdioBurstRound, key: string) => round[key]?.rps;
  const ratio = (after: string, before: string) =>
    formatRatio(spreadOf(roundRatios(bursts, after, before, rps)));
  return `The ceiling in the same bursts: the bare loop ÷ the official SDK v2 ` +
    `${ratio("bare", "sdk-v2")}; main.ts ÷ the bare loop ${ratio("toolshed-modern", "bare")}; ` +
    `the installed toolshed ÷ the bare loop ${ratio("installed", "bare")}.`;
}

const TARGETS: Target[] = [
  {
    figure: "pipelined throughput vs bare loop",
    target: "≥ 0.85×",
    ratio: (r, k) => r[k].pipelinedRps / r.bare.pipelinedRps,
    holds: (x) => x >= 0.85,
  },
  {
    figure: "pipelined throughput vs official SDK v2",
    target: "≥ 4×",
    ratio: (r, k) => r[k].pipelinedRps / r["sdk-v2"].pipelinedRps,
    holds: (x) => x >= 4,
  },
  {
    figure: "sequential p50 latency vs bare loop",
    target: "≤ 1.25×",
    ratio: (r, k) => r[k].seqP50Ms / r.bare.seqP50Ms,
    holds: (x) => x <= 1.25,
  },
  {
    figure: "cold start vs bare loop",
    target: "≤ 1.3×",
    ratio: (r, k) => r[k].coldStartMs / r.bare.coldStartMs,
    holds: (x) => x <= 1.3,
  },
  {
    figure: "peak RSS vs bare loop",
    target: "≤ 1.3×",
    ratio: (r, k) => r[k].peakRssMb / r.bare.peakRssMb,
    holds: (x) => x <= 1.3,
  },
  {
    figure: "1 MiB echo round trip vs bare loop",
    target: "≤ 1.3×",
    ratio: (r, k) => r[k].payloadMs[MIB] / r.bare.payloadMs[MIB],
    holds: (x) => x <= 1.3,
  },
  {
    figure: "per-byte cost at 16 MiB vs at 1 MiB",
    target: "≤ 1.5×",
    ratio: (r, k) => perByte(r[k], 16 * MIB) / perByte(r[k], MIB),
    holds: (x) => x <= 1.5,
  },
];

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    options: {
      rounds: { type: "string", default: "7" },
      quick: { type: "boolean", default: false },
      "write-docs": { type: "boolean", default: false },
      against: { type: "string" },
      otel: { type: "boolean", default: false },
      metrics: { type: "boolean", default: false },
      "rate-limit": { type: "boolean", default: false },
      "burst-rounds": { type: "string" },
      "burst-ms": { type: "string" },
    },
  }).values;
}

type Options = ReturnType<typeof parseOptions>;

/** Requests kept outstanding in the rounds' pipelined figure and in the bursts. */
const IN_FLIGHT = 64;

/**
 * The pipelined targets' bursts, refused at once if no burst can run with them: 11 rounds of
 * 750 ms after a 2 s warm-up each (4 servers: about 40 s in all), each server answering thousands
 * of requests in a burst even on a bad second.
 */
function burstOptionsOf(values: Options): StdioBurstOptions {
  const bursts = {
    rounds: Number(values["burst-rounds"] ?? (values.quick ? 3 : 11)),
    ms: Number(values["burst-ms"] ?? (values.quick ? 250 : 750)),
    warmMs: 2000,
    inFlight: IN_FLIGHT,
    progress,
  };
  checkBurstOptions(bursts);
  return bursts;
}

async function main(): Promise<void> {
  const values = parseOptions(Deno.args);
  const bursts = burstOptionsOf(values);
  // The installed toolshed: this commit's bundle, built for this run and removed after it.
  const folder = await Deno.makeTempDir({ prefix: "toolshed_e2e_" });
  try {
    await run(values, bursts, await buildInstalled(folder));
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

async function run(
  values: Options,
  bursts: StdioBurstOptions,
  installed: string,
): Promise<void> {
  const contestants = contestantsOf(installed);
  const sink = values.otel ? startOtlpSink() : undefined;
  if (sink !== undefined) {
    for (const contestant of contestants) {
      if ([...TOOLSHED, "installed"].includes(contestant.key)) contestant.env = sink.env;
    }
  }
  // With --against DIR, DIR's main.ts runs beside this one in every round (bench/_against.ts).
  const against = values.against === undefined ? undefined : await againstCheckout(values.against);
  if (against !== undefined) {
    if (values["write-docs"]) throw new Error("--against compares; it does not write the docs");
    for (const era of ["modern", "legacy"] as const) {
      contestants.push({
        key: `against-${era}`,
        label: `${against.label}, ${
          era === "modern" ? "2026-07-28 requests" : "2025-11-25 session"
        }`,
        args: ["run", "-A", against.main, ...TOOLSHED_ARGS],
        era,
      });
    }
  }
  if (values.metrics) {
    if (values["write-docs"]) throw new Error("--metrics compares; it does not write the docs");
    for (const era of ["modern", "legacy"] as const) {
      const plain = contestants.find((contestant) => contestant.key === `toolshed-${era}`)!;
      contestants.push({
        ...plain,
        key: `metrics-${era}`,
        label: `${plain.label}, --metrics`,
        args: [...plain.args, "--metrics", "127.0.0.1:0"],
      });
    }
  }
  if (values["rate-limit"]) {
    if (values["write-docs"]) throw new Error("--rate-limit compares; it does not write the docs");
    for (const key of TOOLSHED) {
      const unlimited = contestants.find((contestant) => contestant.key === key)!;
      contestants.push({
        ...unlimited,
        key: `${key}-limited`,
        label: `${unlimited.label}, --rate-limit ${NEVER_REFUSED}`,
        args: [...unlimited.args, "--rate-limit", NEVER_REFUSED],
      });
    }
  }
  const rounds = Number(values.rounds);
  const work: Workload = values.quick
    ? { sequential: 300, pipelined: 3_000, inFlight: IN_FLIGHT, payloadSizes: [KIB, MIB, 16 * MIB] }
    : {
      sequential: 2_000,
      pipelined: 20_000,
      inFlight: IN_FLIGHT,
      payloadSizes: [KIB, 16 * KIB, 256 * KIB, MIB, 4 * MIB, 16 * MIB],
    };

  progress(`Warming up (compiling and caching each contestant once)…`);
  for (const contestant of contestants) {
    await measureRound(contestant, { ...work, sequential: 10, pipelined: 64, payloadSizes: [] });
  }

  const results: Record<string, RoundResult>[] = [];
  for (let round = 0; round < rounds; round++) {
    const byKey: Record<string, RoundResult> = {};
    // Rotate the order each round so that no contestant always runs first or last.
    const order = contestants.map((_, i) => contestants[(i + round) % contestants.length]);
    for (const contestant of order) {
      progress(`Round ${round + 1}/${rounds}: ${contestant.label}`);
      byKey[contestant.key] = await measureRound(contestant, work);
    }
    results.push(byKey);
  }
  const burstRounds = await runStdioBursts(
    contestants.filter((contestant) => BURST_KEYS.includes(contestant.key)),
    bursts,
  );

  if (sink !== undefined) {
    console.log(`With --otel: ${sink.exports()} OTLP exports received from this commit's servers`);
    await sink.close();
  }
  const report = { ...summarize(results, work, contestants), bursts_raw: burstRounds };
  const measured = { rounds: results, bursts: burstRounds };
  const tables = `${render(report)}\n\n${verdictLines(measured, bursts, contestants)}`;
  console.log(tables);
  if (against !== undefined) {
    const figure = (name: keyof RoundResult) => (round: Record<string, RoundResult>, key: string) =>
      round[key]?.[name] as number | undefined;
    console.log(
      `\nThis commit ÷ ${against.label}: medians of per-round ratios (each round's in brackets).\n\n` +
        changeTable(results, [
          { label: "2026-07-28", after: "toolshed-modern", before: "against-modern" },
          { label: "2025-11-25", after: "toolshed-legacy", before: "against-legacy" },
        ], [
          { name: "pipelined req/s", of: figure("pipelinedRps") },
          { name: "sequential p50", of: figure("seqP50Ms") },
          { name: "CPU per request", of: figure("cpuUsPerRequest") },
          { name: "cold start", of: figure("coldStartMs") },
          { name: "peak RSS", of: figure("peakRssMb") },
          { name: "1 MiB echo", of: (round, key) => round[key]?.payloadMs[MIB] },
        ]),
    );
  }
  if (values.metrics) {
    const figure = (name: keyof RoundResult) => (round: Record<string, RoundResult>, key: string) =>
      round[key]?.[name] as number | undefined;
    console.log(
      `\nWith --metrics ÷ without: medians of per-round ratios (each round's in brackets).\n\n` +
        changeTable(results, [
          { label: "2026-07-28", after: "metrics-modern", before: "toolshed-modern" },
          { label: "2025-11-25", after: "metrics-legacy", before: "toolshed-legacy" },
        ], [
          { name: "pipelined req/s", of: figure("pipelinedRps") },
          { name: "sequential p50", of: figure("seqP50Ms") },
          { name: "CPU per request", of: figure("cpuUsPerRequest") },
          { name: "cold start", of: figure("coldStartMs") },
          { name: "peak RSS", of: figure("peakRssMb") },
          { name: "1 MiB echo", of: (round, key) => round[key]?.payloadMs[MIB] },
        ]),
    );
  }
  if (values["rate-limit"]) {
    console.log(
      `\nWith --rate-limit ${NEVER_REFUSED} ÷ without: medians of per-round ratios (each round's ` +
        `in brackets).\n\n` +
        changeTable(
          results,
          TOOLSHED.map((key) => ({
            label: key === "toolshed-modern" ? "2026-07-28" : "2025-11-25",
            after: `${key}-limited`,
            before: key,
          })),
          [
            { name: "pipelined req/s", of: (round, key) => round[key]?.pipelinedRps },
            { name: "sequential p50", of: (round, key) => round[key]?.seqP50Ms },
            { name: "CPU per request", of: (round, key) => round[key]?.cpuUsPerRequest },
            { name: "cold start", of: (round, key) => round[key]?.coldStartMs },
            { name: "peak RSS", of: (round, key) => round[key]?.peakRssMb },
          ],
        ),
    );
  }
  // The latest figures of this commit alone: a comparison (--against, --metrics, --rate-limit)
  // leaves them.
  if (against === undefined && !values.metrics && !values["rate-limit"]) {
    const out = `${ROOT}bench/results/e2e-latest.json`;
    await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
    await Deno.writeTextFile(out, JSON.stringify(report, null, 2) + "\n");
    progress(`Wrote ${out}`);
  }
  if (values["write-docs"]) {
    await writeDocs(`${ROOT}${PERFORMANCE_PAGE}`, "e2e", tables);
    progress(`Updated the stdio tables of ${PERFORMANCE_PAGE}`);
  }
}

function summarize(results: E2eRound[], work: Workload, contestants: Contestant[]) {
  const metrics = Object.keys(results[0].bare) as (keyof RoundResult)[];
  const medians: Record<string, Record<string, unknown>> = {};
  for (const contestant of contestants) {
    const mine = results.map((round) => round[contestant.key]);
    const summary: Record<string, unknown> = {};
    for (const metric of metrics) {
      if (metric === "payloadMs") {
        summary.payloadMs = Object.fromEntries(
          work.payloadSizes.map((size) => [size, median(mine.map((r) => r.payloadMs[size]))]),
        );
      } else {
        summary[metric] = median(mine.map((r) => r[metric] as number));
      }
    }
    medians[contestant.key] = summary;
  }
  const targets = TARGETS.filter((t) =>
    work.payloadSizes.includes(16 * MIB) || !t.figure.includes("16 MiB")
  ).map((target) => {
    const ratios = Object.fromEntries(
      TARGET_KEYS.map((key) => [key, median(results.map((round) => target.ratio(round, key)))]),
    );
    return {
      figure: target.figure,
      target: target.target,
      ratios,
      holds: Object.fromEntries(TARGET_KEYS.map((key) => [key, target.holds(ratios[key])])),
    };
  });
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    deno: Deno.version.deno,
    rounds: results.length,
    workload: work,
    contestants: contestants.map(({ key, label, era }) => ({ key, label, era })),
    medians,
    targets,
    rounds_raw: results,
  };
}

type Report = ReturnType<typeof summarize>;

function render(report: Report): string {
  const m = (key: string) => report.medians[key] as unknown as RoundResult;
  // NaN marks a payload a server did not answer (the SDK's 10 MiB read-buffer cap).
  const fixed = (value: number, digits: number) =>
    Number.isNaN(value) ? "no answer" : value.toLocaleString("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
  const lines = [
    `Measured ${report.date} on ${report.machine}, Deno ${report.deno}: medians of ` +
    `${report.rounds} interleaved rounds (\`deno task bench:e2e\`). Ratios are medians of ` +
    `per-round ratios.`,
    "",
    "| server | cold start ms | seq p50 ms | seq p99 ms | seq req/s | pipelined req/s (64 in flight) | peak RSS MB | 1 MiB echo ms | CPU µs/request |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const contestant of report.contestants) {
    const r = m(contestant.key);
    lines.push(
      `| ${contestant.label} | ${fixed(r.coldStartMs, 0)} | ${fixed(r.seqP50Ms, 3)} | ${
        fixed(r.seqP99Ms, 3)
      } | ${fixed(r.seqRps, 0)} | ${fixed(r.pipelinedRps, 0)} | ${fixed(r.peakRssMb, 1)} | ${
        fixed(r.payloadMs[MIB], 1)
      } | ${fixed(r.cpuUsPerRequest, 1)} |`,
    );
  }
  const sizes = report.workload.payloadSizes;
  lines.push(
    "",
    `Echo round trip by payload size, ms: ${
      sizes.map((s) => s >= MIB ? `${s / MIB} MiB` : `${s / KIB} KiB`).join(", ")
    }.`,
    "",
    `| server | ${sizes.map((s) => s >= MIB ? `${s / MIB} MiB` : `${s / KIB} KiB`).join(" | ")} |`,
    `|---|${sizes.map(() => "---").join("|")}|`,
  );
  for (const contestant of report.contestants) {
    const r = m(contestant.key);
    lines.push(
      `| ${contestant.label} | ${sizes.map((s) => fixed(r.payloadMs[s], 2)).join(" | ")} |`,
    );
  }
  lines.push(
    "",
    "| target | wanted | toolshed, 2026-07-28 | installed, 2026-07-28 | toolshed, 2025-11-25 |",
    "|---|---|---|---|---|",
  );
  for (const target of report.targets) {
    const cell = (key: string) =>
      `${fixed(target.ratios[key], 2)}× ${target.holds[key] ? "✓" : "✗ missed"}`;
    lines.push(
      `| ${target.figure} | ${target.target} | ${TARGET_KEYS.map(cell).join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

function progress(message: string): void {
  console.error(message);
}

if (import.meta.main) await main();
