// lib/schema/compile.ts checks schemas against each draft's meta-schema merged with its
// vocabularies into one document (`json_schema_meta/flat.json`, generated here by
// flattenMeta() from the official documents beside it), and decides with that document's
// compiled verdict before it asks the validator. Both must give the official documents'
// verdict on every schema. Checked on seeded random schema-like objects built from the
// keywords and the kinds of values the vocabularies define, and on the meta-schemas
// themselves.
//
// `deno test -A tests/meta_schema_test.ts -- --update` rewrites flat.json from the documents.
import assert from "node:assert/strict";
import { type Schema, Validator } from "../lib/schema/vendor/cfworker_json_schema/index.ts";
import { compileSchema, type Draft, metaVerdict } from "../lib/schema/compile.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { mulberry32, type Random } from "./_fuzz.ts";
import metaDraft04 from "../lib/schema/vendor/json_schema_meta/draft-04.json" with { type: "json" };
import metaDraft07 from "../lib/schema/vendor/json_schema_meta/draft-07.json" with { type: "json" };
import meta201909 from "../lib/schema/vendor/json_schema_meta/2019-09.json" with { type: "json" };
import meta202012 from "../lib/schema/vendor/json_schema_meta/2020-12.json" with { type: "json" };

const UPDATE = Deno.args.includes("--update");
const FLAT = new URL("../lib/schema/vendor/json_schema_meta/flat.json", import.meta.url);

/** Each draft's official documents, the meta-schema first and its vocabularies after it. */
const DOCUMENTS: Record<Draft, readonly JsonObject[]> = {
  "4": metaDraft04,
  "7": metaDraft07,
  "2019-09": meta201909,
  "2020-12": meta202012,
};

/**
 * A meta-schema and its vocabularies as one document: the vocabularies' `properties` and
 * `$defs` side by side, references between the documents (and to the meta-schema by its
 * URI) made local, so that compile.ts resolves them without parsing URLs.
 */
function flattenMeta(documents: readonly JsonObject[]): JsonObject {
  const [meta, ...vocabularies] = documents;
  let flat = meta;
  if (vocabularies.length > 0) {
    const properties: JsonObject = { ...(meta.properties as JsonObject) };
    const defs: JsonObject = {};
    for (const vocabulary of vocabularies) {
      for (const [into, from] of [[properties, vocabulary.properties], [defs, vocabulary.$defs]]) {
        for (const [key, value] of Object.entries((from ?? {}) as JsonObject)) {
          if (key in (into as JsonObject)) throw new Error(`two vocabularies define "${key}"`);
          (into as JsonObject)[key] = value;
        }
      }
    }
    flat = { $schema: meta.$schema, $id: meta.$id, type: meta.type, properties, $defs: defs };
  }
  const self = JSON.stringify(String(meta.$id).replace(/#$/, ""));
  // "meta/core#/$defs/anchorString" and the like now point into this document.
  return JSON.parse(
    JSON.stringify(flat)
      .replaceAll(`"$ref":${self}`, '"$ref":"#"')
      .replace(/"\$ref":"meta\/[a-z-]+#/g, '"$ref":"#'),
  );
}

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

Deno.test("json_schema_meta/flat.json is each draft's documents flattened, every reference local", async () => {
  const expected = Object.fromEntries(
    Object.entries(DOCUMENTS).map(([draft, documents]) => [draft, flattenMeta(documents)]),
  );
  if (UPDATE) await Deno.writeTextFile(FLAT, JSON.stringify(expected, null, 1) + "\n");
  const shipped = JSON.parse(await Deno.readTextFile(FLAT));
  assert.deepEqual(shipped, expected);
  for (const meta of Object.values(shipped)) {
    const refs = JSON.stringify(meta).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) assert.match(ref, /^"\$ref":"#(\/(\$defs|definitions)\/\w+)?"$/);
  }
});

for (const [draft, documents] of Object.entries(DOCUMENTS) as [Draft, JsonObject[]][]) {
  Deno.test(`metaVerdict() compiles all of the ${draft} meta-schema: each reference resolves`, () => {
    // Eager compiling throws UnsupportedSchema at a reference it cannot resolve.
    metaVerdict(draft, false);
  });

  Deno.test(`the flattened ${draft} meta-schema and its verdict agree with the documents on 20,000 schemas`, () => {
    const [meta, ...vocabularies] = documents;
    const original = new Validator(structuredClone(meta) as Schema, draft, false);
    for (const vocabulary of vocabularies) {
      original.addSchema(structuredClone(vocabulary) as Schema);
    }
    const flat = new Validator(flattenMeta(documents) as Schema, draft, false);
    const lazy = metaVerdict(draft);
    const eager = metaVerdict(draft, false);
    const random = mulberry32(
      draft === "2020-12" ? 2020 : draft === "2019-09" ? 2019 : Number(draft),
    );
    let invalid = 0;
    for (
      const candidate of [
        ...Object.values(DOCUMENTS).flat(),
        ...Array.from({ length: 20_000 }, () => schema(random, 0)),
      ]
    ) {
      const expected = original.validate(candidate).valid;
      if (!expected) invalid++;
      const shown = JSON.stringify(candidate);
      assert.equal(flat.validate(candidate).valid, expected, shown);
      assert.equal(lazy(candidate), expected, shown);
      assert.equal(eager(candidate), expected, shown);
    }
    // The generator must exercise both verdicts, or the comparison proves little.
    assert.ok(invalid > 2_000 && invalid < 18_000, `${invalid} invalid`);
  });
}

Deno.test("compileSchema() names what breaks the meta-schema as the validator did before the verdict", () => {
  // The messages of the code before the meta-schema's verdict (0512785), byte for byte.
  const cases: [JsonObject, string][] = [
    [
      { type: "object", required: "name" },
      `at "/required": expected an array, got a string`,
    ],
    [
      { type: "object", properties: { a: { pattern: "a[" } } },
      `at "/properties/a/pattern": is not a valid "regex"`,
    ],
    [
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { a: { minLength: -1, format: 3 } },
      },
      `at "/properties/a/minLength": must be at least 0 (got -1); ` +
      `at "/properties/a/format": expected a string, got a number`,
    ],
    [
      { type: "object", $defs: { x: { enum: 1 } } },
      `at "/$defs/x/enum": expected an array, got a number`,
    ],
  ];
  for (const [schema, message] of cases) {
    assert.throws(() => compileSchema(schema), {
      message: `it breaks its draft's meta-schema: ${message}`,
    });
  }
});
