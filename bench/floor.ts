// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// Where the runtime's floor lies under toolshed (deno task bench:floor, adr/0053): beside the
// bare programs that bench:e2e and bench:http compare toolshed with, the same programs doing
// only the part of toolshed's work that Deno does and no server of its kind can skip.
//
// Start-up (spawn → the answer to a first `tools/list`, then VmHWM; fresh processes, rounds
// interleaved, caches warmed by one uncounted round): the bare loop; the bare loop after
// importing bench/tools' ten modules; after loading toolshed's code (main.ts's module graph,
// nothing run); after both; toolshed serving bench/tools.
//
// HTTP (wrk, the `tools/call` echo of bench:http, every answer checked): the bare `Deno.serve`;
// the same answer with Deno's share of toolshed's request path (bench/contestants/floor_http.ts);
// toolshed `--http`; at 1 connection (p50) and at 64 (requests/s). With --each-part, also the
// bare server with each part of Deno's share alone (floor_http.ts PART).
//
//   deno run -A bench/floor.ts [--rounds N] [--seconds S] [--no-http] [--each-part]
import { parseArgs } from "../lib/host/args.ts";
import { firstAnswer } from "./_first_answer.ts";
import { start } from "./http/server.ts";
import { removeScript, wrk } from "./http/wrk.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TOOLS = `${ROOT}bench/tools`;
const FLOOR_LOOP = `${ROOT}bench/contestants/floor_loop.ts`;

const STARTS: [string, string[]][] = [
  ["bare Deno loop", [`${ROOT}bench/contestants/bare_loop.ts`]],
  ["bare loop + the ten tool modules imported", [FLOOR_LOOP, "--tools", TOOLS]],
  ["bare loop + toolshed's code loaded, nothing run", [FLOOR_LOOP, "--code"]],
  ["bare loop + toolshed's code + the tool modules", [FLOOR_LOOP, "--code", "--tools", TOOLS]],
  ["toolshed serving the ten tools", [`${ROOT}main.ts`, "--tools", TOOLS]],
];

const FLOOR_HTTP = `${ROOT}bench/contestants/floor_http.ts`;
const SERVERS: [string, string[]][] = [
  ["bare `Deno.serve`", [`${ROOT}bench/contestants/bare_http.ts`]],
  ["bare + Deno's share of toolshed's path", [FLOOR_HTTP]],
  ["toolshed `--http`", [`${ROOT}main.ts`, "--tools", TOOLS, "--http", "127.0.0.1:0"]],
];
/** The parts of Deno's share (floor_http.ts), each alone with --each-part. */
const PARTS: [string, string][] = [
  ["listener", "its own listener (`serveHttpOnConnection`)"],
  ["delivered", "the delivery promise"],
  ["headers", "the eight header reads"],
  ["body", "the body as bytes, checked as UTF-8"],
];

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

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

async function startUp(rounds: number): Promise<void> {
  const cwd = await Deno.makeTempDir({ prefix: "toolshed_floor_" });
  try {
    const taken = STARTS.map(() => ({ ms: [] as number[], peak: [] as number[] }));
    for (let round = -1; round < rounds; round++) {
      for (const [i, [, args]] of STARTS.entries()) {
        const { ms, status } = await firstAnswer(["run", "-A", ...args], cwd);
        if (round < 0) continue; // the warming round
        taken[i].ms.push(ms);
        taken[i].peak.push(Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1]) / 1024);
      }
    }
    console.log(`\nStart-up: ${rounds} interleaved rounds, medians (ratio to the bare loop)\n`);
    console.log(table(
      ["process", "first answer ms", "VmHWM MB"],
      STARTS.map(([label], i) => ({
        label,
        figures: [median(taken[i].ms), median(taken[i].peak)],
      })),
      [1, 1],
    ));
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

async function http(rounds: number, seconds: number, eachPart: boolean): Promise<void> {
  if (eachPart) {
    const alone = PARTS.map(([part, what]): [string, string[]] => [
      `bare + ${what} alone`,
      [FLOOR_HTTP, part],
    ]);
    SERVERS.splice(1, 0, ...alone);
  }
  const taken = SERVERS.map(() => ({ p50: [] as number[], rps: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, [label, args]] of SERVERS.entries()) {
      const server = await start({ key: `floor${i}`, label, args: ["run", "-A", ...args], result });
      try {
        for (const [connections, into] of [[1, taken[i].p50], [64, taken[i].rps]] as const) {
          const run = await wrk({ url: server.url, connections, seconds });
          if (run.bad > 0 || run.requests === 0) {
            throw new Error(`${label}: ${run.bad} bad answers of ${run.requests}`);
          }
          into.push(connections === 1 ? run.p50Ms * 1000 : run.rps);
        }
      } finally {
        await server.close();
      }
    }
  }
  await removeScript();
  console.log(
    `\nHTTP: ${rounds} interleaved rounds of ${seconds} s runs, medians (ratio to bare)\n`,
  );
  console.log(table(
    ["server", "p50 µs, 1 connection", "requests/s, 64 connections"],
    SERVERS.map(([label], i) => ({
      label,
      figures: [median(taken[i].p50), median(taken[i].rps)],
    })),
    [1, 0],
  ));
}

/** wrk checks the echoed text of every answer; the exact result is bench:http's to check. */
function result(text: string): unknown {
  return { content: [{ type: "text", text }] };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string" },
      seconds: { type: "string" },
      "no-http": { type: "boolean" },
      "each-part": { type: "boolean" },
    },
  });
  const rounds = Number(values.rounds ?? "11");
  console.log(
    `deno task bench:floor on ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
  );
  await startUp(rounds);
  if (values["no-http"] !== true) {
    await http(Math.min(rounds, 5), Number(values.seconds ?? "3"), values["each-part"] === true);
  }
}
