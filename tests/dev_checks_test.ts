// When `toolshed dev` checks (lib/commands/dev_checks.ts), in process: a save during a run
// supersedes it (aborted, never reported), saves close together are one run, a run past its
// bound is aborted and reported, and close() aborts the run under way.
import assert from "node:assert/strict";
import { checkLoop } from "../lib/commands/dev_checks.ts";
import { withHangGuard } from "./_server_process.ts";

/** A check that runs until its signal aborts or `finish` is called; the runs it was asked for. */
function controlledCheck() {
  const runs: { signal: AbortSignal; finish: (result: string) => void }[] = [];
  let wake = () => {};
  return {
    runs,
    check(signal: AbortSignal): Promise<string> {
      return new Promise((resolve) => {
        runs.push({ signal, finish: resolve });
        signal.addEventListener("abort", () => resolve(`aborted: ${signal.reason.message}`));
        wake();
      });
    },
    /** Resolves once `count` runs have started. */
    started(count: number): Promise<void> {
      return withHangGuard(
        new Promise<void>((resolve) => {
          const check = () => runs.length >= count ? resolve() : wake = check;
          check();
        }),
        `run ${count}`,
      );
    },
  };
}

/** After the reactions to what was resolved so far (a report follows its run's end in them). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("checkLoop() aborts a run a later save supersedes and reports only the later one", async () => {
  const checks = controlledCheck();
  const reported: string[] = [];
  const loop = checkLoop(checks.check, (result) => reported.push(result), { debounceMs: 10 });
  loop.runNow();
  await checks.started(1);
  loop.schedule();
  await checks.started(2);
  assert.equal(checks.runs[0].signal.aborted, true);
  assert.equal(checks.runs[0].signal.reason.message, "superseded by a later save");
  checks.runs[1].finish("second");
  await settled();
  await loop.close();
  assert.deepEqual(reported, ["second"]);
});

Deno.test("checkLoop() runs once for saves closer together than its debounce", async () => {
  const checks = controlledCheck();
  const reported: string[] = [];
  const loop = checkLoop(checks.check, (result) => reported.push(result), { debounceMs: 200 });
  for (let save = 0; save < 5; save++) loop.schedule();
  await checks.started(1);
  checks.runs[0].finish("once");
  await settled();
  await loop.close();
  assert.equal(checks.runs.length, 1);
  assert.deepEqual(reported, ["once"]);
});

Deno.test("checkLoop() aborts a run past its bound and reports it, and close() aborts the run under way", async () => {
  const checks = controlledCheck();
  const reported: string[] = [];
  const loop = checkLoop(checks.check, (result) => reported.push(result), { timeoutMs: 50 });
  loop.runNow();
  await checks.started(1);
  await withHangGuard(
    checks.runs[0].signal.aborted ? Promise.resolve() : new Promise((resolve) => {
      checks.runs[0].signal.addEventListener("abort", resolve);
    }),
    "the bound",
  );
  loop.runNow();
  await checks.started(2);
  await loop.close();
  assert.equal(checks.runs[1].signal.reason.message, "toolshed dev is stopping");
  // The bound's abort is reported (what the check says of it); the stopped run is not.
  assert.deepEqual(reported, ["aborted: it took longer than 0.05 s"]);
});
