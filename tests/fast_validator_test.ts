// The compiled verdict (lib/schema/fast.ts) must say what the vendored validator says, on
// every value: seeded random schemas of every keyword it covers, in the four drafts, against
// seeded random values; hand-written edge cases, keyword by keyword; planted mistakes that
// the comparison must catch (else it proves nothing); and compileSchema()'s messages, which
// must be byte for byte those of the validator alone.
import assert from "node:assert/strict";
import { compileSchema } from "../lib/schema/compile.ts";
import { compileVerdict, UnsupportedSchema, type Verdict } from "../lib/schema/fast.ts";
import {
  dereference,
  type Schema,
  type SchemaDraft,
  Validator,
} from "../lib/schema/vendor/cfworker_json_schema/index.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { mulberry32, type Random } from "./_fuzz.ts";

const DIALECTS: Record<SchemaDraft, string> = {
  "4": "http://json-schema.org/draft-04/schema#",
  "7": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

function draftOf(schema: JsonObject): SchemaDraft {
  const found = Object.entries(DIALECTS).find(([, uri]) => uri === schema.$schema);
  return (found?.[0] ?? "2020-12") as SchemaDraft;
}

/** The compiled verdict as compileSchema() prepares it (for a schema of 64 subschemas). */
function compileFast(schema: JsonObject, maxReferencesPerValue = 64): Verdict {
  const lookup = dereference(schema as Schema);
  return compileVerdict(schema, { draft: draftOf(schema), lookup, maxReferencesPerValue });
}

/** The compiled verdict, or undefined when the schema is outside its subset. */
function fastVerdict(schema: JsonObject): Verdict | undefined {
  try {
    return compileFast(schema);
  } catch (error) {
    if (error instanceof UnsupportedSchema) return undefined;
    throw error;
  }
}

/** The vendored validator's verdict, with none of compileSchema()'s bounds. */
function vendorVerdict(schema: JsonObject): Verdict {
  const validator = new Validator(schema as Schema, draftOf(schema), false);
  return (value) => validator.validate(value).valid;
}

/** The values on which `candidate` and `reference` disagree. */
function disagreements(values: unknown[], candidate: Verdict, reference: Verdict): unknown[] {
  return values.filter((value) => candidate(value) !== reference(value));
}

// ---- random schemas and values ----

const KEYS = ["a", "b", "c", "ab", "ba", "x1"];
const STRINGS = [
  "",
  "a",
  "b",
  "ab",
  "abc",
  "ba",
  "Zz",
  "😀",
  "a😀",
  "\ud800",
  "2024-02-29",
  "2023-02-29",
  "12:30:00Z",
  "2024-01-01T00:00:00Z",
  "a@b.co",
  "http://e.com/x",
  "e.com",
  "1.2.3.4",
  "::1",
  "00000000-0000-0000-0000-000000000000",
  "/a~1b",
];
const NUMBERS = [0, -0, 1, 2, 3, -1, 0.5, 1.5, 2.5, 0.1, 0.3, 0.30000000000000004, 1e21, 2 ** 53];

function int(random: Random, below: number): number {
  return Math.floor(random() * below);
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[int(random, items.length)];
}

function randomValue(random: Random, depth: number): unknown {
  switch (int(random, depth > 2 ? 6 : 8)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
    case 3:
      return pick(random, NUMBERS);
    case 4:
    case 5:
      return pick(random, STRINGS);
    case 6: {
      const items = Array.from({ length: int(random, 5) }, () => randomValue(random, depth + 1));
      // Repeated items, so that uniqueItems has something to find.
      if (items.length > 1 && random() < 0.3) items.push(structuredClone(items[0]));
      return items;
    }
    default: {
      const object: JsonObject = {};
      for (let i = int(random, 5); i > 0; i--) {
        object[pick(random, KEYS)] = randomValue(random, depth + 1);
      }
      return object;
    }
  }
}

const TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"];
const PATTERNS = ["^a", "b$", "^[a-c]*$", "^\\p{L}+$", "😀"];
const FORMATS = ["date", "time", "date-time", "email", "uri", "ipv4", "ipv6", "uuid", "nope"];

/** A keyword of `draft` with a random value that its meta-schema mostly accepts. */
function randomKeyword(
  random: Random,
  draft: SchemaDraft,
  depth: number,
  defs: string,
  later: boolean,
): [string, unknown] {
  const sub = () => randomSchema(random, draft, depth + 1, defs, later);
  const subs = () => Array.from({ length: 1 + int(random, 3) }, sub);
  const small = () => int(random, 4);
  const bound = () => pick(random, [0, 1, 2, 0.5, -1]);
  const keys = () => KEYS.filter(() => random() < 0.3);
  const legacy = draft === "4" || draft === "7";
  const reference = (): [string, unknown] => [
    "$ref",
    pick(random, ["#", `#/${defs}/d0`, `#/${defs}/d1`, "https://e.com/d2"]),
  ];
  const choices: (() => [string, unknown])[] = [
    () => [
      "type",
      random() < 0.7 ? pick(random, TYPES) : [pick(random, TYPES), pick(random, TYPES)],
    ],
    () => ["type", pick(random, TYPES)],
    () => ["const", randomValue(random, 2)],
    () => ["enum", Array.from({ length: 1 + small() }, () => randomValue(random, 2))],
    () => ["properties", Object.fromEntries(keys().map((key) => [key, sub()]))],
    () => ["required", keys()],
    () => ["additionalProperties", sub()],
    () => ["patternProperties", {
      [pick(random, PATTERNS)]: sub(),
      [pick(random, PATTERNS)]: sub(),
    }],
    () => ["propertyNames", random() < 0.5 ? { pattern: pick(random, PATTERNS) } : sub()],
    () => ["minProperties", small()],
    () => ["maxProperties", small()],
    () => ["items", legacy && random() < 0.4 ? subs() : sub()],
    () => ["additionalItems", sub()],
    () => ["prefixItems", subs()],
    () => ["minItems", small()],
    () => ["maxItems", small()],
    () => ["uniqueItems", random() < 0.8],
    () => ["contains", sub()],
    () => ["minContains", small()],
    () => ["maxContains", small()],
    () => ["minimum", bound()],
    () => ["maximum", bound()],
    () => draft === "4" ? ["exclusiveMinimum", random() < 0.5] : ["exclusiveMinimum", bound()],
    () => draft === "4" ? ["exclusiveMaximum", random() < 0.5] : ["exclusiveMaximum", bound()],
    () => ["multipleOf", pick(random, [0.5, 2, 0.1, 3, 0.01])],
    () => ["minLength", small()],
    () => ["maxLength", small()],
    () => ["pattern", pick(random, PATTERNS)],
    () => ["format", pick(random, FORMATS)],
    () => ["allOf", subs()],
    () => ["anyOf", subs()],
    () => ["oneOf", subs()],
    () => ["not", sub()],
    () => ["if", sub()],
    () => ["then", sub()],
    () => ["else", sub()],
    () => ["dependentRequired", { [pick(random, KEYS)]: keys() }],
    () => ["dependentSchemas", { [pick(random, KEYS)]: sub() }],
    () => ["dependencies", { [pick(random, KEYS)]: random() < 0.5 ? keys() : sub() }],
    reference,
    reference,
    reference,
  ];
  if (later) {
    // The keywords that read the record of evaluated properties and items, or the anchor,
    // weighted so that most schemas have some; and `$dynamicRef`, which the vendor ignores.
    const annotating: (() => [string, unknown])[] = [
      () => ["unevaluatedProperties", random() < 0.4 ? false : sub()],
      () => ["unevaluatedItems", random() < 0.4 ? false : sub()],
      () => ["properties", Object.fromEntries(keys().map((key) => [key, sub()]))],
      () => ["prefixItems", subs()],
      () => ["contains", sub()],
      () => ["allOf", subs()],
      () => ["anyOf", subs()],
      () => ["oneOf", subs()],
      () => ["if", sub()],
      () => ["then", sub()],
      () => ["dependentSchemas", { [pick(random, KEYS)]: sub() }],
    ];
    if (draft === "2019-09") {
      annotating.push(() => ["$recursiveAnchor", random() < 0.8], () => ["$recursiveRef", "#"]);
    }
    if (draft === "2020-12") {
      annotating.push(
        () => ["$dynamicRef", pick(random, ["#node", `#/${defs}/d0`])],
        () => ["$dynamicAnchor", "node"],
      );
    }
    choices.push(...annotating, ...annotating);
  }
  return pick(random, choices)();
}

function randomSchema(
  random: Random,
  draft: SchemaDraft,
  depth: number,
  defs: string,
  later = false,
): unknown {
  if (random() < 0.08) return random() < 0.7;
  const schema: JsonObject = {};
  const count = depth > 2 ? int(random, 2) : 1 + int(random, 3);
  for (let i = 0; i < count; i++) {
    const [key, value] = randomKeyword(random, draft, depth, defs, later);
    schema[key] = value;
  }
  return schema;
}

/** A root schema: its draft, a few keywords, and the definitions its references point at. */
function randomRoot(random: Random, later = false): JsonObject {
  const draft = later
    ? pick(random, ["7", "2019-09", "2019-09", "2020-12", "2020-12"] as const)
    : pick(random, ["4", "7", "2019-09", "2020-12"] as const);
  const defs = draft === "4" || draft === "7" ? "definitions" : "$defs";
  const schema = randomSchema(random, draft, 0, defs, later);
  const root: JsonObject = typeof schema === "object" ? schema as JsonObject : {};
  if (draft !== "2020-12" || random() < 0.5) root.$schema = DIALECTS[draft];
  root[defs] = {
    d0: randomSchema(random, draft, 1, defs, later),
    d1: randomSchema(random, draft, 1, defs, later),
    // A resource of its own, reached by its URI.
    d2: { [draft === "4" ? "id" : "$id"]: "https://e.com/d2", type: "object" },
  };
  return root;
}

/** Random values, and the values the schema itself names (its `const`s and `enum`s). */
function valuesFor(random: Random, schema: JsonObject, count: number): unknown[] {
  const named: unknown[] = [];
  JSON.stringify(schema, (key, value) => {
    if (key === "const") named.push(value);
    if (key === "enum" && Array.isArray(value)) named.push(...value);
    return value;
  });
  return [
    ...named.map((value) => structuredClone(value)),
    ...Array.from({ length: count }, () => JSON.parse(JSON.stringify(randomValue(random, 0)))),
  ];
}

interface Corpus {
  cases: { schema: JsonObject; values: unknown[] }[];
  refused: number;
  unsupported: number;
}

/** Seeded random schemas that compileSchema() accepts, with values for each. */
function corpus(seed: number, schemas: number, valuesEach: number, later = false): Corpus {
  const random = mulberry32(seed);
  const result: Corpus = { cases: [], refused: 0, unsupported: 0 };
  while (result.cases.length < schemas) {
    const schema = randomRoot(random, later);
    try {
      compileSchema(structuredClone(schema));
    } catch {
      result.refused++; // breaks its meta-schema, or loops: not a schema a server would run
      continue;
    }
    if (fastVerdict(structuredClone(schema)) === undefined) result.unsupported++;
    result.cases.push({ schema, values: valuesFor(random, schema, valuesEach) });
  }
  return result;
}

const CORPUS = corpus(20261201, 600, 80);

/**
 * Asserts that the compiled verdict and the vendored validator agree on every value of every
 * case the verdict compiles; how many values were compared and how many were valid.
 */
function assertAgreement(
  cases: typeof CORPUS.cases,
  compiled: (schema: JsonObject) => void = () => {},
): { compared: number; valid: number } {
  let compared = 0;
  let valid = 0;
  for (const { schema, values } of cases) {
    const fast = fastVerdict(structuredClone(schema));
    if (fast === undefined) continue;
    const vendor = vendorVerdict(structuredClone(schema));
    const wrong = disagreements(values, fast, vendor);
    assert.deepEqual(wrong, [], `schema ${JSON.stringify(schema)}`);
    compared += values.length;
    valid += values.filter((value) => vendor(value)).length;
    compiled(schema);
  }
  return { compared, valid };
}

Deno.test("compileVerdict() agrees with the vendored validator on 48,000 random values", () => {
  const { compared, valid } = assertAgreement(CORPUS.cases);
  // The comparison proves little unless it covers most schemas and both verdicts.
  assert.ok(CORPUS.unsupported < CORPUS.cases.length / 10, `${CORPUS.unsupported} unsupported`);
  assert.ok(compared > 40_000, `${compared} compared`);
  assert.ok(valid > compared / 5 && valid < compared * 4 / 5, `${valid} of ${compared} valid`);
});

/** Random schemas of 2019-09 and 2020-12 (and draft-07) with `unevaluated*` and anchors. */
const LATER = corpus(20261202, 600, 80, true);

/** Whether a schema uses `keyword` anywhere. */
function uses(schema: unknown, keyword: string): boolean {
  return JSON.stringify(schema).includes(`"${keyword}":`);
}

Deno.test("compileVerdict() agrees with the vendored validator on unevaluated*, $recursiveRef and $dynamicRef: 48,000 random values", () => {
  const covered: Record<string, number> = {};
  const { compared, valid } = assertAgreement(LATER.cases, (schema) => {
    for (const keyword of ["unevaluatedProperties", "unevaluatedItems", "$recursiveRef"]) {
      if (uses(schema, keyword)) covered[keyword] = (covered[keyword] ?? 0) + 1;
    }
  });
  // Refused for applying too many references to one value (a `$recursiveRef` that comes back
  // to itself, which the validator follows until the stack overflows).
  assert.ok(LATER.unsupported <= LATER.cases.length / 100, `${LATER.unsupported} unsupported`);
  assert.ok(compared > 40_000, `${compared} compared`);
  assert.ok(valid > compared / 5 && valid < compared * 4 / 5, `${valid} of ${compared} valid`);
  for (const keyword of ["unevaluatedProperties", "unevaluatedItems", "$recursiveRef"]) {
    assert.ok((covered[keyword] ?? 0) > 60, `${covered[keyword]} schemas with ${keyword}`);
  }
});

/**
 * For the first 200 cases, the message with the compiled verdict equals the validator's
 * alone, for every value; returns how many values had a message.
 */
function assertSameMessages(cases: typeof CORPUS.cases): number {
  let messages = 0;
  for (const { schema, values } of cases.slice(0, 200)) {
    const withVerdict = compileSchema(structuredClone(schema));
    const alone = compileSchema(structuredClone(schema), { fastPath: false });
    for (const value of values) {
      const message = alone(value);
      assert.equal(withVerdict(value), message, JSON.stringify({ schema, value }));
      if (message !== undefined) messages++;
    }
  }
  return messages;
}

Deno.test("compileSchema() gives the validator's own messages with unevaluated* and anchors", () => {
  const messages = assertSameMessages(LATER.cases);
  assert.ok(messages > 2_000, `${messages} messages`);
});

Deno.test("compileSchema() gives the validator's own messages, byte for byte", () => {
  const messages = assertSameMessages(CORPUS.cases);
  assert.ok(messages > 2_000, `${messages} messages`);
});

/** Schema, then values with the verdict both must give, one or more lines per keyword. */
const EDGE_CASES: [JsonObject, [unknown, boolean][]][] = [
  // type: an integral number is an integer; only `type: "integer"` also takes Infinity.
  [{ type: "integer" }, [[1, true], [1.0, true], [1.5, false], [-0, true], [Infinity, true]]],
  [{ type: ["integer", "null"] }, [[2, true], [null, true], [Infinity, false], ["2", false]]],
  [{ type: "number" }, [[1, true], [NaN, true], ["1", false], [[], false]]],
  [{ type: "object" }, [[{}, true], [[], false], [null, false]]],
  [{ type: ["array", "boolean"] }, [[[], true], [false, true], [{}, false]]],
  // properties, required, additionalProperties, patternProperties, propertyNames
  [{ properties: { a: { type: "string" } }, additionalProperties: false }, [
    [{ a: "x" }, true],
    [{ a: "x", b: 1 }, false],
    [{ a: 1 }, false],
    ["not an object", true],
  ]],
  [{ patternProperties: { "^a": { type: "string" } }, additionalProperties: false }, [
    [{ ab: "x" }, true],
    [{ ab: 1 }, false],
    [{ b: 1 }, false],
  ]],
  [{ properties: { ab: { type: "string" } }, patternProperties: { "^a": { minLength: 2 } } }, [
    [{ ab: "xy" }, true],
    [{ ab: "x" }, false],
  ]],
  [{ additionalProperties: { type: "number" } }, [[{ a: 1, b: 2 }, true], [
    { a: 1, b: "2" },
    false,
  ]]],
  [{ required: ["a", "__proto__"] }, [
    [JSON.parse('{"a": null, "__proto__": 1}'), true],
    [{ a: null }, false],
    [[], true],
  ]],
  [{ properties: { toString: { type: "string" } } }, [[{}, true], [{ toString: 1 }, false]]],
  [{ propertyNames: { maxLength: 1 } }, [[{ a: 1 }, true], [{ a: 1, bb: 2 }, false]]],
  [{ minProperties: 1, maxProperties: 2 }, [
    [{}, false],
    [{ a: 1 }, true],
    [{ a: 1, b: 2, c: 3 }, false],
  ]],
  // items in draft-07 tuples and 2020-12 prefixItems; the vendor's one index over both
  [{ $schema: DIALECTS["7"], items: [{ type: "number" }], additionalItems: false }, [
    [[1], true],
    [[], true],
    [[1, "a"], false],
  ]],
  [{ $schema: DIALECTS["7"], items: { type: "number" }, additionalItems: false }, [
    [[1, 2, 3], true],
  ]],
  [{ prefixItems: [{ type: "string" }], items: false }, [[["a"], true], [["a", 1], false]]],
  [{
    $schema: DIALECTS["2019-09"],
    prefixItems: [{ type: "string" }, { type: "string" }],
    items: [false, false, { type: "number" }],
    additionalItems: { type: "boolean" },
  }, [[["a", "b", 1, true], true], [["a", "b", "c"], false], [["a", "b", 1, 2], false]]],
  [{ minItems: 1, maxItems: 2 }, [[[], false], [[1], true], [[1, 2, 3], false]]],
  // contains, minContains, maxContains (an empty array contains nothing, unless min is 0)
  [{ contains: { const: 1 } }, [[[], false], [[0, 1], true], [[0], false]]],
  [{ contains: { const: 1 }, minContains: 0 }, [[[], true], [[0], true]]],
  [{ contains: { const: 1 }, minContains: 2, maxContains: 3 }, [
    [[1], false],
    [[1, 1], true],
    [[1, 1, 1, 1], false],
  ]],
  [{ contains: { const: 1 }, maxContains: 1 }, [[[], false], [[1], true], [[1, 1], false]]],
  // uniqueItems: deepCompareStrict's equality, whatever the key order
  [{ uniqueItems: true }, [
    [[1, "1", [1], { a: 1 }], true],
    [[1, 1.0], false],
    [JSON.parse("[0, -0]"), false],
    [[{ a: 1, b: [2] }, { b: [2], a: 1 }], false],
    [[[1, 2], [2, 1]], true],
  ]],
  // numbers: draft-04's boolean exclusive bounds, later drafts' numeric ones, decimal multipleOf
  [{ $schema: DIALECTS["4"], minimum: 1, exclusiveMinimum: true }, [[1, false], [1.5, true]]],
  [{ $schema: DIALECTS["4"], maximum: 1, exclusiveMaximum: false }, [[1, true], [2, false]]],
  [{ exclusiveMinimum: 1, exclusiveMaximum: 3 }, [[1, false], [2, true], [3, false]]],
  [{ minimum: -1, maximum: 1e21 }, [[-1, true], [1e21, true], [-1.5, false]]],
  [{ multipleOf: 0.01 }, [[0.3, true], [19.99, true], [0.001, false]]],
  [{ multipleOf: 0.1 }, [[0.30000000000000004, false], [3, true]]],
  [{ multipleOf: 3 }, [[2 ** 53, false], [9, true], [1e21, false]]],
  // strings: lengths in code points as ucs2length() counts them, patterns with the u flag
  [{ minLength: 2 }, [["😀", false], ["a😀", true], ["ab", true]]],
  [{ maxLength: 1 }, [["😀", true], ["\ud800", true], ["ab", false]]],
  [{ pattern: "^\\p{Lu}" }, [["É", true], ["é", false], [1, true]]],
  [{ pattern: "b" }, [["abc", true], ["ac", false]]],
  // formats: the vendor's own functions; one it does not know passes
  [{ format: "date" }, [["2024-02-29", true], ["2023-02-29", false], [5, true]]],
  [{ format: "email" }, [["a@b.co", true], ["a@", false]]],
  [{ format: "url" }, [["https://e.com/x", true], ["mailto:a@b.co", false], ["http://a b", false]]],
  [{ format: "not-a-format" }, [["anything", true]]],
  // const and enum
  [{ const: { a: [1, { b: 2 }], c: null } }, [
    [{ c: null, a: [1, { b: 2 }] }, true],
    [{ a: [1, { b: 2 }] }, false],
  ]],
  [{ const: 1 }, [[1.0, true], ["1", false], [[1], false]]],
  [{ const: null }, [[null, true], [{}, false]]],
  [{ const: [] }, [[[], true], [{}, false]]],
  [{ enum: [1, "1", [1], { a: 1 }, null] }, [
    ["1", true],
    [[1], true],
    [{ a: 1 }, true],
    [null, true],
    [2, false],
    [{ a: 2 }, false],
  ]],
  // applicators
  [{ oneOf: [{ type: "integer" }, { minimum: 0 }] }, [[1, false], [-1, true], [0.5, true], [
    -0.5,
    false,
  ]]],
  [{ anyOf: [{ type: "string" }, { minimum: 2 }] }, [["a", true], [3, true], [1, false]]],
  [{ allOf: [{ type: "number" }, { minimum: 2 }] }, [[2, true], [1, false], ["a", false]]],
  [{ not: { type: "string" } }, [[1, true], ["a", false]]],
  [{ if: { type: "string" } }, [["a", true], [1, true]]],
  [{ if: { type: "string" }, then: { minLength: 2 }, else: { minimum: 2 } }, [
    ["ab", true],
    ["a", false],
    [2, true],
    [1, false],
  ]],
  [{ dependentRequired: { a: ["b"] }, dependentSchemas: { b: { required: ["c"] } } }, [
    [{ a: 1, b: 1, c: 1 }, true],
    [{ a: 1 }, false],
    [{ b: 1 }, false],
    [{ c: 1 }, true],
  ]],
  [{ $schema: DIALECTS["7"], dependencies: { a: ["b"], b: { required: ["c"] } } }, [
    [{ a: 1, b: 1, c: 1 }, true],
    [{ a: 1 }, false],
    [{ b: 1 }, false],
  ]],
  // $ref: beside other keywords, ignored by draft-07 and applied by 2020-12
  [{
    $schema: DIALECTS["7"],
    $ref: "#/definitions/n",
    type: "string",
    definitions: { n: { type: "number" } },
  }, [
    [1, true],
    ["a", false],
  ]],
  [{ $ref: "#/$defs/n", type: "string", $defs: { n: { type: "number" } } }, [[1, false], [
    "a",
    false,
  ]]],
  [{ properties: { next: { $ref: "#" } }, type: "object" }, [
    [{ next: { next: {} } }, true],
    [{ next: { next: 1 } }, false],
  ]],
  [{ properties: { a: { $ref: "#/$defs/no" } }, $defs: { no: false } }, [[{}, true], [
    { a: 1 },
    false,
  ]]],
  [{ $ref: "https://e.com/s", $defs: { s: { $id: "https://e.com/s", type: "string" } } }, [
    ["a", true],
    [1, false],
  ]],
  [{ $ref: "#word", $defs: { s: { $anchor: "word", pattern: "^\\w+$" } } }, [["ab", true], [
    "a b",
    false,
  ]]],
  // boolean schemas
  [{ properties: { a: true, b: false } }, [[{ a: 1 }, true], [{ b: 1 }, false]]],
  // unevaluatedProperties: what adjacent keywords and passing in-place branches evaluated
  [{ properties: { a: {} }, unevaluatedProperties: false }, [
    [{ a: 1 }, true],
    [{ a: 1, b: 1 }, false],
    [[], true],
  ]],
  [{ patternProperties: { "^a": {} }, unevaluatedProperties: { type: "number" } }, [
    [{ ab: "x", b: 1 }, true],
    [{ ab: "x", b: "y" }, false],
  ]],
  [{ allOf: [{ properties: { a: {} } }], unevaluatedProperties: false }, [
    [{ a: 1 }, true],
    [{ a: 1, b: 1 }, false],
  ]],
  // A failing branch's properties are not evaluated, a passing one's are.
  [{
    anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: {} } }],
    unevaluatedProperties: false,
  }, [[{ a: 1, b: 1 }, false], [{ a: "x", b: 1 }, true], [{ b: 1 }, true]]],
  [{
    oneOf: [
      { properties: { a: { const: 1 } }, required: ["a"] },
      { properties: { b: {} }, required: ["b"] },
    ],
    unevaluatedProperties: false,
  }, [[{ a: 1 }, true], [{ b: 1 }, true], [{ a: 2, b: 1 }, false], [{ a: 1, b: 1 }, false]]],
  // `not` keeps nothing, even when it passes.
  [{ not: { not: { properties: { a: {} } } }, unevaluatedProperties: false }, [
    [{}, true],
    [{ a: 1 }, false],
  ]],
  // `if` adds what it evaluated when it passes; `then` and `else` too.
  [{
    if: { properties: { a: { const: 1 } } },
    then: { properties: { b: {} } },
    else: { properties: { c: {} } },
    unevaluatedProperties: false,
  }, [
    [{ a: 1, b: 1 }, true],
    [{ a: 2, c: 1 }, false],
    [{ c: 1 }, false],
    [{ b: 1 }, true],
  ]],
  [{
    properties: { a: {} },
    dependentSchemas: { a: { properties: { b: {} } } },
    unevaluatedProperties: false,
  }, [[{ a: 1, b: 1 }, true], [{ b: 1 }, false]]],
  [{ $ref: "#/$defs/x", unevaluatedProperties: false, $defs: { x: { properties: { a: {} } } } }, [
    [{ a: 1 }, true],
    [{ b: 1 }, false],
  ]],
  // The vendor's own reading: a branch sees what `$ref` evaluated before it (the spec would
  // say it sees only its own), and `additionalProperties` turns `unevaluatedProperties` off.
  [{
    $ref: "#/$defs/x",
    anyOf: [{ unevaluatedProperties: false }],
    $defs: { x: { properties: { a: {} } } },
  }, [[{ a: 1 }, true], [{ b: 1 }, false]]],
  [{ additionalProperties: true, unevaluatedProperties: false }, [[{ a: 1 }, true]]],
  [{ $schema: DIALECTS["7"], properties: { a: {} }, unevaluatedProperties: false }, [
    [{ a: 1 }, true],
    [{ b: 1 }, false],
  ]],
  // Nested: each value below has a record of its own.
  [{
    properties: { n: { properties: { a: {} }, unevaluatedProperties: false } },
    unevaluatedProperties: false,
  }, [[{ n: { a: 1 } }, true], [{ n: { a: 1, n: 1 } }, false]]],
  // unevaluatedItems: positions, `items`, passing `contains` items, passing branches
  [{ prefixItems: [{}], unevaluatedItems: false }, [[[1], true], [[1, 2], false], [{}, true]]],
  [{ items: { type: "number" }, unevaluatedItems: false }, [[[1, 2], true], [[1, "a"], false]]],
  [{ contains: { const: 1 }, unevaluatedItems: false }, [[[1, 1], true], [[1, 2], false]]],
  [{ contains: { const: 1 }, minContains: 0, unevaluatedItems: { type: "string" } }, [
    [[], true],
    [[1, "a"], true],
    [[2], false],
  ]],
  [{
    anyOf: [{ prefixItems: [{ const: 1 }] }, { prefixItems: [{}, {}] }],
    unevaluatedItems: false,
  }, [[[1], true], [[1, 2], true], [[2, 2], true], [[1, 2, 3], false]]],
  [{
    $schema: DIALECTS["2019-09"],
    items: [{}],
    additionalItems: { type: "number" },
    unevaluatedItems: false,
  }, [[[1, 2], true], [["a", "b"], false]]],
  // $recursiveRef: "#" goes to the outermost $recursiveAnchor on the way, else to the
  // resource's root; the vendor resets the anchor in branches of a schema without one.
  [{
    $schema: DIALECTS["2019-09"],
    $recursiveAnchor: true,
    type: "object",
    properties: { a: { $recursiveRef: "#" } },
  }, [[{ a: { a: {} } }, true], [{ a: { a: 1 } }, false]]],
  [{
    $schema: DIALECTS["2019-09"],
    $id: "https://e.com/strict",
    $recursiveAnchor: true,
    $ref: "tree",
    properties: { name: { type: "string" } },
    unevaluatedProperties: false,
    $defs: {
      tree: {
        $id: "https://e.com/tree",
        $recursiveAnchor: true,
        type: "object",
        properties: { children: { type: "array", items: { $recursiveRef: "#" } } },
      },
    },
  }, [
    [{ name: "a", children: [{ name: "b", children: [] }] }, true],
    [{ children: [{ extra: 1 }] }, false],
    [{ children: [{ name: 1 }] }, false],
  ]],
  [{
    $schema: DIALECTS["2019-09"],
    $recursiveAnchor: true,
    anyOf: [{ type: "string" }, {
      type: "array",
      items: { $recursiveRef: "#" },
    }],
  }, [[["a", ["b"]], true], [["a", [1]], false]]],
  // $dynamicRef and $dynamicAnchor: ignored by the vendor (not implemented upstream either).
  [{ $dynamicAnchor: "n", type: "object", properties: { a: { $dynamicRef: "#n" } } }, [
    [{ a: 1 }, true],
    [{ a: {} }, true],
  ]],
  [{ $dynamicRef: "#/$defs/s", $defs: { s: { type: "string" } } }, [[1, true]]],
];

