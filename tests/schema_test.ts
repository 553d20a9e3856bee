// compileSchema(): which dialects compile, what is rejected at prepare time, and the exact
// reason a value is rejected with. Every schema gets its own validator, so schemas here may
// share an `$id`.
import assert from "node:assert/strict";
import { compileSchema, MAX_NESTING } from "../lib/schema/compile.ts";
import type { JsonObject } from "../lib/util/json.ts";

const DRAFT_04 = "http://json-schema.org/draft-04/schema#";
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";
const DIALECT_HINT = "is not supported; use 2020-12 (the default), 2019-09, draft-07 or draft-04";
const NOT_FETCHED = "does not resolve inside the schema (nothing is fetched)";

const PERSON: JsonObject = {
  type: "object",
  properties: {
    name: { type: "string" },
    age: { type: "integer", minimum: 0 },
    address: {
      type: "object",
      properties: { zip: { type: "string" } },
    },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["name"],
  additionalProperties: false,
};

/** The reason cfworker gives for a value of JSON type `actual` where `expected` is wanted. */
function wrongType(actual: string, expected: string): string {
  const named = (type: string) =>
    type === "null" ? type : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
  return `expected ${named(expected)}, got ${named(actual)}`;
}

/** The message compileSchema throws for `schema`; fails when it compiles. */
function compileError(schema: JsonObject): string {
  try {
    compileSchema(schema);
  } catch (error) {
    assert.ok(error instanceof Error);
    return error.message;
  }
  assert.fail(`compileSchema() accepted ${JSON.stringify(schema)}`);
}

Deno.test("compileSchema() returns a validator that gives undefined for a valid value", () => {
  const validate = compileSchema(PERSON);
  assert.strictEqual(validate({ name: "Ada" }), undefined);
  assert.strictEqual(
    validate({ name: "Ada", age: 36, address: { zip: "N1" }, tags: ["a", "b"] }),
    undefined,
  );
});

Deno.test("compileSchema() validator names a missing required property", () => {
  assert.strictEqual(
    compileSchema(PERSON)({}),
    'missing required property "name"',
  );
});

Deno.test("compileSchema() validator names an additional property", () => {
  assert.strictEqual(
    compileSchema(PERSON)({ name: "Ada", nickname: "A" }),
    'property "nickname" is not allowed here',
  );
});

Deno.test("compileSchema() validator gives the instance location of a nested failure", () => {
  const validate = compileSchema(PERSON);
  assert.strictEqual(
    validate({ name: "Ada", age: "36" }),
    `at "/age": ${wrongType("string", "integer")}`,
  );
  assert.strictEqual(
    validate({ name: "Ada", address: { zip: 12 } }),
    `at "/address/zip": ${wrongType("number", "string")}`,
  );
  assert.strictEqual(validate({ name: "Ada", age: -1 }), 'at "/age": must be at least 0 (got -1)');
});

Deno.test("compileSchema() validator gives no location for a root value of the wrong type", () => {
  const validate = compileSchema(PERSON);
  assert.strictEqual(validate([]), wrongType("array", "object"));
  assert.strictEqual(validate(null), wrongType("null", "object"));
  assert.strictEqual(validate("Ada"), wrongType("string", "object"));
});

Deno.test("compileSchema() validator reports every failing field, joined by '; '", () => {
  // cfworker's order: required, then each property in schema order, then additional ones.
  assert.strictEqual(
    compileSchema(PERSON)({ age: 1.5, tags: ["a", 2, "c", 4], extra: true }),
    'missing required property "name"; ' +
      `at "/age": ${wrongType("number", "integer")}; ` +
      `at "/tags/1": ${wrongType("number", "string")}; ` +
      `at "/tags/3": ${wrongType("number", "string")}; ` +
      'property "extra" is not allowed here',
  );
});

Deno.test("compileSchema() validator checks the email and date-time formats", () => {
  const validate = compileSchema({
    type: "object",
    properties: {
      mail: { type: "string", format: "email" },
      when: { type: "string", format: "date-time" },
    },
  });
  assert.strictEqual(
    validate({ mail: "ada@example.com", when: "2024-05-01T10:00:00Z" }),
    undefined,
  );
  assert.strictEqual(
    validate({ mail: "ada@" }),
    'at "/mail": is not a valid "email"',
  );
  assert.strictEqual(
    validate({ when: "2024-05-01" }),
    'at "/when": is not a valid "date-time"',
  );
  assert.strictEqual(
    validate({ mail: "not an address", when: "yesterday" }),
    'at "/mail": is not a valid "email"; ' +
      'at "/when": is not a valid "date-time"',
  );
});

Deno.test("compileSchema() validator neither applies defaults nor changes the value", () => {
  // Defaults are filled in by callTool from Tool.argumentDefaults, not by the validator.
  const validate = compileSchema({
    type: "object",
    properties: {
      count: { type: "integer", default: 10 },
      nested: {
        type: "object",
        properties: { depth: { type: "integer", default: 3 } },
        default: {},
      },
    },
    required: ["count"],
  });
  const empty: JsonObject = {};
  assert.strictEqual(validate(empty), 'missing required property "count"');
  assert.deepStrictEqual(empty, {});

  const given: JsonObject = { count: 2, nested: {} };
  assert.strictEqual(validate(given), undefined);
  assert.deepStrictEqual(given, { count: 2, nested: {} });
});

Deno.test("compileSchema() validator keeps no state between values", () => {
  const validate = compileSchema(PERSON);
  assert.strictEqual(validate({}), 'missing required property "name"');
  assert.strictEqual(validate({ name: "Ada" }), undefined);
  assert.strictEqual(validate({ name: 1 }), `at "/name": ${wrongType("number", "string")}`);
});

Deno.test("compileSchema() ignores keywords it does not know", () => {
  const validate = compileSchema({
    type: "object",
    "x-mcp-header": "X-Tool",
    properties: { a: { type: "string", "x-ui-widget": "textarea" } },
  });
  assert.strictEqual(validate({ a: "x" }), undefined);
  assert.strictEqual(validate({ a: 1 }), `at "/a": ${wrongType("number", "string")}`);
});

Deno.test("compileSchema() accepts draft-07 and applies its semantics (tuple items, bare $ref)", () => {
  const tuple = { type: "array", items: [{ type: "string" }, { type: "integer" }] };
  for (const dialect of [DRAFT_07, DRAFT_07.replace(/#$/, "")]) {
    const validate = compileSchema({
      $schema: dialect,
      type: "object",
      definitions: { pair: tuple, n: { type: "integer" } },
      properties: {
        pair: { $ref: "#/definitions/pair" },
        // Before 2019-09 a $ref's sibling keywords are ignored.
        n: { $ref: "#/definitions/n", minimum: 100 },
      },
    });
    assert.strictEqual(validate({ pair: ["a", 1], n: 1 }), undefined, dialect);
    assert.strictEqual(
      validate({ pair: ["a", "b"] }),
      `at "/pair/1": ${wrongType("string", "integer")}`,
      dialect,
    );
  }
});

Deno.test("compileSchema() accepts 2019-09 and applies its semantics", () => {
  for (const dialect of [DRAFT_2019, `${DRAFT_2019}#`]) {
    const validate = compileSchema({
      $schema: dialect,
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] } },
      dependentRequired: { start: ["end"] },
    });
    assert.strictEqual(validate({ pair: ["a", 1], start: 1, end: 2 }), undefined, dialect);
    assert.strictEqual(
      validate({ pair: ["a", "b"] }),
      `at "/pair/1": ${wrongType("string", "integer")}`,
      dialect,
    );
    assert.strictEqual(
      validate({ start: 1 }),
      '"start" needs "end" too',
      dialect,
    );
  }
});

