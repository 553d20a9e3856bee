// toolshed config (lib/commands/config.ts): the configuration printed for each client and each
// way of launching, merging into a client's file (every other byte kept as written, comments
// included, a replacement said first, symlinks followed, concurrent writers all landing, a file
// that is not JSON left untouched), every refusal, and the printed command started as a client
// starts it, with nothing but PATH in its environment.
import assert from "node:assert/strict";
import { memoryIo } from "./_memory_io.ts";
import { command } from "../lib/commands/config.ts";
import { claudeDesktopFile } from "../lib/commands/client_formats.ts";
import type { Self } from "../lib/commands/client_launch.ts";
import { npmBundleFlags } from "../lib/commands/invocation.ts";
import { command as newCommand } from "../lib/commands/new.ts";
import { withHangGuard } from "./_server_process.ts";
import { npxRunWords, runConfig, sourceSelf, withTempDir } from "./_config_tools.ts";

const MAIN = decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);

/** What config says first when this deno is npx's (as under `npx deno task test`). */
const NPX_CACHE_NOTE = /[/\\]_npx[/\\]/.test(Deno.execPath())
  ? `toolshed: This deno runs from npm's cache ("${Deno.execPath()}"), which npm may clean: ` +
    "--launch npx keeps working then\n"
  : "";
const INVALID = "it is not valid JSON, even with comments and trailing commas";
const ADVICE = "fix it, or add the entry by hand";
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

Deno.test("config prints each client's entry for this deno and main.ts, with absolute paths", async () => {
  await withTempDir(async (cwd) => {
    await Deno.mkdir(`${cwd}/srv`);
    // Derived here, as the command derives them: this deno, and the main.ts beside tests/.
    const launch = {
      command: Deno.execPath(),
      args: ["run", "-A", `--lock=${cwd}/srv/deno.lock`, MAIN, "--dir", `${cwd}/srv`],
    };
    const home = `${cwd}/home`;
    const desktop = claudeDesktopFile(
      Deno.build.os,
      (name) => name === "HOME" ? home : name === "APPDATA" ? `${cwd}\\AppData` : undefined,
    );
    const cases = [
      ["claude-desktop", { mcpServers: { toolshed: launch } }, desktop, "Claude Desktop"],
      [
        "claude-code",
        { mcpServers: { toolshed: { type: "stdio", ...launch } } },
        `${cwd}/.mcp.json`,
        "Claude Code",
      ],
      [
        "vscode",
        { servers: { toolshed: { type: "stdio", ...launch } } },
        `${cwd}/.vscode/mcp.json`,
        "VS Code",
      ],
      ["cursor", { mcpServers: { toolshed: launch } }, `${cwd}/.cursor/mcp.json`, "Cursor"],
    ] as const;
    for (const [client, expected, file, title] of cases) {
      const result = await runConfig([client, "--dir", "srv"], cwd, {
        env: { HOME: home, APPDATA: `${cwd}\\AppData` },
      });
      assert.deepEqual(result, {
        code: 0,
        out: pretty(expected),
        err: `${NPX_CACHE_NOTE}toolshed: For ${title}, merge this into "${file}" ` +
          `(toolshed config ${client} --write does it)\n`,
      }, client);
    }
  });
});

Deno.test("config names the server with --name and resolves --dir against the working directory", async () => {
  await withTempDir(async (root) => {
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    const self = sourceSelf(root);
    const result = await runConfig(
      ["cursor", "--dir", "../../a/./b/", "--name", "mine"],
      `${root}/a/b`,
      { self },
    );
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(JSON.parse(result.out), {
      mcpServers: {
        mine: {
          command: self.execPath,
          args: ["run", "-A", `--lock=${root}/a/b/deno.lock`, self.main, "--dir", `${root}/a/b`],
        },
      },
    });
  });
});

