// deno-lint-ignore-file no-console -- a long-running script reports its progress to people
// The long fuzz run (issue 5), outside the test suite: the generator of tests/fuzz_test.ts,
// for many more messages. The same seed replays the same runs, so a failure from the
// suite's fuzz test can be replayed here and its input saved.
//
//   deno run -A tests/fuzz_long.ts [--seed N] [--count M] [--out DIR]
//
// Exits 1 at the first run that breaks an invariant, after writing that run's input to
// DIR/fuzz-failure-seed<N>-run<R>.bin (DIR defaults to the working directory). Reports go
// to stdout; the server's own logs (tool failures) go to stderr: 2>/dev/null hides them.
// A saved input can be replayed against a real server process:
//
//   deno run -A main.ts --tools tests/fixtures/tools --max-message-bytes 65536 < FILE
import { parseArgs } from "node:util";
import { fuzzRun, MESSAGES_PER_RUN } from "./_fuzz.ts";
import { fixtureRegistry } from "./_invariants.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seed: { type: "string" },
    count: { type: "string", default: "200000" },
    out: { type: "string", default: "." },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const count = Number(values.count);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count) || count < 1) {
  console.error("Usage: deno run -A tests/fuzz_long.ts [--seed N] [--count M] [--out DIR]");
  Deno.exit(2);
}

const registry = await fixtureRegistry();
const runs = Math.ceil(count / MESSAGES_PER_RUN);
const started = performance.now();
let bytes = 0;
console.log(`Fuzzing ${count} messages in ${runs} run(s), seed ${seed}`);
for (let run = 0; run < runs; run++) {
  const messages = Math.min(MESSAGES_PER_RUN, count - run * MESSAGES_PER_RUN);
  const { input, violations } = await fuzzRun(registry, seed, run, messages);
  bytes += input.length;
  if (violations.length > 0) {
    const file = `${values.out}/fuzz-failure-seed${seed}-run${run}.bin`;
    await Deno.writeFile(file, input);
    console.log(`Run ${run} of seed ${seed} broke the invariants:\n  ${violations.join("\n  ")}`);
    console.log(`Its input (sentinels included) is in ${file}`);
    Deno.exit(1);
  }
  if ((run + 1) % 40 === 0 || run === runs - 1) {
    const done = Math.min(count, (run + 1) * MESSAGES_PER_RUN);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${done} / ${count} messages, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ` +
        `${seconds.toFixed(1)} s, ${Math.round(done / seconds)} messages/s (seed ${seed})`,
    );
  }
}
console.log(`No invariant broken: ${count} messages, seed ${seed}`);