Deno.test("compileVerdict() gives the vendored validator's verdict on each keyword's edge cases", () => {
  for (const [schema, cases] of EDGE_CASES) {
    assert.doesNotThrow(() => compileSchema(structuredClone(schema)), JSON.stringify(schema));
    const fast = fastVerdict(schema);
    assert.ok(fast !== undefined, `unsupported: ${JSON.stringify(schema)}`);
    const vendor = vendorVerdict(schema);
    for (const [value, expected] of cases) {
      const where = `${JSON.stringify(schema)} on ${JSON.stringify(value)}`;
      assert.equal(vendor(value), expected, `vendor: ${where}`);
      assert.equal(fast(value), expected, `compiled: ${where}`);
    }
  }
});

/** Recursive schemas whose references meet one value by several paths (see fast.ts). */
const node = (kind: string, first: "kind" | "children"): JsonObject => {
  const kindFirst = {
    kind: { const: kind },
    children: { type: "array", items: { $ref: "#/$defs/node" } },
  };
  const { kind: discriminator, children } = kindFirst;
  return {
    type: "object",
    properties: first === "kind" ? kindFirst : { children, kind: discriminator },
  };
};
const RECURSIVE: JsonObject[] = [
  // Both branches descend into the children before the property that tells them apart.
  {
    $ref: "#/$defs/node",
    $defs: { node: { oneOf: [node("a", "children"), node("b", "children")] } },
  },
  { $ref: "#/$defs/node", $defs: { node: { anyOf: [node("a", "kind"), node("b", "children")] } } },
  // Inheritance: a base and an extension, both applied to every node.
  {
    $ref: "#/$defs/node",
    $defs: {
      base: { type: "object", properties: { id: { type: "integer" } }, required: ["kind"] },
      node: {
        allOf: [{ $ref: "#/$defs/base" }, {
          properties: { children: { items: { $ref: "#/$defs/node" } } },
        }],
        dependentSchemas: { id: { $ref: "#/$defs/base" } },
      },
    },
  },
  // Items and contains, properties and patternProperties: two keywords on one place.
  {
    type: "array",
    items: { $ref: "#/$defs/n" },
    contains: { $ref: "#/$defs/n" },
    $defs: {
      n: {
        anyOf: [{ type: ["number", "string"] }, { $ref: "#" }, {
          type: "object",
          properties: { children: { $ref: "#" } },
          patternProperties: { "^ch": { $ref: "#" }, "en$": { $ref: "#/$defs/n" } },
        }],
      },
    },
  },
  // draft-07: definitions, if/then/else between references.
  {
    $schema: DIALECTS["7"],
    definitions: {
      node: {
        if: { $ref: "#/definitions/kindA" },
        then: { properties: { children: { items: { $ref: "#/definitions/node" } } } },
        else: { properties: { children: { maxItems: 1, items: { $ref: "#/definitions/node" } } } },
      },
      kindA: { properties: { kind: { const: "a" } } },
    },
    $ref: "#/definitions/node",
  },
];

