// toolshed config for the hosts after the first four (issue 36, adr/0064): Gemini CLI, Qwen Code,
// Codex (TOML), opencode, Copilot CLI, Cline and Continue (YAML). Each file is read back by a
// parser of its language that is not the one the edit uses where it can be (js-yaml for YAML,
// jsonc-parser for JSON with comments; smol-toml for TOML, which the edit also uses, so the
// TOML cases also pin the text itself), for a server the host starts and for one at --url:
// written where the host reads it, the exact entry, every other thing in the file kept, a
// file that does not parse refused and left untouched, and the host's trust step said.
// tests/config_hosts_live_test.ts gives the same files to the hosts themselves.
import assert from "node:assert/strict";
import { parse as parseToml } from "npm:smol-toml@1.9.1";
import { load as parseYaml } from "npm:js-yaml@5.5.0";
import { parse as parseJsonc } from "npm:jsonc-parser@3.3.1";
import type { Self } from "../lib/commands/client_launch.ts";
import { npxRunWords, runConfig, sourceSelf, withTempDir } from "./_config_tools.ts";

type Language = "json" | "toml" | "yaml";
const read: Record<Language, (text: string) => unknown> = {
  json: (text) => parseJsonc(text, [], { allowTrailingComma: true }),
  toml: (text) => JSON.parse(JSON.stringify(parseToml(text))),
  yaml: (text) => parseYaml(text),
};

interface Host {
  id: string;
  language: Language;
  /** Where it reads its servers, given the test's home and working directory. */
  file: (home: string, cwd: string) => string;
  /** The document holding only `entry` as server `name`, as the host's own docs show it. */
  document: (name: string, entry: Record<string, unknown>) => unknown;
  stdio: (command: string, args: string[]) => Record<string, unknown>;
  http: (url: string) => Record<string, unknown>;
  /** Words of its trust or approval step, which the output must name. */
  trust: RegExp;
  /** The host's own command, when it has one. */
  add?: RegExp;
  /** A file in its language that does not parse, and the word its refusal says. */
  malformed: string;
  /** An existing file with other content and a comment, and what it holds. */
  existing: { text: string; holds: unknown };
}

const mcpServers = (name: string, entry: Record<string, unknown>) => ({
  mcpServers: { [name]: entry },
});
const JSON_EXISTING = {
  text:
    '{\n  // mine\n  "theme": "dark",\n  "mcpServers": {\n    "other": { "command": "x" },\n  },\n}\n',
  holds: { theme: "dark", mcpServers: { other: { command: "x" } } },
};

