// Tool discovery: which files are tools, and the exact start-up message for each bad one.
// Every test writes its tool files into a fresh temporary directory (a fresh module URL,
// so the module cache never hides a change) and removes it afterwards.
import assert from "node:assert/strict";
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_LOAD_OPTIONS, loadTools, ToolLoadError } from "../lib/discovery/tools_dir.ts";
import { checkDefinition, type ToolSet } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";
import { NO_CHANNELS } from "../lib/primitives/tool_call.ts";
import { exampleTools } from "./_examples.ts";

/** The example tools of tools/, without whatever else a user has put there. */
const EXAMPLES = await exampleTools();

const NAME_RULE = 'use 1 to 128 letters, digits, "_", "-" or "."';
const TIMEOUT_RULE = "timeoutMs must be an integer from 1 to 2147483647 (milliseconds)";

/** A valid tool module whose definition gets `extra` (source text of more fields). */
function toolSource(extra = ""): string {
  return `export default {
  description: "A test tool",
  inputSchema: { type: "object" },
  handler: () => "ok",
  ${extra}
};
`;
}

/** Writes `files` (relative path -> source; `null` makes a directory) into a temporary dir. */
async function withToolsDir(
  files: Record<string, string | null>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_loader_" });
  try {
    for (const [path, source] of Object.entries(files)) {
      const target = `${dir}/${path}`;
      if (source === null) {
        await Deno.mkdir(target, { recursive: true });
        continue;
      }
      const parent = target.slice(0, target.lastIndexOf("/"));
      await Deno.mkdir(parent, { recursive: true });
      await Deno.writeTextFile(target, source);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Loads `dir`, which must fail; returns the problems after checking the error's shape. */
async function loadProblems(dir: string | URL): Promise<readonly string[]> {
  let registry: ToolSet | undefined;
  try {
    registry = await loadTools(dir, { diagnostics: recorder() });
  } catch (error) {
    assert.ok(error instanceof ToolLoadError, `expected a ToolLoadError, got ${String(error)}`);
    assert.strictEqual(error.name, "ToolLoadError");
    assert.strictEqual(error.message, error.problems.join("\n"));
    return error.problems;
  }
  assert.fail(
    `loadTools() succeeded with ${registry.tools.map((tool) => tool.name).join(", ")}`,
  );
}

function names(registry: ToolSet): string[] {
  return registry.tools.map((tool) => tool.name);
}

Deno.test("loadTools() loads the seven example tools of tools/ sorted by name", async () => {
  const registry = await loadTools(EXAMPLES, {
    diagnostics: recorder(),
    allowOutsideSymlinks: true,
  });
  assert.deepStrictEqual(names(registry), [
    "csv_to_json",
    "divide",
    "echo",
    "json_query",
    "sha256",
    "wait",
    "word_stats",
  ]);
  // An executable tool is named after its sidecar, whose path its messages show.
  const executables = ["csv_to_json", "json_query"];
  assert.deepStrictEqual([...registry.byName.keys()].sort(), names(registry));
  for (const tool of registry.tools) {
    assert.strictEqual(registry.byName.get(tool.name), tool);
    const extension = executables.includes(tool.name) ? "json" : "ts";
    assert.strictEqual(tool.file, `${EXAMPLES}/${tool.name}.${extension}`);
    assert.strictEqual(typeof tool.definition.handler, "function");
  }
});

Deno.test("loadTools() shows a relative directory in tool files as it was given", async () => {
  const given = `${relative(Deno.cwd(), EXAMPLES)}/`;
  const registry = await loadTools(given, { diagnostics: recorder(), allowOutsideSymlinks: true });
  assert.strictEqual(registry.byName.get("echo")?.file, `${given.replace(/\/$/, "")}/echo.ts`);
});

Deno.test("loadTools() names a tool after its file unless the definition sets name", async () => {
  await withToolsDir({
    "alpha.ts": toolSource(),
    "beta.ts": toolSource('name: "gamma",'),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(names(registry), ["alpha", "gamma"]);
    assert.strictEqual(registry.byName.get("beta"), undefined);
    assert.strictEqual(registry.byName.get("gamma")?.file, `${dir}/beta.ts`);
    assert.strictEqual(registry.byName.get("alpha")?.file, `${dir}/alpha.ts`);
  });
});

Deno.test("loadTools() sorts tools by name, not by file name", async () => {
  await withToolsDir({
    "a.ts": toolSource('name: "zulu",'),
    "b.ts": toolSource('name: "Bravo",'),
    "c.ts": toolSource('name: "alpha",'),
  }, async (dir) => {
    // Code-unit order: upper case sorts before lower case.
    assert.deepStrictEqual(names(await loadTools(dir, { diagnostics: recorder() })), [
      "Bravo",
      "alpha",
      "zulu",
    ]);
  });
});

Deno.test("loadTools() compiles the schemas and keeps timeoutMs of a loaded tool", async () => {
  await withToolsDir({
    "strict.ts": toolSource(`
  timeoutMs: 1500,
  outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },`)
      .replace(
        'inputSchema: { type: "object" }',
        'inputSchema: { type: "object", properties: { text: { type: "string" } }, ' +
          'required: ["text"], additionalProperties: false }',
      ),
    "plain.ts": toolSource(),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    const strict = registry.byName.get("strict");
    assert.ok(strict);
    assert.strictEqual(strict.timeoutMs, 1500);
    assert.strictEqual(strict.validateInput({ text: "hi" }), undefined);
    assert.strictEqual(
      strict.validateInput({}),
      'missing required property "text"',
    );
    assert.strictEqual(
      strict.validateInput({ text: 1 }),
      'at "/text": expected a string, got a number',
    );
    assert.ok(strict.validateOutput);
    assert.strictEqual(strict.validateOutput({ n: 1 }), undefined);
    assert.strictEqual(
      strict.validateOutput({ n: "1" }),
      'at "/n": expected an integer, got a string',
    );

    const plain = registry.byName.get("plain");
    assert.ok(plain);
    assert.strictEqual(plain.timeoutMs, undefined);
    assert.strictEqual(plain.validateOutput, undefined);
  });
});

Deno.test("loadTools() keeps the largest timeoutMs setTimeout allows", async () => {
  await withToolsDir({ "patient.ts": toolSource("timeoutMs: 2147483647,") }, async (dir) => {
    assert.strictEqual(
      (await loadTools(dir, { diagnostics: recorder() })).byName.get("patient")?.timeoutMs,
      2147483647,
    );
  });
});

Deno.test("loadTools() collects the top-level property defaults of the inputSchema", async () => {
  await withToolsDir({
    "defaults.ts": toolSource().replace(
      'inputSchema: { type: "object" }',
      `inputSchema: {
    type: "object",
    properties: {
      count: { type: "integer", default: 10 },
      text: { type: "string" },
      mode: { type: "string", default: "fast" },
      off: { type: "boolean", default: false },
      nothing: { default: null },
      nested: {
        type: "object",
        properties: { depth: { type: "integer", default: 3 } },
        default: {},
      },
    },
  }`,
    ),
    "plain.ts": toolSource(),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    // Only the properties' own defaults, in property order; nested ones are not collected.
    assert.deepStrictEqual(registry.byName.get("defaults")?.argumentDefaults, [
      ["count", 10],
      ["mode", "fast"],
      ["off", false],
      ["nothing", null],
      ["nested", {}],
    ]);
    assert.deepStrictEqual(registry.byName.get("plain")?.argumentDefaults, []);
  });
});

Deno.test("loadTools() loads two tools whose schemas share an $id, each with its own validator", async () => {
  const schemaOf = (type: string) =>
    `inputSchema: { $id: "https://example.com/args.json", type: "object", ` +
    `properties: { v: { type: "${type}" } } }`;
  await withToolsDir({
    "text.ts": toolSource().replace('inputSchema: { type: "object" }', schemaOf("string")),
    "number.ts": toolSource().replace('inputSchema: { type: "object" }', schemaOf("integer")),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(names(registry), ["number", "text"]);
    const text = registry.byName.get("text");
    const number = registry.byName.get("number");
    assert.ok(text && number);
    assert.strictEqual(text.validateInput({ v: "x" }), undefined);
    assert.strictEqual(
      text.validateInput({ v: 1 }),
      'at "/v": expected a string, got a number',
    );
    assert.strictEqual(number.validateInput({ v: 1 }), undefined);
    assert.strictEqual(
      number.validateInput({ v: "x" }),
      'at "/v": expected an integer, got a string',
    );
  });
});

Deno.test("loadTools() loads a draft-04 inputSchema", async () => {
  await withToolsDir({
    "old.ts": toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { $schema: "http://json-schema.org/draft-04/schema#", type: "object", ' +
        'properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } } }',
    ),
  }, async (dir) => {
    const old = (await loadTools(dir, { diagnostics: recorder() })).byName.get("old");
    assert.ok(old);
    assert.strictEqual(old.validateInput({ n: 1 }), undefined);
    assert.notStrictEqual(old.validateInput({ n: 0 }), undefined);
  });
});

Deno.test("loadTools() loads .ts, .mts, .js and .mjs files and skips other files that are not executable, and _ and . folders", async () => {
  const throwing = (flag: string) =>
    `(globalThis as Record<string, unknown>)[${JSON.stringify(flag)}] = true;\n` +
    `throw new Error("${flag} must not be imported");\n`;
  const throwingJs = (flag: string) =>
    `globalThis[${
      JSON.stringify(flag)
    }] = true;\nthrow new Error("${flag} must not be imported");\n`;
  await withToolsDir({
    "a.ts": toolSource(),
    "b.mts": toolSource(),
    "c.js": toolSource(),
    "d.mjs": toolSource(),
    "_x.ts": throwing("toolshedTestImported_x"),
    "_helper.js": throwingJs("toolshedTestImported_helper"),
    ".hidden.ts": throwing("toolshedTestImportedHidden"),
    "notes.txt": "not a tool",
    "_data.json": '{ "description": "not a tool" }',
    "component.tsx": throwing("toolshedTestImportedTsx"),
    "README.md": "# not a tool",
    // Folders are toolsets (tests/toolsets_test.ts) unless their names start with "_" or ".";
    // a folder inside a toolset is not read, and an empty one serves nothing.
    "_sub/inner.ts": throwing("toolshedTestImportedSub"),
    ".git/inside.ts": throwing("toolshedTestImportedGit"),
    "set/deeper/inner.ts": throwing("toolshedTestImportedDeeper"),
    "empty": null,
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(names(registry), ["a", "b", "c", "d"]);
    assert.deepStrictEqual(registry.tools.map((tool) => tool.file), [
      `${dir}/a.ts`,
      `${dir}/b.mts`,
      `${dir}/c.js`,
      `${dir}/d.mjs`,
    ]);
    const global = globalThis as Record<string, unknown>;
    for (
      const flag of [
        "toolshedTestImported_x",
        "toolshedTestImported_helper",
        "toolshedTestImportedHidden",
        "toolshedTestImportedTsx",
        "toolshedTestImportedSub",
        "toolshedTestImportedGit",
        "toolshedTestImportedDeeper",
      ]
    ) {
      assert.strictEqual(global[flag], undefined, `${flag} was imported`);
    }
  });
});

Deno.test("loadTools() loads an empty directory as a registry with no tools", async () => {
  await withToolsDir({ "_only_helper.ts": "export const x = 1;\n" }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(registry.tools, []);
    assert.strictEqual(registry.byName.size, 0);
  });
});

/** One bad file among good ones: the single problem must be exactly this, naming the file. */
interface BadToolCase {
  what: string;
  fileName: string;
  source: string;
  reason: string;
}

const BAD_TOOLS: BadToolCase[] = [
  {
    what: "a file name that is not a valid tool name",
    fileName: "bad name.ts",
    source: toolSource(),
    reason: `the name "bad name" is invalid: ${NAME_RULE}`,
  },
  {
    what: "a name field with a slash",
    fileName: "slash.ts",
    source: toolSource('name: "a/b",'),
    reason: `the name "a/b" is invalid: ${NAME_RULE}`,
  },
  {
    what: "an empty name field",
    fileName: "empty_name.ts",
    source: toolSource('name: "",'),
    reason: `the name "" is invalid: ${NAME_RULE}`,
  },
  {
    what: "a name of 129 characters",
    fileName: "long.ts",
    source: toolSource(`name: "${"n".repeat(129)}",`),
    reason: `the name "${"n".repeat(129)}" is invalid: ${NAME_RULE}`,
  },
  {
    what: "a missing description",
    fileName: "no_description.ts",
    source: 'export default { inputSchema: { type: "object" }, handler: () => "ok" };\n',
    reason: "description must be a non-empty string",
  },
  {
    what: "an empty description",
    fileName: "empty_description.ts",
    source: toolSource().replace('"A test tool"', '""'),
    reason: "description must be a non-empty string",
  },
  {
    what: "a description of only spaces",
    fileName: "blank_description.ts",
    source: toolSource().replace('"A test tool"', '"   "'),
    reason: "description must be a non-empty string",
  },
  {
    what: "a description that is not a string",
    fileName: "numeric_description.ts",
    source: toolSource().replace('"A test tool"', "7"),
    reason: "description must be a non-empty string",
  },
  {
    what: "a missing inputSchema",
    fileName: "no_input_schema.ts",
    source: 'export default { description: "d", handler: () => "ok" };\n',
    reason: 'inputSchema must be an object schema with type "object"',
  },
  {
    what: 'an inputSchema whose root type is not "object"',
    fileName: "string_root.ts",
    source: toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { type: "string" }',
    ),
    reason: 'inputSchema must be an object schema with type "object"',
  },
  {
    what: "an inputSchema without a root type",
    fileName: "untyped_root.ts",
    source: toolSource().replace('inputSchema: { type: "object" }', "inputSchema: {}"),
    reason: 'inputSchema must be an object schema with type "object"',
  },
  {
    what: "an outputSchema that is not an object",
    fileName: "string_output.ts",
    source: toolSource('outputSchema: "object",'),
    reason: "outputSchema must be a JSON Schema object",
  },
  {
    what: "an outputSchema that is an array",
    fileName: "array_output.ts",
    source: toolSource("outputSchema: [],"),
    reason: "outputSchema must be a JSON Schema object",
  },
  {
    what: "a missing handler",
    fileName: "no_handler.ts",
    source: 'export default { description: "d", inputSchema: { type: "object" } };\n',
    reason: "handler must be a function",
  },
  {
    what: "a handler that is not a function",
    fileName: "string_handler.ts",
    source: toolSource().replace('handler: () => "ok"', 'handler: "ok"'),
    reason: "handler must be a function",
  },
  {
    what: "an unknown field (a typo of description)",
    fileName: "typo.ts",
    source:
      'export default { descripton: "d", inputSchema: { type: "object" }, handler: () => 1 };\n',
    reason: 'unknown field "descripton"; did you mean "description"?',
  },
  {
    what: "a timeoutMs of zero",
    fileName: "zero_timeout.ts",
    source: toolSource("timeoutMs: 0,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a negative timeoutMs",
    fileName: "negative_timeout.ts",
    source: toolSource("timeoutMs: -100,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a timeoutMs given as a string",
    fileName: "string_timeout.ts",
    source: toolSource('timeoutMs: "1000",'),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a NaN timeoutMs",
    fileName: "nan_timeout.ts",
    source: toolSource("timeoutMs: NaN,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a timeoutMs with a fraction",
    fileName: "fraction_timeout.ts",
    source: toolSource("timeoutMs: 1.5,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a timeoutMs beyond setTimeout's limit",
    fileName: "huge_timeout.ts",
    source: toolSource("timeoutMs: 3000000000,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "an infinite timeoutMs",
    fileName: "infinite_timeout.ts",
    source: toolSource("timeoutMs: Infinity,"),
    reason: TIMEOUT_RULE,
  },
  {
    what: "a title that is not a string",
    fileName: "numeric_title.ts",
    source: toolSource("title: 5,"),
    reason: "title must be a string",
  },
  {
    what: "annotations that are not an object",
    fileName: "string_annotations.ts",
    source: toolSource('annotations: "readOnly",'),
    reason: "annotations are invalid: expected an object, got a string",
  },
  {
    what: "icons that are not an array of objects",
    fileName: "bad_icons.ts",
    source: toolSource('icons: ["data:image/png;base64,AA=="],'),
    reason: 'icons are invalid: at "/0": expected an object, got a string',
  },
  {
    what: "a _meta that is not an object",
    fileName: "bad_meta.ts",
    source: toolSource("_meta: [],"),
    reason: "_meta must be an object",
  },
  {
    what: "a BigInt in _meta",
    fileName: "bigint_meta.ts",
    source: toolSource("_meta: { size: 10n },"),
    reason: "_meta cannot be sent as JSON: Do not know how to serialize a BigInt",
  },
  {
    what: "a _meta that refers to itself",
    fileName: "cyclic_meta.ts",
    source: toolSource("_meta: (() => { const meta = {}; meta.self = meta; return meta; })(),"),
    reason: "_meta cannot be sent as JSON: Converting circular structure to JSON",
  },
  {
    what: "a Date default in the inputSchema",
    fileName: "date_default.ts",
    source: toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { type: "object", properties: { when: { type: "string", default: new Date(0) } } }',
    ),
    reason: "inputSchema cannot be sent as JSON unchanged: " +
      'at "/properties/when/default": a Date would arrive as a string',
  },
  {
    what: "a NaN in the outputSchema",
    fileName: "nan_output_schema.ts",
    source: toolSource(
      'outputSchema: { type: "object", properties: { "a/b": { type: "number", maximum: NaN } } },',
    ),
    reason: "outputSchema cannot be sent as JSON unchanged: " +
      'at "/properties/a~1b/maximum": NaN would arrive as null',
  },
  {
    what: "a function inside annotations",
    fileName: "function_annotation.ts",
    source: toolSource("annotations: { readOnlyHint: true, hint: () => true },"),
    reason: 'annotations cannot be sent as JSON unchanged: at "/hint": a function would be dropped',
  },
  {
    what: "a Map in _meta",
    fileName: "map_meta.ts",
    source: toolSource('_meta: { tags: new Map([["a", 1]]) },'),
    reason: '_meta cannot be sent as JSON unchanged: at "/tags": a Map would arrive as an object',
  },
  {
    what: "an undefined array item in _meta",
    fileName: "undefined_item_meta.ts",
    source: toolSource("_meta: { list: [1, undefined] },"),
    reason: '_meta cannot be sent as JSON unchanged: at "/list/1": undefined would arrive as null',
  },
  {
    what: "a module that throws on import",
    fileName: "explodes.ts",
    source: 'throw new Error("kaboom at import");\nexport default {};\n',
    reason: "the module failed to import: kaboom at import",
  },
  {
    what: "a module without a default export",
    fileName: "named_only.ts",
    source: toolSource().replace("export default", "export const tool ="),
    reason: "the module must default-export a tool object ({ description, inputSchema, handler })",
  },
  {
    what: "a module whose default export is a function",
    fileName: "function_default.ts",
    source: 'export default function handler() {\n  return "ok";\n}\n',
    reason: "the module must default-export a tool object ({ description, inputSchema, handler })",
  },
  {
    what: "a module whose default export is null",
    fileName: "null_default.ts",
    source: "export default null;\n",
    reason: "the module must default-export a tool object ({ description, inputSchema, handler })",
  },
  {
    what: "an inputSchema with an unsupported $schema dialect (draft-06)",
    fileName: "draft06.ts",
    source: toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { $schema: "http://json-schema.org/draft-06/schema#", type: "object" }',
    ),
    reason: "inputSchema is not a valid JSON Schema: " +
      '$schema "http://json-schema.org/draft-06/schema#" is not supported; ' +
      "use 2020-12 (the default), 2019-09, draft-07 or draft-04",
  },
  {
    what: "an inputSchema with a dangling same-document $ref",
    fileName: "dangling_ref.ts",
    source: toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }',
    ),
    reason: "inputSchema is not a valid JSON Schema: " +
      '$ref "#/$defs/missing" does not resolve inside the schema (nothing is fetched)',
  },
  {
    what: "an inputSchema with a misspelt type",
    fileName: "typo_type.ts",
    source: toolSource().replace(
      'inputSchema: { type: "object" }',
      'inputSchema: { type: "object", properties: { a: { type: "strnig" } } }',
    ),
    reason: 'inputSchema is not a valid JSON Schema: type "strnig" is not a JSON type',
  },
  {
    what: "an outputSchema that is not a valid JSON Schema",
    fileName: "bad_output_schema.ts",
    source: toolSource('outputSchema: { type: "object", properties: { n: { type: "integr" } } },'),
    reason: 'outputSchema is not a valid JSON Schema: type "integr" is not a JSON type',
  },
];

for (const { what, fileName, source, reason } of BAD_TOOLS) {
  Deno.test(`loadTools() rejects ${what} with a message naming the file`, async () => {
    await withToolsDir({ "good.ts": toolSource(), [fileName]: source }, async (dir) => {
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load tool "${dir}/${fileName}": ${reason}`,
      ]);
    });
  });
}

Deno.test("loadTools() loads wire fields with keys whose value is undefined, as if they were missing", async () => {
  const source = toolSource().replace(
    'inputSchema: { type: "object" }',
    'inputSchema: { type: "object", properties: { a: { type: "number", default: undefined } } }',
  );
  await withToolsDir({
    "vanishing.ts": source.replace(
      "handler:",
      "title: undefined, _meta: { gone: undefined, zero: -0, bare: Object.create(null) }, handler:",
    ),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(registry.tools.map((tool) => tool.name), ["vanishing"]);
  });
});

Deno.test("loadTools() rejects a name field that is not a string (null, 42), naming the file", async () => {
  // Only a missing name falls back to the file name.
  for (const value of ["null", "42"]) {
    await withToolsDir({
      "good.ts": toolSource(),
      "odd_name.ts": toolSource(`name: ${value},`),
    }, async (dir) => {
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load tool "${dir}/odd_name.ts": name must be a string`,
      ], value);
    });
  }
});

