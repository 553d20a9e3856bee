// `toolshed call` (lib/commands/call.ts): in process with a recording Io, and through the
// real process for its stdout, stderr and exit codes.
import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { command } from "../lib/commands/call.ts";
import type { Io } from "../lib/commands/command.ts";
import { withHangGuard } from "./_server_process.ts";

const TOOLS = new URL("./fixtures/commands/tools", import.meta.url).pathname;
const SERVER = new URL("./fixtures/server", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const HINT = "(toolshed call --help shows how to give arguments)\n";

interface Outcome {
  code: number;
  out: string;
  err: string;
}

/** Runs `toolshed call ARGS --tools <fixtures>` in this process. */
async function call(args: string[], dir: string[] = ["--tools", TOOLS]): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: () => undefined,
    cwd: Deno.cwd(),
  };
  const code = await withHangGuard(command.run([...args, ...dir], io), `call ${args.join(" ")}`);
  return { code, out: out.join(""), err: err.join("") };
}

Deno.test("call reads key=value arguments as the input schema types them", async () => {
  const { code, out, err } = await call([
    "typed",
    "count=2",
    "ratio=-1.5e2",
    "loud=false",
    'tags=["a","b"]',
    'options={"deep":{"x":1}}',
    "mode=1",
    "limit=null",
    'point={"x":1}',
    "anything=[1]",
  ]);
  strictEqual(err, "");
  strictEqual(code, 0);
  deepStrictEqual(JSON.parse(out), {
    count: 2,
    ratio: -150,
    loud: false,
    tags: ["a", "b"],
    options: { deep: { x: 1 } },
    mode: "1", // an enum of strings: the text, though "1" parses as JSON
    limit: null,
    point: { x: 1 },
    anything: [1],
    label: "none", // the schema's default, filled in by the server
  });
  // A value of no declared type that is not JSON is the text; a string stays text.
  deepStrictEqual(JSON.parse((await call(["typed", "count=1", "anything=a b", "label=42"])).out), {
    count: 1,
    anything: "a b",
    label: "42",
  });
});

Deno.test("call takes the arguments as one JSON object", async () => {
  const { code, out } = await call(["typed", '{"count": 7, "loud": true}']);
  strictEqual(code, 0);
  deepStrictEqual(JSON.parse(out), { count: 7, loud: true, label: "none" });
});

Deno.test("call refuses an argument that is not of its declared type, naming the key", async () => {
  const cases: [string, string][] = [
    ["count=1.5", '"count=1.5": "1.5" is not an integer'],
    ["count=", '"count=": "" is not an integer'],
    ["ratio=1,5", '"ratio=1,5": "1,5" is not a number'],
    ["ratio=NaN", '"ratio=NaN": "NaN" is not a number'],
    ["loud=yes", '"loud=yes": "yes" is not true or false'],
    ["limit=x", '"limit=x": "x" is not an integer or null'],
    ["options=[1]", '"options=[1]": "[1]" is not a JSON object'],
    [
      "tags={",
      '"tags={": "{" is not a JSON array: Expected property name or \'}\' in JSON at ' +
      "position 1 (line 1 column 2)",
    ],
  ];
  for (const [argument, message] of cases) {
    deepStrictEqual(await call(["typed", argument]), {
      code: 2,
      out: "",
      err: `toolshed: Invalid argument ${message}\n${HINT}`,
    });
  }
});

