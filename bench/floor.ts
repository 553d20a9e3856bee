// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// Where the runtime's floor lies under toolshed (deno task bench:floor, adr/0053): beside the
// bare programs that bench:e2e and bench:http compare toolshed with, the same programs doing
// only the part of toolshed's work that Deno does and no server of its kind can skip.
//
// Start-up (spawn → the answer to a first `tools/list`, then VmHWM; fresh processes, rounds
// interleaved, caches warmed by one uncounted round): the bare loop; the bare loop after
// importing bench/tools' ten modules; after loading toolshed's code (main.ts's module graph,
// nothing run); after both; toolshed serving bench/tools, from main.ts and as installed (the npm
// package's bundle, built afresh). Issue 42's start-up targets as per-round ratios to the bare
// loop with their spread, and what a start reads (files and bytes) before it runs.
//
// HTTP (wrk, the `tools/call` echo of bench:http, every answer checked): the bare `Deno.serve`;
// the same answer with Deno's share of toolshed's request path (bench/contestants/floor_http.ts);
// toolshed `--http`; at 1 connection (p50) and at 64 (requests/s). With --each-part, also the
// bare server with each part of Deno's share alone (floor_http.ts PART). All of them are up side
// by side and loaded in turn by bursts of S seconds (default 1), the order reversed every other
// round (bench/http/bursts.ts): each ratio is taken within a round, and its median over the N
// rounds is printed with its spread, issue 42's targets (toolshed ÷ the floor program) with
// whether each holds. With --write-docs, the tables go into docs/performance.md between its
// floor markers.
//
//   deno run -A bench/floor.ts [--rounds N] [--seconds S] [--no-http] [--each-part]
//                              [--write-docs]
import { parseArgs } from "../lib/host/args.ts";
import { startLoad } from "../build/bundle.ts";
import { firstAnswer } from "./_first_answer.ts";
import { buildInstalled, installedArgs } from "./_installed.ts";
import { machine, PERFORMANCE_PAGE, writeDocs } from "./e2e/report.ts";
import {
  type BurstRound,
  figureOf,
  formatRatio,
  median,
  type RatioTarget,
  type RoundFigure,
  roundRatios,
  runBursts,
  spreadOf,
  verdictLine,
  verdictOf,
} from "./http/bursts.ts";
import { type RunningServer, start } from "./http/server.ts";
import { echoResult } from "./http/request.ts";
import { removeScript } from "./http/wrk.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TOOLS = `${ROOT}bench/tools`;
const FLOOR_LOOP = `${ROOT}bench/contestants/floor_loop.ts`;

/**
 * The start-up processes by key (the targets name "bare", "toolshed" and "installed"), with the
 * installed toolshed's bundle at `installed` (bench/_installed.ts).
 */
export function startsOf(installed: string): [string, string, string[]][] {
  return [
    ["bare", "bare Deno loop", [`${ROOT}bench/contestants/bare_loop.ts`]],
    ["tools", "bare loop + the ten tool modules imported", [FLOOR_LOOP, "--tools", TOOLS]],
    ["code", "bare loop + toolshed's code loaded, nothing run", [FLOOR_LOOP, "--code"]],
    ["both", "bare loop + toolshed's code + the tool modules", [
      FLOOR_LOOP,
      "--code",
      "--tools",
      TOOLS,
    ]],
    ["toolshed", "toolshed (main.ts) serving the ten tools", [`${ROOT}main.ts`, "--tools", TOOLS]],
    // What `npm install -g` gives (adr/0065, adr/0074), run with the flags its bin gives it.
    [
      "installed",
      "the installed toolshed (the npm package's bundle) serving them",
      installedArgs(installed, ["--tools", TOOLS]),
    ],
  ];
}

/** A start-up target: a ratio to the bare loop of the same round. */
interface StartTarget extends RatioTarget {
  key: string;
  figure: string;
  of: "ms" | "peak";
}

/** Issue 42's start-up targets (adr/0074), for main.ts and for the installed toolshed. */
export const START_TARGETS: StartTarget[] = (["toolshed", "installed"] as const).flatMap((key) => {
  const who = key === "toolshed" ? "main.ts" : "the installed toolshed";
  return [
    {
      key,
      of: "ms" as const,
      figure: `first answer, ${who} ÷ the bare loop`,
      wanted: "≤ 2×",
      meets: (ratio: number) => ratio <= 2,
    },
    {
      key,
      of: "peak" as const,
      figure: `VmHWM at the first answer, ${who} ÷ the bare loop`,
      wanted: "≤ 1.3×",
      meets: (ratio: number) => ratio <= 1.3,
    },
  ];
});

