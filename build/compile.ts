// deno task compile: builds dist/toolshed, one executable with tools/, resources/ and
// prompts/ embedded (adr/0005, adr/0018), then runs it to prove it is toolshed. With --dir it
// compiles that server directory instead, as `toolshed compile` does (adr/0067).
//
//   deno run -A build/compile.ts [--output PATH]
//   deno run -A build/compile.ts --dir DIR [--output PATH] [--target TRIPLE]
//
// Before compiling it refuses a DENORT_BIN that is not Deno's standalone runtime (the deno
// CLI itself "compiles" into a REPL); when Deno cannot download that runtime it says so and
// names DENORT_BIN; after compiling it smoke-tests the binary and removes a bad one.
import { parseOutputArgs } from "./_args.ts";
import {
  compileBinary,
  type CompileRequest as CompileBinaryRequest,
  denoCompileArgs,
} from "../lib/commands/compile_binary.ts";
import { smokeTest, toolNames } from "./_smoke.ts";
import { compileServer } from "../lib/commands/compile.ts";
import type { Io } from "../lib/commands/command.ts";

/** The repository root: `deno compile` runs there, so the flags' paths are relative to it. */
export const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the binary goes unless --output says otherwise (relative to the repository). */
export const DEFAULT_OUTPUT = "dist/toolshed";

/**
 * The configuration `deno compile` reads instead of deno.json: the same imports and lock, but
 * without deno.json's `"unstable": ["lazy-dynamic-imports"]`, which would leave every module
 * and npm package main.ts imports lazily out of the binary (adr/0051).
 */
export const COMPILE_CONFIG = "build/compile.deno.json";

/**
 * The flags of `deno compile`. `--include` embeds the server directory's folders next to
 * main.ts, where a compiled server looks; `--exclude-unused-npm` keeps test-only npm
 * packages out of the binary.
 */
export const COMPILE_FLAGS: readonly string[] = [
  "-A",
  "--config",
  COMPILE_CONFIG,
  "--exclude-unused-npm",
  "--include",
  "tools/",
  "--include",
  "resources/",
  "--include",
  "prompts/",
];

/**
 * Folders embedded when the repository has them (`deno compile` refuses a missing one): the
 * server directory's optional folders (lib/discovery/server_dir.ts).
 */
export const OPTIONAL_FOLDERS: readonly string[] = ["middleware/", "skills/", "ui/"];

/** The compile of main.ts into `output`, the repository's folders embedded beside it. */
function mainCompile(output: string, denortBin?: string): CompileBinaryRequest {
  const optional = OPTIONAL_FOLDERS.filter((folder) => {
    try {
      return Deno.statSync(`${ROOT}${folder}`).isDirectory;
    } catch {
      return false;
    }
  });
  const includes = COMPILE_FLAGS.filter((_, i) => COMPILE_FLAGS[i - 1] === "--include");
  return {
    cwd: ROOT,
    entry: "main.ts",
    includes: [...includes, ...optional],
    output,
    config: COMPILE_CONFIG,
    denortBin,
  };
}

/** The arguments after `deno` that compile main.ts into `output`. */
export function compileArgs(output: string): string[] {
  return denoCompileArgs(mainCompile(output));
}

/** What the command line asks for, or why it cannot be done. */
export type CompileRequest =
  | { kind: "compile"; output: string }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; message: string };

const USAGE = `Usage: deno run -A build/compile.ts [--output PATH]
       deno run -A build/compile.ts --dir DIR [--output PATH] [--target TRIPLE]

Compiles toolshed with tools/, resources/ and prompts/ embedded into PATH
(default ${DEFAULT_OUTPUT}), then runs the binary with --version and one tools/list.
With --dir, compiles the server directory DIR instead, as toolshed compile does
(toolshed compile --help shows its options).
Set DENORT_BIN to a denort binary of Deno ${Deno.version.deno} where Deno cannot download it.`;

/** Whether the command line names a server directory: then it is `toolshed compile`'s. */
export function namesServerDir(args: readonly string[]): boolean {
  return args.some((arg) => arg === "--dir" || arg.startsWith("--dir="));
}

/** Reads the command line; a relative --output is taken from `cwd`. */
export function parseCompileArgs(args: string[], cwd: string): CompileRequest {
  const request = parseOutputArgs(args, cwd, `${ROOT}${DEFAULT_OUTPUT}`, USAGE);
  return request.kind === "build" ? { kind: "compile", output: request.output } : request;
}

/** Compiles and smoke-tests; returns the exit code and prints what went wrong on stderr. */
export async function compile(
  output: string,
  env: { DENORT_BIN?: string } = { DENORT_BIN: Deno.env.get("DENORT_BIN") },
  log: (line: string) => void = (line) =>
    Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`)),
): Promise<number> {
  const problem = await compileBinary(mainCompile(output, env.DENORT_BIN), log);
  if (problem !== undefined) {
    log(`Cannot compile: ${problem}`);
    return 1;
  }
  try {
    // A compiled binary serves its embedded tools/ and leaves executable tools out.
    const expected = await toolNames(new URL("tools/", `file://${ROOT}`), true);
    await smokeTest([output], expected);
  } catch (error) {
    await Deno.remove(output).catch(() => {});
    log(`${(error as Error).message} (removed "${output}")`);
    return 1;
  }
  log(`Built "${output}": it answers --version and tools/list as toolshed`);
  return 0;
}

if (import.meta.main && namesServerDir(Deno.args)) {
  const encoder = new TextEncoder();
  const io: Io = {
    out: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    err: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
  };
  Deno.exit(await compileServer(Deno.args, io));
} else if (import.meta.main) {
  const request = parseCompileArgs(Deno.args, Deno.cwd());
  if (request.kind === "help") {
    Deno.stderr.writeSync(new TextEncoder().encode(`${request.text}\n`));
    Deno.exit(0);
  }
  if (request.kind === "usage-error") {
    Deno.stderr.writeSync(
      new TextEncoder().encode(`${request.message}\n(build/compile.ts --help shows the usage)\n`),
    );
    Deno.exit(2);
  }
  Deno.exit(await compile(request.output));
}
