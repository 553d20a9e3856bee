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

Deno.test("README: the terminal greeting of toolshed serving ~/my-server is what the server prints", async () => {
  const repo = decodeURIComponent(new URL("../", import.meta.url).pathname);
  const readme = await Deno.readTextFile(`${repo}README.md`);
  const block = readme.match(/```sh\n\$ toolshed --dir ~\/my-server\n([\s\S]*?)```/);
  if (!block) throw new Error("README has no greeting of toolshed --dir ~/my-server");
  const shown = block[1].split("\n");
  const greeting = shown.slice(0, shown.findIndex((line) => line.startsWith("{")));
  // The README shows HOME as /home/you/; a scratch directory stands for it, holding what the
  // five-minute path's `toolshed new tool hello --dir ~/my-server` writes.
  const SHOWN_HOME = "/home/you/";
  const home = await Deno.makeTempDir();
  const main = `${Deno.execPath()} run -A --config ${repo}deno.json ${repo}main.ts`;
  try {
    const made = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${repo}main.ts`, "new", "tool", "hello", "--dir", `${home}/my-server`],
      stdin: "null",
    }).output();
    deepStrictEqual(made.code, 0, new TextDecoder().decode(made.stderr));
    const command = `${main} --dir ${home}/my-server 2>&1 >/dev/null`;
    const { code, stdout } = await new Deno.Command("script", {
      args: ["-qec", command, "/dev/null"],
      cwd: home,
      // As a person runs it: not under the npx or deno task that may run these tests.
      env: { NO_COLOR: "1", npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    // Run here from the clone, the server names itself by its path; run by the npm package's
    // bin it names itself `toolshed` as the README shows (lib/commands/invocation.ts, its tests;
    // tests/npm_package_test.ts sees the installed bin's hints).
    const printed = new TextDecoder().decode(stdout).replaceAll("\r\n", "\n")
      .replaceAll(`${home}/`, SHOWN_HOME)
      .replaceAll(`deno run -A ${repo}main.ts`, "toolshed");
    deepStrictEqual(code, 0, printed);
    match(printed, /This is an MCP server/);
    deepStrictEqual(printed.trimEnd().split("\n"), greeting);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
