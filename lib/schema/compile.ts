// JSON Schema validation, prepared once per schema at start-up. The validator is
// @cfworker/json-schema 4.1.6 (adr/0006), kept in lib/schema/vendor/ with the patches that bound
// its work per request (adr/0010): a budget of steps, a cap on collected errors,
// uniqueItems by hashing, patterns compiled once and linear-time formats. A value is first
// given to the schema's compiled verdict (fast.ts), when the schema has one: only a value it
// does not pass goes through the validator, which says what is wrong.
import {
  dereference,
  limits,
  type Schema,
  validate,
  type ValidationResult,
} from "./vendor/cfworker_json_schema/index.ts";
import { isObject } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { compileVerdict, type Verdict } from "./fast.ts";
import { plainReason } from "./plain_errors.ts";
// Each draft's meta-schema as one document, its vocabularies merged in (generated from the
// official documents beside it; tests/meta_schema_test.ts checks it and rewrites it).
import flatMetaSchemas from "./vendor/json_schema_meta/flat.json" with { type: "json" };

/** A prepared schema: `undefined` when the value is valid, else a readable reason. */
export type SchemaCheck = (value: unknown) => string | undefined;

export type Draft = "4" | "7" | "2019-09" | "2020-12";

const DIALECTS: Record<string, Draft> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

/**
 * Each draft's meta-schema as one document: the vocabularies' `properties` and `$defs`
 * side by side, every reference local (`#`, `#/$defs/…`). It gives the official documents'
 * verdicts (tests/meta_schema_test.ts) in a fraction of the steps: otherwise every
 * subschema passes through an `allOf` of one `$ref` per vocabulary, and the garbage of
 * those steps at start-up showed as ~10 MB of peak RSS under load later (adr/0010).
 * Merged once, when the file is generated, rather than in every process at start-up.
 */
const META_SCHEMAS: Readonly<Record<Draft, JsonObject>> = flatMetaSchemas;

/** Errors that only say "a part below failed"; the part's own error says what. */
const WRAPPER_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "if",
  "false",
]);

/** Errors shown in a message; the rest are counted. */
const MAX_REPORTED_ERRORS = 10;

/**
 * Errors the validator keeps per list (a failing value's own errors plus the wrappers
 * around them). Past it, every loop stops at its next failure: an argument of millions of
 * wrong items costs no more than its first hundred errors.
 */
export const MAX_COLLECTED_ERRORS = 100;

/** Steps any validation may take, however small its value. */
const BASE_STEPS = 10_000;

/**
 * Steps allowed per unit of a value's weight (a value, a key, 64 characters of a string)
 * at the least; a larger schema gets one per subschema. An ordinary validation applies each
 * subschema to each value at most once (the targets of references are memoised so that they
 * do too), so it never runs out; a schema whose results cannot be memoised because it reads
 * `unevaluated*` and whose branches check the same values again would, exponentially, and
 * is stopped here instead.
 */
const MIN_STEPS_PER_WEIGHT = 16;

/**
 * What the message of a value the compiled verdict refused may cost, whatever the value's
 * size: an invalid value then holds the thread no longer than a valid one of its size plus
 * this (adr/0010). Small values, almost all of them, get their full message within it.
 */
const MESSAGE_STEPS = BASE_STEPS;

/**
 * The message budget of a schema that reads `unevaluated*`, which the validator cannot
 * memoise: a step there costs ~3 µs (the record of evaluated keys), and a union a few levels
 * deep takes 2^depth of them whatever the value's size, so 10,000 steps (twice) made a 300-byte
 * invalid value cost ~35 ms. With 1,000 a message costs at most ~6 ms; such a union is named
 * up to 5 levels deep, and a closed composition (`allOf` + `unevaluatedProperties: false`)
 * wherever a thousand applications of its subschemas suffice.
 */
export const UNMEMOISED_MESSAGE_STEPS = 1_000;

/** The message when the place of a mismatch is not found within the message's `steps`. */
function unlocated(steps: number): string {
  return `no place is named: finding the first mismatch would take more than the ${steps} ` +
    `steps an error message may cost in a value this large`;
}