Deno.test("compileSchema() uses 2020-12 by default and when declared", () => {
  for (const declared of [{}, { $schema: DRAFT_2020 }, { $schema: `${DRAFT_2020}#` }]) {
    const validate = compileSchema({
      ...declared,
      type: "object",
      $defs: { n: { type: "integer" } },
      properties: {
        pair: {
          type: "array",
          prefixItems: [{ type: "string" }, { type: "integer" }],
          items: { type: "boolean" },
        },
        // Since 2019-09 a $ref's sibling keywords apply too.
        n: { $ref: "#/$defs/n", minimum: 100 },
      },
    });
    const label = JSON.stringify(declared);
    assert.strictEqual(validate({ pair: ["a", 1, true, false], n: 100 }), undefined, label);
    assert.strictEqual(
      validate({ pair: ["a", "b"] }),
      `at "/pair/1": ${wrongType("string", "integer")}`,
      label,
    );
    assert.strictEqual(
      validate({ pair: ["a", 1, "x"] }),
      `at "/pair/2": ${wrongType("string", "boolean")}`,
      label,
    );
    assert.strictEqual(validate({ n: 1 }), 'at "/n": must be at least 100 (got 1)', label);
  }
});

Deno.test("compileSchema() accepts draft-04 and applies its semantics (boolean exclusiveMinimum)", () => {
  for (const dialect of [DRAFT_04, DRAFT_04.replace(/#$/, "")]) {
    const validate = compileSchema({
      $schema: dialect,
      type: "object",
      properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } },
    });
    assert.strictEqual(validate({ n: 0.5 }), undefined, dialect);
    assert.strictEqual(validate({ n: "1" }), `at "/n": ${wrongType("string", "number")}`, dialect);
    // cfworker's draft-04 wording has a doubled space before the limit; either spacing is fine.
    assert.match(validate({ n: 0 }) ?? "", /^at "\/n": must be greater than 0 \(got 0\)$/, dialect);
  }
});

