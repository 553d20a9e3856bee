// deno-lint-ignore-file no-console -- a benchmark prints its table for people
// What an idle server and each extra tool cost (deno task bench:tool-cost): a stdio server over
// a directory of N generated tools (each a one-file tool with its own small object schema, as
// bench/tools/filler_*.ts), from spawn to its answer to a first `tools/list`, and its memory
// then: resident (VmRSS) and peak (VmHWM). The bare Deno loop is the baseline of the same run.
// Rounds are interleaved, every process fresh; medians. The per-tool figures are the slope
// between the smallest and the largest directory.
//
//   deno run -A bench/tool_cost.ts [--rounds N] [--tools 0,1,10,100,1000] [--against DIR]
//
// --against DIR measures the main.ts of another copy of toolshed (say, a worktree of the last
// commit) beside this one, on the same generated directories.
import { parseArgs } from "../lib/host/args.ts";
import { firstAnswer } from "./_first_answer.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
interface Sample {
  ms: number;
  rssMb: number;
  peakMb: number;
}

/** Spawn → first answer, then the process's memory as it idles after it. */
async function sample(args: string[], cwd: string): Promise<Sample> {
  const { ms, status } = await firstAnswer(args, cwd);
  const kb = (field: string) =>
    Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m"))?.[1]);
  return { ms, rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/** A directory of `count` tools, each with a schema of its own (nothing shared to cache). */
async function toolsDirectory(parent: string, count: number): Promise<string> {
  const dir = `${parent}/tools_${count}`;
  await Deno.mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    await Deno.writeTextFile(
      `${dir}/tool_${i}.ts`,
      `export default {
  description: "Generated tool ${i}: returns the sum of a list of numbers plus ${i}",
  inputSchema: {
    type: "object",
    properties: {
      numbers: { type: "array", items: { type: "number" }, maxItems: ${1000 + i} },
      label_${i}: { type: "string", maxLength: ${100 + i} },
    },
    required: ["numbers"],
  },
  handler: ({ numbers }: { numbers: number[] }) => String(numbers.reduce((s, n) => s + n, ${i})),
};
`,
    );
  }
  return dir;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string" }, tools: { type: "string" }, against: { type: "string" } },
});
const rounds = Number(values.rounds ?? "7");
const counts = (values.tools ?? "0,1,10,100,1000").split(",").map(Number);
const scratch = await Deno.makeTempDir({ prefix: "toolshed_tool_cost_" });
try {
  const cwd = `${scratch}/cwd`;
  await Deno.mkdir(cwd);
  const contestants: [string, string[]][] = [
    ["bare Deno loop (baseline)", ["run", "-A", `${ROOT}bench/contestants/bare_loop.ts`]],
  ];
  const copies: [string, string][] = [["toolshed", ROOT]];
  if (values.against !== undefined) {
    copies.push([`toolshed at ${values.against}`, values.against.replace(/\/?$/, "/")]);
  }
  for (const count of counts) {
    const dir = await toolsDirectory(scratch, count);
    for (const [label, root] of copies) {
      contestants.push([`${label}, ${count} tools`, [
        "run",
        "-A",
        `${root}main.ts`,
        "--tools",
        dir,
      ]]);
    }
  }
  const samples = new Map<string, Sample[]>(contestants.map(([label]) => [label, []]));
  for (const [, args] of contestants) await sample(args, cwd); // caches warm, not counted
  for (let round = 0; round < rounds; round++) {
    for (const [label, args] of contestants) samples.get(label)!.push(await sample(args, cwd));
  }
  const row = (label: string) => {
    const taken = samples.get(label)!;
    return {
      ms: median(taken.map((s) => s.ms)),
      rssMb: median(taken.map((s) => s.rssMb)),
      peakMb: median(taken.map((s) => s.peakMb)),
    };
  };
  const bare = row(contestants[0][0]);
  console.log(`${rounds} interleaved rounds, medians; ratios to the bare loop of the same run`);
  console.log("| server | first answer ms | RSS MB | peak RSS MB | ms ÷ bare | peak ÷ bare |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const [label] of contestants) {
    const { ms, rssMb, peakMb } = row(label);
    console.log(
      `| ${label} | ${ms.toFixed(1)} | ${rssMb.toFixed(1)} | ${peakMb.toFixed(1)} | ` +
        `${(ms / bare.ms).toFixed(2)}× | ${(peakMb / bare.peakMb).toFixed(2)}× |`,
    );
  }
  const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
  if (most > fewest) {
    for (const [label] of copies) {
      const low = row(`${label}, ${fewest} tools`);
      const high = row(`${label}, ${most} tools`);
      const per = (a: number, b: number) => (b - a) / (most - fewest);
      console.log(
        `${label}: each extra tool (${fewest} → ${most}) costs ` +
          `${(per(low.ms, high.ms) * 1000).toFixed(0)} µs of start-up, ` +
          `${(per(low.rssMb, high.rssMb) * 1024).toFixed(1)} KB resident, ` +
          `${(per(low.peakMb, high.peakMb) * 1024).toFixed(1)} KB of peak`,
      );
    }
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}