/**
 * The deepest nesting of subschemas a schema may have. The validator follows a value down
 * the schema by recursion, and overflowed the stack at 400–600 levels when probed: below a
 * third of that, every value of a schema accepted here gets its verdict and its message.
 * (Checking a schema against its meta-schema with the validator used to overflow at ~190
 * levels, which refused deeper schemas by accident; adr/0028.)
 */
export const MAX_NESTING = 128;

/** The base URI the validator gives a schema without `$id`. */
const DEFAULT_BASE = "https://github.com/cfworker";

/** A validation that would take longer than its budget of steps allows. */
class ValidationTooCostly extends Error {
  constructor(steps: number, perWeight: number) {
    super(
      `checking them took more than ${steps} steps (${perWeight} per value): the schema ` +
        `checks the same values again and again, as recursive "anyOf" or "oneOf" branches ` +
        `under "unevaluatedProperties" or "unevaluatedItems" do`,
    );
    this.name = "ValidationTooCostly";
  }
}

function draftOf(schema: JsonObject): Draft {
  const declared = schema.$schema;
  if (declared === undefined) return "2020-12";
  if (typeof declared !== "string") throw new Error("$schema must be a string");
  const draft = DIALECTS[declared.replace(/#$/, "")];
  if (!draft) {
    throw new Error(
      `$schema "${declared}" is not supported; use 2020-12 (the default), 2019-09, draft-07 or draft-04`,
    );
  }
  return draft;
}

interface CompileOptions {
  /** Whether to ask the compiled verdict first (default); false only to compare the two. */
  fastPath?: boolean;
}

/**
 * Prepares a schema; throws an Error saying what is wrong with it: a `$ref` that does not
 * resolve inside the schema (nothing is ever fetched), a `type` that is not a JSON type, a
 * violation of its draft's meta-schema (a pattern that does not compile with the `u` flag
 * among them), or a cycle of references that validation could never leave.
 */
export function compileSchema(schema: JsonObject, options: CompileOptions = {}): SchemaCheck {
  const draft = draftOf(schema);
  const lookup = dereference(schema as Schema);
  const known = new Set(Object.keys(lookup));
  // draft-04 names the base URI `id`; later drafts `$id`.
  const idKeyword = draft === "4" ? "id" : "$id";
  // Every object subschema, collected by the one walk the later checks share.
  const subschemas: JsonObject[] = [];
  checkSubschemas(schema, DEFAULT_BASE, known, idKeyword, subschemas, 1);
  const metaProblem = checkMeta(draft)(schema);
  if (metaProblem !== undefined) {
    throw new Error(`it breaks its draft's meta-schema: ${metaProblem}`);
  }
  refuseEndlessReferences(subschemas, lookup, draft);
  // The validator runs on the lookup made above: a `Validator` would dereference the
  // schema a second time at start-up. `all` collects every error, `first` stops at one.
  const all = (value: unknown) => validate(value, schema as Schema, draft, lookup, false);
  const first = (value: unknown) => validate(value, schema as Schema, draft, lookup, true);
  const perWeight = Math.max(MIN_STEPS_PER_WEIGHT, subschemas.length);
  const trackEvaluated = subschemas.some((subschema) =>
    "unevaluatedProperties" in subschema || "unevaluatedItems" in subschema
  );
  const targets = trackEvaluated ? undefined : referenceTargets(subschemas, lookup);
  const explain: SchemaCheck = (value) =>
    bounded(() => all(value), value, perWeight, trackEvaluated, targets);
  if (options.fastPath === false) return explain;
  // Schemas that read `unevaluated*` have a verdict too (fast.ts mirrors the record of
  // evaluated keys); naming their mismatches keeps that record on and remembers nothing.
  // The verdict said no: the validator only names the place, within a budget that does not
  // grow with the value (a recursive union wrong at its end took ~190 ms per MiB to name).
  // First every error (as the validator alone would say); if naming them runs out of steps,
  // the first one only, stopping at it; if even that does, none: at most twice its budget.
  const attempts: [(value: unknown) => ValidationResult, string][] = [
    [all, ""],
    [first, " (the first mismatch; checking stopped there)"],
  ];
  const messageSteps = trackEvaluated ? UNMEMOISED_MESSAGE_STEPS : MESSAGE_STEPS;
  const locate: SchemaCheck = (value) => {
    for (const [run, note] of attempts) {
      try {
        const message = bounded(() => run(value), value, 0, trackEvaluated, targets, messageSteps);
        return message === undefined ? undefined : message + note;
      } catch (error) {
        if (!(error instanceof ValidationTooCostly)) throw error;
      }
    }
    return unlocated(messageSteps);
  };
  // The verdict is compiled at the first validation, not at start-up: nothing in it may
  // refuse a schema (one it does not mirror gets the validator alone, as would one it
  // failed to compile), and a server lists its tools long before it calls most of them
  // (adr/0028).
  let verdict: Verdict | undefined | null = null;
  return (value) => {
    if (verdict === null) verdict = verdictOf(schema, draft, lookup, perWeight);
    if (verdict === undefined) return explain(value);
    return verdict(value) ? undefined : locate(value);
  };
}

/**
 * The schema's compiled verdict, or undefined when it uses a keyword the verdict path does
 * not mirror. It needs no budget of steps (fast.ts says why), but refuses a subschema that
 * would apply more references to one value than the budget grants per value.
 */
function verdictOf(
  schema: JsonObject,
  draft: Draft,
  lookup: Record<string, Schema | boolean>,
  perWeight: number,
): Verdict | undefined {
  try {
    return compileVerdict(schema, { draft, lookup, maxReferencesPerValue: perWeight });
  } catch {
    // UnsupportedSchema, or anything else (the validator, which decides alone then, is the
    // reference the verdict mirrors): compiled at a call, it must not fail the call.
    return undefined;
  }
}

/**
 * The subschemas that references point at, or undefined when there are none. Only these
 * can meet one value twice (by two references from different places) — in a schema without
 * references each subschema has one way down to a value — so only these are memoised.
 */
function referenceTargets(
  subschemas: readonly JsonObject[],
  lookup: Record<string, Schema | boolean>,
): ReadonlySet<object> | undefined {
  const targets = new Set<object>();
  for (const subschema of subschemas) {
    for (
      const ref of [
        (subschema as Schema).__absolute_ref__,
        subschema.$recursiveRef && (subschema as Schema).__absolute_recursive_ref__,
      ]
    ) {
      const target = typeof ref === "string" ? lookup[ref] : undefined;
      if (isObject(target)) targets.add(target);
    }
  }
  return targets.size > 0 ? targets : undefined;
}

/** The validation under way: module state, so that a call allocates nothing for its budget. */
let validating: unknown;
let stepsPerWeight = MIN_STEPS_PER_WEIGHT;
let stepsAllowed = BASE_STEPS;
let baseSteps = BASE_STEPS;

/** Called by the validator when the steps run out: grants the value's share once, then stops. */
function exhausted(): void {
  // Weighed only when the base budget runs out (small values never pay for it), and only
  // when the value's weight buys more steps.
  if (stepsAllowed === baseSteps && stepsPerWeight > 0) {
    const more = stepsPerWeight * weightOf(validating);
    stepsAllowed += more;
    limits.remaining += more;
    if (limits.remaining >= 0) return;
  }
  throw new ValidationTooCostly(stepsAllowed, stepsPerWeight);
}

/** Validates within the budget of steps and errors; throws ValidationTooCostly past it. */
function bounded(
  run: () => ValidationResult,
  value: unknown,
  perWeight: number,
  trackEvaluated: boolean,
  memoised: ReadonlySet<object> | undefined,
  base = BASE_STEPS,
): string | undefined {
  validating = value;
  stepsPerWeight = perWeight;
  stepsAllowed = baseSteps = base;
  limits.remaining = base;
  limits.maxErrors = MAX_COLLECTED_ERRORS;
  limits.saturated = false;
  limits.trackEvaluated = trackEvaluated;
  limits.exhausted = exhausted;
  limits.memoised = memoised;
  if (memoised !== undefined) limits.memo = new Map();
  try {
    const { valid, errors } = run();
    return valid ? undefined : describe(errors, limits.saturated);
  } finally {
    validating = undefined;
    limits.remaining = Infinity;
    limits.maxErrors = Infinity;
    limits.trackEvaluated = true;
    limits.exhausted = noBudget;
    limits.memoised = undefined;
    limits.memo = undefined;
  }
}

function noBudget(): void {}

/**
 * A value's size in the units the validator spends steps on: one per value and per key,
 * one per 64 characters of a string. Only containers go on the stack.
 */
function weightOf(value: unknown): number {
  let weight = 0;
  const stack: unknown[] = [];
  const add = (item: unknown): void => {
    weight++;
    if (typeof item === "string") weight += item.length >> 6;
    else if (typeof item === "object" && item !== null) stack.push(item);
  };
  add(value);
  while (stack.length > 0) {
    const next = stack.pop() as object;
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) add(next[i]);
    } else {
      for (const key in next) {
        weight++;
        add((next as JsonObject)[key]);
      }
    }
  }
  return weight;
}