Deno.test("compileSchema() rejects an unknown, misspelt or unsupported $schema URI", () => {
  for (
    const uri of [
      // 2020-12 is only known under https.
      "http://json-schema.org/draft/2020-12/schema",
      "draft-07",
      "http://json-schema.org/draft-06/schema#",
      "http://json-schema.org/draft-03/schema#",
    ]
  ) {
    assert.strictEqual(
      compileError({ $schema: uri, type: "object" }),
      `$schema "${uri}" ${DIALECT_HINT}`,
    );
  }
});

Deno.test("compileSchema() rejects a $schema that is not a string", () => {
  assert.strictEqual(compileError({ $schema: 7, type: "object" }), "$schema must be a string");
});

Deno.test("compileSchema() resolves a same-document $ref into $defs", () => {
  const validate = compileSchema({
    type: "object",
    $defs: { positive: { type: "integer", minimum: 1 } },
    properties: { a: { $ref: "#/$defs/positive" }, b: { $ref: "#/$defs/positive" } },
  });
  assert.strictEqual(validate({ a: 1, b: 2 }), undefined);
  assert.strictEqual(
    validate({ a: 0, b: "2" }),
    `at "/a": must be at least 1 (got 0); at "/b": ${wrongType("string", "integer")}`,
  );
});

Deno.test("compileSchema() resolves relative $refs against a nested $id", () => {
  const validate = compileSchema({
    $id: "https://example.com/root.json",
    type: "object",
    properties: {
      // Inside this subschema "#" means https://example.com/sub/a.json.
      a: { $id: "sub/a.json", $defs: { n: { type: "integer", minimum: 1 } }, $ref: "#/$defs/n" },
      b: { $ref: "sub/a.json" },
      c: { $ref: "sub/a.json#/$defs/n" },
      d: { $ref: "https://example.com/sub/a.json#/$defs/n" },
    },
  });
  assert.strictEqual(validate({ a: 1, b: 2, c: 3, d: 4 }), undefined);
  assert.strictEqual(
    validate({ a: "x", b: 0, c: 0, d: "y" }),
    `at "/a": ${wrongType("string", "integer")}; at "/b": must be at least 1 (got 0); ` +
      `at "/c": must be at least 1 (got 0); at "/d": ${wrongType("string", "integer")}`,
  );
});