/** Recursive schemas that read the record of evaluated properties, or the anchor. */
const RECURSIVE_LATER: JsonObject[] = [
  // The hostile shape of issue 8: branches that both descend, under unevaluatedProperties.
  {
    $ref: "#/$defs/node",
    $defs: {
      node: {
        oneOf: [node("a", "children"), node("b", "children")],
        unevaluatedProperties: false,
      },
    },
  },
  // A base evaluated through `$ref` and `allOf`, closed at each level.
  {
    $ref: "#/$defs/node",
    $defs: {
      base: { type: "object", properties: { id: { type: "integer" }, kind: {} } },
      node: {
        $ref: "#/$defs/base",
        allOf: [{ properties: { children: { items: { $ref: "#/$defs/node" } } } }],
        unevaluatedProperties: false,
      },
    },
  },
  // Extension through $recursiveRef (2019-09), the anchor reset in branches.
  {
    $schema: DIALECTS["2019-09"],
    $recursiveAnchor: true,
    anyOf: [
      { type: ["number", "string", "null"] },
      {
        type: "object",
        properties: { children: { type: "array", items: { $recursiveRef: "#" } } },
        if: { properties: { kind: { const: "a" } } },
        then: { properties: { id: { type: "integer" } } },
        unevaluatedProperties: { type: "string" },
      },
      { type: "array", prefixItems: [{ $recursiveRef: "#" }], unevaluatedItems: false },
    ],
  },
];

