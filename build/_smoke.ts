// The smoke test of a build: what a user's client will do first. The built server must
// print toolshed's version for --version, and answer one tools/list over stdio with exactly
// the tools it should serve. Anything else throws, so that a broken build is never left
// looking like a good one.
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import type { Diagnostics } from "../lib/util/diagnostics.ts";

/** The longest one run may take before the smoke test calls it hung (not a timing check). */
const HANG_GUARD_MS = 120_000;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Drops the loader's notes: a tool's problems stop the build through the thrown error. */
const SILENT: Diagnostics = { error() {}, forward: () => undefined };

/** The names of the tools a server serves from `dir` (sorted), as toolshed's loader finds them. */
export async function toolNames(dir: URL, skipExecutables: boolean): Promise<string[]> {
  const loaded = await loadTools(dir, { diagnostics: SILENT, skipExecutables });
  return loaded.tools.map((tool) => tool.name).sort();
}

/**
 * Runs `command` with `args` and stdin, guarded against a hang (killed after `hangGuardMs`,
 * not a timing check); stdout and stderr as text. The tests that run a built server use it too.
 */
export async function run(
  command: string[],
  args: string[],
  input: string,
  cwd: string | undefined,
  hangGuardMs = HANG_GUARD_MS,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command[0], {
    args: [...command.slice(1), ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const guard = setTimeout(() => child.kill(), hangGuardMs);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input)).catch(() => {});
    await writer.close().catch(() => {});
    const { code, stdout, stderr } = await child.output();
    const text = new TextDecoder();
    return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Throws unless `command` (argv of the built server) prints `toolshed <version>` for
 * --version and answers a tools/list with exactly `expectedTools`.
 */
export async function smokeTest(
  command: string[],
  expectedTools: readonly string[],
  options: { args?: string[]; cwd?: string } = {},
): Promise<void> {
  const shown = command.join(" ");
  const version = await run(command, ["--version"], "", options.cwd);
  const wanted = `${SERVER_INFO.name} ${SERVER_INFO.version}`;
  const said = `${version.stdout}${version.stderr}`.trim();
  if (version.code !== 0 || !said.split("\n").includes(wanted)) {
    throw new Error(
      `Smoke test failed: "${shown} --version" should print "${wanted}" and exit 0 but exited ` +
        `${version.code} printing "${said.split("\n").slice(0, 3).join(" | ")}"`,
    );
  }
  const request = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
  const list = await run(command, options.args ?? [], `${JSON.stringify(request)}\n`, options.cwd);
  const first = list.stdout.split("\n")[0];
  let names: string[] | undefined;
  try {
    const answer = JSON.parse(first);
    if (answer.id === 1 && Array.isArray(answer.result?.tools)) {
      names = answer.result.tools.map((tool: { name: string }) => tool.name).sort();
    }
  } catch {
    // Not JSON: reported below.
  }
  if (names === undefined || list.code !== 0) {
    throw new Error(
      `Smoke test failed: "${shown}" should answer tools/list over stdio and exit 0 but exited ` +
        `${list.code} answering "${first.slice(0, 200)}"; its stderr: ${
          list.stderr.trim().slice(0, 500)
        }`,
    );
  }
  if (names.join(",") !== [...expectedTools].sort().join(",")) {
    throw new Error(
      `Smoke test failed: "${shown}" serves the tools "${names.join(", ")}" instead of "${
        [...expectedTools].sort().join(", ")
      }"`,
    );
  }
}