Deno.test("config --launch npx uses npx's absolute path from PATH, offline first, with this deno's version", async () => {
  await withTempDir(async (root) => {
    const bin = `${root}/node/bin`;
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(`${bin}/npx`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.writeTextFile(`${root}/npx`, "not executable", { mode: 0o644 });
    const self = sourceSelf(root);
    const args = npxRunWords(root, root);
    const found = await runConfig(["claude-desktop", "--launch", "npx", "--dir", root], root, {
      self,
      env: { PATH: `relative/bin:${root}:${bin}:/nonexistent`, HOME: root },
    });
    assert.equal(found.code, 0, found.err);
    assert.deepEqual(JSON.parse(found.out), {
      mcpServers: { toolshed: { command: `${bin}/npx`, args } },
    });
    const missing = await runConfig(["vscode", "--launch", "npx", "--dir", root], root, {
      self,
      env: { PATH: "/nonexistent" },
    });
    assert.equal(missing.code, 0, missing.err);
    assert.deepEqual(JSON.parse(missing.out), {
      servers: { toolshed: { type: "stdio", command: "npx", args } },
    });
    assert.match(
      missing.err,
      /^toolshed: npx is not on the PATH here, so the configuration says "npx": the client must find it on its own PATH\n/,
    );
  });
});

Deno.test("config --launch binary names a compiled toolshed, the default inside one", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const refused = await runConfig(["cursor", "--launch", "binary", "--dir", root], root, {
      self,
    });
    assert.deepEqual(refused, {
      code: 1,
      out: "",
      err: `toolshed: Cannot use --launch binary: there is no compiled toolshed at ` +
        `"${root}/toolshed/dist/toolshed" (deno task compile builds it)\n`,
    });
    await Deno.mkdir(`${root}/toolshed/dist`, { recursive: true });
    await Deno.writeTextFile(self.compiledBinary, "", { mode: 0o755 });
    const built = await runConfig(["cursor", "--launch", "binary", "--dir", root], root, { self });
    assert.deepEqual(JSON.parse(built.out), {
      mcpServers: { toolshed: { command: self.compiledBinary, args: ["--dir", root] } },
    });

    const compiled: Self = { ...self, standalone: true, execPath: `${root}/bin/toolshed` };
    const byDefault = await runConfig(["cursor", "--dir", root], root, { self: compiled });
    assert.deepEqual(JSON.parse(byDefault.out), {
      mcpServers: { toolshed: { command: `${root}/bin/toolshed`, args: ["--dir", root] } },
    });
    for (const launch of ["deno", "npx"]) {
      const result = await runConfig(["cursor", "--launch", launch, "--dir", root], root, {
        self: compiled,
      });
      assert.deepEqual(result, {
        code: 2,
        out: "",
        err: `toolshed: Cannot use --launch ${launch}: a compiled toolshed has no main.ts for ` +
          `${launch} to run: use --launch binary\n`,
      });
    }
  });
});