function randomTree(random: Random, depth: number): unknown {
  if (depth > 5 || random() < 0.15) return pick(random, [1, "a", null, []]);
  const tree: JsonObject = {};
  if (random() < 0.9) tree.kind = pick(random, ["a", "a", "b", "x"]);
  if (random() < 0.3) tree.id = pick(random, [1, 1.5, "1"]);
  if (random() < 0.8) {
    tree.children = Array.from({ length: int(random, 4) }, () => randomTree(random, depth + 1));
  }
  return tree;
}

Deno.test("compileVerdict() agrees with the vendored validator on recursive schemas: 10,000 trees", () => {
  const random = mulberry32(7);
  for (const schema of RECURSIVE) {
    compileSchema(structuredClone(schema));
    const fast = fastVerdict(schema)!;
    // Memoised, as compileSchema() runs it: without the memo some of these trees take seconds.
    const alone = compileSchema(structuredClone(schema), { fastPath: false });
    const vendor: Verdict = (value) => alone(value) === undefined;
    const trees = Array.from({ length: 2_000 }, () => {
      const tree = randomTree(random, 0);
      return JSON.parse(JSON.stringify(Array.isArray(tree) || random() < 0.5 ? tree : [tree]));
    });
    assert.deepEqual(disagreements(trees, fast, vendor), [], JSON.stringify(schema));
    const valid = trees.filter((tree) => vendor(tree)).length;
    assert.ok(
      valid > 100 && valid < 1_900,
      `${valid} of 2,000 valid for ${JSON.stringify(schema)}`,
    );
  }
});

