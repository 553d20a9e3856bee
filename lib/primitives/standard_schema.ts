// Schemas written with a schema library (Zod, Valibot, ArkType …) where JSON Schema is
// expected. Such a schema carries a `~standard` property (Standard Schema,
// https://standardschema.dev); one that also implements Standard JSON Schema
// (https://standardschema.dev/json-schema: Zod 4.2+, ArkType 2.1.28+, and Valibot through
// `toStandardJsonSchema` of @valibot/to-json-schema 1.5+) converts itself, and toolshed
// lists and checks the JSON Schema it gives. One that cannot is refused with the fix for
// its library.
//
// An inputSchema's own validator (`~standard.validate`) then runs on each call after the
// JSON Schema check (adr/0069 step 2): the handler receives the value it gives, with the
// library's transforms, defaults, coercions and refinements applied, and its issues are the
// call's "Invalid arguments" error. An outputSchema is only converted: the handler returns
// the schema's output type, which the JSON Schema check governs on its way to the wire; the
// library's validator (input to output) is not run on it, since it would transform an
// output a second time.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";

interface StandardProps {
  vendor?: unknown;
  version?: unknown;
  validate?: unknown;
  jsonSchema?: { input?: unknown; output?: unknown };
}

/**
 * What a library is told when it converts (Standard JSON Schema's `libraryOptions`). Valibot
 * refuses to convert a pipe with a refinement (`check`, `checkItems` …: a function JSON
 * Schema cannot express); since the inputSchema's validator runs on each call and enforces
 * it, the JSON Schema may leave it out, as Zod and ArkType leave theirs out themselves.
 */
const LIBRARY_OPTIONS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ["valibot", { ignoreActions: ["check", "check_items", "partial_check", "raw_check"] }],
]);

/** A Standard Schema's own validator: a result, or a promise of one (an async refinement). */
export type StandardValidate = (value: unknown) => unknown;

/**
 * `value` as JSON Schema: itself when it is not a library's schema, else what the library
 * converts it to (`input` for inputSchema, `output` for outputSchema). Throws an Error
 * saying what to do when the library cannot convert it.
 */
export function asJsonSchema(value: unknown, side: "input" | "output"): unknown {
  if (!isLibrarySchema(value)) return value;
  const standard = (value as { "~standard"?: StandardProps })["~standard"];
  const oldZod = isOldZod(value as object);
  const vendor = vendorOf(standard, oldZod);
  const convert = standard?.jsonSchema?.[side];
  if (typeof convert !== "function") {
    throw new Error(
      `is ${aSchemaOf(vendor)} that cannot give its JSON Schema: toolshed takes JSON Schema; ` +
        fixFor(vendor, oldZod),
    );
  }
  let converted: unknown;
  try {
    const libraryOptions = LIBRARY_OPTIONS.get(vendor);
    converted = convert.call(standard!.jsonSchema, {
      target: "draft-2020-12",
      ...libraryOptions === undefined ? {} : { libraryOptions },
    });
  } catch (error) {
    throw new Error(
      `is ${aSchemaOf(vendor)} whose conversion to JSON Schema failed: ${messageOf(error)}`,
    );
  }
  if (!isObject(converted)) {
    throw new Error(`is ${aSchemaOf(vendor)} whose conversion to JSON Schema gave no object`);
  }
  return converted as JsonObject;
}

/**
 * The library's own validator of a Standard Schema, called as `schema["~standard"].validate`;
 * undefined for a JSON Schema. Throws when the schema has `~standard` but no validator.
 */
export function standardValidator(value: unknown): StandardValidate | undefined {
  if (!isStandardSchema(value)) return undefined;
  const standard = value["~standard"] as StandardProps | undefined;
  const validate = standard?.validate;
  if (typeof validate !== "function") {
    throw new Error(
      `is ${aSchemaOf(vendorOf(standard, false))} without a "~standard.validate" function`,
    );
  }
  return (input) => validate.call(standard, input);
}

/** Issues shown in a message; the rest are counted. */
const MAX_REPORTED_ISSUES = 10;
/** Characters of one issue's message, and of one issue's path, shown before "…". */
const MAX_ISSUE_CHARS = 200;

/**
 * What a Standard Schema validate's result means: the value the handler receives, or its
 * issues in toolshed's wording (`at "/a/b": message`, joined by "; ", at most
 * MAX_REPORTED_ISSUES of them, each part cut at MAX_ISSUE_CHARS).
 */
export function outcomeOf(result: unknown): { value: unknown } | { problem: string } {
  // Not isObject: ArkType's failure is an array of its errors that also has `issues`.
  if (typeof result !== "object" || result === null) {
    return { problem: `the schema's validator gave no result: ${String(result)}` };
  }
  const { issues, value } = result as { issues?: unknown; value?: unknown };
  if (issues === undefined || issues === null) return { value };
  if (!Array.isArray(issues) || issues.length === 0) {
    return { problem: "the schema's validator refused them without saying why" };
  }
  const shown = issues.slice(0, MAX_REPORTED_ISSUES).map(describeIssue);
  const rest = issues.length - shown.length;
  return { problem: shown.join("; ") + (rest > 0 ? `; and ${rest} more` : "") };
}

function describeIssue(issue: unknown): string {
  const message = isObject(issue) && typeof issue.message === "string"
    ? cut(issue.message)
    : "invalid";
  const path = isObject(issue) && Array.isArray(issue.path) ? issue.path : [];
  if (path.length === 0) return message;
  const pointer = path.map((segment: unknown) => {
    const key = isObject(segment) ? segment.key : segment;
    return `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }).join("");
  return `at "${cut(pointer)}": ${message}`;
}

function cut(text: string): string {
  return text.length <= MAX_ISSUE_CHARS ? text : `${text.slice(0, MAX_ISSUE_CHARS)}…`;
}

function vendorOf(standard: StandardProps | undefined, oldZod: boolean): string {
  return typeof standard?.vendor === "string"
    ? standard.vendor
    : oldZod
    ? "Zod 3"
    : "schema library's";
}

/** "a zod schema", "an arktype schema". */
function aSchemaOf(vendor: string): string {
  return `${/^[aeiou]/i.test(vendor) ? "an" : "a"} ${vendor} schema`;
}

/** The exact fix for a library whose schema cannot give its JSON Schema. */
function fixFor(vendor: string, oldZod: boolean): string {
  if (vendor === "zod" || oldZod) {
    return "use Zod 4.2 or later (its schemas convert themselves), or convert it with " +
      "z.toJSONSchema(schema) (Zod 4) or the zod-to-json-schema package (Zod 3)";
  }
  if (vendor === "valibot") {
    return 'wrap it in toStandardJsonSchema(schema) from "@valibot/to-json-schema" 1.5 ' +
      "or later, which keeps its validator";
  }
  if (vendor === "arktype") return "use ArkType 2.1.28 or later (its schemas convert themselves)";
  return "convert it to JSON Schema with the library's converter";
}

/** A Standard Schema, or a Zod 3 schema from before Standard Schema (it has `_def`). */
function isLibrarySchema(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return isStandardSchema(value);
  return "~standard" in value || isOldZod(value);
}

/** An object, or a function (an ArkType schema is callable), with `~standard`. */
function isStandardSchema(value: unknown): value is { "~standard": unknown } {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    "~standard" in value;
}

function isOldZod(value: object): boolean {
  return "_def" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}
