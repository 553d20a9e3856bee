// JSON Schema validation with @cfworker/json-schema, prepared once per schema at
// start-up (adr/0006). Inline npm: specifier so that running main.ts from a URL works.
import { dereference, type Schema, Validator } from "npm:@cfworker/json-schema@4.1.6";
import { isObject } from "./_json.ts";
import type { JsonObject } from "./types.ts";

/** A prepared schema: `undefined` when the value is valid, else a readable reason. */
export type SchemaCheck = (value: unknown) => string | undefined;

type Draft = "4" | "7" | "2019-09" | "2020-12";

const DIALECTS: Record<string, Draft> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
  "http://json-schema.org/draft-04/schema": "4",
};

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

const MAX_REPORTED_ERRORS = 10;

/** The base URI the validator gives a schema without `$id`. */
const DEFAULT_BASE = "https://github.com/cfworker";

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

/**
 * Prepares a schema; throws an Error saying what is wrong with it. Every `$ref` must
 * resolve inside the schema itself: nothing is ever fetched.
 */
export function compileSchema(schema: JsonObject): SchemaCheck {
  const draft = draftOf(schema);
  const known = new Set(Object.keys(dereference(schema as Schema)));
  // draft-04 names the base URI `id`; later drafts `$id`.
  const idKeyword = draft === "4" ? "id" : "$id";
  checkSubschemas(schema, DEFAULT_BASE, known, idKeyword);
  const validator = new Validator(schema as Schema, draft, false);
  return (value) => {
    const { valid, errors } = validator.validate(value);
    return valid ? undefined : describe(errors);
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
function subschemasOf(schema: JsonObject): unknown[] {
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
 * The validator does not check schemas against their meta-schema, so the two mistakes
 * that would otherwise surface only at call time are caught here: a `$ref` that does
 * not resolve, and a `type` that is not a JSON type (a typo such as "strnig").
 */
function checkSubschemas(
  schema: unknown,
  base: string,
  known: ReadonlySet<string>,
  idKeyword: string,
): void {
  if (!isObject(schema)) return; // `true`/`false` schemas, or not a schema at all
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
    checkSubschemas(subschema, here, known, idKeyword);
  }
}

interface OutputUnit {
  instanceLocation: string;
  keyword: string;
  error: string;
}

function describe(errors: readonly OutputUnit[]): string {
  // A `false` schema's error repeats its parent's ("does not match additional properties
  // schema"), so it is shown only when nothing else explains the failure.
  const meaningful = errors.filter((error) => !WRAPPER_KEYWORDS.has(error.keyword));
  const forbidden = errors.filter((error) => error.keyword === "false");
  const reported = meaningful.length > 0 ? meaningful : forbidden.length > 0 ? forbidden : errors;
  const shown = reported.slice(0, MAX_REPORTED_ERRORS).map((error) => {
    const where = decodePointer(error.instanceLocation.replace(/^#/, ""));
    // A `false` schema (e.g. `additionalProperties: false`) admits nothing.
    const reason = error.keyword === "false"
      ? "no value is allowed here"
      : error.error.replace(/\.$/, "");
    return where === "" ? reason : `at "${where}": ${reason}`;
  });
  const more = reported.length > shown.length ? `; and ${reported.length - shown.length} more` : "";
  return shown.join("; ") + more;
}

/** Instance locations come URI-encoded ("/caf%C3%A9"); people read them decoded. */
function decodePointer(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}
