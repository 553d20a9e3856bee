// Evidence for adr/0006 and adr/0010: validating one tool call's arguments with
// toolshed's validator (lib/schema/compile.ts: the compiled verdict of lib/schema/fast.ts, then
// @cfworker/json-schema vendored with the patches of adr/0010 for what it rejects), with that
// vendored validator alone, and with upstream @cfworker/json-schema 4.1.6. All are prepared
// once, as the server does at start-up; the loop measures one validation per call. (Until
// 2026-11-30 the first contestant was mislabelled "ajv 8 (compiled)": it was always
// lib/schema/compile.ts.)
import { compileSchema } from "../lib/schema/compile.ts";
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

const toolshed = compileSchema(structuredClone(schema));
const alone = compileSchema(structuredClone(schema), { fastPath: false });
const upstream = new Validator(structuredClone(schema) as Schema, "2020-12", false);

for (const [group, value] of [["valid arguments", args], ["invalid arguments", bad]] as const) {
  Deno.bench("upstream @cfworker/json-schema 4.1.6", { group, baseline: true }, () => {
    upstream.validate(value);
  });
  Deno.bench("toolshed (lib/schema/compile.ts: compiled verdict, then patched)", { group }, () => {
    toolshed(value);
  });
  Deno.bench("toolshed, patched validator alone", { group }, () => {
    alone(value);
  });
}

// A wide schema (an API operation's forty optional parameters) and a call that gives three, or
// all forty: past sixteen named properties the verdict walks the value's own keys rather than
// asking each name (lib/schema/fast.ts), so the sparse call costs what its keys cost.
const wide = {
  type: "object",
  properties: Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: "string", maxLength: 100 }]),
  ),
};
const sparse = { p1: "a", p7: "b", p30: "c" };
const dense = Object.fromEntries(Object.keys(wide.properties).map((key) => [key, "x"]));
const wideToolshed = compileSchema(structuredClone(wide));
const wideUpstream = new Validator(structuredClone(wide) as Schema, "2020-12", false);
for (
  const [group, value] of [["40 properties, 3 given", sparse], [
    "40 properties, all given",
    dense,
  ]] as const
) {
  Deno.bench("upstream @cfworker/json-schema 4.1.6", { group, baseline: true }, () => {
    wideUpstream.validate(value);
  });
  Deno.bench("toolshed (lib/schema/compile.ts: compiled verdict, then patched)", { group }, () => {
    wideToolshed(value);
  });
}