Deno.test("config from the npm package: its bin by node's absolute path (the default), npx's own line under npx, the bundle with the bin's flags for --launch deno", async () => {
  await withTempDir(async (root) => {
    const pkg = `${root}/global/lib/node_modules/toolshed`;
    const installed: Self = {
      main: `${pkg}/dist/bundle/toolshed.js`,
      execPath: `${pkg}/node_modules/deno/deno`,
      standalone: false,
      denoVersion: "9.8.7",
      compiledBinary: `${pkg}/dist/toolshed`,
      npm: {
        root: pkg,
        bin: `${pkg}/bin/toolshed.cjs`,
        viaNpx: false,
        node: `${root}/nvm/bin/node`,
      },
    };
    // The node that runs the bin, by its absolute path: a client whose PATH holds no node (or
    // nothing) starts it.
    for (const args of [["cursor"], ["cursor", "--launch", "npm"]]) {
      const result = await runConfig([...args, "--dir", root], root, {
        self: installed,
        env: { PATH: "/nonexistent" },
      });
      assert.deepEqual(result, {
        code: 0,
        out: pretty({
          mcpServers: {
            toolshed: {
              command: `${root}/nvm/bin/node`,
              args: [installed.npm!.bin, "--dir", root],
            },
          },
        }),
        err: `toolshed: For Cursor, merge this into "${root}/.cursor/mcp.json" ` +
          "(toolshed config cursor --write does it)\n",
      });
    }
    // Where the system does not show the bin's node: the node on PATH; with none, the bin
    // itself (its #!/usr/bin/env node needs node on the client's PATH, which config says).
    await Deno.mkdir(`${root}/bin`);
    await Deno.writeTextFile(`${root}/bin/node`, "", { mode: 0o755 });
    const unseen: Self = { ...installed, npm: { ...installed.npm!, node: undefined } };
    const onPath = await runConfig(["cursor", "--dir", root], root, {
      self: unseen,
      env: { PATH: `/nonexistent:${root}/bin` },
    });
    assert.deepEqual(JSON.parse(onPath.out).mcpServers.toolshed, {
      command: `${root}/bin/node`,
      args: [installed.npm!.bin, "--dir", root],
    });
    const none = await runConfig(["cursor", "--dir", root], root, {
      self: unseen,
      env: { PATH: "/nonexistent" },
    });
    assert.deepEqual(JSON.parse(none.out).mcpServers.toolshed, {
      command: installed.npm!.bin,
      args: ["--dir", root],
    });
    assert.match(
      none.err,
      /^toolshed: node is not on the PATH here, so the configuration starts the bin by its path/,
    );
    // --launch deno runs the package's bundle on its Deno.
    const deno = await runConfig(["cursor", "--launch", "deno", "--dir", root], root, {
      self: installed,
    });
    assert.deepEqual(JSON.parse(deno.out).mcpServers.toolshed, {
      command: installed.execPath,
      args: [
        "run",
        "-A",
        ...npmBundleFlags(pkg),
        `--lock=${root}/deno.lock`,
        installed.main,
        "--dir",
        root,
      ],
    });
    // Under npx: npx's own line for the package, by default.
    const npxRun: Self = { ...installed, npm: { ...installed.npm!, viaNpx: true } };
    const npx = await runConfig(["cursor", "--dir", root], root, {
      self: npxRun,
      env: { PATH: "/nonexistent" },
    });
    assert.deepEqual(JSON.parse(npx.out).mcpServers.toolshed, {
      command: "npx",
      args: ["--prefer-offline", "--yes", "toolshed", "--dir", root],
    });
    // From source there is no bin to name.
    const fromSource = await runConfig(["cursor", "--launch", "npm", "--dir", root], root, {
      self: sourceSelf(root),
    });
    assert.deepEqual(fromSource, {
      code: 2,
      out: "",
      err: "toolshed: Cannot use --launch npm: this toolshed does not run from the npm package " +
        "toolshed: install it (npm install -g toolshed) and run its config, or use --launch " +
        "deno or npx\n",
    });
  });
});

Deno.test("config warns when this deno lives in npx's cache, and when toolshed runs from a URL", async () => {
  await withTempDir(async (root) => {
    const cached: Self = {
      ...sourceSelf(root),
      execPath: `${root}/.npm/_npx/1a2b/node_modules/deno/deno`,
    };
    const result = await runConfig(["cursor", "--dir", root], root, { self: cached });
    assert.equal(result.code, 0);
    assert.match(
      result.err,
      /^toolshed: This deno runs from npm's cache \(".*_npx.*"\), which npm may clean: --launch npx keeps working then\n/,
    );
    const remote: Self = { ...sourceSelf(root), main: "https://example.com/toolshed/main.ts" };
    const fromUrl = await runConfig(["cursor", "--dir", root], root, { self: remote });
    assert.deepEqual(JSON.parse(fromUrl.out).mcpServers.toolshed.args, [
      "run",
      "-A",
      `--lock=${root}/deno.lock`,
      "https://example.com/toolshed/main.ts",
      "--dir",
      root,
    ]);
    assert.match(
      fromUrl.err,
      /^toolshed: toolshed runs from "https:\/\/example.com\/toolshed\/main.ts", so the client will fetch it from there on each start\n/,
    );
  });
});

