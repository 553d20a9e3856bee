// toolshed check: exits 1 on each kind of mistake (a load problem, a type error; with
// --strict a model-API lint finding or a survey warning), 0 on a clean directory and on the
// repository's own examples, 2 on a wrong command line. Runs the command in memory; one test
// runs it through a real process.
import assert from "node:assert/strict";
import { command, typeErrors } from "../lib/commands/check.ts";
import { lintForModels } from "../lib/schema/model_lint.ts";
import { exampleTools } from "./_examples.ts";
import { BROKEN_API } from "./_openapi_documents.ts";
import { withDir } from "./_scratch_dir.ts";
import { memoryIo } from "./_memory_io.ts";

const TOOL = 'export default { description: "d", inputSchema: { type: "object" },\n' +
  '  annotations: { readOnlyHint: true }, handler: () => "" };';
const REPO = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");

/**
 * `out` without the endpoints' figures and warnings, which every directory that loads has
 * (tests/check_endpoints_test.ts holds them): the text report's block, or --json's findings.
 */
function withoutEndpoints(out: string): string {
  if (out.startsWith("{")) {
    const json = JSON.parse(out);
    const findings = json.findings.filter((found: { source: string }) =>
      found.source !== "endpoints"
    );
    return `${JSON.stringify({ ...json, findings })}\n`;
  }
  return out.replace(/^Endpoints \(.*\n(?: {2}.*\n)*/m, "");
}

/**
 * Runs `toolshed check ARGS` in memory: its exit code and what it wrote, DIR for `dir`, without
 * the endpoints' report unless `endpoints`.
 */
async function check(args: string[], dir = "\0", endpoints = false) {
  const memory = memoryIo(Deno.cwd());
  const code = await command.run(args, memory.io);
  return {
    code,
    out: (endpoints ? (text: string) => text : withoutEndpoints)(
      memory.out().replaceAll(dir, "DIR"),
    ),
    err: memory.err().replaceAll(dir, "DIR"),
  };
}

Deno.test("check --help prints the usage on stdout and exits 0", async () => {
  const { code, out, err } = await check(["--help"]);
  assert.equal(code, 0);
  assert.ok(out.startsWith("Usage: toolshed check [--dir DIR] [options]\n"));
  assert.match(out, /--no-types {17}Skip type checking\n/);
  assert.equal(err, "");
});

Deno.test("check refuses a positional argument or a mistyped flag with exit 2", async () => {
  assert.deepEqual(await check(["tools"]), {
    code: 2,
    out: "",
    err: 'toolshed: Unexpected argument "tools": toolshed check takes no positional arguments ' +
      "(--dir DIR names the server directory)\n(toolshed check --help shows its options)\n",
  });
  const { code, err } = await check(["--strikt"]);
  assert.equal(code, 2);
  assert.match(err, /; did you mean --strict\?\n/);
});

Deno.test("check exits 0 on a clean directory, resolving @toolshed/toolshed wherever it is", async () => {
  // Outside the repository: the import resolves only through toolshed's own deno.json.
  const typed = 'import type { ToolDefinition } from "@toolshed/toolshed";\n' +
    'export default { description: "d", inputSchema: { type: "object" }, handler: () => "",\n' +
    "  annotations: { readOnlyHint: true } } satisfies ToolDefinition;\n";
  await withDir({ "tools/typed.ts": typed }, async (dir) => {
    assert.deepEqual(await check(["--dir", dir], dir), {
      code: 0,
      out: "0 errors, 0 warnings in 1 tool, 0 resources, 0 prompts\n",
      err: "",
    });
  });
});

Deno.test("check exits 1 on a problem that stops start-up, grouped under its file", async () => {
  await withDir(
    { "tools/add.ts": TOOL, "tools/bad.ts": 'export default { descripton: "x" };' },
    async (dir) => {
      assert.deepEqual(await check(["--dir", dir, "--no-types"], dir), {
        code: 1,
        out: "DIR/tools/bad.ts\n" +
          '  error: Cannot load tool "DIR/tools/bad.ts": unknown field "descripton"; did you mean ' +
          '"description"?\n' +
          "Type checking skipped (--no-types)\n" +
          "1 error, 0 warnings: the server directory did not load\n",
        err: "",
      });
    },
  );
});

Deno.test("check exits 1 on a type error, naming the file and the line", async () => {
  const typo = 'export default { description: "d", inputSchema: { type: "object" },\n' +
    '  handler: () => { const n: number = "one"; return String(n); },\n' +
    "  annotations: { readOnlyHint: true } };\n";
  await withDir({ "tools/typo.ts": typo }, async (dir) => {
    assert.deepEqual(await check(["--dir", dir], dir), {
      code: 1,
      out: "DIR/tools/typo.ts\n" +
        "  error: line 2: Type 'string' is not assignable to type 'number' (TS2322)\n" +
        "1 error, 0 warnings in 1 tool, 0 resources, 0 prompts\n",
      err: "",
    });
    // --no-types skips the step, and says so.
    const skipped = await check(["--dir", dir, "--no-types"], dir);
    assert.equal(skipped.code, 0);
    assert.equal(
      skipped.out,
      "Type checking skipped (--no-types)\n0 errors, 0 warnings in 1 tool, 0 resources, 0 prompts\n",
    );
  });
});

Deno.test("check type-checks the modules of each kind that says so (lib/discovery/kinds.ts): resources/ with its subfolders", async () => {
  const wrong = 'const n: number = "one";\n';
  await withDir({
    "tools/typo.ts": `${wrong}${TOOL}`,
    "tools/sub/helper.ts": wrong, // a subfolder of tools/ holds no tool
    "resources/deep/note.ts": `${wrong}export default { uri: "note://n", read: () => "n" };\n`,
    "prompts/ask.ts":
      `${wrong}export default { description: "d", get: () => ({ messages: [] }) };\n`,
    "middleware/10_pass.ts": `${wrong}export default (next: (c: unknown) => unknown) => next;\n`,
    "skills/demo/SKILL.md": "---\nname: demo\ndescription: A demo. Use when asked.\n---\n",
    "skills/demo/scripts/run.ts": wrong, // a skill's file, served as it is
  }, async (dir) => {
    const { out } = await check(["--dir", dir, "--json"], dir);
    const { findings } = JSON.parse(out);
    const typed = findings.filter((found: { source: string }) => found.source === "types")
      .map((found: { file: string; line: number }) => `${found.file}:${found.line}`);
    assert.deepEqual(typed.sort(), [
      "DIR/middleware/10_pass.ts:1",
      "DIR/prompts/ask.ts:1",
      "DIR/resources/deep/note.ts:1",
      "DIR/tools/typo.ts:1",
    ]);
  });
});

Deno.test("check warns on a model-API finding, and fails on it only with --strict", async () => {
  const dotted = 'export default { name: "math.add", description: "d", handler: () => "",\n' +
    "  annotations: { destructiveHint: false },\n" +
    '  inputSchema: { type: "object", properties: { tags: { type: "array" } } } };\n';
  await withDir({ "tools/add.ts": dotted }, async (dir) => {
    const expected = "DIR/tools/add.ts\n" +
      '  warning: the name "math.add" has a character Anthropic and OpenAI refuse in tool names: ' +
      'use letters, digits, "_" and "-"\n' +
      '  warning: inputSchema at "/properties/tags": an array schema without "items" is refused ' +
      'by OpenAI ("array schema missing items"): say what the array holds, e.g. "items": {}\n' +
      "Type checking skipped (--no-types)\n" +
      "0 errors, 2 warnings in 1 tool, 0 resources, 0 prompts\n";
    assert.deepEqual(await check(["--dir", dir, "--no-types"], dir), {
      code: 0,
      out: expected,
      err: "",
    });
    assert.deepEqual(await check(["--dir", dir, "--no-types", "--strict"], dir), {
      code: 1,
      out: expected,
      err: "",
    });
  });
});

Deno.test("check exits 1 on a tool name every model API refuses, even without --strict", async () => {
  const long = `export default { name: "${"a".repeat(65)}", description: "d", ` +
    'inputSchema: { type: "object" }, handler: () => "" };';
  await withDir({ "tools/long.ts": long }, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types"], dir);
    assert.equal(code, 1);
    assert.match(
      out,
      /\n {2}error: the name is 65 characters long: Anthropic, OpenAI and Gemini accept at most 64\n/,
    );
  });
});

