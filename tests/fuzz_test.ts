// Seeded fuzzing in the suite (issue 5): thousands of generated and mutated messages go
// through serve() in-process, in fresh connections of MESSAGES_PER_RUN messages each, and
// every run must keep the invariants of tests/_invariants.ts. The seed is random unless
// FUZZ_SEED is set; it is in the test's name, and a failure says how to replay it.
import { deepStrictEqual } from "node:assert/strict";
import { fuzzRun, MESSAGES_PER_RUN } from "./_fuzz.ts";
import { fixtureRegistry } from "./_invariants.ts";

const MESSAGES = 5_000;
const seed = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));

Deno.test(`serve() keeps every invariant under ${MESSAGES} fuzzed messages (seed ${seed})`, async () => {
  const registry = await fixtureRegistry();
  for (let run = 0; run < MESSAGES / MESSAGES_PER_RUN; run++) {
    const { violations } = await fuzzRun(registry, seed, run);
    deepStrictEqual(
      violations,
      [],
      `Run ${run} of seed ${seed} broke the invariants; replay it with ` +
        `FUZZ_SEED=${seed} deno test -A tests/fuzz_test.ts, or save its input with ` +
        `deno run -A tests/fuzz_long.ts --seed ${seed} --count ${MESSAGES}`,
    );
  }
});
