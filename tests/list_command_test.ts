// `toolshed list` (lib/commands/list.ts): in process with a recording Io, and once through
// the real process for its stdout, stderr and exit code.
import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { command } from "../lib/commands/list.ts";
import type { Io } from "../lib/commands/command.ts";
import { withHangGuard } from "./_server_process.ts";

const SERVER = new URL("./fixtures/server", import.meta.url).pathname;
const COMMAND_TOOLS = new URL("./fixtures/commands/tools", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Runs `toolshed list ARGS` in this process; what it printed and its exit code. */
async function list(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: () => undefined,
    cwd: Deno.cwd(),
  };
  const code = await withHangGuard(command.run(args, io), `list ${args.join(" ")}`);
  return { code, out: out.join(""), err: err.join("") };
}

Deno.test("list shows each tool's arguments, output, annotations and task mode", async () => {
  const { code, out, err } = await list(["--tools", COMMAND_TOOLS]);
  strictEqual(err, "");
  strictEqual(code, 0);
  const tools = out.slice(0, out.indexOf("\n\n"));
  strictEqual(
    tools,
    `8 tool(s) from "${COMMAND_TOOLS}":
  ask
    Asks the user's name, then greets them
    Arguments: none declared
  fail
    Always fails
    Arguments: none declared
  long (Long job)
    Waits until its signal aborts
    Arguments: none declared
    Task: optional (may run as a task for clients that declare tasks)
  media
    Returns an image, audio, a resource link and embedded resources
    Arguments: none declared
  sample
    Asks the model for a haiku
    Arguments: none declared
  shout
    Upper-cases its text
    Arguments:
      text  string, required
  structured
    Returns structured content only
    Arguments: none declared
    Output: object:
      total  integer, required
             The sum
    Annotations: readOnlyHint true, openWorldHint false
  typed
    Echoes typed arguments
    Arguments:
      count     integer, required
                How many
      ratio     number, optional
      loud      boolean, optional
      tags      array of string, optional
      options   object, optional
      label     string, optional, default "none", length 0 to 20
      mode      optional, one of "fast", "1"
      limit     integer or null, optional
      point     object, optional
      anything  any, optional`,
  );
});

Deno.test("list says when a directory serves nothing of a kind", async () => {
  const { code, out } = await list(["--tools", COMMAND_TOOLS]);
  strictEqual(code, 0);
  strictEqual(
    out.slice(out.indexOf("\n\n") + 2),
    "No resources: no folder for them is served\n\n" +
      "No resource templates: no folder for them is served\n\n" +
      "No prompts: no folder for them is served\n",
  );
  const empty = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${empty}/tools`);
    const none = await list(["--dir", empty]);
    strictEqual(none.code, 0);
    strictEqual(
      none.out,
      `No tools in "${empty}/tools"\n\nNo resources in "${empty}/resources"\n\n` +
        `No resource templates in "${empty}/resources"\n\nNo prompts in "${empty}/prompts"\n`,
    );
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("list shows resources, templates and prompts with their arguments", async () => {
  const { code, out } = await list(["--dir", SERVER]);
  strictEqual(code, 0);
  for (
    const expected of [
      `5 resource(s) from "${SERVER}/resources":\n`,
      "  toolshed:///pixel.png  (pixel.png, image/png)\n",
      `1 resource template(s) from "${SERVER}/resources":\n` +
      "  notes://{topic}  (notes, text/plain)\n    A short note on a topic\n",
      "  greet\n    Greets someone in a chosen tone\n    Arguments:\n" +
      "      name  required, Who to greet\n      tone  optional, How to sound\n",
      "  review (Review)\n",
    ]
  ) {
    strictEqual(out.includes(expected), true, `missing ${JSON.stringify(expected)} in\n${out}`);
  }
});

Deno.test("list --json prints the four list results as one object", async () => {
  const { code, out } = await list(["--dir", SERVER, "--json"]);
  strictEqual(code, 0);
  const lists = JSON.parse(out);
  deepStrictEqual(Object.keys(lists), ["tools", "resources", "resourceTemplates", "prompts"]);
  deepStrictEqual(lists.tools.map((tool: { name: string }) => tool.name), ["report"]);
  deepStrictEqual(lists.tools[0].inputSchema.properties.steps, {
    type: "integer",
    minimum: 0,
    maximum: 100000,
    default: 3,
  });
  deepStrictEqual(lists.resources.map((resource: { uri: string }) => resource.uri), [
    "fixture://broken",
    "toolshed:///data.json",
    "toolshed:///docs/Getting%20Started.md",
    "toolshed:///pixel.png",
    "toolshed:///readme.txt",
  ]);
  deepStrictEqual(lists.resourceTemplates, [{
    uriTemplate: "notes://{topic}",
    name: "notes",
    description: "A short note on a topic",
    mimeType: "text/plain",
  }]);
  deepStrictEqual(lists.prompts.map((prompt: { name: string }) => prompt.name), [
    "broken",
    "greet",
    "review",
  ]);
});

Deno.test("list follows the cursors of a list longer than a page", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    // One more than a page (DEFAULTS.pageSize, 100).
    for (let index = 0; index < 101; index++) {
      await Deno.writeTextFile(
        `${dir}/tools/t${String(index).padStart(3, "0")}.ts`,
        `export default { description: "T", inputSchema: { type: "object" }, handler: () => "" };`,
      );
    }
    const { code, out } = await list(["--dir", dir, "--json"]);
    strictEqual(code, 0);
    const names = JSON.parse(out).tools.map((tool: { name: string }) => tool.name);
    strictEqual(names.length, 101);
    strictEqual(names[100], "t100");
    match((await list(["--dir", dir])).out, /^101 tool\(s\) from /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("list answers a wrong command line with exit code 2 and the fix", async () => {
  deepStrictEqual(await list(["--jsn"]), {
    code: 2,
    out: "",
    err: 'toolshed: Unknown option "--jsn"; did you mean --json?\n' +
      "(toolshed list --help shows its options)\n",
  });
  deepStrictEqual(await list(["tools"]), {
    code: 2,
    out: "",
    err: 'toolshed: Unexpected argument "tools": list takes no arguments ' +
      "(use --dir DIR to name a directory)\n",
  });
  deepStrictEqual(await list(["--help"]), { code: 0, out: `${command.usage}\n`, err: "" });
});

Deno.test("list reports every problem of a directory that does not load, with exit code 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.writeTextFile(`${dir}/tools/bad.ts`, `export default { inputSchema: {} };`);
    const { code, out, err } = await list(["--dir", dir]);
    strictEqual(code, 1);
    strictEqual(out, "");
    match(err, /^toolshed: 1 problem\(s\) in the server directory\n {2}.*bad\.ts/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("list through main.ts prints on stdout and exits 0", async () => {
  const { code, stdout, stderr } = await withHangGuard(
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "list", "--dir", SERVER],
      stdin: "null",
    }).output(),
    "main.ts list",
  );
  const decoder = new TextDecoder();
  strictEqual(decoder.decode(stderr), "");
  strictEqual(code, 0);
  const out = decoder.decode(stdout);
  strictEqual(
    out.slice(0, out.indexOf("\n\n")),
    `1 tool(s) from "${SERVER}/tools":
  report
    Reports progress and logs, then answers
    Arguments:
      steps    integer, optional, default 3, from 0 to 100000
      flood    integer, optional, default 0, from 0 to 100000
      pauseMs  integer, optional, default 0, from 0 to 1000`,
  );
});
