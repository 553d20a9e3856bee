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
  checkSubschemas(schema, typeof schema.$id === "string" ? schema.$id : DEFAULT_BASE, known);
  const validator = new Validator(schema as Schema, draft, false);
  return (value) => {
    const { valid, errors } = validator.validate(value);
    return valid ? undefined : describe(errors);
  };
}

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * The validator does not check schemas against their meta-schema, so the two mistakes
 * that would otherwise surface only at call time are caught here: a `$ref` that does
 * not resolve, and a `type` that is not a JSON type (a typo such as "strnig").
 */
function checkSubschemas(node: unknown, base: string, known: ReadonlySet<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) checkSubschemas(item, base, known);
    return;
  }
  if (!isObject(node)) return;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  for (const type of types) {
    if (type !== undefined && !JSON_TYPES.has(type as string)) {
      throw new Error(`type ${JSON.stringify(type)} is not a JSON type`);
    }
  }
  const here = typeof node.$id === "string" ? new URL(node.$id, base).href : base;
  if (typeof node.$ref === "string") {
    const target = new URL(node.$ref, here).href;
    const withoutEmptyFragment = target.replace(/#$/, "");
    if (!known.has(target) && !known.has(withoutEmptyFragment)) {
      throw new Error(
        `$ref "${node.$ref}" does not resolve inside the schema (nothing is fetched)`,
      );
    }
  }
  for (const [key, value] of Object.entries(node)) {
    // `const`, `enum`, `default` and `examples` hold data, not schemas.
    if (key !== "const" && key !== "enum" && key !== "default" && key !== "examples") {
      checkSubschemas(value, here, known);
    }
  }
}

interface OutputUnit {
  instanceLocation: string;
  keyword: string;
  error: string;
}

function describe(errors: readonly OutputUnit[]): string {
  const meaningful = errors.filter((error) => !WRAPPER_KEYWORDS.has(error.keyword));
  const shown = meaningful.slice(0, MAX_REPORTED_ERRORS).map((error) => {
    const where = error.instanceLocation.replace(/^#/, "");
    const reason = error.error.replace(/\.$/, "");
    return where === "" ? reason : `at "${where}": ${reason}`;
  });
  const more = meaningful.length > shown.length
    ? `; and ${meaningful.length - shown.length} more`
    : "";
  return shown.join("; ") + more;
}
