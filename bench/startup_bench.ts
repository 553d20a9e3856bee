// What starting a process costs, piece by piece (adr/0008): each case spawns `deno run` on
// a small module and waits for it to exit, against an empty module in the same run.
const ROOT = new URL("../", import.meta.url).pathname;

function start(args: string[]): () => Promise<void> {
  return async () => {
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    if (!success) throw new Error(`deno run ${args.join(" ")} failed`);
  };
}

const group = "process start";
const piece = (name: string) => start([`${ROOT}bench/startup/${name}.ts`]);

Deno.bench("empty module", { group, baseline: true }, piece("empty"));
Deno.bench("+ node:util (parseArgs)", { group }, piece("node_util"));
Deno.bench("+ node:util and node:console", { group }, piece("node_console"));
Deno.bench("+ process.stdout", { group }, piece("process_stdout"));
Deno.bench("+ @cfworker/json-schema", { group }, piece("validator"));
Deno.bench("+ FFI dlopen of libc", { group }, piece("ffi"));
Deno.bench("+ the first timer", { group }, piece("first_timer"));
Deno.bench(
  "toolshed --version (its module graph)",
  { group },
  start([`${ROOT}main.ts`, "--version"]),
);
Deno.bench(
  "toolshed serving bench/tools, stdin empty",
  { group },
  start([`${ROOT}main.ts`, "--tools", `${ROOT}bench/tools`]),
);
