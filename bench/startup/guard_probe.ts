// deno-lint-ignore-file no-console -- a probe prints its table for people
// A probe for issue 42 (adr/0074 step 4): spawn → first `tools/list` answer, then VmHWM, of
// contestants named on the command line, in interleaved rounds after one uncounted warming
// round (none with --no-warming); medians with the lowest and highest; the page faults of the
// process by then, minor and major (a major fault read a page from the disk).
//
//   deno run -A bench/startup/guard_probe.ts [--rounds N] [--no-warming] CONTESTANT...
//
// A contestant is `label=deno arguments` with the arguments separated by spaces, e.g.
//   "bare=run bench/contestants/bare_loop.ts" "main=run -A main.ts --tools bench/tools"
import { parseArgs } from "../../lib/host/args.ts";
import { firstAnswer as measureFirstAnswer } from "../_first_answer.ts";

/** bench/_first_answer.ts's measure, with the page faults of /proc/PID/stat besides. */
async function firstAnswer(args: string[], cwd: string) {
  const { ms, status, stat } = await measureFirstAnswer(args, cwd);
  // /proc/PID/stat: the fields after the command's closing parenthesis start at the state (3);
  // minflt is field 10 and majflt field 12.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ms, status, faults: { minor: Number(fields[7]), major: Number(fields[9]) } };
}

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string" }, "no-warming": { type: "boolean" } },
  allowPositionals: true,
});
const rounds = Number(values.rounds ?? "9");
const contestants = positionals.map((spec) => {
  const at = spec.indexOf("=");
  if (at < 1) throw new Error(`A contestant is "label=deno arguments", not "${spec}"`);
  return { label: spec.slice(0, at), args: spec.slice(at + 1).split(" ").filter((a) => a) };
});

function summary(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
  return `${median.toFixed(digits)} [${sorted[0].toFixed(digits)}–${
    sorted[sorted.length - 1].toFixed(digits)
  }]`;
}

const cwd = Deno.cwd();
const taken = contestants.map(() => ({
  ms: [] as number[],
  peak: [] as number[],
  minor: [] as number[],
  major: [] as number[],
}));
for (let round = values["no-warming"] === true ? 0 : -1; round < rounds; round++) {
  for (const [i, { args }] of contestants.entries()) {
    const { ms, status, faults } = await firstAnswer(args, cwd);
    if (round < 0) continue;
    taken[i].minor.push(faults.minor);
    taken[i].major.push(faults.major);
    taken[i].ms.push(ms);
    taken[i].peak.push(Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1]) / 1024);
  }
}
console.log(
  `${rounds} interleaved rounds, ${new Date().toISOString()}, load ${
    Deno.loadavg().map((l) => l.toFixed(2)).join(" ")
  }: median [min–max]`,
);
console.log(
  "| contestant | first answer ms | VmHWM MB | minor faults | major faults |\n|---|---|---|---|---|",
);
for (const [i, { label }] of contestants.entries()) {
  const { ms, peak, minor, major } = taken[i];
  console.log(
    `| ${label} | ${summary(ms, 1)} | ${summary(peak, 2)} | ${summary(minor, 0)} | ${
      summary(major, 0)
    } |`,
  );
}