Deno.test("check warns on what start-up passes over, and fails on it only with --strict", async () => {
  await withDir({ "tools/add.ts": TOOL, "tools/sub.tsx": TOOL }, async (dir) => {
    const expected = "DIR/tools/sub.tsx\n" +
      '  warning: Not serving "DIR/tools/sub.tsx": tool modules end in ".ts", ".mts", ".js" or ' +
      '".mjs" (rename it, or start its name with "_" if it is not a tool)\n' +
      "Type checking skipped (--no-types)\n" +
      "0 errors, 1 warning in 1 tool, 0 resources, 0 prompts\n";
    assert.deepEqual(await check(["--dir", dir, "--no-types"], dir), {
      code: 0,
      out: expected,
      err: "",
    });
    assert.equal((await check(["--dir", dir, "--no-types", "--strict"], dir)).code, 1);
  });
});

Deno.test("check --json gives every finding with its source, file and schema pointer", async () => {
  const tool = 'export default { description: "d", handler: () => "",\n' +
    "  annotations: { readOnlyHint: false, destructiveHint: true },\n" +
    '  inputSchema: { type: "object", properties: { n: { type: ["string", "null"] } } } };\n';
  await withDir({ "tools/add.ts": tool }, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types", "--json"], dir);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(out), {
      ok: true,
      errors: 0,
      warnings: 1,
      served: { tools: 1, resources: 0, prompts: 0 },
      notes: ["Type checking skipped (--no-types)"],
      findings: [{
        severity: "warning",
        source: "models",
        file: "DIR/tools/add.ts",
        message: 'inputSchema at "/properties/n/type": a list of types is refused by Gemini, ' +
          'whose "type" is one name: use "anyOf" (or "nullable": true for null)',
        tool: "add",
        field: "inputSchema",
        pointer: "/properties/n/type",
        apis: ["Gemini"],
      }],
    });
  });
});

