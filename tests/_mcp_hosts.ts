// The MCP hosts tests/hosts/install.ts installs into .cache/hosts/ (pinned in
// tests/hosts/npm-package.json), for tests/config_hosts_live_test.ts and, Claude Code and
// Gemini CLI driven headless against a model on loopback, tests/jobs_host_test.ts: each one's
// own command line, run with a HOME of the test's so that it reads only the files the test
// wrote.
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the hosts are installed (.gitignore excludes .cache/). */
export const HOSTS_CACHE = `${ROOT}.cache/hosts`;

/** Each host's command, and the version its --version must name. */
export const HOST_BINS = {
  gemini: { bin: "gemini", version: "0.61.0" },
  qwen: { bin: "qwen", version: "0.24.4" },
  codex: { bin: "codex", version: "0.171.0" },
  opencode: { bin: "opencode", version: "1.18.33" },
  copilot: { bin: "copilot", version: "1.0.102" },
  cline: { bin: "cline", version: "3.0.65" },
  claude: { bin: "claude", version: "2.1.332" },
} as const;
export type HostId = keyof typeof HOST_BINS;

/**
 * Why the hosts cannot be run from the cache, or undefined when they can. Each runs with a
 * HOME of its own, removed after: some unpack files there (Copilot CLI its SDK and docs),
 * which must not land in the repository, where `deno test --doc` would find them.
 */
export async function hostsProblem(): Promise<string | undefined> {
  const home = await Deno.makeTempDir({ prefix: "toolshed_hosts_home_" });
  try {
    for (const [id, { version }] of Object.entries(HOST_BINS)) {
      try {
        const { output } = await runHost(id as HostId, ["--version"], { home, cwd: home });
        if (!output.includes(version)) {
          return `${id} --version says "${output.trim()}", not ${version}`;
        }
      } catch (error) {
        return `${id} is not installed in ${HOSTS_CACHE} (${(error as Error).message}); ` +
          "run deno run -A tests/hosts/install.ts";
      }
    }
    return undefined;
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/**
 * Runs the host `id` with `args` in `cwd`, its HOME `home` (and `env` besides), stdin closed:
 * its exit code and all it printed. With `signal`, the host is killed when it aborts.
 */
export async function runHost(
  id: HostId,
  args: string[],
  options: { home: string; cwd: string; env?: Record<string, string>; signal?: AbortSignal },
): Promise<{ code: number; output: string; stdout: string }> {
  const { code, stdout, stderr } = await new Deno.Command(
    `${HOSTS_CACHE}/node_modules/.bin/${HOST_BINS[id].bin}`,
    {
      args,
      cwd: options.cwd,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: options.home,
        NO_COLOR: "1",
        TERM: "dumb",
        ...options.env,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: options.signal,
    },
  ).output();
  const text = new TextDecoder();
  const out = text.decode(stdout);
  return { code, output: `${out}${text.decode(stderr)}`, stdout: out };
}
