// Evidence for adr/0006: validating one tool call's arguments with the two well-kept
// JSON Schema 2020-12 validators on npm. Both are compiled or constructed once, as the
// server does at start-up; the loop measures one validation per call.
import { compileSchema } from "../lib/schema.ts";
import { type Schema, Validator } from "npm:@cfworker/json-schema@4.1.6";

const schema = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 500 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    filters: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { enum: ["title", "body", "author"] }, value: { type: "string" } },
        required: ["field", "value"],
        additionalProperties: false,
      },
    },
  },
  required: ["query"],
  additionalProperties: false,
};
const args = {
  query: "deno mcp server",
  limit: 10,
  filters: [{ field: "title", value: "toolshed" }, { field: "author", value: "someone" }],
};
const bad = { query: "", limit: 1000, filters: [{ field: "date" }] };

const ajv = compileSchema(structuredClone(schema));
const cfworker = new Validator(structuredClone(schema) as Schema, "2020-12", false);

for (const [group, value] of [["valid arguments", args], ["invalid arguments", bad]] as const) {
  Deno.bench("ajv 8 (compiled)", { group, baseline: true }, () => {
    ajv(value);
  });
  Deno.bench("@cfworker/json-schema 4", { group }, () => {
    cfworker.validate(value);
  });
}