Deno.test("call refuses arguments it cannot read, with exit code 2", async () => {
  const cases: [string[], string][] = [
    [["typed", '{"count": '], "Cannot read the arguments as JSON: Unexpected end of JSON input"],
    [["typed", "[1]"], 'Invalid arguments: the JSON must be an object, such as {"text": "hi"}'],
    [
      ["typed", "count"],
      'Invalid argument "count": give key=value, or all the arguments as one JSON object',
    ],
    [["typed", "=1"], 'Invalid argument "=1": the key before "=" is empty'],
    [["typed", "count=1", "count=2"], 'Invalid argument "count=2": "count" is given twice'],
    [
      ["typed", "count=1", '{"loud": true}'],
      'Invalid argument "{"loud": true}": give one JSON object or key=value pairs, not both',
    ],
    [[], "Missing the tool name: toolshed call NAME [ARGUMENTS…]"],
  ];
  for (const [args, message] of cases) {
    deepStrictEqual(await call(args), { code: 2, out: "", err: `toolshed: ${message}\n${HINT}` });
  }
  deepStrictEqual(await call(["typed", "--tool-timeout", "0"]), {
    code: 2,
    out: "",
    err: 'toolshed: Invalid value for --tool-timeout: "0" is not an integer from 1 to 2147483647\n',
  });
  deepStrictEqual(await call(["ask", "--answer", "yes"]), {
    code: 2,
    out: "",
    err: 'toolshed: Invalid value for --answer: "yes" is not a JSON object, decline or cancel\n',
  });
  deepStrictEqual(await call(["typed", "--jsn"]), {
    code: 2,
    out: "",
    err: 'toolshed: Unknown option "--jsn"; did you mean --json?\n' +
      "(toolshed call --help shows its options)\n",
  });
  deepStrictEqual(await call(["--help"]), { code: 0, out: `${command.usage}\n`, err: "" });
});

Deno.test("call prints a tool's failure on stderr and exits 1", async () => {
  deepStrictEqual(await call(["fail"]), {
    code: 1,
    out: "",
    err: 'Tool "fail" failed: The disk is full\n',
  });
  // The server's own validation, in the server's words.
  deepStrictEqual(await call(["typed"]), {
    code: 1,
    out: "",
    err: 'Tool "typed" failed: Invalid arguments for tool "typed": missing required property ' +
      '"count"\n',
  });
  // --json prints the result whatever it is; the exit code still tells.
  const json = await call(["fail", "--json"]);
  strictEqual(json.code, 1);
  deepStrictEqual(JSON.parse(json.out), {
    resultType: "complete",
    content: [{ type: "text", text: "The disk is full" }],
    isError: true,
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolshed", version: "0.1.0" } },
  });
  // --verbose adds the stack of the thrown error.
  const verbose = await call(["fail", "--verbose"]);
  match(verbose.err, /^toolshed: Tool "fail" failed\nError: The disk is full\n {4}at /);
});

Deno.test("call passes on the core's answer to an unknown tool, with the name meant", async () => {
  deepStrictEqual(await call(["shuot", "text=hi"]), {
    code: 1,
    out: "",
    err: 'toolshed: Cannot call tool "shuot": Unknown tool: "shuot"; did you mean "shout"?\n',
  });
});

Deno.test("call runs an executable tool", async () => {
  deepStrictEqual(await call(["shout", "text=hello"]), { code: 0, out: "HELLO\n", err: "" });
});

Deno.test("call describes content that is not text, one line each", async () => {
  deepStrictEqual(await call(["media"]), {
    code: 0,
    out: "[image image/png, 8 bytes]\n" +
      "[audio audio/wav, 4 bytes]\n" +
      "[resource link toolshed:///guide.md (guide.md)]\n" +
      "[resource notes://deno, text/plain]\nDeno runs TypeScript.\n" +
      "[resource toolshed:///logo.png, image/png, 3 bytes]\n",
    err: "",
  });
});

Deno.test("call prints structured content as indented JSON when there is no text", async () => {
  deepStrictEqual(await call(["structured"]), {
    code: 0,
    out: `${JSON.stringify({ total: 3, parts: [1, 2] }, null, 2)}\n`,
    err: "",
  });
  const json = JSON.parse((await call(["structured", "--json"])).out);
  deepStrictEqual(json.structuredContent, { total: 3, parts: [1, 2] });
  deepStrictEqual(json.content, []);
});

Deno.test("call says what a tool asks and exits 1 when it has no answer", async () => {
  deepStrictEqual(await call(["ask"]), {
    code: 1,
    out: "",
    err: `toolshed: Tool "ask" asks the client for input:
  input_1: asks the user: What is your name?
    for:
      name  string, required
            Your first name
Answer with --answer, once per question in the order asked: a JSON object of the fields asked for, or decline, or cancel
`,
  });
  deepStrictEqual(await call(["sample"]), {
    code: 1,
    out: "",
    err: `toolshed: Tool "sample" asks the client for input:
  input_1: asks the model (sampling/createMessage):
    user: Write a haiku
toolshed call can answer only questions of the user (elicitation/create), with --answer
`,
  });
});

