// What `toolshed config HOST --write` writes, read by the hosts themselves (issue 36,
// adr/0064): Gemini CLI, Qwen Code, Codex, opencode, Copilot CLI and Cline, pinned and
// installed by tests/hosts/install.ts into .cache/hosts/ (.ci/run installs them; a missing one
// fails there, and elsewhere the test says it did not run). Each runs with a HOME of the test's
// and lists its servers: those that connect while listing (Gemini CLI, Qwen Code, opencode)
// start toolshed from the written entry and must report it connected; the others must report
// the entry's command and arguments, or its URL, exactly. Continue has no command-line reader
// of its own to install: tests/config_hosts_test.ts checks its files against its docs.
import assert from "node:assert/strict";
import { memoryIo } from "./_memory_io.ts";
import { configure } from "../lib/commands/config.ts";
import { currentSelf } from "../lib/commands/client_launch.ts";
import { command as newCommand } from "../lib/commands/new.ts";
import { type HostId, hostsProblem, runHost } from "./_mcp_hosts.ts";

const MISSING = await hostsProblem();
const IN_CI = Deno.env.get("CI") === "true";
const NOTE = MISSING === undefined || IN_CI ? "" : ` (NOT RUN HERE: ${MISSING})`;
const URL_GIVEN = "http://127.0.0.1:9/mcp"; // nothing listens on port 9: listed, not reached

/** This machine's Deno cache, which a server the hosts start must find (its HOME is new). */
async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/**
 * A HOME and a server directory with one tool in it, for `fn`; `config HOST ARGS --write` runs
 * there through `write`.
 */
async function withHome(
  fn: (
    context: {
      home: string;
      project: string;
      env: Record<string, string>;
      write: (host: HostId, args: string[]) => Promise<void>;
    },
  ) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolshed_live_" }));
  try {
    const home = `${root}/home`;
    const project = `${root}/project`;
    await Deno.mkdir(home);
    await Deno.mkdir(project);
    const made = memoryIo(project, {});
    assert.equal(await newCommand.run(["tool", "ping", "--dir", project], made.io), 0);
    const env = { HOME: home, DENO_DIR: await denoDir() };
    const write = async (host: HostId, args: string[]) => {
      const memory = memoryIo(project, env);
      const code = await configure([host, ...args, "--write"], memory.io, currentSelf());
      assert.equal(code, 0, memory.err());
    };
    await fn({ home, project, env, write });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const live = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: `${name}${NOTE}`, ignore: MISSING !== undefined && !IN_CI, fn });

/** The launch config writes for `project` from this toolshed. */
function launchOf(project: string) {
  const self = currentSelf();
  return {
    command: self.execPath,
    args: ["run", "-A", `--lock=${project}/deno.lock`, self.main, "--dir", project],
  };
}

live(
  "Gemini CLI's gemini mcp list starts toolshed from the entry config wrote, in a trusted folder, and lists the URL entry",
  async () => {
    await withHome(async ({ home, project, env, write }) => {
      await write("gemini", ["--dir", project]);
      const untrusted = await runHost("gemini", ["mcp", "list"], { home, cwd: project, env });
      assert.match(untrusted.output, /untrusted/, untrusted.output);
      // The trust step config names: this folder trusted, as Gemini's own prompt records it.
      await Deno.mkdir(`${home}/.gemini`, { recursive: true });
      await Deno.writeTextFile(
        `${home}/.gemini/trustedFolders.json`,
        JSON.stringify({ [project]: "TRUST_FOLDER" }),
      );
      const listed = await runHost("gemini", ["mcp", "list"], { home, cwd: project, env });
      assert.equal(listed.code, 0, listed.output);
      const { command, args } = launchOf(project);
      assert.ok(
        listed.output.includes(`toolshed: ${command} ${args.join(" ")} (stdio) - Connected`),
        listed.output,
      );
      await write("gemini", ["--url", URL_GIVEN, "--name", "remote"]);
      const both = await runHost("gemini", ["mcp", "list"], { home, cwd: project, env });
      assert.ok(both.output.includes(`remote: ${URL_GIVEN} (http)`), both.output);
      assert.ok(both.output.includes("toolshed: "), both.output);
    });
  },
);