Deno.test("compileVerdict() agrees with the vendored validator on recursive schemas with records and anchors: 6,000 trees", () => {
  const random = mulberry32(8);
  for (const schema of RECURSIVE_LATER) {
    compileSchema(structuredClone(schema));
    const fast = fastVerdict(schema)!;
    assert.ok(fast !== undefined, `unsupported: ${JSON.stringify(schema)}`);
    // Unbounded: nothing can be remembered, so some trees take the validator 2^depth steps.
    const vendor = vendorVerdict(structuredClone(schema));
    const trees = Array.from({ length: 2_000 }, () => {
      const tree = randomTree(random, 0);
      return JSON.parse(JSON.stringify(Array.isArray(tree) || random() < 0.5 ? tree : [tree]));
    });
    assert.deepEqual(disagreements(trees, fast, vendor), [], JSON.stringify(schema));
    const valid = trees.filter((tree) => vendor(tree)).length;
    assert.ok(valid > 50 && valid < 1_950, `${valid} of 2,000 valid for ${JSON.stringify(schema)}`);
  }
});

Deno.test("compileVerdict() refuses the keywords it does not mirror", () => {
  const unsupported: JsonObject[] = [
    { format: "toString" },
    // draft-04's meta-schema does not check these keys; the validator throws on them.
    { $schema: DIALECTS["4"], patternProperties: { "a]": {} } },
  ];
  for (const schema of unsupported) {
    assert.throws(() => compileFast(schema), UnsupportedSchema, JSON.stringify(schema));
  }
  // References that double at each level on one value: 2^5 of them here.
  const defs: JsonObject = { d0: { type: "string" } };
  for (let i = 1; i <= 5; i++) {
    defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
  }
  assert.throws(
    () => compileFast({ $ref: "#/$defs/d5", $defs: defs }, 16),
    /more than 16 references to one value/,
  );
  // compileSchema() then validates with the vendored validator alone, as before.
  const check = compileSchema({ type: "array", items: { format: "toString" } });
  assert.equal(check(["a", 1]), undefined);
  // Compiled lazily (a meta-schema's verdict), a subschema that reads the record of
  // evaluated properties or the anchor says "no", and the validator decides.
  for (const schema of [{ unevaluatedProperties: false }, { $recursiveAnchor: true }]) {
    const lazy = compileVerdict(schema, {
      draft: "2019-09",
      lookup: dereference(schema as Schema),
      maxReferencesPerValue: 64,
      lazy: true,
    });
    assert.equal(lazy({}), false);
  }
});