Deno.test("call answers the user's questions with --answer", async () => {
  deepStrictEqual(await call(["ask", "--answer", '{"name": "Ada"}']), {
    code: 0,
    out: "Hello, Ada!\n",
    err: "",
  });
  deepStrictEqual(await call(["ask", "--answer", "decline"]), {
    code: 0,
    out: "Hello, stranger (decline)!\n",
    err: "",
  });
  deepStrictEqual(await call(["ask", "--answer", "cancel", "--answer", "decline"]), {
    code: 0,
    out: "Hello, stranger (cancel)!\n",
    err: "toolshed: 1 --answer value(s) were not asked for\n",
  });
});

Deno.test("call gives up on a tool that runs past --tool-timeout", async () => {
  deepStrictEqual(await call(["long", "--tool-timeout", "50"]), {
    code: 1,
    out: "",
    // An optional task tool still running after its first turn became a task (call declares
    // the extension), which the timeout ends: completed, with isError.
    err:
      '[task working]\n[task completed]\nTool "long" failed: Tool "long" timed out after 50 ms\n',
  });
});

Deno.test("call shows the tool's progress and log messages on stderr", async () => {
  const { code, out, err } = await call(["report", "steps=2"], ["--dir", SERVER]);
  strictEqual(code, 0);
  strictEqual(out, "Reported 2 step(s)\n");
  // Progress reports closer together than 20 ms are merged and sent later, so progress may
  // come before or among the logs; each in its own order, and the last report always.
  const lines = err.split("\n").filter((line) => line !== "");
  deepStrictEqual(lines.filter((line) => line.startsWith("[progress")), [
    "[progress 1/2] step 1",
    "[progress 2/2] step 2",
  ]);
  deepStrictEqual(lines.filter((line) => !line.startsWith("[progress")), [
    "[debug report] a debug message",
    "[info report] a info message",
    "[notice report] a notice message",
    "[warning report] a warning message",
    "[error report] a error message",
  ]);
});

/** `deno run -A main.ts call ARGS`: its exit code, stdout and stderr. */
async function callMain(args: string[]): Promise<Outcome> {
  const { code, stdout, stderr } = await withHangGuard(
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "call", ...args, "--tools", TOOLS],
      stdin: "null",
    }).output(),
    `main.ts call ${args.join(" ")}`,
  );
  const decoder = new TextDecoder();
  return { code, out: decoder.decode(stdout), err: decoder.decode(stderr) };
}

Deno.test("call through main.ts: the result on stdout, failures on stderr, exit codes 0, 1, 2", async () => {
  deepStrictEqual(await callMain(["shout", "text=hi"]), { code: 0, out: "HI\n", err: "" });
  deepStrictEqual(await callMain(["fail"]), {
    code: 1,
    out: "",
    err: 'Tool "fail" failed: The disk is full\n',
  });
  deepStrictEqual(await callMain(["typed", "count=many"]), {
    code: 2,
    out: "",
    err: `toolshed: Invalid argument "count=many": "many" is not an integer\n${HINT}`,
  });
});

/** Tools that must run as tasks. */
const TASK_TOOLS = ["--tools", new URL("./fixtures/commands/task_tools", import.meta.url).pathname];

Deno.test("call follows a tool that runs as a task to its result", async () => {
  const done = await call(["job"], TASK_TOOLS);
  strictEqual(done.code, 0, done.err);
  strictEqual(done.out, "counted to 3\n");
  match(done.err, /^\[task working\]/);
  match(done.err, /\[task completed\]\n$/);

  const failed = await call(["job", "fail=true"], TASK_TOOLS);
  strictEqual(failed.code, 1);
  strictEqual(failed.out, "");
  match(failed.err, /Tool "job" failed: The job failed at the end\n$/);
});

Deno.test("call answers a task's question from --answer, and cancels the task it cannot answer", async () => {
  const answered = await call(["asking_job", "--answer", '{"name": "Ada"}'], TASK_TOOLS);
  strictEqual(answered.code, 0, answered.err);
  strictEqual(answered.out, "Hello, Ada\n");
  match(answered.err, /\[task input_required\]/);

  const unanswered = await call(["asking_job"], TASK_TOOLS);
  strictEqual(unanswered.code, 1);
  match(unanswered.err, /toolshed: Tool "asking_job" asks the client for input:\n/);
  match(unanswered.err, /Your name\?/);
});