const HOSTS: Host[] = [
  {
    id: "gemini",
    language: "json",
    file: (_home, cwd) => `${cwd}/.gemini/settings.json`,
    document: mcpServers,
    stdio: (command, args) => ({ command, args }),
    http: (url) => ({ url, type: "http" }),
    trust: /not trusted: trust this one/,
    add: /gemini mcp add .*toolshed /,
    malformed: '{ "mcpServers": { ',
    existing: JSON_EXISTING,
  },
  {
    id: "qwen",
    language: "json",
    file: (home) => `${home}/.qwen/settings.json`,
    document: mcpServers,
    stdio: (command, args) => ({ command, args }),
    http: (url) => ({ httpUrl: url }),
    trust: /folder you trust/,
    add: /qwen mcp add .*toolshed /,
    malformed: '{ "mcpServers": [ }',
    existing: JSON_EXISTING,
  },
  {
    id: "codex",
    language: "toml",
    file: (home) => `${home}/.codex/config.toml`,
    document: (name, entry) => ({ mcp_servers: { [name]: entry } }),
    stdio: (command, args) => ({ command, args }),
    http: (url) => ({ url }),
    trust: /approve toolshed's tool calls/,
    add: /codex mcp add toolshed /,
    malformed: 'model = "o3"\n[mcp_servers.other\ncommand = "x"\n',
    existing: {
      text: '# my settings\nmodel = "o3" # the model\n\n[mcp_servers.other]\ncommand = "x"\n' +
        'args = ["a"]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
      holds: {
        model: "o3",
        mcp_servers: { other: { command: "x", args: ["a"] } },
        profiles: { fast: { model: "o4-mini" } },
      },
    },
  },
  {
    id: "opencode",
    language: "json",
    file: (_home, cwd) => `${cwd}/opencode.json`,
    document: (name, entry) => ({ mcp: { [name]: entry } }),
    stdio: (command, args) => ({ type: "local", command: [command, ...args] }),
    http: (url) => ({ type: "remote", url }),
    trust: /"permission"/,
    malformed: '{ "mcp": { "a": } }',
    existing: {
      text: '{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n  "mcp": {\n' +
        '    "other": { "type": "local", "command": ["x"] }\n  }\n}\n',
      holds: {
        $schema: "https://opencode.ai/config.json",
        mcp: { other: { type: "local", command: ["x"] } },
      },
    },
  },
  {
    id: "copilot",
    language: "json",
    file: (home) => `${home}/.copilot/mcp-config.json`,
    document: mcpServers,
    stdio: (command, args) => ({ type: "local", command, args, tools: ["*"] }),
    http: (url) => ({ type: "http", url, tools: ["*"] }),
    trust: /--allow-tool/,
    add: /copilot mcp add .*toolshed /,
    malformed: "mcpServers: {}",
    existing: JSON_EXISTING,
  },
  {
    id: "cline",
    language: "json",
    file: (home) => `${home}/.cline/data/settings/cline_mcp_settings.json`,
    document: mcpServers,
    stdio: (command, args) => ({ type: "stdio", command, args }),
    http: (url) => ({ type: "streamableHttp", url }),
    trust: /"autoApprove"/,
    malformed: '{"mcpServers": {"a": {"command": "x",}}',
    existing: JSON_EXISTING,
  },
  {
    id: "continue",
    language: "yaml",
    file: (_home, cwd) => `${cwd}/.continue/mcpServers/toolshed.yaml`,
    document: (name, entry) => ({
      name,
      version: "0.0.1",
      schema: "v1",
      mcpServers: [{ name, ...entry }],
    }),
    stdio: (command, args) => ({ command, args }),
    http: (url) => ({ type: "streamable-http", url }),
    trust: /Agent mode/,
    malformed: "mcpServers:\n  - name: a\n   command: x\n",
    existing: {
      text: "# my block\nname: Mine # the title\nversion: 1.0.0\nschema: v1\nmcpServers:\n" +
        "  - name: other # keep\n    command: uvx\n",
      holds: {
        name: "Mine",
        version: "1.0.0",
        schema: "v1",
        mcpServers: [{ name: "other", command: "uvx" }],
      },
    },
  },
];

const URL_GIVEN = "http://127.0.0.1:8931/mcp";

/** What the test's launch is: this fake deno running main.ts on `dir`. */
function launchOf(self: Self, dir: string) {
  return {
    command: self.execPath,
    args: ["run", "-A", `--lock=${dir}/deno.lock`, self.main, "--dir", dir],
  };
}

/** The host's list of servers with `entry` for "toolshed" put in `holds`. */
function withServer(host: Host, holds: unknown, entry: Record<string, unknown>): unknown {
  const copy = structuredClone(holds) as Record<string, unknown>;
  const full = host.document("toolshed", entry) as Record<string, unknown>;
  const key = Object.keys(full).find((each) => each !== "name" && typeof full[each] === "object")!;
  if (Array.isArray(copy[key])) (copy[key] as unknown[]).push((full[key] as unknown[])[0]);
  else copy[key] = { ...(copy[key] as object), ...(full[key] as object) };
  return copy;
}

Deno.test("config prints each host's entry in its own language, where it goes, its own add command and its trust step", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const home = `${root}/home`;
    const { command, args } = launchOf(self, root);
    for (const host of HOSTS) {
      for (
        const [flags, entry] of [
          [["--dir", root], host.stdio(command, args)],
          [["--url", URL_GIVEN], host.http(URL_GIVEN)],
        ] as const
      ) {
        const result = await runConfig([host.id, ...flags], root, { env: { HOME: home }, self });
        assert.equal(result.code, 0, `${host.id}: ${result.err}`);
        assert.deepEqual(
          read[host.language](result.out),
          host.document("toolshed", entry),
          host.id,
        );
        assert.ok(
          result.err.startsWith(`toolshed: For `) &&
            result.err.includes(
              `merge this into "${host.file(home, root)}" ` +
                `(toolshed config ${host.id} --write does it)\n`,
            ),
          `${host.id}: ${result.err}`,
        );
        assert.match(result.err, host.trust, host.id);
        if (host.add !== undefined) assert.match(result.err, host.add, host.id);
      }
    }
  });
});

