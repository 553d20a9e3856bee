import { deepStrictEqual } from "node:assert/strict";
import {
  sessionCallResult,
  sessionTool,
  statelessResult,
  statelessTool,
} from "../lib/methods/results.ts";
import { VERSIONS } from "../lib/wire/versions.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";

const full = checkDefinition(
  {
    title: "Full",
    description: "Has every optional field",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { a: { type: "number" } } },
    annotations: { readOnlyHint: true },
    icons: [{ src: "data:image/png;base64,AA==" }],
    _meta: { "com.example/x": 1 },
    handler: () => ({ a: 1 }),
  },
  "full",
  "tools/full.ts",
);

const listed = checkDefinition(
  {
    description: "Returns a list",
    inputSchema: { type: "object" },
    outputSchema: { type: "array", items: { $ref: "#/$defs/n" }, $defs: { n: { type: "number" } } },
    handler: () => [1],
  },
  "listed",
  "tools/listed.ts",
);

Deno.test("statelessResult() puts resultType first and serverInfo into _meta, keeping the tool's _meta", () => {
  deepStrictEqual(
    statelessResult({ content: [], _meta: { "com.example/y": 2 } }, false),
    {
      resultType: "complete",
      content: [],
      _meta: { "com.example/y": 2, "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    },
  );
});

Deno.test("statelessResult() keeps a resultType the handler set, and adds cache hints when asked", () => {
  deepStrictEqual(
    statelessResult({ requestState: "s", resultType: "input_required" }, false),
    {
      resultType: "input_required",
      requestState: "s",
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
    },
  );
  deepStrictEqual(
    Object.keys(statelessResult({ tools: [] }, true)),
    ["resultType", "tools", "ttlMs", "cacheScope", "_meta"],
  );
});

Deno.test("statelessTool() lists every field the definition gives", () => {
  deepStrictEqual(statelessTool(full), {
    name: "full",
    title: "Full",
    description: "Has every optional field",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { a: { type: "number" } } },
    annotations: { readOnlyHint: true },
    icons: [{ src: "data:image/png;base64,AA==" }],
    _meta: { "com.example/x": 1 },
  });
});

Deno.test("sessionTool() gives each handshake version only the fields it knows", () => {
  const keys = (version: string) => Object.keys(sessionTool(full, VERSIONS.get(version)!));
  deepStrictEqual(keys("2025-11-25"), [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
  ]);
  deepStrictEqual(keys("2025-06-18"), [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
  ]);
  deepStrictEqual(keys("2025-03-26"), ["name", "description", "inputSchema", "annotations"]);
  deepStrictEqual(keys("2024-11-05"), ["name", "description", "inputSchema"]);
});

Deno.test("sessionTool() wraps an outputSchema whose root is not an object, moving its $refs", () => {
  deepStrictEqual(sessionTool(listed, VERSIONS.get("2025-11-25")!).outputSchema, {
    type: "object",
    properties: {
      result: {
        type: "array",
        items: { $ref: "#/properties/result/$defs/n" },
        $defs: { n: { type: "number" } },
      },
    },
    required: ["result"],
  });
});

Deno.test("sessionCallResult() wraps structured content to match the wrapped schema", () => {
  const result = { content: [{ type: "text", text: "[1]" }], structuredContent: [1] };
  deepStrictEqual(sessionCallResult(result, listed, VERSIONS.get("2025-06-18")!), {
    content: [{ type: "text", text: "[1]" }],
    structuredContent: { result: [1] },
  });
  deepStrictEqual(sessionCallResult(result, listed, VERSIONS.get("2025-03-26")!), {
    content: [{ type: "text", text: "[1]" }],
  });
  const objectResult = { content: [], structuredContent: { a: 1 } };
  deepStrictEqual(sessionCallResult(objectResult, full, VERSIONS.get("2025-11-25")!), objectResult);
});

Deno.test("sessionCallResult() wraps a non-object value of a tool without outputSchema", () => {
  const plain = checkDefinition(
    { description: "d", inputSchema: { type: "object" }, handler: () => 1 },
    "plain",
    "tools/plain.ts",
  );
  deepStrictEqual(
    sessionCallResult(
      { content: [], structuredContent: 7, resultType: "complete" },
      plain,
      VERSIONS.get("2025-11-25")!,
    ),
    { content: [], structuredContent: { result: 7 } },
  );
});

Deno.test("sessionTool() leaves anchor and external $refs alone when it wraps a schema", () => {
  const anchored = checkDefinition(
    {
      description: "Returns squares",
      inputSchema: { type: "object" },
      outputSchema: {
        type: "array",
        items: { $ref: "#square" },
        $defs: { square: { $anchor: "square", type: "integer" }, whole: { $ref: "#" } },
      },
      handler: () => [1],
    },
    "anchored",
    "tools/anchored.ts",
  );
  deepStrictEqual(sessionTool(anchored, VERSIONS.get("2025-11-25")!).outputSchema, {
    type: "object",
    properties: {
      result: {
        type: "array",
        items: { $ref: "#square" },
        $defs: {
          square: { $anchor: "square", type: "integer" },
          whole: { $ref: "#/properties/result" },
        },
      },
    },
    required: ["result"],
  });
});

Deno.test("sessionTool() leaves the $refs of an embedded resource ($id) alone when it wraps a schema", async () => {
  const { compileSchema } = await import("../lib/schema/compile.ts");
  const identified = checkDefinition(
    {
      description: "Returns squares",
      inputSchema: { type: "object" },
      outputSchema: {
        $id: "https://example.com/squares",
        type: "array",
        items: { $ref: "#/$defs/square" },
        $defs: {
          square: { type: "integer" },
          // A nested resource: its "#/..." refs are its own too.
          pair: { $id: "https://example.com/pair", items: { $ref: "#/$defs/n" }, $defs: { n: {} } },
        },
      },
      handler: () => [1],
    },
    "identified",
    "tools/identified.ts",
  );
  const wrapped = sessionTool(identified, VERSIONS.get("2025-11-25")!).outputSchema as Record<
    string,
    unknown
  >;
  deepStrictEqual(wrapped, {
    type: "object",
    properties: { result: identified.definition.outputSchema },
    required: ["result"],
  });
  // What a client validates against must still work: a wrapped valid value passes.
  const check = compileSchema(wrapped);
  deepStrictEqual(check({ result: [1, 4, 9] }), undefined);
  deepStrictEqual(
    check({ result: [1.5] }),
    'at "/result/0": expected an integer, got a number',
  );
});