/** The meta-schema checks, prepared on first use (most servers use one draft). */
const metaChecks = new Map<Draft, SchemaCheck>();

/**
 * A schema's check against its draft's meta-schema. The meta-schema's compiled verdict
 * decides (compiled a subschema at a time, as schemas reach it: a tool's schema meets a
 * small part of it); only a schema it refuses goes through the validator, which names
 * what is wrong, on a meta-schema dereferenced for it then (adr/0028).
 */
function checkMeta(draft: Draft): SchemaCheck {
  let check = metaChecks.get(draft);
  if (check === undefined) {
    const verdict = metaVerdict(draft);
    let explain: SchemaCheck | undefined;
    check = (value) => verdict(value) ? undefined : (explain ??= metaValidator(draft))(value);
    metaChecks.set(draft, check);
  }
  return check;
}

/**
 * The compiled verdict of a draft's meta-schema. Its references are all local (`#`,
 * `#/$defs/…`, `#/definitions/…`), so each is looked up by name rather than through the
 * vendor's `dereference()`, which parses each as a URL. `lazy: false` compiles the whole
 * meta-schema at once (the test does, so that every reference is seen to resolve).
 */
export function metaVerdict(draft: Draft, lazy = true): Verdict {
  // Only read, never dereferenced (metaValidator() dereferences a copy of its own).
  const meta = META_SCHEMAS[draft];
  const lookup: Record<string, JsonObject> = { "#": meta };
  for (const defs of ["$defs", "definitions"]) {
    for (const [name, target] of Object.entries((meta[defs] ?? {}) as JsonObject)) {
      lookup[`#/${defs}/${name}`] = target as JsonObject;
    }
  }
  return compileVerdict(meta, {
    draft,
    lookup: lookup as Record<string, Schema>,
    maxReferencesPerValue: Infinity,
    lazy,
  });
}