Deno.test("config --write puts each host's entry in the file it reads, created with its folders, for a launch and for --url", async () => {
  for (const host of HOSTS) {
    for (const remote of [false, true]) {
      await withTempDir(async (root) => {
        const self = sourceSelf(root);
        const home = `${root}/home`;
        const { command, args } = launchOf(self, root);
        const flags = remote ? ["--url", URL_GIVEN] : ["--dir", root];
        const entry = remote ? host.http(URL_GIVEN) : host.stdio(command, args);
        const result = await runConfig([host.id, ...flags, "--write"], root, {
          env: { HOME: home },
          self,
        });
        const file = host.file(home, root);
        assert.equal(result.code, 0, `${host.id}: ${result.err}`);
        assert.equal(result.err, "");
        assert.ok(
          result.out.startsWith(`Created "${file}" with the server "toolshed"\n`),
          result.out,
        );
        assert.match(result.out, host.trust, host.id);
        const text = await Deno.readTextFile(file);
        assert.deepEqual(read[host.language](text), host.document("toolshed", entry), host.id);
        const again = await runConfig([host.id, ...flags, "--write"], root, {
          env: { HOME: home },
          self,
        });
        assert.deepEqual(again, {
          code: 0,
          out: `"${file}" already has this server "toolshed": nothing to change\n`,
          err: "",
        }, host.id);
        assert.equal(await Deno.readTextFile(file), text);
      });
    }
  }
});