Deno.test("check warns on what clients refuse or cut, naming the client and the file", async () => {
  // 41 tools, one of them without hints: Cursor's cap is about the endpoint, the hint about the file.
  const files: Record<string, string> = {};
  for (let index = 1; index <= 40; index++) {
    files[`tools/t${String(index).padStart(2, "0")}.ts`] = TOOL;
  }
  files["tools/t00.ts"] = 'export default { description: "d", inputSchema: { type: "object" },\n' +
    '  annotations: { title: "T" }, handler: () => "" };';
  await withDir(files, async (dir) => {
    const expected = "DIR/tools/t00.ts\n" +
      "  warning: no readOnlyHint or destructiveHint in annotations: OpenAI's app review refuses " +
      "a tool whose hints are unset, and clients take it to be destructive (set " +
      '"readOnlyHint": true if it changes nothing, else "destructiveHint")\n' +
      "Type checking skipped (--no-types)\n" +
      "0 errors, 2 warnings in 41 tools, 0 resources, 0 prompts\n";
    assert.deepEqual(await check(["--dir", dir, "--no-types"], dir), {
      code: 0,
      out: expected,
      err: "",
    });
    assert.equal((await check(["--dir", dir, "--no-types", "--strict"], dir)).code, 1);
    const { out } = await check(["--dir", dir, "--no-types", "--json"], dir, true);
    const json = JSON.parse(out);
    assert.deepEqual(
      json.findings.filter((found: { severity: string }) => found.severity === "warning").map((
        found: Record<string, unknown>,
      ) => [
        found.source,
        found.file,
        found.tool,
        found.rule,
        found.clients,
      ]),
      [
        ["endpoints", undefined, undefined, "cursor-tool-count", ["Cursor"]],
        ["clients", "DIR/tools/t00.ts", "t00", "openai-hints", ["OpenAI"]],
      ],
    );
  });
});

Deno.test("check reports each API's size and the operations it cannot serve, once each", async () => {
  const petstore = await Deno.readTextFile(
    new URL("./fixtures/openapi/petstore-3.1.json", import.meta.url),
  );
  const files = {
    "tools/pets.openapi.json": petstore,
    "tools/broken.openapi.json": BROKEN_API,
  };
  await withDir(files, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types"], dir);
    assert.equal(code, 0, out);
    const lines = out.split("\n");
    const pets = lines.indexOf("DIR/tools/pets.openapi.json");
    assert.match(
      lines[pets + 1],
      /^ {2}info: serves \d+ of its \d+ operations: \d+ left out by the curated default/,
    );
    assert.match(
      lines[pets + 2],
      /^ {2}info: tools\/list carries [\d,]+ bytes, about [\d,]+ tokens/,
    );
    assert.match(lines[pets + 3], /^ {2}info: all \d+ fit every host's cap on tools/);
    // The load leaves GET /bad out with a warning; check says it once, as the API's.
    const bad = lines.filter((line) => line.includes('"GET /bad"'));
    assert.deepEqual(bad.length, 1, out);
    assert.match(
      bad[0],
      /^ {2}warning: toolshed cannot serve the operation "GET \/bad" \(tool "bad"\)/,
    );

    const json = JSON.parse((await check(["--dir", dir, "--no-types", "--json"], dir)).out);
    const apis = json.findings.filter((found: { source: string }) => found.source === "openapi");
    assert.deepEqual(
      apis.map((found: Record<string, unknown>) => [found.severity, found.file, found.tool]),
      [
        ["info", "DIR/tools/broken.openapi.json", undefined],
        ["info", "DIR/tools/broken.openapi.json", undefined],
        ["info", "DIR/tools/broken.openapi.json", undefined],
        ["warning", "DIR/tools/broken.openapi.json", "bad"],
        ["warning", "DIR/tools/broken.openapi.json", "worse"],
        ["info", "DIR/tools/pets.openapi.json", undefined],
        ["info", "DIR/tools/pets.openapi.json", undefined],
        ["info", "DIR/tools/pets.openapi.json", undefined],
      ],
    );
    assert.equal(apis[0].size.served.tools, 1);
    assert.equal(apis[0].size.unservable, 2);
    // A finding that says what is counts toward neither errors nor warnings.
    const count = (severity: string) =>
      json.findings.filter((found: { severity: string }) => found.severity === severity).length;
    assert.deepEqual([json.errors, json.warnings], [count("error"), count("warning")]);
    assert.equal(json.served.tools, 1 + apis[5].size.served.tools);
  });
  // Named in "operations", an operation toolshed cannot serve is an error.
  const named = { ...files, "tools/broken.api.json": '{"operations": ["good", "POST /worse"]}' };
  await withDir(named, async (dir) => {
    const { code, out } = await check(["--dir", dir, "--no-types"], dir);
    assert.equal(code, 1, out);
    assert.ok(
      out.includes(
        '  error: "operations" in "DIR/tools/broken.api.json" names "POST /worse", and toolshed ' +
          'cannot serve the operation "POST /worse": ',
      ),
      out,
    );
  });
});

