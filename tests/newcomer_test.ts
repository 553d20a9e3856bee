// The README's five-minute path, command by command and as written, run by /bin/sh in a fresh
// HOME the way a newcomer types it after the README's `npm install -g toolshed`: scaffold a
// tool (whose next command is the one the README shows next, as the newcomer types it), call
// it, check the directory, write Claude Code's configuration; then start the server from that
// configuration as a client does (the official SDK client, with the minimal environment it
// gives servers) and call the tool.
//
// Which `toolshed` runs the commands: the npm package as build/npm_package.ts writes it
// (bundle, bin, mod.ts and lib/), laid out as `npm install -g --prefix PREFIX` lays it out
// (PREFIX/lib/node_modules/toolshed, its `deno` dependency inside it — here the deno running
// this test, the version the package pins — and PREFIX/bin/toolshed linking its bin), so the
// hints, `config`'s launch (node's absolute path and the bin) and serving are the installed
// package's. No registry is involved: tests/npm_package_test.ts publishes the same package to
// a registry on loopback and installs it with npm, in a fresh HOME whose PATH holds only
// Node.js. `check` fetches npm packages toolshed's types name, so the commands share this
// test's Deno cache (DENO_DIR) instead of the empty one a fresh HOME would have.
// The clone is unchanged by all of it.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { BIN_PATH, PACKAGE_NAME, writePackage } from "../build/npm_package.ts";
import { withHangGuard } from "./_server_process.ts";

const REPO = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** The README's commands of a section's first `sh` block, as written. */
async function readmeBlock(heading: string): Promise<string[]> {
  const readme = await Deno.readTextFile(`${REPO}README.md`);
  const section = readme.split(`${heading}\n`)[1];
  assert.ok(section, `README has no "${heading}"`);
  const block = section.match(/```sh\n([\s\S]*?)```/);
  assert.ok(block, `"${heading}" has no commands`);
  return block[1].trim().split("\n");
}

async function output(program: string, args: string[], cwd = REPO): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(program, {
    args,
    cwd,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  assert.equal(code, 0, `${program} ${args.join(" ")}: ${text.decode(stderr)}`);
  return text.decode(stdout);
}

Deno.test("README: the install line and the test command are what npm and .ci/run run", async () => {
  const install = await readmeBlock("## Start here");
  assert.equal(install[0], `npm install -g ${PACKAGE_NAME}`);
  // .ci/run runs the README's test command, exactly.
  const tests = await readmeBlock("### The test suite");
  const command = `npx --yes deno@${Deno.version.deno} task test`;
  assert.ok(tests.some((line) => line.startsWith(`${command} `)), tests.join("\n"));
  const ci = await Deno.readTextFile(`${REPO}.ci/run`);
  assert.ok(ci.includes(`\n${command} 2>&1`), `.ci/run does not run "${command}"`);
});

Deno.test("README: the five-minute path takes a newcomer from the installed toolshed to a client calling their tool", async () => {
  const commands = await readmeBlock("### Your own tool, in a client, in five minutes");
  assert.deepEqual(
    commands.map((line) => line.match(/\btoolshed (\w+)/)?.[1]),
    ["new", "call", "check", "config"],
  );
  const before = await output("git", ["status", "--porcelain", "--untracked-files=all"]);
  const tmp = await Deno.makeTempDir({ prefix: "toolshed_newcomer_" });
  try {
    // The package, laid out as npm installs it globally.
    const prefix = `${tmp}/global`;
    const installed = `${prefix}/lib/node_modules/${PACKAGE_NAME}`;
    await writePackage(installed);
    await Deno.mkdir(`${installed}/node_modules/deno`, { recursive: true });
    await Deno.writeTextFile(
      `${installed}/node_modules/deno/package.json`,
      JSON.stringify({ name: "deno", version: Deno.version.deno }),
    );
    await Deno.symlink(Deno.execPath(), `${installed}/node_modules/deno/deno`);
    await Deno.mkdir(`${prefix}/bin`);
    await Deno.symlink(`../lib/node_modules/${PACKAGE_NAME}/${BIN_PATH}`, `${prefix}/bin/toolshed`);

    // A PATH with Node.js and the installed bin; /bin and /usr/bin for the shell's commands.
    const node = (await output("/bin/sh", ["-c", "command -v node"])).trim();
    assert.ok(node !== "", "no node on PATH: the README's reader has Node.js");
    const path = `${tmp}/path`;
    await Deno.mkdir(path);
    await Deno.symlink(node, `${path}/node`);
    const home = `${tmp}/home`;
    await Deno.mkdir(home);
    const denoDir = JSON.parse(await output(Deno.execPath(), ["info", "--json"])).denoDir;
    const env = {
      HOME: home,
      PATH: `${path}:${prefix}/bin:/usr/bin:/bin`,
      NO_COLOR: "1",
      DENO_DIR: denoDir,
    };

    const outputs: string[] = [];
    for (const line of commands) {
      const { code, stdout, stderr } = await withHangGuard(
        new Deno.Command("/bin/sh", {
          args: ["-c", line],
          cwd: home,
          env,
          clearEnv: true,
          stdin: "null",
        }).output(),
        line,
        // check type-checks: tens of seconds on a loaded machine.
        120_000,
      );
      const text = new TextDecoder();
      assert.equal(code, 0, `${line}: ${text.decode(stderr)}`);
      outputs.push(text.decode(stdout));
    }
    const server = `${home}/my-server`;
    // `new` names the next command as the newcomer types it: the README's next line (the
    // shell gave it ~/my-server as HOME's), with the text it suggests.
    assert.ok(commands[1].includes(" ~/my-server"), commands[1]);
    assert.equal(
      outputs[0],
      `Created ${server}/tools/hello.ts\n` +
        // A directory of its own, whose "@toolshed/toolshed" is the installed package's mod.ts.
        `Created ${server}/deno.json ("@toolshed/toolshed" is file://${installed}/mod.ts; ` +
        "deno task test, deno task check)\n" +
        `Next: edit it, then try it with: ${
          commands[1].replace("text=world", "text=hello").replace("~/", `${home}/`)
        }\n`,
    );
    // What the README says `call` prints.
    assert.equal(outputs[1], "hello received: world\n");

    const config = JSON.parse(await Deno.readTextFile(`${server}/.mcp.json`));
    const { command, args } = config.mcpServers.toolshed;
    // The installed bin, started by node's absolute path: the client's PATH need not hold node.
    assert.match(command, /[/\\]node$/);
    assert.deepEqual(args, [`${installed}/${BIN_PATH}`, "--dir", server]);
    // The SDK gives the server only HOME, PATH and a few others, as clients do.
    const transport = new StdioClientTransport({ command, args, cwd: "/", stderr: "pipe" });
    const client = new Client({ name: "newcomer-test", version: "1.0.0" });
    try {
      await withHangGuard(client.connect(transport), "the client's connection");
      const result = await withHangGuard(
        client.callTool({ name: "hello", arguments: { text: "a client" } }),
        "tools/call hello",
      );
      assert.deepEqual(result.content, [{ type: "text", text: "hello received: a client" }]);
    } finally {
      await client.close();
    }
    assert.equal(
      await output("git", ["status", "--porcelain", "--untracked-files=all"]),
      before,
      "the clone changed",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