Deno.test("config --write keeps everything else in each host's file, comments included", async () => {
  for (const host of HOSTS) {
    await withTempDir(async (root) => {
      const self = sourceSelf(root);
      const home = `${root}/home`;
      const file = host.file(home, root);
      await Deno.mkdir(file.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(file, host.existing.text);
      const result = await runConfig([host.id, "--url", URL_GIVEN, "--write"], root, {
        env: {
          HOME: home,
        },
        self,
      });
      assert.equal(result.code, 0, `${host.id}: ${result.err}`);
      assert.ok(result.out.startsWith(`Added the server "toolshed" in "${file}"\n`), result.out);
      const text = await Deno.readTextFile(file);
      const expected = withServer(host, host.existing.holds, host.http(URL_GIVEN));
      assert.deepEqual(read[host.language](text), expected, host.id);
      // Every comment stays, and each line of the old file is still there, in order (YAML's
      // comments may be re-spaced by the tree it is written from).
      const lines = host.existing.text.split("\n").map((line) =>
        host.language === "yaml" ? line.replace(/\s+#/, " #") : line
      );
      let at = 0;
      for (const line of lines) {
        const found = text.indexOf(line, at);
        assert.ok(found >= 0, `${host.id}: "${line}" is gone from\n${text}`);
        at = found + line.length;
      }
    });
  }
});

Deno.test("config --write refuses each host's file that does not parse in its language, and leaves it untouched", async () => {
  const language = { json: "JSON", toml: "TOML", yaml: "YAML" };
  for (const host of HOSTS) {
    await withTempDir(async (root) => {
      const self = sourceSelf(root);
      const home = `${root}/home`;
      const file = host.file(home, root);
      await Deno.mkdir(file.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(file, host.malformed);
      const mtime = (await Deno.stat(file)).mtime;
      for (const flags of [["--dir", root], ["--url", URL_GIVEN]]) {
        const result = await runConfig([host.id, ...flags, "--write"], root, {
          env: { HOME: home },
          self,
        });
        assert.equal(result.code, 1, host.id);
        assert.equal(result.out, "");
        assert.match(
          result.err,
          new RegExp(
            `^toolshed: Cannot update "${file}": it is not valid ${language[host.language]}` +
              `.*: fix it, or add the entry by hand\n$`,
          ),
          host.id,
        );
        assert.equal(await Deno.readTextFile(file), host.malformed, host.id);
        assert.deepEqual((await Deno.stat(file)).mtime, mtime);
        assert.deepEqual(
          (await Array.fromAsync(Deno.readDir(file.replace(/\/[^/]*$/, "")))).map((e) => e.name),
          [file.replace(/^.*\//, "")],
          "no temporary or lock file is left",
        );
      }
    });
  }
});

Deno.test("config --write replaces Codex's table and the tables below it in place, saying so, and leaves the rest line for line", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const home = `${root}/home`;
    await Deno.mkdir(`${home}/.codex`, { recursive: true });
    const before = '# top\n[mcp_servers.other]\ncommand = "x"\n\n';
    const old = '[mcp_servers.toolshed]\ncommand = "old"\n\n[mcp_servers.toolshed.env]\nA = "1"\n';
    const after = '\n# the profiles\n[profiles.fast]\nmodel = "o4-mini"\n';
    await Deno.writeTextFile(`${home}/.codex/config.toml`, before + old + after);
    const result = await runConfig(["codex", "--dir", root, "--write"], root, {
      env: {
        HOME: home,
      },
      self,
    });
    assert.equal(result.code, 0, result.err);
    assert.equal(
      result.err,
      `toolshed: "${home}/.codex/config.toml" already has a server "toolshed", which this ` +
        `replaces; it was:\n${JSON.stringify({ command: "old", env: { A: "1" } }, null, 2)}\n`,
    );
    const { command, args } = launchOf(self, root);
    assert.equal(
      await Deno.readTextFile(`${home}/.codex/config.toml`),
      before + `[mcp_servers.toolshed]\ncommand = ${JSON.stringify(command)}\nargs = [` +
        args.map((arg) => JSON.stringify(arg)).join(", ") + "]\n" + after,
    );
    // CODEX_HOME moves the file, as it moves Codex's own.
    const moved = await runConfig(["codex", "--dir", root, "--write"], root, {
      env: {
        HOME: home,
        CODEX_HOME: `${root}/codex-home`,
      },
      self,
    });
    assert.equal(moved.code, 0, moved.err);
    assert.deepEqual(
      read.toml(await Deno.readTextFile(`${root}/codex-home/config.toml`)),
      { mcp_servers: { toolshed: { command, args } } },
    );
  });
});

Deno.test("config --write refuses a Codex server written as an inline table or dotted keys, which a table cannot replace", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const home = `${root}/home`;
    await Deno.mkdir(`${home}/.codex`, { recursive: true });
    for (
      const text of [
        'mcp_servers = { toolshed = { command = "x" } }\n',
        'mcp_servers.toolshed.command = "x"\n',
        'mcp_servers = { other = { command = "x" } }\n',
      ]
    ) {
      await Deno.writeTextFile(`${home}/.codex/config.toml`, text);
      const result = await runConfig(["codex", "--dir", root, "--write"], root, {
        env: {
          HOME: home,
        },
        self,
      });
      assert.equal(result.code, 1, text);
      assert.match(
        result.err,
        /^toolshed: Cannot update ".*config.toml": it defines the server "toolshed" other than as a \[mcp_servers.toolshed\] table|its layout leaves no place/,
      );
      assert.equal(await Deno.readTextFile(`${home}/.codex/config.toml`), text);
    }
  });
});