Deno.test("check passes the repository's own tools, resources and prompts, through a real process", async () => {
  const tools = await exampleTools();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${REPO}/main.ts`,
      "check",
      "--tools",
      tools,
      "--resources",
      `${REPO}/resources`,
      "--prompts",
      `${REPO}/prompts`,
      "--allow-outside-symlinks",
      "--strict",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(decoder.decode(stderr), "");
  assert.equal(
    withoutEndpoints(decoder.decode(stdout)),
    "0 errors, 0 warnings in 7 tools, 3 resources, 2 prompts\n",
  );
  assert.equal(code, 0);
});

Deno.test("typeErrors() reads deno check's output, each error at its first location", () => {
  const output = "TS2322 [ERROR]: Type 'number' is not assignable to type 'string'.\n" +
    "export default { description: 1 } satisfies ToolDefinition;\n" +
    "                 ~~~~~~~~~~~\n" +
    "    at file:///w/tools/bad.ts:3:18\n\n" +
    "    The expected type comes from property 'description' which is declared here\n" +
    "      description: string;\n" +
    "        at file:///toolshed/lib/primitives/types.ts:111:3\n\n" +
    'error: Module not found "file:///w/tools/gone.ts".\n' +
    "    at file:///w/tools/_helper.ts:1:8\n\n" +
    "Found 2 errors.\n\nerror: Type checking failed.\n";
  const files = [{ url: new URL("file:///w/tools/bad.ts"), shown: "tools/bad.ts" }];
  assert.deepEqual(typeErrors(output, files, "/w"), [
    {
      severity: "error",
      source: "types",
      file: "tools/bad.ts",
      message: "Type 'number' is not assignable to type 'string' (TS2322)",
      line: 3,
      column: 18,
    },
    {
      severity: "error",
      source: "types",
      file: "tools/_helper.ts",
      message: 'Module not found "file:///w/tools/gone.ts"',
      line: 1,
      column: 8,
    },
  ]);
});

Deno.test("lintForModels() reports root combinators, argument names and Gemini's missing keywords", () => {
  const found = lintForModels({
    name: "9lives",
    description: "x".repeat(1025),
    inputSchema: {
      type: "object",
      anyOf: [{ required: ["a"] }],
      properties: {
        "filter[id]": { type: "string" },
        mode: { const: "fast" },
        level: { enum: [1, 2] },
        ref: { $ref: "#/$defs/x" },
      },
    },
  });
  assert.deepEqual(found.map((item) => [item.severity, item.pointer ?? item.field, item.apis]), [
    ["warning", "name", ["Gemini"]],
    ["warning", "description", ["OpenAI"]],
    ["warning", "/anyOf", ["Anthropic", "OpenAI"]],
    ["warning", "/properties/filter[id]", ["Anthropic"]],
    ["warning", "/properties/filter[id]", ["Gemini"]],
    ["warning", "/properties/mode/const", ["Gemini"]],
    ["warning", "/properties/level/enum", ["Gemini"]],
    ["warning", "/properties/ref/$ref", ["Gemini"]],
  ]);
});
