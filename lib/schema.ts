// JSON Schema validation with Ajv, compiled once per schema at start-up (see adr/0006).
// Inline npm: specifiers so that running main.ts from a URL resolves them too.
import { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";
import { Ajv2019 } from "npm:ajv@8.20.0/dist/2019.js";
import { Ajv as AjvDraft07 } from "npm:ajv@8.20.0";
import { default as addFormats } from "npm:ajv-formats@3.0.1";
import type { JsonObject } from "./types.ts";

/** A compiled schema: `undefined` when the value is valid, else a readable reason. */
export type Validator = (value: unknown) => string | undefined;

type AjvInstance = Ajv2020;
type ErrorObject = NonNullable<AjvInstance["errors"]>[number];

const DIALECTS: Record<string, () => AjvInstance> = {
  "https://json-schema.org/draft/2020-12/schema": () => new Ajv2020(OPTIONS),
  "https://json-schema.org/draft/2019-09/schema": () => new Ajv2019(OPTIONS) as AjvInstance,
  "http://json-schema.org/draft-07/schema": () => new AjvDraft07(OPTIONS) as AjvInstance,
};
const DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema";

const OPTIONS = {
  // Report every failing field, so the model can fix its whole call at once.
  allErrors: true,
  // Tools may carry keywords Ajv does not know (e.g. `x-mcp-header`); they are annotations.
  strict: false,
  // Schema `default`s fill in missing arguments before the handler runs.
  useDefaults: true,
  // Ajv never fetches: `loadSchema` is not set, so a network $ref fails to compile.
} as const;

const MAX_REPORTED_ERRORS = 10;

/** The Ajv instance for each dialect, made on first use. */
const instances = new Map<string, AjvInstance>();

function dialectOf(schema: JsonObject): string {
  const declared = schema.$schema;
  if (declared === undefined) return DEFAULT_DIALECT;
  if (typeof declared !== "string") throw new Error("$schema must be a string");
  const normalized = declared.replace(/#$/, "");
  if (!(normalized in DIALECTS)) {
    throw new Error(
      `$schema "${declared}" is not supported; use 2020-12 (the default), 2019-09 or draft-07`,
    );
  }
  return normalized;
}

/** Compiles a schema; throws an Error whose message says what is wrong with it. */
export function compileSchema(schema: JsonObject): Validator {
  const dialect = dialectOf(schema);
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = DIALECTS[dialect]();
    addFormats.default(ajv as never);
    instances.set(dialect, ajv);
  }
  const validate = ajv.compile(schema);
  return (value) => validate(value) ? undefined : describe(validate.errors ?? []);
}

function describe(errors: readonly ErrorObject[]): string {
  const shown = errors.slice(0, MAX_REPORTED_ERRORS).map((error) => {
    const where = error.instancePath === "" ? "" : `"${error.instancePath}" `;
    const extra = error.params && "additionalProperty" in error.params
      ? `: "${error.params.additionalProperty}"`
      : "";
    return `${where}${error.message ?? "is invalid"}${extra}`;
  });
  const more = errors.length > shown.length ? `; and ${errors.length - shown.length} more` : "";
  return shown.join("; ") + more;
}
