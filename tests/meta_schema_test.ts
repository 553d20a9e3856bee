// flattenMeta() (lib/schema/compile.ts) turns a meta-schema and its vocabularies into one document
// to make start-up cheaper; it must give the same verdict as the documents it came from on
// every schema. Checked on seeded random schema-like objects built from the keywords and
// the kinds of values the vocabularies define, and on the meta-schemas themselves.
import assert from "node:assert/strict";
import { type Schema, Validator } from "../lib/schema/vendor/cfworker_json_schema/index.ts";
import { flattenMeta } from "../lib/schema/compile.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { mulberry32, type Random } from "./_fuzz.ts";
import meta201909 from "../lib/schema/vendor/json_schema_meta/2019-09.json" with { type: "json" };
import meta202012 from "../lib/schema/vendor/json_schema_meta/2020-12.json" with { type: "json" };

const KEYWORDS = [
  "type",
  "enum",
  "const",
  "required",
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "contains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$id",
  "$anchor",
  "$defs",
  "definitions",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "$comment",
  "$schema",
  "$vocabulary",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "x-custom",
];

function int(random: Random, below: number): number {
  return Math.floor(random() * below);
}

function value(random: Random, depth: number): unknown {
  switch (int(random, depth > 2 ? 9 : 12)) {
    case 0:
      return int(random, 5) - 1;
    case 1:
      return random() < 0.5;
    case 2:
      return [
        "string",
        "object",
        "x",
        "#a",
        "^a+$",
        "a[",
        "#/$defs/a",
        "https://e.com/s",
      ][int(random, 8)];
    case 3:
      return ["a", "b"].slice(0, int(random, 3));
    case 4:
      return [1, "a"];
    case 5:
      return null;
    case 6:
      return 1.5;
    case 7:
      return ["string", "integer", "nope"].slice(int(random, 2));
    case 8:
      return {};
    case 9:
      return schema(random, depth + 1);
    case 10:
      return [schema(random, depth + 1), value(random, depth + 1)];
    default:
      return { a: schema(random, depth + 1), b: value(random, depth + 1) };
  }
}

function schema(random: Random, depth: number): unknown {
  if (random() < 0.1) return random() < 0.5;
  const result: JsonObject = {};
  for (let i = int(random, 5); i > 0; i--) {
    result[KEYWORDS[int(random, KEYWORDS.length)]] = value(random, depth);
  }
  return result;
}

for (const [draft, documents] of [["2020-12", meta202012], ["2019-09", meta201909]] as const) {
  Deno.test(`flattenMeta() gives the verdicts of the ${draft} meta-schema on 20,000 schemas`, () => {
    const [meta, ...vocabularies] = documents as JsonObject[];
    const original = new Validator(meta as Schema, draft, false);
    for (const vocabulary of vocabularies) original.addSchema(vocabulary as Schema);
    const flat = new Validator(flattenMeta(documents as JsonObject[]) as Schema, draft, false);
    const random = mulberry32(draft === "2020-12" ? 2020 : 2019);
    let invalid = 0;
    for (
      const candidate of [
        ...documents,
        ...Array.from({ length: 20_000 }, () => schema(random, 0)),
      ]
    ) {
      const expected = original.validate(candidate).valid;
      if (!expected) invalid++;
      assert.equal(flat.validate(candidate).valid, expected, JSON.stringify(candidate));
    }
    // The generator must exercise both verdicts, or the comparison proves little.
    assert.ok(invalid > 2_000 && invalid < 18_000, `${invalid} invalid`);
  });
}
