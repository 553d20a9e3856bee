// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// What being toolshed's process costs a request none of toolshed's code handles (issue 42,
// adr/0074): the HTTP floor program (bench/contestants/floor_http.ts) against itself in a
// process that has loaded toolshed's server and HTTP modules, and in one that has built
// toolshed's server and serves it, idle (floor_in_toolshed.ts); and against toolshed `--http`,
// the whole path. Each pair is up alone and loaded in turn by bursts at 64 connections, the
// order reversed every other round (bench/http/bursts.ts); printed: the median of the per-round
// ratios of requests/s and of CPU time per request, with their spread. The first row pairs the
// floor program with a second copy of itself: the spread a pair shows with nothing between them.
//
// `--cuts` adds a row for each copy of this tree with its path cut short at one point, answering
// the echo there (floor_cuts.ts: at the route, right after admission): what the path costs up to
// each cut (adr/0074, step 14). `--against DIR` (repeatable) adds one for the `--http` of the
// checkout at DIR.
//
//   deno task bench:floor-process [--rounds N] [--seconds S] [--cuts] [--against DIR]...
import { parseArgs } from "../lib/host/args.ts";
import { againstCheckout } from "./_against.ts";
import { cutCopy, CUTS } from "./floor_cuts.ts";
import {
  type BurstRound,
  figureOf,
  formatRatio,
  median,
  roundRatios,
  runBursts,
  spreadOf,
} from "./http/bursts.ts";
import { type RunningServer, start } from "./http/server.ts";
import { echoResult } from "./http/request.ts";
import { removeScript } from "./http/wrk.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const FLOOR = `${ROOT}bench/contestants/floor_http.ts`;
const IN_TOOLSHED = `${ROOT}bench/contestants/floor_in_toolshed.ts`;

/** `--http` on the echo and the nine fillers, from the main.ts at `main`. */
const httpOf = (main: string) => [main, "--tools", `${ROOT}bench/tools`, "--http", "127.0.0.1:0"];

/** Each one, against the floor program: key, label, arguments to `deno run -A`. */
const AGAINST_FLOOR: [string, string, string[]][] = [
  ["itself", "the floor program itself", [FLOOR]],
  ["loaded", "the floor, toolshed's modules loaded", [IN_TOOLSHED, "loaded"]],
  ["serving", "the floor, toolshed's server built and serving idle", [IN_TOOLSHED, "serving"]],
  ["toolshed", "toolshed `--http`", httpOf(`${ROOT}main.ts`)],
];

const rps = figureOf(64, "rps");
const cpu = figureOf(64, "cpuUsPerRequest");

/** The floor and `args` up alone, loaded in turn: the rounds. */
async function pair(args: string[], rounds: number, seconds: number): Promise<BurstRound[]> {
  const running: RunningServer[] = [];
  try {
    for (const [key, which] of [["floor", [FLOOR]], ["other", args]] as const) {
      running.push(
        await start({ key, label: key, args: ["run", "-A", ...which], result: echoResult }),
      );
    }
    return await runBursts(
      running.map((server, i) => ({
        key: i === 0 ? "floor" : "other",
        label: i === 0 ? "the floor program" : args.join(" "),
        url: server.url,
        pid: server.pid,
      })),
      { rounds, seconds, connections: [64], progress: (message) => console.error(message) },
    );
  } finally {
    await Promise.all(running.map((server) => server.close()));
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string" },
      seconds: { type: "string" },
      against: { type: "string", multiple: true },
      cuts: { type: "boolean" },
    },
  });
  const against: typeof AGAINST_FLOOR = [];
  for (const dir of values.against ?? []) {
    const { main, label } = await againstCheckout(dir);
    against.push([dir, `${label} \`--http\``, httpOf(main)]);
  }
  const rounds = Number(values.rounds ?? "12");
  const seconds = Number(values.seconds ?? "1");
  console.log(
    `deno task bench:floor-process on ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}: ` +
      `each pair alone, ${rounds} rounds of ${seconds} s bursts at 64 connections`,
  );
  console.log(
    "\n| against the floor program | requests/s ÷ floor | CPU per request ÷ floor | requests/s |",
  );
  console.log("|---|---|---|---|");
  const copies = values.cuts ? await Deno.makeTempDir({ prefix: "toolshed_floor_cuts_" }) : "";
  try {
    const cut: typeof AGAINST_FLOOR = [];
    for (const { key, label } of values.cuts ? CUTS : []) {
      await cutCopy(key, `${copies}/${key}`);
      cut.push([key, label, httpOf(`${copies}/${key}/main.ts`)]);
    }
    for (const [key, label, args] of [...AGAINST_FLOOR, ...cut, ...against]) {
      const taken = await pair(args, rounds, seconds);
      const ratio = (of: typeof rps) =>
        formatRatio(spreadOf(roundRatios(taken, "other", "floor", of)));
      const rate = median(taken.flatMap((round) => rps(round, "other") ?? []));
      console.log(`| ${label} (${key}) | ${ratio(rps)} | ${ratio(cpu)} | ${rate.toFixed(0)} |`);
    }
  } finally {
    await removeScript();
    if (copies !== "") await Deno.remove(copies, { recursive: true });
  }
}
