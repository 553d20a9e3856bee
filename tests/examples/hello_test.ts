// examples/hello: what its README promises. It type-checks; `toolshed call add` prints the sum;
// the prompt fills its arguments and completes the language; the client configurations in
// clients/ are what `toolshed config` prints for it. Its own test, examples/hello/tests/
// add_test.ts, runs in `deno task test` like any other.
import assert from "node:assert/strict";
import { testServer } from "../../mod.ts";
import { exampleDir, ROOT, toolshed } from "./_example.ts";

const DIR = exampleDir("hello");

Deno.test("examples/hello: toolshed list shows add and code_review, toolshed call add prints the sum", async () => {
  const list = await toolshed(["list", "--dir", "examples/hello"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ {2}add\n {4}Adds two numbers$/m);
  assert.match(list.stdout, /^ {2}code_review\n/m);
  const call = await toolshed(["call", "add", "a=1", "b=2", "--dir", "examples/hello"]);
  assert.deepEqual({ code: call.code, stdout: call.stdout }, { code: 0, stdout: "3\n" });
});

Deno.test("examples/hello: code_review fills its arguments and completes the language", async () => {
  const server = await testServer({ dir: DIR });
  assert.deepEqual(
    await server.getPrompt("code_review", { language: "go", focus: "error handling" }),
    {
      description: "Reviews a piece of code for bugs, readability and idiom",
      messages: [{
        role: "user",
        content: {
          type: "text",
          text: "Review the following go code. Pay particular attention to error handling.",
        },
      }],
    },
  );
  const completed = await server.request("completion/complete", {
    ref: { type: "ref/prompt", name: "code_review" },
    argument: { name: "language", value: "Ty" },
  });
  assert.deepEqual((completed.completion as { values: string[] }).values, ["typescript"]);
});

/** `toolshed config CLIENT …` for examples/hello, with this machine's paths as the docs write them. */
async function configShown(args: string[]): Promise<unknown> {
  const run = await toolshed(["config", ...args, "--dir", "examples/hello"]);
  assert.equal(run.code, 0, run.stderr);
  const server = Object.values(JSON.parse(run.stdout))[0] as Record<string, { command: string }>;
  const entry = server.toolshed;
  const placeholders: [string, string][] = [
    [`${ROOT}examples/hello`, "/path/to/server"],
    [`${ROOT}main.ts`, "/path/to/toolshed/main.ts"],
  ];
  const shown = (text: string) =>
    placeholders.reduce(
      (result, [path, placeholder]) => result.replaceAll(path, placeholder),
      text,
    );
  // The launcher's own path: node (starting npm's npx script, whose path is the first
  // argument) or npx where they are on this machine, deno.
  const [first] = (entry as unknown as { args: string[] }).args;
  const launcher: [string, string][] = /[/\\]node(\.exe)?$/.test(entry.command)
    ? [[entry.command, "/path/to/node"], [first, "/path/to/npm/bin/npx-cli.js"]]
    : [[entry.command, entry.command.endsWith("npx") ? "/usr/bin/npx" : "/path/to/deno"]];
  return JSON.parse(
    shown(
      launcher.reduce(
        (text, [real, doc]) => text.replace(JSON.stringify(real), JSON.stringify(doc)),
        run.stdout,
      ),
    ),
  );
}

Deno.test("examples/hello: clients/ holds what toolshed config prints for it", async () => {
  const file = async (name: string) => JSON.parse(await Deno.readTextFile(`${DIR}clients/${name}`));
  assert.deepEqual(
    await configShown(["claude-desktop", "--launch", "npx"]),
    await file("claude-desktop.json"),
  );
  assert.deepEqual(await configShown(["vscode", "--launch", "deno"]), await file("vscode.json"));
});
