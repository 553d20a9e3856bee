// Installing toolshed with Deno from a URL, as docs/operating/install.md says:
// `deno install -g -A -n toolshed <url>/main.ts`. The repository is served read-only on
// loopback (as tests/remote_run_test.ts serves it), the command is installed into a temporary
// DENO_INSTALL_ROOT, the file server is shut down, and the installed `toolshed` (Deno's
// launcher script in DENO_INSTALL_ROOT/bin, this deno on PATH) answers `--version` and a
// tools/list of a server directory from what the install cached. The repository is unchanged.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { serveStatic } from "./_static_server.ts";
import { modernBody } from "./_http_server.ts";

const REPO = new URL("../", import.meta.url);
const ROOT = decodeURIComponent(REPO.pathname);
const TYPES: Record<string, string> = {
  ".ts": "application/typescript",
  ".js": "text/javascript",
  ".json": "application/json",
};
/** Guards against a hang only; nothing here asserts a time. */
const HANG_GUARD_MS = 180_000;

/** Runs `program args` with exactly `env` and `stdin`; its exit code, stdout and stderr. */
async function run(
  program: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  stdin = "",
): Promise<{ code: number; out: string; err: string }> {
  const child = new Deno.Command(program, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const guard = setTimeout(() => child.kill("SIGKILL"), HANG_GUARD_MS);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    const text = new TextDecoder();
    return { code, out: text.decode(stdout), err: text.decode(stderr) };
  } finally {
    clearTimeout(guard);
  }
}

async function gitStatus(): Promise<string> {
  const { stdout } = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=all"],
    cwd: ROOT,
    stdin: "null",
  }).output();
  return new TextDecoder().decode(stdout);
}

Deno.test("deno install -g -A -n toolshed from a URL gives a toolshed command that serves", async () => {
  const before = await gitStatus();
  const tmp = await Deno.makeTempDir({ prefix: "toolshed_deno_install_" });
  const { origin, requested, server } = serveStatic((path) => {
    const type = TYPES[path.slice(path.lastIndexOf("."))];
    return type === undefined ? undefined : { file: new URL(`.${path}`, REPO), type };
  });
  let serving = true;
  try {
    const root = `${tmp}/root`;
    const home = `${tmp}/home`;
    await Deno.mkdir(home);
    // A server directory of one tool, outside the repository.
    await Deno.mkdir(`${home}/my-server/tools`, { recursive: true });
    await Deno.writeTextFile(
      `${home}/my-server/tools/hello.ts`,
      `export default {
  description: "Says hello",
  inputSchema: { type: "object", properties: {} },
  handler: () => "hello",
};
`,
    );
    const env = {
      HOME: home,
      // Deno on PATH (Deno's launcher script runs `deno`), and the shell's commands.
      PATH: `${dirname(Deno.execPath())}:${root}/bin:/usr/bin:/bin`,
      DENO_INSTALL_ROOT: root,
      // The npm packages the server imports, from this test's cache (a fresh HOME has none).
      DENO_DIR: JSON.parse(
        new TextDecoder().decode(
          (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
        ),
      ).denoDir,
      NO_COLOR: "1",
    };
    const installed = await run(
      Deno.execPath(),
      ["install", "-g", "-A", "-n", "toolshed", `${origin}/main.ts`],
      env,
      home,
    );
    assert.equal(installed.code, 0, installed.err);
    assert.ok(requested.includes("/main.ts"), requested.join(", "));
    // What deno install fetched is cached: the command runs with the file server gone.
    await server.shutdown();
    serving = false;

    const version = await run(`${root}/bin/toolshed`, ["--version"], env, home);
    assert.equal(version.code, 0, version.err);
    const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
    assert.equal(version.err.trim(), `toolshed ${manifest.version}`);

    const served = await run(
      `${root}/bin/toolshed`,
      ["--dir", `${home}/my-server`],
      env,
      home,
      `${modernBody(1, "tools/list")}\n`,
    );
    assert.equal(served.code, 0, served.err);
    const answer = JSON.parse(served.out.trim().split("\n")[0]);
    assert.deepEqual(answer.result.tools.map((tool: { name: string }) => tool.name), ["hello"]);
    assert.equal(await gitStatus(), before);
  } finally {
    if (serving) await server.shutdown();
    await Deno.remove(tmp, { recursive: true });
  }
});