/** What a check returned, or the message it threw. */
function outcome(check: () => string | undefined): string {
  try {
    return `returned ${JSON.stringify(check())}`;
  } catch (error) {
    return `threw ${(error as Error).message}`;
  }
}

Deno.test("compileSchema() answers as before on objects and values a parse never makes", () => {
  const withHidden = (key: string, value: unknown) =>
    Object.defineProperty({}, key, { value, enumerable: false });
  const cases: [JsonObject, unknown][] = [
    // An inherited value: the verdict path checks it (stricter), the validator does not.
    [{ properties: { a: { type: "number" } } }, Object.create({ a: "x" })],
    [
      { properties: { a: {} }, additionalProperties: false },
      Object.assign(Object.create({ b: 1 }), { a: 1 }),
    ],
    [{ properties: { a: { type: "string" } } }, { a: undefined }],
    [{ properties: { a: true } }, { a: undefined }],
    [{ items: { type: "number" } }, [1, , 3]],
    [{ type: "object" }, new Date(0)],
    [{ required: ["a"], additionalProperties: false }, withHidden("a", 1)],
    [{ properties: { a: { type: "string" } } }, withHidden("a", 1)],
    [{ minimum: 0, type: "integer" }, NaN],
    [{ type: "integer" }, Infinity],
    [{ type: "object" }, () => {}],
    [{ enum: [1] }, 1n],
  ];
  for (const [schema, value] of cases) {
    const withVerdict = compileSchema(structuredClone(schema));
    const alone = compileSchema(structuredClone(schema), { fastPath: false });
    assert.equal(
      outcome(() => withVerdict(value)),
      outcome(() => alone(value)),
      `${JSON.stringify(schema)} on ${String(value)}`,
    );
  }
  // Enumerable properties on Object.prototype, which `for…in` visits in every object.
  const closed = compileSchema({ type: "object", additionalProperties: false });
  const closedAlone = compileSchema({ type: "object", additionalProperties: false }, {
    fastPath: false,
  });
  (Object.prototype as Record<string, unknown>).polluted = 1;
  try {
    assert.equal(outcome(() => closed({})), outcome(() => closedAlone({})));
  } finally {
    delete (Object.prototype as Record<string, unknown>).polluted;
  }
});