Deno.test("config refuses what it cannot do, saying what would work", async () => {
  await withTempDir(async (root) => {
    await Deno.writeTextFile(`${root}/file`, "");
    const self = sourceSelf(root);
    const hint = "\n(toolshed config --help shows how)\n";
    const clients = "claude-desktop, claude-code, vscode, cursor, gemini, qwen, codex, " +
      "opencode, copilot, cline, continue";
    const usage: [string[], string][] = [
      [[], `toolshed config needs a client: ${clients}`],
      [["vscod"], `Unknown client "vscod"; did you mean vscode? (the clients: ${clients})`],
      [["claude"], `Unknown client "claude" (the clients: ${clients})`],
      [["vscode", "cursor"], 'toolshed config takes one client, not also "cursor"'],
      [["vscode", "--launch", "node"], 'Unknown launch "node": use deno, npx, binary, npm'],
      [
        ["vscode", "--launch", "npz"],
        'Unknown launch "npz": use deno, npx, binary, npm; did you mean npx?',
      ],
      [
        ["vscode", "--file", "x.json"],
        "--file says where --write merges the configuration: give --write too",
      ],
      [["vscode", "--name", ""], "--name needs a value"],
      [["vscode", "--dir", ""], "--dir needs a value"],
    ];
    for (const [args, message] of usage) {
      const result = await runConfig(args, root, { self });
      assert.deepEqual(
        result,
        { code: 2, out: "", err: `toolshed: ${message}${hint}` },
        args.join(" "),
      );
    }
    const typo = await runConfig(["vscode", "--wrte"], root, { self });
    assert.equal(typo.code, 2);
    assert.match(typo.err, /^toolshed: Unknown option "--wrte"; did you mean --write\?\n/);
    for (const dir of ["missing", "file"]) {
      const result = await runConfig(["vscode", "--dir", dir], root, { self });
      assert.deepEqual(result, {
        code: 1,
        out: "",
        err: `toolshed: Cannot configure "${root}/${dir}": it is not a directory\n`,
      });
    }
    const noHome = await runConfig(["claude-desktop", "--write"], root, { self, env: {} });
    assert.equal(noHome.code, 1);
    const problem = claudeDesktopFile(Deno.build.os, () => undefined) as { problem: string };
    assert.equal(
      noHome.err,
      `toolshed: Cannot find Claude Desktop's configuration file: ${problem.problem} ` +
        "(give it with --file PATH)\n",
    );
    assert.deepEqual([...Deno.readDirSync(root)].map((entry) => entry.name), ["file"]);
  });
});

Deno.test("config --write creates the file and its folders", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const result = await runConfig(["vscode", "--write", "--dir", root], root, { self });
    assert.deepEqual(result, {
      code: 0,
      out: `Created "${root}/.vscode/mcp.json" with the server "toolshed"\n` +
        "Open this folder in VS Code and start the server from mcp.json (or MCP: List Servers).\n",
      err: "",
    });
    assert.equal(
      await Deno.readTextFile(`${root}/.vscode/mcp.json`),
      pretty({
        servers: {
          toolshed: {
            type: "stdio",
            command: self.execPath,
            args: ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root],
          },
        },
      }),
    );
    const again = await runConfig(["vscode", "--write", "--dir", root], root, { self });
    assert.deepEqual(again, {
      code: 0,
      out: `"${root}/.vscode/mcp.json" already has this server "toolshed": nothing to change\n`,
      err: "",
    });
    // Claude Desktop's file is found through HOME (or APPDATA) as the client's own is.
    const env = { HOME: `${root}/home`, XDG_CONFIG_HOME: "", APPDATA: `${root}/appdata` };
    const desktop = await runConfig(["claude-desktop", "--write", "--dir", root], root, {
      self,
      env,
    });
    const file = claudeDesktopFile(Deno.build.os, (name) => env[name as keyof typeof env]);
    assert.equal(desktop.code, 0, desktop.err);
    assert.equal(typeof file, "string");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(file as string)), {
      mcpServers: {
        toolshed: {
          command: self.execPath,
          args: ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root],
        },
      },
    });
    assert.equal(
      desktop.out,
      `Created "${file}" with the server "toolshed"\n` +
        "Quit Claude Desktop completely and start it again to load the server.\n",
    );
  });
});

Deno.test("config --write keeps every other server and key, and says what it replaces first", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const file = `${root}/.cursor/mcp.json`;
    await Deno.mkdir(`${root}/.cursor`);
    const old = { command: "/old/deno", args: ["run", "old.ts"], env: { KEY: "v" } };
    const before = {
      theme: "dark",
      mcpServers: { other: { command: "other-server", args: ["-x"] }, toolshed: old },
      extra: [1, 2, 3],
    };
    await Deno.writeTextFile(file, JSON.stringify(before), { mode: 0o600 });
    await Deno.chmod(file, 0o600);
    const result = await runConfig(["cursor", "--write", "--dir", root], root, { self });
    const entry = {
      command: self.execPath,
      args: ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root],
    };
    assert.deepEqual(result, {
      code: 0,
      out: `Replaced the server "toolshed" in "${file}"\n` +
        "Open this folder in Cursor and turn the server on in its MCP settings.\n",
      err: `toolshed: "${file}" already has a server "toolshed", which this replaces; it was:\n` +
        pretty(old),
    });
    const after = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(after, {
      theme: "dark",
      mcpServers: { other: { command: "other-server", args: ["-x"] }, toolshed: entry },
      extra: [1, 2, 3],
    });
    assert.deepEqual(Object.keys(after), ["theme", "mcpServers", "extra"], "key order is kept");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600, "the file's permissions are kept");
    assert.deepEqual(
      [...Deno.readDirSync(`${root}/.cursor`)].map((entry) => entry.name),
      ["mcp.json"],
      "no temporary file is left",
    );

    const added = await runConfig(
      ["cursor", "--write", "--dir", root, "--name", "second", "--file", ".cursor/mcp.json"],
      root,
      { self },
    );
    assert.deepEqual(added, {
      code: 0,
      out: `Added the server "second" in "${file}"\n` +
        "Open this folder in Cursor and turn the server on in its MCP settings.\n",
      err: "",
    });
    assert.deepEqual(
      Object.keys(JSON.parse(await Deno.readTextFile(file)).mcpServers),
      ["other", "toolshed", "second"],
    );
  });
});

