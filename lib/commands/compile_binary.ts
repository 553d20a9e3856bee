// One `deno compile`, as `deno task compile` (build/compile.ts) and `toolshed publish` both run
// it: a DENORT_BIN that is not Deno's standalone runtime is refused before compiling, a failed
// download of the runtime is said as what to do, and DENORT_BIN reaches only the host target's
// compile (it is a runtime for this machine; another target's runtime is downloaded by Deno).
import { explainDownloadFailure, refuseDenortBin, TARGET } from "./denort.ts";

/**
 * The configuration a server directory's compile resolves imports with (its modules import
 * toolshed): deno.json's imports and lock without its lazy dynamic imports, which would leave
 * what main.ts imports lazily out of the binary (adr/0051).
 */
export const COMPILE_CONFIG = decodeURIComponent(
  new URL("../../build/compile.deno.json", import.meta.url).pathname,
);

export interface CompileRequest {
  /** Where `deno compile` runs: the relative paths below are taken from it. */
  readonly cwd: string;
  /** The entry module. */
  readonly entry: string;
  /** Files and folders embedded besides the entry's module graph (`--include`). */
  readonly includes: readonly string[];
  /** The binary to write. */
  readonly output: string;
  /** A Deno target triple; the host's when undefined. */
  readonly target?: string;
  /** The configuration file (`--config`), when the entry's directory has none. */
  readonly config?: string;
  /** The DENORT_BIN to use for the host target (checked first). */
  readonly denortBin?: string;
}

/** The arguments after `deno` for `request`. Flags go before the entry point. */
export function denoCompileArgs(request: CompileRequest): string[] {
  return [
    "compile",
    "-A",
    "--exclude-unused-npm",
    ...request.config === undefined ? [] : ["--config", request.config],
    ...request.target === undefined ? [] : ["--target", request.target],
    ...request.includes.flatMap((path) => ["--include", path]),
    "--output",
    request.output,
    request.entry,
  ];
}

/** Whether `target` is this machine's (DENORT_BIN is a runtime for this machine only). */
function isHostTarget(target: string | undefined): boolean {
  return target === undefined || target === TARGET;
}

/**
 * Runs `deno compile` for `request`; undefined when it wrote the binary, else why not (one
 * message, for "Cannot compile: …"). Deno's own report goes to `report`.
 */
export async function compileBinary(
  request: CompileRequest,
  report: (text: string) => void,
): Promise<string | undefined> {
  const host = isHostTarget(request.target);
  if (request.denortBin && host) {
    const refusal = await refuseDenortBin(request.denortBin);
    if (refusal !== undefined) return refusal;
  }
  // deno compile reads DENORT_BIN itself, and takes an empty one for a path.
  const env = Deno.env.toObject();
  delete env.DENORT_BIN;
  if (request.denortBin && host) env.DENORT_BIN = request.denortBin;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: denoCompileArgs(request),
    cwd: request.cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(stderr);
  const offline = explainDownloadFailure(said, code);
  if (offline !== undefined) return offline;
  report(said.trimEnd());
  return code === 0 ? undefined : `deno compile exited with ${code}`;
}