Deno.test("compileVerdict() agrees with the vendored validator on objects of many named properties, walked by the value's keys", () => {
  // Past 16 names the verdict walks the value's own keys rather than asking each name.
  const names = Array.from({ length: 24 }, (_, i) => `p${i}`);
  const kinds: JsonObject[] = [
    { type: "string" },
    { type: "integer", minimum: 0 },
    { const: true },
    { type: "object", required: ["x"], properties: { x: { type: "number" } } },
  ];
  const properties = Object.fromEntries(names.map((name, i) => [name, kinds[i % kinds.length]]));
  const good = ["s", 1, true, { x: 1 }];
  const bad = [1, -1, false, { y: 1 }];
  const random = mulberry32(4242);
  const values: unknown[] = [];
  for (let n = 0; n < 3000; n++) {
    const value: Record<string, unknown> = {};
    for (const [i, name] of names.entries()) {
      const roll = random();
      if (roll < 0.5) continue;
      value[name] = roll < 0.97 ? good[i % 4] : roll < 0.99 ? bad[i % 4] : null;
    }
    if (random() < 0.2) value.extra = 1;
    values.push(value);
  }
  for (
    const schema of [
      { type: "object", properties },
      { type: "object", properties, additionalProperties: false },
      { type: "object", properties, required: ["p0", "p5"] },
    ]
  ) {
    const candidate = fastVerdict(schema);
    assert.ok(candidate !== undefined);
    const reference = vendorVerdict(structuredClone(schema));
    assert.deepEqual(disagreements(values, candidate, reference), []);
    // Both answers are given: the values are not all valid, nor all invalid.
    const verdicts = new Set(values.map((value) => candidate(value)));
    assert.deepEqual(verdicts, new Set([true, false]));
    // An inherited wrong value is not the object's own: neither path looks at it.
    const inherited = Object.assign(Object.create({ p0: 1 }), { p1: 2 });
    assert.equal(candidate(inherited), reference(inherited));
  }
});

