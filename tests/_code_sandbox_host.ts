// Test helper: a process standing for the server that owns a code sandbox, so that its memory is
// its own (deno test --parallel runs modules in one process). Runs the code given as its one
// argument in a sandbox of the limits given as JSON on stdin, then prints, as one JSON line on
// stdout, its pid and resident memory before and after, and the run's outcome.
//
//   deno run -A tests/_code_sandbox_host.ts CODE < LIMITS.json
import { createSandbox, type SandboxLimits } from "../lib/code/sandbox.ts";

const limits: SandboxLimits = JSON.parse(await new Response(Deno.stdin.readable).text());
const sandbox = createSandbox(limits);
const pid = Deno.pid;
const rssBefore = Deno.memoryUsage().rss;
const outcome = await sandbox.run(
  Deno.args[0],
  () => Promise.resolve({}),
  new AbortController().signal,
);
const rssAfter = Deno.memoryUsage().rss;
const normal = await sandbox.run(
  "return 1 + 1",
  () => Promise.resolve({}),
  new AbortController().signal,
);
await sandbox.close();
const line = JSON.stringify({ pid, pidAfter: Deno.pid, rssBefore, rssAfter, outcome, normal });
Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