const FLOOR_HTTP = `${ROOT}bench/contestants/floor_http.ts`;
/** The HTTP servers by key (the targets name "floor" and "toolshed"), label and arguments. */
const SERVERS: [string, string, string[]][] = [
  ["bare", "bare `Deno.serve`", [`${ROOT}bench/contestants/bare_http.ts`]],
  ["floor", "bare + Deno's share of toolshed's path", [FLOOR_HTTP]],
  ["toolshed", "toolshed `--http`", [
    `${ROOT}main.ts`,
    "--tools",
    TOOLS,
    "--http",
    "127.0.0.1:0",
  ]],
];
/** The parts of Deno's share (floor_http.ts), each alone with --each-part. */
const PARTS: [string, string][] = [
  ["listener", "its own listener (`serveHttpOnConnection`)"],
  ["delivered", "the delivery promise"],
  ["headers", "the eight header reads"],
  ["body", "the body as bytes, checked as UTF-8"],
];

/** Rows of label, then each figure with its ratio to the first row's (the ceiling). */
export function table(
  header: string[],
  rows: { label: string; figures: number[] }[],
  digits: number[],
): string {
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
  ];
  const base = rows[0].figures;
  for (const { label, figures } of rows) {
    const cells = figures.map((value, i) =>
      `${value.toFixed(digits[i])} (${(value / base[i]).toFixed(2)}×)`
    );
    lines.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Start-up's table: spawn → first answer, and VmHWM; the targets; what a start reads. */
async function startUp(rounds: number): Promise<string> {
  const cwd = await Deno.makeTempDir({ prefix: "toolshed_floor_" });
  try {
    const installed = await buildInstalled(cwd);
    const starts = startsOf(installed);
    const taken = starts.map(() => ({ ms: [] as number[], peak: [] as number[] }));
    for (let round = -1; round < rounds; round++) {
      for (const [i, [, , args]] of starts.entries()) {
        const { ms, status } = await firstAnswer(["run", "-A", ...args], cwd);
        if (round < 0) continue; // the warming round
        taken[i].ms.push(ms);
        taken[i].peak.push(Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1]) / 1024);
      }
    }
    const ratios = (key: string, of: "ms" | "peak") => {
      const figures = taken[starts.findIndex(([each]) => each === key)][of];
      return figures.map((value, round) => value / taken[0][of][round]);
    };
    const reads = [
      ["main.ts", await startLoad(`${ROOT}main.ts`, ["--config", `${ROOT}deno.json`])],
      ["the installed toolshed", await startLoad(installed)],
    ] as const;
    return [
      `Start-up: ${rounds} interleaved rounds, medians (ratio to the bare loop)`,
      "",
      table(
        ["process", "first answer ms", "VmHWM MB"],
        starts.map(([, label], i) => ({
          label,
          figures: [median(taken[i].ms), median(taken[i].peak)],
        })),
        [1, 1],
      ),
      "",
      `Issue 42's start-up targets, each process ÷ the bare loop of the same round, median of ` +
      `${rounds} rounds (min–max; interquartile range):`,
      "",
      ...START_TARGETS.map((target) =>
        `- ${verdictLine(target, verdictOf(target, ratios(target.key, target.of)))}`
      ),
      "",
      `What a start reads before any of it runs: ${
        reads.map(([who, { files, bytes }]) =>
          `${who} ${files} files, ${bytes.toLocaleString("en-US")} bytes`
        ).join("; ")
      } (TypeScript as written; minified JavaScript).`,
    ].join("\n");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/** Issue 42's targets (adr/0074): toolshed ÷ the floor program, over HTTP. */
export const FLOOR_TARGETS: (RatioTarget & { of: RoundFigure })[] = [
  {
    figure: "requests/s at 64 connections, toolshed ÷ the floor program",
    wanted: "≥ 0.9×",
    meets: (ratio) => ratio >= 0.9,
    of: figureOf(64, "rps"),
  },
  {
    figure: "p50 at 1 connection, toolshed ÷ the floor program",
    wanted: "≤ 1.15×",
    meets: (ratio) => ratio <= 1.15,
    of: figureOf(1, "p50Ms"),
  },
];

/**
 * Every server up side by side, loaded in turn by bursts of `seconds` (bench/http/bursts.ts);
 * returns the tables and the target lines.
 */
async function http(rounds: number, seconds: number, eachPart: boolean): Promise<string> {
  const alone = !eachPart ? [] : PARTS.map(([part, what]): [string, string, string[]] => [
    part,
    `bare + ${what} alone`,
    [FLOOR_HTTP, part],
  ]);
  // The bursts run bare, floor, toolshed side by side (the targets' ratios a second apart), then
  // the parts; the tables list the parts between bare and the floor.
  const bursting = [...SERVERS, ...alone];
  const servers = [SERVERS[0], ...alone, ...SERVERS.slice(1)];
  const running: RunningServer[] = [];
  let taken: BurstRound[];
  try {
    for (const [key, label, args] of bursting) {
      running.push(await start({ key, label, args: ["run", "-A", ...args], result: echoResult }));
    }
    taken = await runBursts(
      bursting.map(([key, label], i) => ({ key, label, url: running[i].url, pid: running[i].pid })),
      { rounds, seconds, connections: [1, 64], progress: (message) => console.error(message) },
    );
  } finally {
    await Promise.all(running.map((server) => server.close()));
    await removeScript();
  }
  const p50 = figureOf(1, "p50Ms");
  const rps = figureOf(64, "rps");
  const cell = (of: RoundFigure, key: string, scale: number, digits: number) => {
    const value = median(taken.flatMap((round) => of(round, key) ?? [])) * scale;
    const ratio = key === "bare"
      ? "1.00×"
      : formatRatio(spreadOf(roundRatios(taken, key, "bare", of)));
    return `${value.toLocaleString("en-US", { maximumFractionDigits: digits })} | ${ratio}`;
  };
  const lines = [
    `HTTP: every server up side by side, ${rounds} rounds of ${seconds} s wrk bursts, each ` +
    `round loading each server in turn (the order reversed every other round); medians of the ` +
    `figures, and of the per-round ratios to the bare server with their spread (min–max; ` +
    `interquartile range)`,
    "",
    "| server | p50 µs, 1 connection | ÷ bare | requests/s, 64 connections | ÷ bare |",
    "|---|---|---|---|---|",
    ...servers.map(([key, label]) =>
      `| ${label} | ${cell(p50, key, 1000, 1)} | ${cell(rps, key, 1, 0)} |`
    ),
    "",
    `Issue 42's targets, toolshed ÷ the floor program of the same round, median of ${rounds} ` +
    `rounds (min–max; interquartile range):`,
    "",
    ...FLOOR_TARGETS.map((target) =>
      `- ${
        verdictLine(target, verdictOf(target, roundRatios(taken, "toolshed", "floor", target.of)))
      }`
    ),
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string" },
      seconds: { type: "string" },
      "no-http": { type: "boolean" },
      "each-part": { type: "boolean" },
      "write-docs": { type: "boolean" },
    },
  });
  const rounds = Number(values.rounds ?? "11");
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error(`Cannot run "${values.rounds}" rounds: give a whole number ≥ 1`);
  }
  const seconds = Number(values.seconds ?? "1");
  const withHttp = values["no-http"] !== true;
  if (values["write-docs"] === true && !withHttp) {
    throw new Error("Cannot write the docs with --no-http: the page holds both parts");
  }
  console.log(
    `deno task bench:floor on ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
  );
  const parts = [await startUp(rounds)];
  console.log(`\n${parts[0]}`);
  if (withHttp) {
    parts.push(await http(rounds, seconds, values["each-part"] === true));
    console.log(`\n${parts[1]}`);
  }
  if (values["write-docs"] === true) {
    const command = `deno task bench:floor${values["each-part"] === true ? " --each-part" : ""}`;
    const measured = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}, Deno ` +
      `${Deno.version.deno}: \`${command}\`, ${rounds} rounds.`;
    await writeDocs(`${ROOT}${PERFORMANCE_PAGE}`, "floor", [measured, ...parts].join("\n\n"));
    console.error(`Updated the floor tables of ${PERFORMANCE_PAGE}`);
  }
}
