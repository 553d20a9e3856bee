// What `deno compile` needs beyond the repository: Deno's standalone runtime, `denort`, of
// exactly this Deno version. Deno downloads it on first use; where that is impossible,
// DENORT_BIN names one. This file tells a denort from anything else, and turns Deno's raw
// download failure into a message that says what to do.

/** The target triple of this machine, as Deno's release archives name it. */
export const TARGET = Deno.build.target;

/** Where Deno publishes the standalone runtime for `version` and `target`. */
function denortUrl(version = Deno.version.deno, target = TARGET): string {
  return `https://dl.deno.land/release/v${version}/denort-${target}.zip`;
}

/** One sentence on what DENORT_BIN must be and where to get it, for every refusal. */
function denortAdvice(version = Deno.version.deno): string {
  return `DENORT_BIN must name the denort binary of Deno ${version} (unzip it from "${
    denortUrl(version)
  }" on a machine with internet), not the deno CLI`;
}

/** Bytes as a string, one char per byte, so that byte sequences can be searched. */
function latin1(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252").decode(bytes);
}

/** Deno versions named in a binary's user agent (`Deno/2.9.6`), which denort and deno both carry. */
function embeddedVersions(binary: Uint8Array): Set<string> {
  const found = new Set<string>();
  for (const match of latin1(binary).matchAll(/Deno\/(\d+\.\d+\.\d+)/g)) found.add(match[1]);
  return found;
}

/** The longest `DENORT_BIN --version` may take before it counts as not a runtime. */
const PROBE_TIMEOUT_MS = 30_000;

/**
 * Why `path` cannot serve as DENORT_BIN, or undefined when it is a standalone runtime of
 * this Deno version. Run with `--version`, the deno CLI prints its version; denort, which
 * only runs a program embedded in it, exits with "Could not find standalone binary section"
 * (cli/rt/binary.rs in Deno's source). A compiled program answers as that program.
 */
export async function refuseDenortBin(
  path: string,
  version = Deno.version.deno,
): Promise<string | undefined> {
  const named = `DENORT_BIN "${path}"`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    return `${named} names no file: ${denortAdvice(version)}`;
  }
  if (!info.isFile) return `${named} is not a file: ${denortAdvice(version)}`;
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(path, {
      args: ["--version"],
      env: { NO_COLOR: "1" },
      clearEnv: true,
      stdin: "null",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).output();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `${named} cannot be run: ${why}; ${denortAdvice(version)}`;
  }
  const text = new TextDecoder();
  const stdout = text.decode(output.stdout).trim();
  const stderr = text.decode(output.stderr).trim();
  if (/^deno \d/.test(stdout)) {
    return `${named} is the deno CLI ("${stdout.split("\n")[0]}"), whose compiled output ` +
      `would start a REPL instead of toolshed: ${denortAdvice(version)}`;
  }
  if (!stderr.includes("Could not find standalone binary section")) {
    const answer = (stdout || stderr).split("\n")[0] || `nothing, exit code ${output.code}`;
    return `${named} is not a standalone Deno runtime (asked for --version it answered ` +
      `"${answer}"): ${denortAdvice(version)}`;
  }
  const versions = embeddedVersions(await Deno.readFile(path));
  if (versions.size > 0 && !versions.has(version)) {
    return `${named} is the denort of Deno ${[...versions].join(", ")}, not ${version}: ` +
      denortAdvice(version);
  }
  return undefined;
}

/**
 * The message for a `deno compile` whose download of denort failed, or undefined when its
 * report shows no such failure. Deno prints "Download <url>" and then an error whose chain
 * names the base binary and the request.
 */
export function explainDownloadFailure(report: string, code: number): string | undefined {
  if (code === 0) return undefined;
  // deno colours its report when stderr is a terminal or FORCE_COLOR is set.
  // deno-lint-ignore no-control-regex
  const stderr = report.replace(/\x1b\[[0-9;]*m/g, "");
  const download = /Download (https?:\/\/\S*\/denort-[^\s]*\.zip)/.exec(stderr);
  if (download === null || !/base binary|error sending request/i.test(stderr)) return undefined;
  const cause = /error sending request[^\n]*/.exec(stderr)?.[0] ??
    stderr.split("\n").find((line) => line.startsWith("error:")) ?? "";
  return `Deno cannot download its standalone runtime from "${download[1]}": this machine ` +
    `is offline or cannot reach it; set DENORT_BIN to the path of the denort binary unzipped ` +
    `from that address on a machine with internet` +
    (cause === "" ? "" : `\n  (Deno said: ${cause.trim()})`);
}