Deno.test("config --write updates the file a symlink points to, keeping the symlink", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    await Deno.mkdir(`${root}/dotfiles`);
    await Deno.writeTextFile(`${root}/dotfiles/mcp.json`, '{"mcpServers":{}}');
    await Deno.symlink(`${root}/dotfiles/mcp.json`, `${root}/.mcp.json`);
    const result = await runConfig(["claude-code", "--write", "--dir", root], root, { self });
    assert.equal(result.code, 0, result.err);
    assert.equal(
      result.out.split("\n")[0],
      `Added the server "toolshed" in "${root}/dotfiles/mcp.json"`,
    );
    assert.ok((await Deno.lstat(`${root}/.mcp.json`)).isSymlink);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${root}/dotfiles/mcp.json`)), {
      mcpServers: {
        toolshed: {
          type: "stdio",
          command: self.execPath,
          args: ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root],
        },
      },
    });
  });
});

Deno.test("config --write changes only its own entry: numbers JSON.parse would round, comments, trailing commas and other servers' duplicates stay byte for byte", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const file = `${root}/.vscode/mcp.json`;
    await Deno.mkdir(`${root}/.vscode`);
    const kept = [
      "{",
      "  // Servers for this workspace",
      '  "servers": {',
      '    "big": { "command": "b", "port": 12345678901234567890, "scale": 1e400 },',
      '    "twice": { "command": "first" },',
      '    "twice": { "command": "second" }, // the last one counts',
      "  },",
      '  "inputs": [1.50, -0.0, 1E+2,],',
      "}",
      "",
    ].join("\n");
    await Deno.writeTextFile(file, kept);
    const result = await runConfig(["vscode", "--write", "--dir", root], root, { self });
    assert.equal(result.code, 0, result.err);
    const args = ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root];
    const added = [
      '    "toolshed": {',
      '      "type": "stdio",',
      `      "command": ${JSON.stringify(self.execPath)},`,
      '      "args": [',
      ...args.map((arg, i) => `        ${JSON.stringify(arg)}${i < args.length - 1 ? "," : ""}`),
      "      ]",
      "    }",
    ];
    const lines = kept.split("\n");
    const expected = [...lines.slice(0, 6), ...added, ...lines.slice(6)].join("\n");
    assert.equal(await Deno.readTextFile(file), expected);

    // Replacing it changes its value's text alone (here in a file indented with tabs, CRLF).
    const tabbed = expected.replaceAll("\n", "\r\n").replace(
      /^( {2})+/gm,
      (spaces) => "\t".repeat(spaces.length / 2),
    );
    await Deno.writeTextFile(file, tabbed);
    const moved = await runConfig(["vscode", "--write", "--dir", `${root}/.vscode`], root, {
      self,
    });
    assert.equal(moved.code, 0, moved.err);
    assert.match(moved.out, /^Replaced the server "toolshed" in /);
    const movedArgs = ["run", "-A", `--lock=${root}/.vscode/deno.lock`, self.main, "--dir"];
    const before = tabbed.slice(0, tabbed.indexOf('"toolshed": ') + '"toolshed": '.length);
    const after = tabbed.slice(tabbed.indexOf("\t\t}", before.length) + 3);
    const value = JSON.stringify(
      { type: "stdio", command: self.execPath, args: [...movedArgs, `${root}/.vscode`] },
      null,
      "\t",
    ).replaceAll("\n", "\r\n\t\t");
    assert.equal(await Deno.readTextFile(file), before + value + after);
  });
});

Deno.test("config --write adds to a file written on one line on that line, and keeps a byte order mark", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const file = `${root}/.cursor/mcp.json`;
    await Deno.mkdir(`${root}/.cursor`);
    const kept = '\uFEFF{"mcpServers":{"n":{"command":"x","args":[12345678901234567890]}}}';
    await Deno.writeTextFile(file, kept);
    const result = await runConfig(["cursor", "--write", "--dir", root], root, { self });
    assert.equal(result.code, 0, result.err);
    const entry = {
      command: self.execPath,
      args: ["run", "-A", `--lock=${root}/deno.lock`, self.main, "--dir", root],
    };
    assert.equal(
      await Deno.readTextFile(file),
      kept.replace("]}}}", `]}, "toolshed": ${JSON.stringify(entry)}}}`),
    );
  });
});

Deno.test("config --write follows a symlink whose target is not there yet, or is relative, and keeps the link", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    // A dotfiles link made before its target: the target (and its folder) are created.
    await Deno.symlink(`${root}/dotfiles/claude/mcp.json`, `${root}/.mcp.json`);
    const dangling = await runConfig(["claude-code", "--write", "--dir", root], root, { self });
    assert.equal(dangling.code, 0, dangling.err);
    assert.equal(
      dangling.out.split("\n")[0],
      `Created "${root}/dotfiles/claude/mcp.json" with the server "toolshed"`,
    );
    assert.ok((await Deno.lstat(`${root}/.mcp.json`)).isSymlink, "the link is still a link");
    const written = await Deno.readTextFile(`${root}/dotfiles/claude/mcp.json`);
    assert.equal(JSON.parse(written).mcpServers.toolshed.command, self.execPath);

    // A relative link, through a second one.
    await Deno.mkdir(`${root}/project`);
    await Deno.symlink("../dotfiles/claude/mcp.json", `${root}/project/shared.json`);
    await Deno.symlink("shared.json", `${root}/project/.mcp.json`);
    const relative = await runConfig(
      ["claude-code", "--write", "--dir", root, "--name", "second"],
      `${root}/project`,
      { self },
    );
    assert.equal(relative.code, 0, relative.err);
    assert.equal(
      relative.out.split("\n")[0],
      `Added the server "second" in "${root}/dotfiles/claude/mcp.json"`,
    );
    for (const link of ["project/shared.json", "project/.mcp.json", ".mcp.json"]) {
      assert.ok((await Deno.lstat(`${root}/${link}`)).isSymlink, link);
    }
    const servers = JSON.parse(await Deno.readTextFile(`${root}/dotfiles/claude/mcp.json`));
    assert.deepEqual(Object.keys(servers.mcpServers), ["toolshed", "second"]);
    assert.deepEqual(
      [...Deno.readDirSync(`${root}/dotfiles/claude`)].map((entry) => entry.name),
      ["mcp.json"],
      "no lock or temporary file is left",
    );
  });
});

Deno.test("config --write from 8 real processes at once loses no one's server", async () => {
  await withTempDir(async (root) => {
    const file = `${root}/.mcp.json`;
    await Deno.writeTextFile(
      file,
      '{\n  "mcpServers": {\n    "mine": { "command": "x" }\n  }\n}\n',
    );
    const names = Array.from({ length: 8 }, (_, i) => `server-${i}`);
    const runs = names.map((name) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "config", "claude-code", "--write", "--name", name],
        cwd: root,
        stdout: "piped",
        stderr: "piped",
      }).output()
    );
    const outputs = await withHangGuard(Promise.all(runs), "8 config --write processes");
    for (const [i, output] of outputs.entries()) {
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      assert.match(new TextDecoder().decode(output.stdout), new RegExp(`"${names[i]}"`));
    }
    const servers = JSON.parse(await Deno.readTextFile(file)).mcpServers;
    assert.deepEqual(Object.keys(servers).sort(), ["mine", ...names].sort());
    assert.deepEqual(servers.mine, { command: "x" });
    assert.deepEqual(
      [...Deno.readDirSync(root)].map((entry) => entry.name),
      [".mcp.json"],
      "no lock or temporary file is left",
    );
  });
});

Deno.test("config --write refuses a file that is not JSON (with comments), not shaped as the client's, or naming its server twice, and leaves it untouched", async () => {
  await withTempDir(async (root) => {
    const self = sourceSelf(root);
    const cases: [string, string, string][] = [
      [
        "cursor",
        '{"mcpServers": {"a": 1},',
        `${INVALID} (PropertyNameExpected at line 1 column 25): ${ADVICE}`,
      ],
      [
        "vscode",
        '{\n  "servers": {}\n  "x": 1\n}\n',
        `${INVALID} (CommaExpected at line 3 column 3): ${ADVICE}`,
      ],
      [
        "vscode",
        "// nothing but a comment\n",
        `${INVALID} (ValueExpected at line 2 column 1): ${ADVICE}`,
      ],
      ["cursor", "[1, 2]", "it does not hold a JSON object"],
      ["vscode", '{"servers": []}', 'its "servers" is not an object of servers'],
      [
        "cursor",
        '{"mcpServers": {"a": {}}, "mcpServers": {}}',
        'it has "mcpServers" twice',
      ],
      // Clients read the last; editing it would leave the first to mislead whoever reads the
      // file, and editing the first would change nothing a client sees: the user says which.
      [
        "cursor",
        '{"mcpServers": {"toolshed": {"command": "a"}, "b": {}, "toolshed": {"command": "c"}}}',
        'its "mcpServers" has the server "toolshed" twice, and clients read only the last: ' +
        "keep one, then run this again",
      ],
    ];
    for (const [client, text, problem] of cases) {
      const file = `${root}/config.json`;
      await Deno.writeTextFile(file, text);
      const { mtime } = await Deno.stat(file);
      const result = await runConfig([client, "--write", "--file", file, "--dir", root], root, {
        self,
      });
      assert.deepEqual(result, {
        code: 1,
        out: "",
        err: `toolshed: Cannot update "${file}": ${problem}\n`,
      }, text);
      assert.equal(await Deno.readTextFile(file), text, "the file is untouched");
      assert.deepEqual((await Deno.stat(file)).mtime, mtime);
    }
  });
});

Deno.test("config --help prints the usage on stdout", async () => {
  const memory = memoryIo("/", {});
  assert.equal(await command.run(["--help"], memory.io), 0);
  assert.equal(memory.out(), `${command.usage}\n`);
  assert.equal(memory.err(), "");
  assert.match(command.usage, /^Usage: toolshed config CLIENT/);
});

Deno.test("toolshed config in a real process prints the entry, which starts the server as a client would", async () => {
  await withTempDir(async (dir) => {
    const memory = memoryIo(dir, {});
    assert.equal(await newCommand.run(["tool", "ping", "--dir", dir], memory.io), 0);
    const printed = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "config", "vscode", "--dir", dir],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assert.equal(printed.code, 0, text(printed.stderr));
    assert.equal(
      text(printed.stderr),
      `${NPX_CACHE_NOTE}toolshed: For VS Code, merge this into "${dir}/.vscode/mcp.json" ` +
        "(toolshed config vscode --write does it)\n",
    );
    const entry = JSON.parse(text(printed.stdout)).servers.toolshed;
    assert.deepEqual(entry, {
      type: "stdio",
      command: Deno.execPath(),
      args: ["run", "-A", `--lock=${dir}/deno.lock`, MAIN, "--dir", dir],
    });

    // As a client starts it: elsewhere, with nothing in its environment but PATH.
    const child = new Deno.Command(entry.command, {
      args: entry.args,
      cwd: "/",
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const send = (message: Record<string, unknown>) =>
      writer.write(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`));
    await send({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "test-client", version: "1" },
      },
    });
    await send({ method: "notifications/initialized" });
    await send({ id: 1, method: "tools/list" });
    await send({
      id: 2,
      method: "tools/call",
      params: { name: "ping", arguments: { text: "pong" } },
    });
    await writer.close();
    const { code, stdout, stderr } = await withHangGuard(child.output(), "the configured server");
    assert.equal(code, 0, text(stderr));
    const answers = text(stdout).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((answer) => answer.id), [0, 1, 2], text(stdout));
    assert.deepEqual(answers[1].result.tools.map((tool: { name: string }) => tool.name), ["ping"]);
    assert.deepEqual(answers[2].result.content, [{ type: "text", text: "ping received: pong" }]);
  });
});