Deno.test("config --url for the first four clients: an HTTP entry where they have one, a refusal from Claude Desktop", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const cases = [
      ["claude-code", { mcpServers: { toolshed: { type: "http", url: URL_GIVEN } } }],
      ["vscode", { servers: { toolshed: { type: "http", url: URL_GIVEN } } }],
      ["cursor", { mcpServers: { toolshed: { url: URL_GIVEN } } }],
    ] as const;
    for (const [client, expected] of cases) {
      const result = await runConfig([client, "--url", URL_GIVEN], root, { self });
      assert.equal(result.code, 0, result.err);
      assert.deepEqual(JSON.parse(result.out), expected);
    }
    const desktop = await runConfig(["claude-desktop", "--url", URL_GIVEN], root, { self });
    assert.deepEqual(desktop, {
      code: 2,
      out: "",
      err: "toolshed: Claude Desktop reads no remote server from its file: add one under its " +
        "Settings > Connectors, or leave out --url to let it start toolshed\n",
    });
    const hint = "\n(toolshed config --help shows how)\n";
    for (
      const [args, message] of [
        [
          ["codex", "--url", "ftp://x/mcp"],
          '--url needs an http:// or https:// URL, not "ftp://x/mcp"',
        ],
        [
          ["codex", "--url", "localhost:3000"],
          '--url needs an http:// or https:// URL, not "localhost:3000"',
        ],
        [
          ["codex", "--url", URL_GIVEN, "--dir", root],
          "--url names a server already running: --dir is for one the client starts",
        ],
        [
          ["codex", "--url", URL_GIVEN, "--launch", "npx"],
          "--url names a server already running: --launch is for one the client starts",
        ],
        [["codex", "--url", ""], "--url needs a value"],
      ] as const
    ) {
      const result = await runConfig([...args], root, { self });
      assert.deepEqual(result, { code: 2, out: "", err: `toolshed: ${message}${hint}` });
    }
  });
});

Deno.test("config --launch npx starts an npx run by #!/usr/bin/env node with node's absolute path for every client, so their PATH need not hold node", async () => {
  await withTempDir(async (root) => {
    const bin = `${root}/nvm/bin`;
    await Deno.mkdir(`${root}/nvm/lib`, { recursive: true });
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(`${root}/nvm/lib/npx-cli.js`, "#!/usr/bin/env node\n", {
      mode: 0o755,
    });
    await Deno.symlink(`${root}/nvm/lib/npx-cli.js`, `${bin}/npx`);
    await Deno.writeTextFile(`${bin}/node`, "", { mode: 0o755 });
    const self = sourceSelf(root);
    const run = npxRunWords(root, root);
    const result = await runConfig(["gemini", "--launch", "npx", "--dir", root], root, {
      env: {
        PATH: `/nonexistent:${bin}`,
        HOME: root,
      },
      self,
    });
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(JSON.parse(result.out), {
      mcpServers: {
        toolshed: { command: `${bin}/node`, args: [`${root}/nvm/lib/npx-cli.js`, ...run] },
      },
    });
    // The first four too (before, they named npx as found, which needs node on the client's
    // PATH), each in its own shape.
    const byNode = { command: `${bin}/node`, args: [`${root}/nvm/lib/npx-cli.js`, ...run] };
    for (
      const [client, expected] of [
        ["claude-desktop", { mcpServers: { toolshed: byNode } }],
        ["claude-code", { mcpServers: { toolshed: { type: "stdio", ...byNode } } }],
        ["vscode", { servers: { toolshed: { type: "stdio", ...byNode } } }],
        ["cursor", { mcpServers: { toolshed: byNode } }],
      ] as const
    ) {
      const printed = await runConfig([client, "--launch", "npx", "--dir", root], root, {
        env: {
          PATH: `/nonexistent:${bin}`,
          HOME: root,
        },
        self,
      });
      assert.equal(printed.code, 0, printed.err);
      assert.deepEqual(JSON.parse(printed.out), expected, client);
    }
    // With no node beside it, the node on PATH; with none at all, npx as it is.
    await Deno.remove(`${bin}/node`);
    await Deno.mkdir(`${root}/other`);
    await Deno.writeTextFile(`${root}/other/node`, "", { mode: 0o755 });
    const onPath = await runConfig(["codex", "--launch", "npx", "--dir", root], root, {
      env: {
        PATH: `${bin}:${root}/other`,
        HOME: root,
      },
      self,
    });
    assert.deepEqual(read.toml(onPath.out), {
      mcp_servers: {
        toolshed: { command: `${root}/other/node`, args: [`${root}/nvm/lib/npx-cli.js`, ...run] },
      },
    });
    const none = await runConfig(["copilot", "--launch", "npx", "--dir", root], root, {
      env: {
        PATH: bin,
      },
      self,
    });
    assert.deepEqual(JSON.parse(none.out), {
      mcpServers: { toolshed: { type: "local", command: `${bin}/npx`, args: run, tools: ["*"] } },
    });
  });
});
