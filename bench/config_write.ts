// deno-lint-ignore-file no-console -- a benchmark prints its table for people
// What `toolshed config` costs a person, in milliseconds from spawning `main.ts config …` to
// its exit (adr/0023), against `config --help` in the same run: `--write` into a file that is
// not there (written whole, jsonc-parser not loaded) and into one that holds another server
// (edited in place: json_edit.ts and jsonc-parser loaded). Interleaved rounds; medians.
//
//   deno run -A bench/config_write.ts [--rounds N]
import { parseArgs } from "../lib/host/args.ts";

const MAIN = decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);
const { values } = parseArgs({ args: Deno.args, options: { rounds: { type: "string" } } });
const rounds = Number(values.rounds ?? 15);
const dir = await Deno.makeTempDir({ prefix: "toolshed_config_bench_" });
const file = `${dir}/mcp.json`;
const write = ["config", "cursor", "--write", "--file", file, "--dir", dir];
const cases: { name: string; args: string[]; before?: () => Promise<void> }[] = [
  { name: "config --help (baseline)", args: ["config", "--help"] },
  { name: "config --write, new file", args: write, before: () => Deno.remove(file) },
  {
    name: "config --write, edited in place",
    args: write,
    before: () => Deno.writeTextFile(file, '{\n  "mcpServers": {\n    "x": {}\n  }\n}\n'),
  },
];
const times = cases.map(() => [] as number[]);
try {
  await Deno.writeTextFile(file, "{}");
  for (let round = 0; round < rounds; round++) {
    for (const [i, each] of cases.entries()) {
      await each.before?.();
      const start = performance.now();
      const { success } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, ...each.args],
        cwd: dir,
        stdout: "null",
        stderr: "null",
      }).output();
      if (!success) throw new Error(`${each.name} failed`);
      times[i].push(performance.now() - start);
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
const median = (list: number[]) => list.sort((a, b) => a - b)[list.length >> 1];
const baseline = median(times[0]);
console.log(`${rounds} interleaved rounds, medians:`);
for (const [i, each] of cases.entries()) {
  const ms = median(times[i]);
  console.log(
    `  ${each.name.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / baseline).toFixed(2)}×`,
  );
}
