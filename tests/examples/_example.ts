// Test helper for the example servers in examples/: where they are, `toolshed check` on one, and
// main.ts run as a process the way each example's README runs it (from the repository's root).
import assert from "node:assert/strict";
import { readLines, withHangGuard } from "../_server_process.ts";

/** The repository's root, with a final slash. */
export const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** The folder of an example, with a final slash. */
export function exampleDir(name: string): string {
  return `${ROOT}examples/${name}/`;
}

/** What a run of main.ts printed, and its exit code. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno run -A main.ts ARGS` in the repository's root, as a README's commands run it. */
export async function toolshed(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { code, stdout, stderr } = await withHangGuard(
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}main.ts`, ...args],
      cwd: ROOT,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output(),
    `toolshed ${args.join(" ")}`,
    // check type-checks: tens of seconds on a loaded machine.
    120_000,
  );
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

/**
 * `toolshed check --dir examples/NAME` exits 0 with no error and no warning: every file loads,
 * and its TypeScript type-checks, so what a reader copies from it type-checks too.
 */
export async function assertChecks(name: string): Promise<void> {
  const run = await toolshed(["check", "--dir", `examples/${name}`]);
  assert.equal(run.code, 0, `toolshed check --dir examples/${name}:\n${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /^0 errors, 0 warnings in /m, run.stdout);
}

/** The params' `_meta` of a 2026-07-28 request declaring `capabilities`. */
export function modernMeta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

/** Where a program is, searching the PATH and the sbin folders Debian puts servers in. */
export async function which(program: string): Promise<string | undefined> {
  const folders = [
    ...(Deno.env.get("PATH") ?? "").split(":"),
    "/usr/local/sbin",
    "/usr/sbin",
    "/sbin",
  ];
  for (const folder of folders.filter((each) => each !== "")) {
    try {
      const info = await Deno.stat(`${folder}/${program}`);
      if (info.isFile && (info.mode ?? 0) & 0o111) return `${folder}/${program}`;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** A free loopback port, and waiting until a program accepts connections on it. */
export { freePort, waitForPort } from "../scale/_harness.ts";

/**
 * `deno run -A <script> --port 0` from the repository's root, as an example's README runs its
 * stand-in service: resolved with the URL its first line of output ends with (`pattern`'s group),
 * and how to stop it. `what` names it in messages; its first start may download packages.
 */
export async function startExampleProcess(
  script: string,
  pattern: RegExp,
  what: string,
  env: Record<string, string> = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--port", "0"],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = readLines(child.stdout);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* it has exited already */ }
    await withHangGuard(child.status, `${what} exiting`);
    await lines.return(undefined);
    await stderr;
  };
  const first = await withHangGuard(lines.next(), `${what}'s first line`, 120_000);
  const url = first.done ? undefined : pattern.exec(first.value)?.[1];
  if (url === undefined) {
    await stop();
    throw new Error(`${script} did not say where it listens:\n${await stderr}`);
  }
  return { url, stop };
}
