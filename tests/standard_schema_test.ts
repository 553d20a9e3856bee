// Tool schemas written with a schema library: Zod 4 and ArkType convert themselves, Valibot
// through toStandardJsonSchema (Standard JSON Schema), and are served as the JSON Schema they
// give; one that cannot convert is refused with the fix for its library.
import assert from "node:assert/strict";
import { z } from "npm:zod@4.6.7";
import * as v from "npm:valibot@1.5.0";
import { toStandardJsonSchema } from "npm:@valibot/to-json-schema@1.8.0";
import { checkDefinition } from "../lib/primitives/tools.ts";

Deno.test("checkDefinition() serves a Zod 4 inputSchema and outputSchema as their JSON Schema", () => {
  const tool = checkDefinition(
    {
      description: "Adds two numbers",
      inputSchema: z.object({ a: z.number().describe("first"), b: z.number() }) as never,
      outputSchema: z.object({ sum: z.number() }) as never,
      handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
    },
    "add",
    "tools/add.ts",
  );
  const input = tool.definition.inputSchema as Record<string, unknown>;
  assert.equal(input.type, "object");
  assert.deepEqual(input.properties, {
    a: { type: "number", description: "first" },
    b: { type: "number" },
  });
  assert.deepEqual(input.required, ["a", "b"]);
  assert.equal((tool.definition.outputSchema as Record<string, unknown>).type, "object");
  // The JSON Schema is what validates: a string where a number belongs is refused.
  assert.equal(tool.validateInput({ a: 1, b: 2 }), undefined);
  assert.equal(tool.validateInput({ a: "1", b: 2 }), 'at "/a": expected a number, got a string');
});

Deno.test("checkDefinition() refuses a schema library's schema that cannot convert, saying how", () => {
  const refusal = (inputSchema: unknown) => {
    try {
      checkDefinition(
        { description: "d", inputSchema: inputSchema as never, handler: () => "x" },
        "t",
        "tools/t.ts",
      );
    } catch (error) {
      return (error as Error).message;
    }
    assert.fail("accepted");
  };
  const zod3 = { _def: { typeName: "ZodObject" }, safeParse: () => ({}) };
  assert.equal(
    refusal(zod3),
    "inputSchema is a Zod 3 schema that cannot give its JSON Schema: toolshed " +
      "takes JSON Schema; use Zod 4.2 or later (its schemas convert themselves), or convert " +
      "it with z.toJSONSchema(schema) (Zod 4) or the zod-to-json-schema package (Zod 3)",
  );
  assert.equal(
    refusal(v.object({ n: v.number() })),
    "inputSchema is a valibot schema that cannot give its JSON Schema: toolshed takes JSON " +
      'Schema; wrap it in toStandardJsonSchema(schema) from "@valibot/to-json-schema" 1.5 or ' +
      "later, which keeps its validator",
  );
  // ArkType before 2.1.28 has `~standard` without `jsonSchema`.
  const oldArkType = { "~standard": { version: 1, vendor: "arktype", validate: () => ({}) } };
  assert.equal(
    refusal(oldArkType),
    "inputSchema is an arktype schema that cannot give its JSON Schema: toolshed takes JSON " +
      "Schema; use ArkType 2.1.28 or later (its schemas convert themselves)",
  );
  const other = { "~standard": { version: 1, vendor: "yup", validate: () => ({}) } };
  assert.equal(
    refusal(other),
    "inputSchema is a yup schema that cannot give its JSON Schema: toolshed takes JSON " +
      "Schema; convert it to JSON Schema with the library's converter",
  );
  const noValidator = {
    "~standard": {
      version: 1,
      vendor: "handmade",
      jsonSchema: { input: () => ({ type: "object" }) },
    },
  };
  assert.equal(
    refusal(noValidator),
    'inputSchema is a handmade schema without a "~standard.validate" function',
  );
  const failing = {
    "~standard": {
      version: 1,
      vendor: "zod",
      jsonSchema: {
        input: () => {
          throw new Error("Transforms cannot be represented in JSON Schema");
        },
      },
    },
  };
  assert.equal(
    refusal(failing),
    "inputSchema is a zod schema whose conversion to JSON Schema failed: Transforms cannot be " +
      "represented in JSON Schema",
  );
});

Deno.test("checkDefinition() converts a Valibot schema wrapped in toStandardJsonSchema, leaving out refinements its validator enforces", () => {
  const tool = checkDefinition(
    {
      description: "d",
      inputSchema: toStandardJsonSchema(v.pipe(
        v.object({ from: v.number(), to: v.number() }),
        v.check(({ from, to }) => from <= to, "from must not be after to"),
      )) as never,
      handler: () => "x",
    },
    "t",
    "tools/t.ts",
  );
  const input = tool.definition.inputSchema as Record<string, unknown>;
  assert.deepEqual([input.type, input.required], ["object", ["from", "to"]]);
  assert.equal(typeof tool.parseArguments, "function");
});