Deno.test("compileSchema() throws on a $ref that a nested $id points elsewhere", () => {
  // "#/$defs/x" inside sub/a.json means sub/a.json#/$defs/x, which does not exist.
  assert.strictEqual(
    compileError({
      $id: "https://example.com/root.json",
      type: "object",
      $defs: { x: { type: "integer" } },
      properties: { a: { $id: "sub/a.json", $ref: "#/$defs/x" } },
    }),
    `$ref "#/$defs/x" ${NOT_FETCHED}`,
  );
});

Deno.test("compileSchema() throws on a $ref to a missing $defs entry", () => {
  assert.strictEqual(
    compileError({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }),
    `$ref "#/$defs/missing" ${NOT_FETCHED}`,
  );
});

Deno.test("compileSchema() throws at prepare time on a network $ref", () => {
  const ref = "https://schemas.example.invalid/args.json";
  assert.strictEqual(
    compileError({ type: "object", properties: { a: { $ref: ref } } }),
    `$ref "${ref}" ${NOT_FETCHED}`,
  );
});

Deno.test("compileSchema() throws on a type that is not a JSON type, wherever it is", () => {
  assert.strictEqual(
    compileError({ type: "object", properties: { a: { type: "strnig" } } }),
    'type "strnig" is not a JSON type',
  );
  assert.strictEqual(
    compileError({ type: "object", properties: { a: { type: ["string", "nul"] } } }),
    'type "nul" is not a JSON type',
  );
  assert.strictEqual(
    compileError({ type: "object", $defs: { list: { type: "array", items: { type: "int" } } } }),
    'type "int" is not a JSON type',
  );
  assert.strictEqual(compileError({ type: "Object" }), 'type "Object" is not a JSON type');
});

Deno.test("compileSchema() does not read const, enum, default or examples as schemas", () => {
  const validate = compileSchema({
    type: "object",
    properties: {
      shape: {
        type: "object",
        const: { type: "circle" },
        default: { type: "circle", $ref: "#/nowhere" },
        examples: [{ type: "circle" }],
      },
      kind: { enum: [{ type: "square" }] },
    },
  });
  assert.strictEqual(validate({ shape: { type: "circle" }, kind: { type: "square" } }), undefined);
  assert.strictEqual(
    validate({ shape: { type: "square" } }),
    'at "/shape": must be {"type":"circle"}',
  );
});

Deno.test("compileSchema() accepts a property and a $defs entry named type", () => {
  const validate = compileSchema({
    type: "object",
    $defs: { type: { type: "string", enum: ["a", "b"] } },
    properties: { type: { $ref: "#/$defs/type" }, "x-type": { type: "string" } },
  });
  assert.strictEqual(validate({ type: "a" }), undefined);
  assert.strictEqual(
    validate({ type: "c" }),
    'at "/type": must be one of ["a","b"]',
  );
});

Deno.test("compileSchema() gives each schema its own validator, even when two share an $id", () => {
  const $id = "https://example.com/args.json";
  const text = compileSchema({ $id, type: "object", properties: { v: { type: "string" } } });
  const number = compileSchema({ $id, type: "object", properties: { v: { type: "integer" } } });
  assert.strictEqual(text({ v: "x" }), undefined);
  assert.strictEqual(text({ v: 1 }), `at "/v": ${wrongType("number", "string")}`);
  assert.strictEqual(number({ v: 1 }), undefined);
  assert.strictEqual(number({ v: "x" }), `at "/v": ${wrongType("string", "integer")}`);
});

