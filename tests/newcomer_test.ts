// The README's five-minute path, command by command, as a newcomer with only Node.js runs it
// from a clone: scaffold a tool (whose next command is the one the README shows next, as the
// newcomer types it), call it, write Claude Code's configuration, check the directory; then
// start the server from that configuration as a client does (the official SDK client, with the
// minimal environment it gives servers) and call the tool.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { withHangGuard } from "./_server_process.ts";

const REPO = new URL("../", import.meta.url);
/** What a clone holds that the server needs; tests, tools and the rest are not used here. */
const CLONE_PARTS = ["main.ts", "mod.ts", "deno.json", "deno.lock", "lib"];

/** The commands of the README's five-minute path, each without its `npx … task` prefix. */
async function fiveMinutePath(): Promise<string[][]> {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  const section = readme.split("### Your own tool, in a client, in five minutes")[1];
  assert.ok(section, "README has no five-minute section");
  const block = section.match(/```sh\n([\s\S]*?)```/);
  assert.ok(block, "the five-minute section has no commands");
  const prefix = `npx --yes deno@${Deno.version.deno} task toolshed `;
  return block[1].trim().split("\n").map((line) => {
    // The README pins the deno these tests run on: the path is tested with that version.
    assert.ok(line.startsWith(prefix), `"${line}" does not start with "${prefix}"`);
    const rest = line.slice(prefix.length);
    assert.doesNotMatch(rest, /["'\\$`]/, "a command this test cannot split by spaces");
    return rest.split(/ +/);
  });
}

async function copy(from: URL, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) return await Deno.copyFile(from, to);
  await Deno.mkdir(to);
  for await (const entry of Deno.readDir(from)) {
    await copy(
      new URL(entry.isDirectory ? `${entry.name}/` : entry.name, from),
      `${to}/${entry.name}`,
    );
  }
}

Deno.test("README: the five-minute path takes a newcomer from a clone to a client calling their tool", async () => {
  const commands = await fiveMinutePath();
  assert.deepEqual(commands.map((args) => args[0]), ["new", "call", "config", "check"]);
  const clone = await Deno.makeTempDir({ prefix: "toolshed_newcomer_" });
  try {
    for (const part of CLONE_PARTS) {
      await copy(new URL(part.includes(".") ? part : `${part}/`, REPO), `${clone}/${part}`);
    }
    const outputs: string[] = [];
    // `npx --yes deno@X task` is this deno (the version was checked above), in the environment
    // npx gives it (measured: npx sets these, and `deno task` keeps them), without what an outer
    // deno task or npx running this test set.
    const env = {
      ...Object.fromEntries(
        Object.entries(Deno.env.toObject()).filter(([name]) =>
          !name.startsWith("npm_") && name !== "INIT_CWD"
        ),
      ),
      npm_lifecycle_event: "npx",
      npm_command: "exec",
    };
    for (const args of commands) {
      const { code, stdout, stderr } = await withHangGuard(
        new Deno.Command(Deno.execPath(), {
          args: ["task", "--quiet", "toolshed", ...args],
          cwd: clone,
          env,
          clearEnv: true,
          stdin: "null",
        }).output(),
        `toolshed ${args.join(" ")}`,
        // check type-checks: tens of seconds on a loaded machine.
        120_000,
      );
      const text = new TextDecoder();
      assert.equal(code, 0, `toolshed ${args.join(" ")}: ${text.decode(stderr)}`);
      outputs.push(text.decode(stdout));
    }
    // `new` names the next command as the newcomer types it: the README's next line, with the
    // text it suggests.
    const [, call] = (await fiveMinutePath()).map((args) => args.join(" "));
    assert.equal(
      outputs[0],
      "Created my-server/tools/hello.ts\n" +
        // A directory of its own, whose "@toolshed/toolshed" is the clone's mod.ts.
        `Created my-server/deno.json ("@toolshed/toolshed" is file://${clone}/mod.ts; ` +
        "deno task test, deno task check)\n" +
        `Next: edit it, then try it with: npx --yes deno@${Deno.version.deno} task toolshed ${
          call.replace("text=world", "text=hello")
        }\n`,
    );
    // What the README says `call` prints.
    assert.equal(outputs[1], "hello received: world\n");

    const config = JSON.parse(await Deno.readTextFile(`${clone}/.mcp.json`));
    const { command, args } = config.mcpServers.toolshed;
    // npm's npx script, started by node's absolute path: the client's PATH need not hold node.
    assert.match(command, /[/\\]node$/);
    assert.match(args[0], /[/\\]npx-cli\.js$/);
    assert.deepEqual(args.slice(1, 4), ["--prefer-offline", "--yes", `deno@${Deno.version.deno}`]);
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
  } finally {
    await Deno.remove(clone, { recursive: true });
  }
});
