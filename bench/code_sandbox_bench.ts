// Evidence for adr/0073 decision 2: one run of code mode's sandbox, from the run's start to its
// outcome, with no pool (a child started for the run) and with a pool of 2 (a child started
// before, waiting for code), against a bare `deno eval` of nothing with the same flags and
// environment (the floor of any child). Between iterations, outside the timed part, each bench
// waits REFILL_MS so that a pool is full again, as it is for runs spaced by a model's turns.
//
//   deno bench -A bench/code_sandbox_bench.ts
import {
  type CallTool,
  createSandbox,
  type Sandbox,
  type SandboxLimits,
} from "../lib/code/sandbox.ts";

const LIMITS: SandboxLimits = {
  heapMb: 64,
  timeoutMs: 60_000,
  maxCalls: 10,
  maxConsoleBytes: 64 * 1024,
  maxResultBytes: 64 * 1024,
  poolSize: 0,
};

/** Time for a pool to refill between runs (not measured). */
const REFILL_MS = 500;

const TEN_CALLS =
  "let sum = 0;\nfor (let i = 0; i < 10; i++) sum = (await tools.add({ a: sum, b: i })).sum;\nreturn sum;";

const add: CallTool = (_name, args) => {
  const { a, b } = args as { a: number; b: number };
  return Promise.resolve({ sum: a + b });
};

const never = new AbortController().signal;
const pause = () => new Promise((resolve) => setTimeout(resolve, REFILL_MS));

const sandboxes: Record<string, Sandbox> = {
  "no pool": createSandbox(LIMITS),
  "pool of 2": createSandbox({ ...LIMITS, poolSize: 2 }),
};
globalThis.addEventListener("unload", () => {
  for (const sandbox of Object.values(sandboxes)) sandbox.close();
});

for (
  const [group, code, value] of [["return 1", "return 1", 1], [
    "10 inner calls",
    TEN_CALLS,
    45,
  ]] as const
) {
  Deno.bench(
    "bare deno eval of nothing (the floor)",
    { group, baseline: true, n: 20, warmup: 2 },
    async (b) => {
      await pause();
      b.start();
      const { code: exit } = await new Deno.Command(Deno.execPath(), {
        args: ["eval", "--no-prompt", "--no-config", "--no-lock", "--no-npm", "--no-remote", ""],
        clearEnv: true,
        env: { DENO_V8_FLAGS: `--max-old-space-size=${LIMITS.heapMb}`, DENO_NO_UPDATE_CHECK: "1" },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      b.end();
      if (exit !== 0) throw new Error(`deno eval exited with ${exit}`);
    },
  );
  for (const [name, sandbox] of Object.entries(sandboxes)) {
    Deno.bench(`sandbox run, ${name}`, { group, n: 20, warmup: 2 }, async (b) => {
      await pause();
      b.start();
      const outcome = await sandbox.run(code, add, never);
      b.end();
      if (outcome.value !== value) throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
    });
  }
}