/** The validator's check against a draft's meta-schema, with every error it finds. */
function metaValidator(draft: Draft): SchemaCheck {
  const meta = structuredClone(META_SCHEMAS[draft]) as Schema;
  const lookup = dereference(meta);
  // No meta-schema reads `unevaluated*`: recording evaluated keys would only make garbage.
  return (value) => {
    limits.trackEvaluated = false;
    try {
      const { valid, errors } = validate(value, meta, draft, lookup, false);
      return valid ? undefined : describe(errors, false);
    } finally {
      limits.trackEvaluated = true;
    }
  };
}

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** Keywords whose value is one subschema, an array of them, or a map of names to them. */
const SUBSCHEMA = [
  "additionalProperties",
  "propertyNames",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];
const SUBSCHEMA_ARRAY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAP = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
];

/** The subschemas directly inside a schema, by the keywords that hold them. */
export function subschemasOf(schema: JsonObject): unknown[] {
  const found: unknown[] = [];
  for (const key of SUBSCHEMA) if (key in schema) found.push(schema[key]);
  for (const key of SUBSCHEMA_ARRAY) {
    if (Array.isArray(schema[key])) found.push(...(schema[key] as unknown[]));
  }
  for (const key of SUBSCHEMA_MAP) {
    if (isObject(schema[key])) found.push(...Object.values(schema[key] as JsonObject));
  }
  // `items` is one schema (2020-12) or an array of them (draft-07 tuples).
  if (Array.isArray(schema.items)) found.push(...schema.items);
  else if ("items" in schema) found.push(schema.items);
  // draft-07 `dependencies` maps names to a schema or to an array of property names.
  if (isObject(schema.dependencies)) {
    found.push(...Object.values(schema.dependencies).filter((value) => !Array.isArray(value)));
  }
  return found;
}

