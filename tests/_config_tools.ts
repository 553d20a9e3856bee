// Test helper for `toolshed config` (lib/commands/config.ts): the command run in process, a
// temporary folder for its files, and a toolshed that runs from source under a given root.
import { memoryIo } from "./_memory_io.ts";
import { configure } from "../lib/commands/config.ts";
import { currentSelf, type Self } from "../lib/commands/client_launch.ts";

/** `toolshed config ARGS` in `cwd`, as `self` (default: this toolshed) with `env`: its code and words. */
export async function runConfig(
  args: string[],
  cwd: string,
  options: { self?: Self; env?: Record<string, string> } = {},
) {
  const memory = memoryIo(cwd, options.env ?? {});
  const code = await configure(args, memory.io, options.self ?? currentSelf());
  return { code, out: memory.out(), err: memory.err() };
}

/** `fn` given a new temporary folder (its real path), removed after it however it ends. */
export async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolshed_config_" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The words npx is given to run sourceSelf(`root`)'s main.ts on `dir` (its deno from npm). */
export function npxRunWords(root: string, dir: string): string[] {
  return [
    "--prefer-offline",
    "--yes",
    "deno@9.8.7",
    "run",
    "-A",
    `--lock=${root}/deno.lock`,
    sourceSelf(root).main,
    "--dir",
    dir,
  ];
}

/** A toolshed that runs from source under `root`, with a deno of its own there. */
export function sourceSelf(root: string): Self {
  return {
    main: `${root}/toolshed/main.ts`,
    execPath: `${root}/bin/deno`,
    standalone: false,
    denoVersion: "9.8.7",
    compiledBinary: `${root}/toolshed/dist/toolshed`,
  };
}
