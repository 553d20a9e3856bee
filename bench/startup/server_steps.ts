// A probe for issue 42 (adr/0074 step 4): where toolshed's own memory at the first answer goes.
// main.ts's module graph is loaded (nothing run, as bench:floor's `--code`), then one of:
//
//   created DIR  the server made for `--tools DIR` as main.ts makes it (the directory loaded
//                and checked, the server's objects), then the bare loop answers
//   served DIR   the same, then the server itself answers over stdio (no stdout or process
//                guard, no survey, no announcement: main.ts's serve path without them)
//
//   deno run -A bench/startup/server_steps.ts created|served DIR
import "../../main.ts";
import { createServer } from "../../lib/server/create_server.ts";
import { parseCommand } from "../../lib/host/cli.ts";
import { stderrDiagnostics } from "../../lib/host/stderr_log.ts";

const [step, dir] = Deno.args;
if ((step !== "created" && step !== "served") || dir === undefined) {
  throw new Error(`server_steps.ts: give "created DIR" or "served DIR", not "${Deno.args}"`);
}
const command = parseCommand(["--tools", dir]);
if (command.kind !== "serve") throw new Error(`server_steps.ts: --tools "${dir}" is refused`);
const server = await createServer({
  ...command.options,
  http: false,
  diagnostics: stderrDiagnostics,
});
if (step === "created") await import("../contestants/bare_loop.ts");
else await server.serveStdio({ input: Deno.stdin, output: Deno.stdout }).done;