/** An object schema requiring `count` string properties p0, p1, ... */
function requiring(count: number): JsonObject {
  const names = Array.from({ length: count }, (_, i) => `p${i}`);
  return {
    type: "object",
    properties: Object.fromEntries(names.map((name) => [name, { type: "string" }])),
    required: names,
  };
}

/** The first ten reasons for an empty object against `requiring(n)`, n >= 10. */
const FIRST_TEN = Array.from(
  { length: 10 },
  (_, i) => `missing required property "p${i}"`,
);

Deno.test("compileSchema() validator shows 10 errors and summarises the rest as '; and N more'", () => {
  assert.strictEqual(compileSchema(requiring(12))({}), `${FIRST_TEN.join("; ")}; and 2 more`);
  assert.strictEqual(compileSchema(requiring(25))({}), `${FIRST_TEN.join("; ")}; and 15 more`);
});

Deno.test("compileSchema() validator shows exactly 10 errors without a summary", () => {
  assert.strictEqual(compileSchema(requiring(10))({}), FIRST_TEN.join("; "));
  assert.strictEqual(compileSchema(requiring(11))({}), `${FIRST_TEN.join("; ")}; and 1 more`);
});

Deno.test("compileSchema() validator counts only meaningful errors towards the limit", () => {
  // Each bad property also yields a "properties" wrapper error, which is not shown or counted.
  const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
  const validate = compileSchema({
    type: "object",
    properties: Object.fromEntries(names.map((name) => [name, { type: "string" }])),
  });
  const shown = names.slice(0, 10).map((name) => `at "/${name}": ${wrongType("number", "string")}`);
  assert.strictEqual(
    validate(Object.fromEntries(names.map((name) => [name, 1]))),
    `${shown.join("; ")}; and 2 more`,
  );
});

Deno.test("compileSchema() validator explains a value a false schema forbids", () => {
  const check = compileSchema({
    type: "object",
    properties: { pair: { type: "array", prefixItems: [{ type: "string" }], items: false } },
  });
  assert.strictEqual(check({ pair: ["a", "b"] }), 'at "/pair/1": no value is allowed here');
});

Deno.test("compileSchema() validator shows property names in locations decoded", () => {
  const check = compileSchema({
    type: "object",
    properties: { "a b": { type: "string" }, "café": { type: "string" } },
  });
  assert.strictEqual(
    check({ "a b": 1, "café": 2 }),
    'at "/a b": expected a string, got a number; at "/café": expected a string, got a number',
  );
});

/** `depth` levels of `properties`, a string at the bottom, and a value valid or not at full depth. */
function nested(depth: number): { schema: JsonObject; valid: unknown; invalid: unknown } {
  let schema: JsonObject = { type: "string" };
  let valid: unknown = "x";
  let invalid: unknown = 1;
  for (let i = 1; i < depth; i++) {
    schema = { type: "object", properties: { a: schema } };
    valid = { a: valid };
    invalid = { a: invalid };
  }
  return { schema: { ...schema, type: "object" }, valid, invalid };
}

Deno.test("compileSchema() accepts subschemas nested 128 levels deep, and explains values at the bottom", () => {
  const { schema, valid, invalid } = nested(MAX_NESTING);
  const check = compileSchema(schema);
  assert.equal(check(valid), undefined);
  assert.equal(check(valid), undefined); // the verdict, compiled at the first call
  // Each level's "properties" error fills the list of 100 before the one at the bottom.
  const message = check(invalid);
  assert.match(message ?? "", /^Property "a" does not match schema; at "\/a": Property "a" /);
  assert.match(message ?? "", /; and more$/);
});

Deno.test("compileSchema() refuses subschemas nested more than 128 levels deep", () => {
  assert.equal(
    compileError(nested(MAX_NESTING + 1).schema),
    "its subschemas nest more than 128 levels deep, deeper than validation can follow",
  );
});