Deno.test("loadTools() falls back to the file name when name is undefined", async () => {
  await withToolsDir({ "fallback.ts": toolSource("name: undefined,") }, async (dir) => {
    assert.deepStrictEqual(names(await loadTools(dir, { diagnostics: recorder() })), ["fallback"]);
  });
});

Deno.test("loadTools() rejects a name field that repeats another file's name, naming both files", async () => {
  await withToolsDir({
    "echo.ts": toolSource(),
    "zeta.ts": toolSource('name: "echo",'),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load tool "${dir}/zeta.ts": the name "echo" is already used by "${dir}/echo.ts"`,
    ]);
  });
});

Deno.test("loadTools() blames the later file (by file name) for a duplicate name", async () => {
  await withToolsDir({
    "alpha.ts": toolSource('name: "zeta",'),
    "zeta.ts": toolSource(),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load tool "${dir}/zeta.ts": the name "zeta" is already used by "${dir}/alpha.ts"`,
    ]);
  });
});

Deno.test("loadTools() fails on a network $ref at load, with a message, without fetching it", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests++;
    return Response.json({ type: "string" });
  });
  try {
    const ref = `http://127.0.0.1:${server.addr.port}/args.json`;
    const source = toolSource().replace(
      'inputSchema: { type: "object" }',
      `inputSchema: { type: "object", properties: { a: { $ref: ${JSON.stringify(ref)} } } }`,
    );
    await withToolsDir({ "remote_ref.ts": source }, async (dir) => {
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load tool "${dir}/remote_ref.ts": inputSchema is not a valid JSON Schema: ` +
        `$ref "${ref}" does not resolve inside the schema (nothing is fetched)`,
      ]);
    });
    assert.strictEqual(requests, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("loadTools() reports every bad file in one error, each naming its file", async () => {
  await withToolsDir({
    "a_good.ts": toolSource(),
    "b_typo.ts":
      'export default { descripton: "d", inputSchema: { type: "object" }, handler: () => 1 };',
    "c_no_handler.ts": 'export default { description: "d", inputSchema: { type: "object" } };',
    "d_throws.ts": 'throw new Error("boom");',
    "e_good.ts": toolSource(),
    "f_dup.ts": toolSource('name: "a_good",'),
    "g_bad timeout.ts": toolSource("timeoutMs: -1,"),
  }, async (dir) => {
    assert.deepStrictEqual(await loadProblems(dir), [
      `Cannot load tool "${dir}/b_typo.ts": unknown field "descripton"; did you mean "description"?`,
      `Cannot load tool "${dir}/c_no_handler.ts": handler must be a function`,
      `Cannot load tool "${dir}/d_throws.ts": the module failed to import: boom`,
      `Cannot load tool "${dir}/f_dup.ts": the name "a_good" is already used by "${dir}/a_good.ts"`,
      `Cannot load tool "${dir}/g_bad timeout.ts": the name "g_bad timeout" is invalid: ${NAME_RULE}`,
    ]);
  });
});

Deno.test("loadTools() reports a missing tools directory with the path as given", async () => {
  await withToolsDir({}, async (dir) => {
    const problems = await loadProblems(`${dir}/nope/`);
    assert.strictEqual(problems.length, 1);
    assert.ok(
      problems[0].startsWith(`Cannot read the tools directory "${dir}/nope": `),
      problems[0],
    );
    assert.match(problems[0], /No such file or directory/);
  });
});

Deno.test("loadTools() reports a tools path that is a file as an unreadable directory", async () => {
  await withToolsDir({ "a.ts": toolSource() }, async (dir) => {
    const problems = await loadProblems(`${dir}/a.ts`);
    assert.strictEqual(problems.length, 1);
    assert.ok(
      problems[0].startsWith(`Cannot read the tools directory "${dir}/a.ts": `),
      problems[0],
    );
    assert.match(problems[0], /Not a directory/);
  });
});

Deno.test("loadTools() loads a directory given as a file URL", async () => {
  await withToolsDir({
    "one.ts": toolSource(),
    "two.mjs": toolSource('name: "deux",'),
    "_skip.ts": 'throw new Error("not a tool");',
  }, async (dir) => {
    const registry = await loadTools(pathToFileURL(`${dir}/`), { diagnostics: recorder() });
    assert.deepStrictEqual(names(registry), ["deux", "one"]);
    assert.strictEqual(registry.byName.get("one")?.definition.description, "A test tool");
  });
});

Deno.test("loadTools() loads a directory URL without a trailing slash", async () => {
  await withToolsDir(
    { "one.ts": toolSource(), "two.mjs": toolSource('name: "deux",') },
    async (dir) => {
      const registry = await loadTools(pathToFileURL(dir), { diagnostics: recorder() });
      assert.deepStrictEqual(names(registry), ["deux", "one"]);
      assert.strictEqual(registry.byName.get("one")?.file, `${dir}/one.ts`);
    },
  );
});

Deno.test("loadTools() shows a directory URL as its decoded path in messages", async () => {
  await withToolsDir({
    "my tools/good.ts": toolSource(),
    "my tools/no_handler.ts":
      'export default { description: "d", inputSchema: { type: "object" } };\n',
  }, async (dir) => {
    for (const url of [pathToFileURL(`${dir}/my tools/`), pathToFileURL(`${dir}/my tools`)]) {
      assert.ok(url.href.includes("my%20tools"), url.href);
      assert.deepStrictEqual(await loadProblems(url), [
        `Cannot load tool "${dir}/my tools/no_handler.ts": handler must be a function`,
      ]);
    }
    const missing = await loadProblems(pathToFileURL(`${dir}/nope/`));
    assert.strictEqual(missing.length, 1);
    assert.ok(
      missing[0].startsWith(`Cannot read the tools directory "${dir}/nope": `),
      missing[0],
    );
  });
});

// Executable tools: a program with the executable bit and a JSON sidecar beside it.

/** A file's text and mode, or a symlink to `link`. */
type Entry = string | { text: string; mode: number } | { link: string };

const SH = (body: string) => ({ text: `#!/bin/sh\ncat >/dev/null\n${body}\n`, mode: 0o755 });
const SIDECAR = '{ "description": "A program", "inputSchema": { "type": "object" } }\n';

/** Writes `files` (a string is a file with mode 0644) into a temporary dir. */
async function withExecutables(
  files: Record<string, Entry>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolshed_exec_" }));
  try {
    for (const [name, entry] of Object.entries(files)) {
      const path = `${dir}/${name}`;
      if (typeof entry === "string") {
        await Deno.writeTextFile(path, entry, { mode: 0o644 });
      } else if ("link" in entry) {
        await Deno.symlink(entry.link, path);
      } else {
        await Deno.writeTextFile(path, entry.text);
        await Deno.chmod(path, entry.mode);
      }
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const noSignal = new AbortController().signal;
const context = {
  ...NO_CHANNELS,
  signal: noSignal,
  requestId: 1,
  toolName: "t",
  protocolVersion: "2026-07-28",
  clientInfo: undefined,
  clientCapabilities: {},
};

Deno.test("loadTools() loads an executable with its sidecar, with or without an extension, beside modules", async () => {
  await withExecutables({
    "add.sh": SH('echo "sh"'),
    "add.json": SIDECAR,
    "greet": SH('echo "no extension"'),
    "greet.json": SIDECAR.replace("A program", "Greets"),
    "my.tool.sh": SH('echo "dotted"'),
    "my.tool.json": SIDECAR,
    "module.ts": toolSource(),
    "README.md": "# not a tool, not executable\n",
    "notes.txt": "not a tool",
    "_helper.sh": SH("exit 1"),
    ".hidden": SH("exit 1"),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepStrictEqual(names(registry), ["add", "greet", "module", "my.tool"]);
    assert.deepStrictEqual(registry.tools.map((tool) => tool.file), [
      `${dir}/add.json`,
      `${dir}/greet.json`,
      `${dir}/module.ts`,
      `${dir}/my.tool.json`,
    ]);
    assert.strictEqual(registry.byName.get("greet")?.definition.description, "Greets");
    const outputs: unknown[] = [];
    for (const name of ["add", "greet", "my.tool"]) {
      outputs.push(await registry.byName.get(name)!.definition.handler({}, context));
    }
    assert.deepStrictEqual(outputs, [
      { content: [{ type: "text", text: "sh" }] },
      { content: [{ type: "text", text: "no extension" }] },
      { content: [{ type: "text", text: "dotted" }] },
    ]);
  });
});

Deno.test("loadTools() keeps a sidecar's timeoutMs and checks its schemas as a module's", async () => {
  await withExecutables({
    "slow.sh": SH("sleep 1"),
    "slow.json": JSON.stringify({
      description: "Slow",
      inputSchema: { type: "object", properties: { n: { type: "integer", default: 3 } } },
      outputSchema: { type: "object" },
      timeoutMs: 1500,
      title: "Slow one",
      annotations: { readOnlyHint: true },
      icons: [{ src: "data:image/png;base64,AA==" }],
    }),
  }, async (dir) => {
    const slow = (await loadTools(dir, { diagnostics: recorder() })).byName.get("slow");
    assert.ok(slow);
    assert.strictEqual(slow.timeoutMs, 1500);
    assert.deepStrictEqual(slow.argumentDefaults, [["n", 3]]);
    assert.notStrictEqual(slow.validateInput({ n: "x" }), undefined);
    assert.ok(slow.validateOutput);
  });
});

Deno.test("loadTools() passes the variables a sidecar's env names, and --pass-env's, to its program", async () => {
  Deno.env.set("TOOLSHED_TEST_FROM_SIDECAR", "sidecar value");
  Deno.env.set("TOOLSHED_TEST_FROM_FLAG", "flag value");
  Deno.env.set("TOOLSHED_TEST_NOT_PASSED", "secret");
  try {
    await withExecutables({
      "show.sh": SH(
        'echo "$TOOLSHED_TEST_FROM_SIDECAR|$TOOLSHED_TEST_FROM_FLAG|${TOOLSHED_TEST_NOT_PASSED:-unset}"',
      ),
      "show.json": JSON.stringify({
        description: "Shows variables",
        inputSchema: { type: "object" },
        env: ["TOOLSHED_TEST_FROM_SIDECAR", "TOOLSHED_TEST_UNSET_ANYWHERE"],
      }),
    }, async (dir) => {
      const registry = await loadTools(dir, {
        diagnostics: recorder(),
        ...DEFAULT_LOAD_OPTIONS,
        passEnv: ["TOOLSHED_TEST_FROM_FLAG"],
      });
      assert.deepStrictEqual(await registry.byName.get("show")!.definition.handler({}, context), {
        content: [{ type: "text", text: "sidecar value|flag value|unset" }],
      });
    });
  } finally {
    for (const name of ["FROM_SIDECAR", "FROM_FLAG", "NOT_PASSED"]) {
      Deno.env.delete(`TOOLSHED_TEST_${name}`);
    }
  }
});

Deno.test("loadTools() reads a sidecar's output: text by default, json with an outputSchema, or as set", async () => {
  const posing = '{"content":[{"type":"text","text":"posing"}],"isError":true}';
  const sidecar = (fields: Record<string, unknown>) =>
    JSON.stringify({ description: "Prints", inputSchema: { type: "object" }, ...fields });
  await withExecutables({
    "plain.sh": SH(`echo '${posing}'`),
    "plain.json": sidecar({}),
    "typed.sh": SH(`echo '${posing}'`),
    "typed.json": sidecar({ outputSchema: { type: "object" } }),
    "data.sh": SH(`echo '${posing}'`),
    "data.json": sidecar({ output: "json" }),
    "whole.sh": SH(`echo '${posing}'`),
    "whole.json": sidecar({ output: "result" }),
    "said.sh": SH(`echo '${posing}'`),
    "said.json": sidecar({ output: "text" }),
  }, async (dir) => {
    const registry = await loadTools(dir, { diagnostics: recorder() });
    const outputs: Record<string, unknown> = {};
    for (const tool of registry.tools) {
      outputs[tool.name] = await tool.definition.handler({}, context);
    }
    const asData = {
      content: [{ type: "text", text: posing }],
      structuredContent: JSON.parse(posing),
    };
    assert.deepStrictEqual(outputs, {
      plain: { content: [{ type: "text", text: posing }] },
      said: { content: [{ type: "text", text: posing }] },
      typed: asData,
      data: asData,
      whole: JSON.parse(posing),
    });
  });
});

Deno.test("loadTools() serves a symlink into the tools directory, and one outside only when allowed", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_outside_" });
  try {
    await Deno.writeTextFile(`${outside}/program.sh`, SH('echo "outside"').text);
    await Deno.chmod(`${outside}/program.sh`, 0o755);
    await withExecutables({
      "_impl.sh": SH('echo "inside"'),
      "inner.sh": { link: "_impl.sh" },
      "inner.json": SIDECAR,
      "outer.sh": { link: `${outside}/program.sh` },
      "outer.json": SIDECAR,
    }, async (dir) => {
      const real = await Deno.realPath(`${outside}/program.sh`);
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load tool "${dir}/outer.json": "${dir}/outer.sh" is a symlink to "${real}", ` +
        "outside the tools directory (--allow-outside-symlinks allows it)",
      ]);
      const registry = await loadTools(dir, {
        diagnostics: recorder(),
        ...DEFAULT_LOAD_OPTIONS,
        allowOutsideSymlinks: true,
      });
      assert.deepStrictEqual(names(registry), ["inner", "outer"]);
      assert.deepStrictEqual(await registry.byName.get("outer")!.definition.handler({}, context), {
        content: [{ type: "text", text: "outside" }],
      });
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("loadTools() refuses a sidecar that is a symlink outside the tools directory", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_outside_" });
  try {
    await Deno.writeTextFile(`${outside}/sidecar.json`, SIDECAR);
    await withExecutables({
      "away.sh": SH("echo away"),
      "away.json": { link: `${outside}/sidecar.json` },
    }, async (dir) => {
      const real = await Deno.realPath(`${outside}/sidecar.json`);
      assert.deepStrictEqual(await loadProblems(dir), [
        `Cannot load tool "${dir}/away.json": "${dir}/away.json" is a symlink to "${real}", ` +
        "outside the tools directory (--allow-outside-symlinks allows it)",
      ]);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("loadTools() in skipExecutables mode (a compiled binary's own tools) lists sidecars instead of serving them", async () => {
  await withExecutables({
    "module.ts": toolSource(),
    "add.sh": SH("echo 1"),
    "add.json": SIDECAR,
    "lone.json": SIDECAR,
    "stray.sh": SH("echo 1"),
  }, async (dir) => {
    const loaded = await loadTools(dir, {
      diagnostics: recorder(),
      ...DEFAULT_LOAD_OPTIONS,
      skipExecutables: true,
    });
    assert.deepStrictEqual(names(loaded), ["module"]);
    assert.deepStrictEqual(loaded.skipped, [`${dir}/add.json`, `${dir}/lone.json`]);
    // Served from disk, the same directory is refused: stray.sh and lone.json are unpaired.
    assert.strictEqual((await loadProblems(dir)).length, 2);
  });
});

/** One bad executable layout beside a good tool: the problem must be exactly this. */
interface BadLayoutCase {
  what: string;
  files: Record<string, Entry>;
  /** The file named, and the reason; `DIR` stands for the directory. */
  file: string;
  reason: string;
}

const BAD_LAYOUTS: BadLayoutCase[] = [
  {
    what: "a sidecar without an executable",
    files: { "add.json": SIDECAR },
    file: "add.json",
    reason: 'the sidecar has no executable beside it: expected "DIR/add" or "DIR/add.<ext>" ' +
      "with the executable bit",
  },
  {
    what: "an executable without a sidecar",
    files: { "add.sh": SH("echo 1") },
    file: "add.sh",
    reason: 'an executable needs a sidecar "DIR/add.json" holding its definition ' +
      "(a file that is not a tool must not have the executable bit)",
  },
  {
    what: "an executable README without a sidecar",
    files: { "README.md": { text: "# tools\n", mode: 0o755 } },
    file: "README.md",
    reason: 'an executable needs a sidecar "DIR/README.json" holding its definition ' +
      "(a file that is not a tool must not have the executable bit)",
  },
  {
    what: "an executable without extension or sidecar",
    files: { "add": SH("echo 1") },
    file: "add",
    reason: 'an executable needs a sidecar "DIR/add.json" holding its definition ' +
      "(a file that is not a tool must not have the executable bit)",
  },
  {
    what: "a program without the executable bit",
    files: { "add.sh": "#!/bin/sh\necho 1\n", "add.json": SIDECAR },
    file: "add.json",
    reason: '"DIR/add.sh" is not executable (chmod +x gives it the executable bit)',
  },
  {
    what: "a name claimed by a module and an executable",
    files: { "add.ts": toolSource(), "add.sh": SH("echo 1"), "add.json": SIDECAR },
    file: "add.ts",
    reason: 'the name "add" is already used by "DIR/add.json"',
  },
  {
    what: "a name claimed by two executables",
    files: { "add.py": SH("echo 1"), "add.sh": SH("echo 1"), "add.json": SIDECAR },
    file: "add.json",
    reason: 'the name "add" is claimed by more than one executable: "DIR/add.py" and "DIR/add.sh"',
  },
  {
    what: "a sidecar that is not JSON",
    files: { "add.sh": SH("echo 1"), "add.json": "{ description: 'x' }" },
    file: "add.json",
    reason: "the sidecar is not valid JSON: ",
  },
  {
    what: "a sidecar that is not an object",
    files: { "add.sh": SH("echo 1"), "add.json": "[]" },
    file: "add.json",
    reason: "the sidecar must hold a JSON object ({ description, inputSchema })",
  },
  {
    what: "a sidecar with an unknown field (a typo)",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("description", "descripton") },
    file: "add.json",
    reason: 'unknown field "descripton"; did you mean "description"?',
  },
  {
    what: "a sidecar naming the tool (the file name does)",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "name": "plus",') },
    file: "add.json",
    reason: 'unknown field "name"',
  },
  {
    what: "a sidecar without a description",
    files: { "add.sh": SH("echo 1"), "add.json": '{ "inputSchema": { "type": "object" } }' },
    file: "add.json",
    reason: "description must be a non-empty string",
  },
  {
    what: "a sidecar whose inputSchema root is not an object",
    files: {
      "add.sh": SH("echo 1"),
      "add.json": SIDECAR.replace('"type": "object"', '"type": "string"'),
    },
    file: "add.json",
    reason: 'inputSchema must be an object schema with type "object"',
  },
  {
    what: "a sidecar with a bad timeoutMs",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "timeoutMs": 0,') },
    file: "add.json",
    reason: TIMEOUT_RULE,
  },
  {
    what: "a sidecar whose env is not an array of names",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "env": "HOME",') },
    file: "add.json",
    reason: "env must be an array of environment variable names",
  },
  {
    what: "a sidecar whose env holds a bad name",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "env": ["A-B"],') },
    file: "add.json",
    reason: 'env holds "A-B", which is not an environment variable name',
  },
  {
    what: 'a sidecar with "output": "text" and an outputSchema',
    files: {
      "add.sh": SH("echo 1"),
      "add.json": SIDECAR.replace("{", '{ "output": "text", "outputSchema": { "type": "object" },'),
    },
    file: "add.json",
    reason: '"output": "text" cannot go with an outputSchema, as a text result has no ' +
      'structured content to check: use "json" or "result"',
  },
  {
    what: "a sidecar with an unknown output",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "output": "xml",') },
    file: "add.json",
    reason: 'output must be "text", "json" or "result", not "xml"',
  },
  {
    what: "a sidecar whose output is not a string",
    files: { "add.sh": SH("echo 1"), "add.json": SIDECAR.replace("{", '{ "output": true,') },
    file: "add.json",
    reason: 'output must be "text", "json" or "result", not true',
  },
  {
    what: "a sidecar whose file name is not a valid tool name",
    files: { "a b.sh": SH("echo 1"), "a b.json": SIDECAR },
    file: "a b.json",
    reason: `the name "a b" is invalid: ${NAME_RULE}`,
  },
];

for (const { what, files, file, reason } of BAD_LAYOUTS) {
  Deno.test(`loadTools() rejects ${what} with a message naming the files`, async () => {
    await withExecutables({ "good.ts": toolSource(), ...files }, async (dir) => {
      const problems = await loadProblems(dir);
      assert.strictEqual(problems.length, 1, problems.join("\n"));
      const expected = `Cannot load tool "${dir}/${file}": ${reason.replaceAll("DIR", dir)}`;
      if (reason.endsWith(": ")) assert.ok(problems[0].startsWith(expected), problems[0]);
      else assert.strictEqual(problems[0], expected);
    });
  });
}

Deno.test("checkDefinition() refuses a 2020-12 schema with $dynamicRef, which the validator would ignore", () => {
  const definition = (inputSchema: Record<string, unknown>) => ({
    description: "d",
    inputSchema,
    handler: () => "x",
  });
  const tree = {
    $dynamicAnchor: "node",
    type: "object",
    properties: { kids: { type: "array", items: { $dynamicRef: "#node" } } },
  };
  assert.throws(() => checkDefinition(definition(tree), "t", "tools/t.ts"), {
    message: 'inputSchema is not a valid JSON Schema: it uses "$dynamicRef", which ' +
      'toolshed\'s validator does not implement (values the schema refuses would pass): use "$ref"',
  });
  // In draft-07 the word is no keyword, and is ignored as JSON Schema says.
  const draft7 = { ...tree, $schema: "http://json-schema.org/draft-07/schema#" };
  assert.doesNotThrow(() => checkDefinition(definition(draft7), "t", "tools/t.ts"));
});
