// The README's examples are real: the tool loads and answers, the greeting is what is printed.
// (Its add.ts is examples/hello/tools/add.ts, which tests/docs_test.ts keeps it equal to; this
// test loads the block as a reader would copy it.)
import { deepStrictEqual, match } from "node:assert/strict";
import { testServer } from "../mod.ts";

Deno.test("README: the tools/add.ts example loads and adds two numbers", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const example = readme.match(/```ts(?: ignore)?\n(\/\/ tools\/add\.ts\n[\s\S]*?)```/);
  if (!example) throw new Error("README has no tools/add.ts example");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/add.ts`, example[1]);
    const server = await testServer({ tools: dir });
    deepStrictEqual((await server.list()).map((tool) => tool.name), ["add"]);
    deepStrictEqual(await server.call("add", { a: 2, b: 3 }), {
      content: [{ type: "text", text: "5" }],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("README: the terminal greeting of task start is what the server prints", async () => {
  const repo = decodeURIComponent(new URL("../", import.meta.url).pathname);
  const readme = await Deno.readTextFile(`${repo}README.md`);
  const block = readme.match(/```sh\n\$ npx --yes deno@[\d.]+ task start\n([\s\S]*?)```/);
  if (!block) throw new Error("README has no task start example");
  const [taskLine, ...shown] = block[1].split("\n");
  const config = JSON.parse(await Deno.readTextFile(`${repo}deno.json`));
  deepStrictEqual(taskLine, `Task start ${config.tasks.start}`);
  const greeting = shown.slice(0, shown.findIndex((line) => line.startsWith("{")));
  // The README shows the clone at /home/you/toolshed/; the server runs in a scratch directory
  // standing for it, serving exactly the tools the README names (tools a user added to tools/
  // do not count), linked into its "tools" folder; resources/ and prompts/ are linked whole.
  const SHOWN_HOME = "/home/you/toolshed/";
  const names = greeting.map((line) => line.match(/^toolshed: Names: (.+)$/)).find((found) =>
    found !== null
  );
  if (!names) throw new Error("README's greeting names nothing");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    for await (const entry of Deno.readDir(`${repo}tools`)) {
      if (names[1].split(", ").some((name) => entry.name.startsWith(`${name}.`))) {
        await Deno.symlink(`${repo}tools/${entry.name}`, `${dir}/tools/${entry.name}`);
      }
    }
    for (const folder of ["resources", "prompts"]) {
      if (greeting[0].includes(`from "${SHOWN_HOME}${folder}"`)) {
        await Deno.symlink(`${repo}${folder}`, `${dir}/${folder}`);
      }
    }
    const command = `${Deno.execPath()} run -A --config ${repo}deno.json ${repo}main.ts ` +
      "--allow-outside-symlinks 2>&1 >/dev/null";
    const { code, stdout } = await new Deno.Command("script", {
      args: ["-qec", command, "/dev/null"],
      cwd: dir,
      // As a person runs it: not under the npx or deno task that may run these tests.
      env: { NO_COLOR: "1", npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    // Run here outside a task, the server names itself by its path; under `npx … task start`
    // it names the clone's task as the README shows (lib/commands/invocation.ts, its tests).
    const printed = new TextDecoder().decode(stdout).replaceAll("\r\n", "\n")
      .replaceAll(`${dir}/`, SHOWN_HOME)
      .replaceAll(`deno run -A ${repo}main.ts`, "npx --yes deno@2.9.6 task toolshed");
    deepStrictEqual(code, 0, printed);
    match(printed, /This is an MCP server/);
    deepStrictEqual(printed.trimEnd().split("\n"), greeting);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