live(
  "Qwen Code's qwen mcp list starts toolshed from the entry config wrote, and lists the URL entry",
  async () => {
    await withHome(async ({ home, project, env, write }) => {
      await write("qwen", ["--dir", project]);
      await write("qwen", ["--url", URL_GIVEN, "--name", "remote"]);
      const listed = await runHost("qwen", ["mcp", "list"], { home, cwd: project, env });
      assert.equal(listed.code, 0, listed.output);
      const { command, args } = launchOf(project);
      assert.ok(
        listed.output.includes(`toolshed: ${command} ${args.join(" ")} (stdio) - Connected`),
        listed.output,
      );
      assert.ok(listed.output.includes(`remote: ${URL_GIVEN} (http)`), listed.output);
    });
  },
);

live(
  "Codex's codex mcp list --json reads the table config wrote beside the user's own settings",
  async () => {
    await withHome(async ({ home, project, env, write }) => {
      await Deno.mkdir(`${home}/.codex`);
      await Deno.writeTextFile(
        `${home}/.codex/config.toml`,
        '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "/bin/true"\n',
      );
      await write("codex", ["--dir", project]);
      await write("codex", ["--url", URL_GIVEN, "--name", "remote"]);
      const listed = await runHost("codex", ["mcp", "list", "--json"], { home, cwd: project, env });
      assert.equal(listed.code, 0, listed.output);
      const servers = JSON.parse(listed.stdout) as { name: string; transport: unknown }[];
      const byName = Object.fromEntries(servers.map((server) => [server.name, server.transport]));
      const { command, args } = launchOf(project);
      assert.deepEqual(
        Object.keys(byName).sort(),
        ["other", "remote", "toolshed"],
      );
      assert.equal((byName.toolshed as { type: string }).type, "stdio");
      assert.equal((byName.toolshed as { command: string }).command, command);
      assert.deepEqual((byName.toolshed as { args: string[] }).args, args);
      assert.equal((byName.remote as { type: string }).type, "streamable_http");
      assert.equal((byName.remote as { url: string }).url, URL_GIVEN);
    });
  },
);

live(
  "opencode's opencode mcp list starts toolshed from the entry config wrote in opencode.json",
  async () => {
    await withHome(async ({ home, project, env, write }) => {
      await write("opencode", ["--dir", project]);
      await write("opencode", ["--url", URL_GIVEN, "--name", "remote"]);
      const listed = await runHost("opencode", ["mcp", "list", "--pure"], {
        home,
        cwd: project,
        env,
      });
      assert.equal(listed.code, 0, listed.output);
      const plain = listed.output.replace(
        new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"),
        "",
      );
      const { command, args } = launchOf(project);
      assert.ok(
        plain.includes(`✓ toolshed connected\n│      ${command} ${args.join(" ")}\n`),
        plain,
      );
      assert.ok(plain.includes("✗ remote failed") && plain.includes(URL_GIVEN), plain);
    });
  },
);

live("Copilot CLI's copilot mcp list --json reads the entries config wrote", async () => {
  await withHome(async ({ home, project, env, write }) => {
    await write("copilot", ["--dir", project]);
    await write("copilot", ["--url", URL_GIVEN, "--name", "remote"]);
    const listed = await runHost("copilot", ["mcp", "list", "--json"], {
      home,
      cwd: project,
      env,
    });
    assert.equal(listed.code, 0, listed.output);
    const { mcpServers } = JSON.parse(listed.stdout);
    const { command, args } = launchOf(project);
    assert.deepEqual(
      { ...mcpServers.toolshed },
      { type: "local", command, args, tools: ["*"], source: "user", enabled: true },
    );
    assert.deepEqual(
      { ...mcpServers.remote },
      { type: "http", url: URL_GIVEN, tools: ["*"], source: "user", enabled: true },
    );
  });
});

live("Cline's cline config mcp --json reads the entries config wrote", async () => {
  await withHome(async ({ home, project, env, write }) => {
    await write("cline", ["--dir", project]);
    await write("cline", ["--url", URL_GIVEN, "--name", "remote"]);
    const listed = await runHost("cline", ["config", "mcp", "--json"], {
      home,
      cwd: project,
      env,
    });
    assert.equal(listed.code, 0, listed.output);
    const file = `${home}/.cline/data/settings/cline_mcp_settings.json`;
    const servers = JSON.parse(listed.stdout) as { name: string }[];
    assert.deepEqual(servers.sort((a, b) => a.name.localeCompare(b.name)), [
      { name: "remote", transportType: "streamableHttp", disabled: false, path: file },
      { name: "toolshed", transportType: "stdio", disabled: false, path: file },
    ]);
  });
});
