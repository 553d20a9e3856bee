// Tool schemas written with a schema library: Zod 4 converts itself (Standard JSON Schema)
// and is served as the JSON Schema it gives; one that cannot convert is refused with the fix.
import assert from "node:assert/strict";
import { z } from "npm:zod@4.6.7";
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
  const valibot = { "~standard": { version: 1, vendor: "valibot", validate: () => ({}) } };
  assert.equal(
    refusal(valibot),
    "inputSchema is a valibot schema that cannot give its JSON Schema: toolshed takes JSON " +
      "Schema; convert it to JSON Schema with the library's converter",
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