/** Mistakes the comparison must catch, each made by compiling a rewritten schema. */
const MUTANTS: [string, (schema: JsonObject) => JsonObject][] = [
  [
    "minLength read as >",
    (schema) => rewrite(schema, "minLength", (n) => ["minLength", (n as number) + 1]),
  ],
  ["oneOf read as anyOf", (schema) => rewrite(schema, "oneOf", (branches) => ["anyOf", branches])],
  ["uniqueItems ignored", (schema) => rewrite(schema, "uniqueItems", () => undefined)],
  [
    "exclusiveMinimum read as minimum",
    (schema) =>
      rewrite(
        schema,
        "exclusiveMinimum",
        (bound) => typeof bound === "number" ? ["minimum", bound] : ["exclusiveMinimum", bound],
      ),
  ],
];

for (const [name, mutate] of MUTANTS) {
  Deno.test(`the comparison catches a planted mistake: ${name}`, () => {
    let caught = 0;
    for (const { schema, values } of CORPUS.cases) {
      const candidate = fastVerdict(mutate(schema));
      if (candidate === undefined) continue;
      caught += disagreements(values, candidate, vendorVerdict(structuredClone(schema))).length;
    }
    assert.ok(caught > 0, `"${name}" went unnoticed`);
  });
}

/**
 * Mistakes in reading the record or the anchor that the comparison must catch, on the LATER
 * corpus and the edge cases.
 */
const LATER_MUTANTS: [string, (schema: JsonObject) => JsonObject][] = [
  [
    "unevaluatedProperties ignored",
    (schema) => rewrite(schema, "unevaluatedProperties", () => undefined),
  ],
  ["unevaluatedItems ignored", (schema) => rewrite(schema, "unevaluatedItems", () => undefined)],
  [
    "unevaluatedProperties blind to branches (read as additionalProperties)",
    (schema) => rewrite(schema, "unevaluatedProperties", (sub) => ["additionalProperties", sub]),
  ],
  ["$recursiveAnchor ignored", (schema) => rewrite(schema, "$recursiveAnchor", () => undefined)],
];

for (const [name, mutate] of LATER_MUTANTS) {
  Deno.test(`the comparison catches a planted mistake: ${name}`, () => {
    let caught = 0;
    const edges = EDGE_CASES.map(([schema, cases]) => ({
      schema,
      values: cases.map(([value]) => value),
    }));
    for (const { schema, values } of [...LATER.cases, ...edges]) {
      // Not the schemas outside the verdict: the validator overflows the stack on one.
      if (fastVerdict(structuredClone(schema)) === undefined) continue;
      const candidate = fastVerdict(mutate(schema));
      if (candidate === undefined) continue;
      caught += disagreements(values, candidate, vendorVerdict(structuredClone(schema))).length;
    }
    assert.ok(caught > 0, `"${name}" went unnoticed`);
  });
}

/**
 * A deep copy of `schema` in which every `keyword` becomes what `change` returns: another
 * keyword and value, or nothing.
 */
function rewrite(
  schema: JsonObject,
  keyword: string,
  change: (value: unknown) => [string, unknown] | undefined,
): JsonObject {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key !== keyword) copy[key] = walk(value);
      else {
        const replaced = change(value);
        if (replaced !== undefined) copy[replaced[0]] = walk(replaced[1]);
      }
    }
    return copy;
  };
  return walk(schema) as JsonObject;
}
