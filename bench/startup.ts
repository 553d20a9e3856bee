// deno-lint-ignore-file no-console -- a benchmark prints its tables for people
// Start-up: milliseconds from spawning a server to its answer to a first `tools/list`, over
// stdio, serving bench/tools. Two groups, each with its baseline measured in the same run:
//
// - "distribution" (adr/0018), against the bare Deno loop (bench/contestants/bare_loop.ts):
//   main.ts from disk; main.ts from a URL, cached and first run (--reload: every module
//   fetched and transpiled); the same three for the bundle, dist/toolshed.js (built afresh
//   into a scratch directory by build/bundle.ts); and the npm package's split, minified
//   bundle from disk (adr/0074). URLs are served by a static server
//   on 127.0.0.1 in this process.
// - "directory", against `main.ts --tools` alone: what the server directory costs, beside
//   empty resources/ and prompts/ folders and beside the repository's examples.
//
// Interleaved rounds, every process started from an empty directory; medians, and each as a
// ratio to its group's baseline.
//
//   deno run -A bench/startup.ts [--rounds N] [--group distribution|directory]
import { serveStatic } from "../tests/_static_server.ts";
import { parseArgs } from "../lib/host/args.ts";
import { bundle } from "../build/bundle.ts";
import { firstAnswer } from "./_first_answer.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TOOLS = `${ROOT}bench/tools`;
const CONTENT_TYPES: Record<string, string> = {
  ".ts": "application/typescript",
  ".js": "text/javascript",
  ".json": "application/json",
};

/** Milliseconds until the first line of output, which must be the answer. */
async function timeToFirstAnswer(args: string[], cwd: string): Promise<number> {
  return (await firstAnswer(args, cwd)).ms;
}

/** Serves the repository, and the bundle as /toolshed.js, read-only on 127.0.0.1. */
function serveRepositoryAndBundle(bundlePath: string) {
  return serveStatic((path) => {
    const type = CONTENT_TYPES[path.slice(path.lastIndexOf("."))];
    if (type === undefined) return undefined;
    return { file: path === "/toolshed.js" ? bundlePath : `${ROOT}${path.slice(1)}`, type };
  });
}

type Contestant = [label: string, args: string[]];

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string" }, group: { type: "string" } },
});
const rounds = Number(values.rounds ?? "9");
const groups = values.group === undefined ? ["distribution", "directory"] : [values.group];
for (const group of groups) {
  if (group !== "distribution" && group !== "directory") {
    throw new Error(`Unknown group "${group}": use "distribution" or "directory"`);
  }
}

const scratch = await Deno.makeTempDir({ prefix: "toolshed_startup_" });
const cwd = `${scratch}/cwd`;
await Deno.mkdir(cwd);
const bundlePath = `${scratch}/toolshed.js`;
await bundle(bundlePath);
// The npm package's: split into an entry and chunks, minified (adr/0074).
const splitPath = `${scratch}/split/toolshed.js`;
await Deno.mkdir(`${scratch}/split`);
await bundle(splitPath, { split: true });
const { origin, server } = serveRepositoryAndBundle(bundlePath);
await Deno.mkdir(`${scratch}/empty/resources`, { recursive: true });
await Deno.mkdir(`${scratch}/empty/prompts`);

const run = (...args: string[]) => ["run", "-A", ...args];
const tools = ["--tools", TOOLS];
const table: Record<string, Contestant[]> = {
  distribution: [
    ["bare Deno loop (baseline)", run(`${ROOT}bench/contestants/bare_loop.ts`)],
    ["main.ts from disk", run(`${ROOT}main.ts`, ...tools)],
    ["main.ts from a URL, cached", run(`${origin}/main.ts`, ...tools)],
    ["main.ts from a URL, first run", run(`--reload=${origin}`, `${origin}/main.ts`, ...tools)],
    ["bundle from disk", run(bundlePath, ...tools)],
    ["bundle from a URL, cached", run(`${origin}/toolshed.js`, ...tools)],
    ["bundle from a URL, first run", run(`--reload=${origin}`, `${origin}/toolshed.js`, ...tools)],
    ["the npm package's split bundle from disk", run(splitPath, ...tools)],
  ],
  directory: [
    ["tools alone (baseline)", run(`${ROOT}main.ts`, ...tools)],
    [
      "+ empty resources/ and prompts/",
      run(`${ROOT}main.ts`, "--dir", `${scratch}/empty`, ...tools),
    ],
    ["+ the example resources/ and prompts/", run(`${ROOT}main.ts`, "--dir", ROOT, ...tools)],
  ],
};

const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1];
try {
  for (const group of groups) {
    const contestants = table[group];
    // One unmeasured run each fills the caches that "cached" means.
    for (const [, args] of contestants) await timeToFirstAnswer(args, cwd);
    const times = contestants.map(() => [] as number[]);
    const ratios = contestants.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) {
      const order = contestants.map((_, index) => (index + round) % contestants.length);
      const measured: number[] = [];
      for (const index of order) {
        measured[index] = await timeToFirstAnswer(contestants[index][1], cwd);
      }
      for (const [index, ms] of measured.entries()) {
        times[index].push(ms);
        ratios[index].push(ms / measured[0]);
      }
    }
    console.log(
      `\n${group}: start-up to the first answer, median of ${rounds} interleaved rounds ` +
        `(ratio: median of per-round ratios to the baseline)`,
    );
    for (const [index, [label]] of contestants.entries()) {
      const ms = median(times[index]);
      console.log(
        `  ${label.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${
          median(ratios[index]).toFixed(2)
        }×`,
      );
    }
  }
} finally {
  await server.shutdown();
  await Deno.remove(scratch, { recursive: true });
}