/**
 * Catches, with a message of our own, the mistakes that would otherwise surface only at
 * call time: a `$ref` that does not resolve, a `type` that is not a JSON type (a typo such
 * as "strnig"), and subschemas nested deeper than MAX_NESTING. Adds every object
 * subschema, the root first, to `found`.
 */
function checkSubschemas(
  schema: unknown,
  base: string,
  known: ReadonlySet<string>,
  idKeyword: string,
  found: JsonObject[],
  depth: number,
): void {
  if (!isObject(schema)) return; // `true`/`false` schemas, or not a schema at all
  if (depth > MAX_NESTING) {
    throw new Error(
      `its subschemas nest more than ${MAX_NESTING} levels deep, deeper than validation can follow`,
    );
  }
  found.push(schema);
  const id = schema[idKeyword];
  const here = typeof id === "string" ? new URL(id, base).href : base;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const type of types) {
    if (type !== undefined && !JSON_TYPES.has(type as string)) {
      throw new Error(`type ${JSON.stringify(type)} is not a JSON type`);
    }
  }
  if (typeof schema.$ref === "string") {
    const target = new URL(schema.$ref, here).href;
    if (!known.has(target) && !known.has(target.replace(/#$/, ""))) {
      throw new Error(
        `$ref "${schema.$ref}" does not resolve inside the schema (nothing is fetched)`,
      );
    }
  }
  for (const subschema of subschemasOf(schema)) {
    checkSubschemas(subschema, here, known, idKeyword, found, depth + 1);
  }
}

/**
 * Why a tool's schema must be refused for `$dynamicRef`, or undefined. The validator (and the
 * verdict, which mirrors it) does not implement dynamic scope, as upstream does not: it
 * ignores the keyword and would pass values the schema refuses (13 of the official suite's
 * 29 dynamicRef cases). Start-up refuses such a schema rather than check less than written;
 * compileSchema itself keeps the validator's behaviour, which the differential tests pin.
 */
export function dynamicRefProblem(schema: JsonObject): string | undefined {
  if (draftOf(schema) !== "2020-12") return undefined; // before 2020-12 it is no keyword
  const stack: unknown[] = [schema];
  for (let seen = 0; stack.length > 0 && seen < 100_000; seen++) {
    const next = stack.pop();
    if (!isObject(next)) continue;
    if ("$dynamicRef" in next) {
      return 'it uses "$dynamicRef", which toolshed\'s validator does not implement (values ' +
        'the schema refuses would pass): use "$ref"';
    }
    stack.push(...subschemasOf(next));
  }
  return undefined;
}

/** Keywords that apply a subschema to the same value (not to a part of it). */
const SAME_VALUE = ["not", "if", "then", "else"];
const SAME_VALUE_ARRAY = ["allOf", "anyOf", "oneOf"];

/**
 * Refuses a cycle of references that never descends into the value, such as
 * `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}` reached from the
 * root: the validator would follow it until the stack overflows, on every call. Every
 * subschema is a start, since a cycle under `properties` is reached by some value.
 */
function refuseEndlessReferences(
  subschemas: readonly JsonObject[],
  lookup: Record<string, Schema | boolean>,
  draft: Draft,
): void {
  const path: JsonObject[] = [];
  const names = new Map<JsonObject, string>();

  const sameValue = (schema: JsonObject): unknown[] => {
    const next: unknown[] = [];
    const ref = (schema as Schema).__absolute_ref__ ?? schema.$ref;
    if (typeof ref === "string") {
      next.push(lookup[ref]);
      names.set(lookup[ref] as JsonObject, schema.$ref as string);
      // draft-04 and draft-07 ignore the keywords beside `$ref`.
      if (draft === "4" || draft === "7") return next;
    }
    const recursive = (schema as Schema).__absolute_recursive_ref__;
    if (schema.$recursiveRef !== undefined && typeof recursive === "string") {
      next.push(lookup[recursive]);
    }
    for (const key of SAME_VALUE) if (key in schema) next.push(schema[key]);
    for (const key of SAME_VALUE_ARRAY) {
      if (Array.isArray(schema[key])) next.push(...(schema[key] as unknown[]));
    }
    for (const key of ["dependentSchemas", "dependencies"]) {
      if (isObject(schema[key])) {
        next.push(...Object.values(schema[key] as JsonObject).filter((v) => !Array.isArray(v)));
      }
    }
    return next;
  };

  // Depth-first search over the same-value edges from every subschema: a node met again
  // while it is still on the path closes a cycle.
  const finished = new Set<JsonObject>();
  const visit = (schema: unknown): void => {
    if (!isObject(schema) || finished.has(schema)) return;
    const start = path.indexOf(schema);
    if (start !== -1) {
      const cycle = [...path.slice(start), schema].map((step) => names.get(step) ?? "#");
      throw new Error(
        `its references form a cycle that never descends into the value ` +
          `(${cycle.join(" → ")}), so validating anything would never end`,
      );
    }
    path.push(schema);
    for (const next of sameValue(schema)) visit(next);
    path.pop();
    finished.add(schema);
  };
  for (const schema of subschemas) visit(schema);
}

interface OutputUnit {
  instanceLocation: string;
  keyword: string;
  error: string;
}

function describe(errors: readonly OutputUnit[], incomplete: boolean): string {
  // A `false` schema's error repeats its parent's ("does not match additional properties
  // schema"), so it is shown only when nothing else explains the failure.
  const meaningful = errors.filter((error) =>
    !WRAPPER_KEYWORDS.has(error.keyword) && !explainedBelow(error, errors)
  );
  const forbidden = errors.filter((error) => error.keyword === "false");
  const reported = meaningful.length > 0 ? meaningful : forbidden.length > 0 ? forbidden : errors;
  const shown = reported.slice(0, MAX_REPORTED_ERRORS).map((error) => {
    const where = decodePointer(error.instanceLocation.replace(/^#/, ""));
    // A `false` schema (e.g. `additionalProperties: false`) admits nothing.
    const reason = error.keyword === "false"
      ? "no value is allowed here"
      : plainReason(error.error);
    return where === "" ? reason : `at "${where}": ${reason}`;
  });
  const rest = reported.length - shown.length;
  const more = incomplete ? "; and more" : rest > 0 ? `; and ${rest} more` : "";
  return shown.join("; ") + more;
}

/**
 * Whether an error on a property beyond `properties` ("does not match additional
 * properties schema") is explained by an error inside that property's value: then it is a
 * wrapper, and "not allowed here" (what it means for `false`) would mislead.
 */
function explainedBelow(error: OutputUnit, errors: readonly OutputUnit[]): boolean {
  if (error.keyword !== "additionalProperties" && error.keyword !== "unevaluatedProperties") {
    return false;
  }
  const key = /^Property "(.*)" does not match/s.exec(error.error)?.[1];
  if (key === undefined) return false;
  const below = `${decodePointer(error.instanceLocation.replace(/^#/, ""))}/${
    key.replaceAll("~", "~0").replaceAll("/", "~1")
  }`;
  return errors.some((other) =>
    other !== error && !WRAPPER_KEYWORDS.has(other.keyword) &&
    decodePointer(other.instanceLocation.replace(/^#/, "")).startsWith(below)
  );
}

/** Instance locations come URI-encoded ("/caf%C3%A9"); people read them decoded. */
function decodePointer(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}
