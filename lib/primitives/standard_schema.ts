// Schemas written with a schema library (Zod, Valibot, ArkType …) where JSON Schema is
// expected. Such a schema carries a `~standard` property (Standard Schema,
// https://standardschema.dev); one that also implements Standard JSON Schema
// (https://standardschema.dev/json-schema: Zod 4.2+ does) converts itself, and toolshed
// serves and validates the JSON Schema it gives. One that cannot is refused with the fix.
// Only the JSON Schema is used afterwards: the library's own transforms and refinements
// do not run (adr/0017).
import { isObject, type JsonObject, messageOf } from "../util/json.ts";

interface StandardProps {
  vendor?: unknown;
  version?: unknown;
  jsonSchema?: { input?: unknown; output?: unknown };
}

/**
 * `value` as JSON Schema: itself when it is not a library's schema, else what the library
 * converts it to (`input` for inputSchema, `output` for outputSchema). Throws an Error
 * saying what to do when the library cannot convert it.
 */
export function asJsonSchema(value: unknown, side: "input" | "output"): unknown {
  if (!isLibrarySchema(value)) return value;
  const standard = (value as { "~standard"?: StandardProps })["~standard"];
  const oldZod = isOldZod(value as object);
  const vendor = typeof standard?.vendor === "string"
    ? standard.vendor
    : oldZod
    ? "Zod 3"
    : "schema library's";
  const convert = standard?.jsonSchema?.[side];
  if (typeof convert !== "function") {
    throw new Error(
      `is a ${vendor} schema that cannot give its JSON Schema: toolshed takes JSON Schema; ` +
        (vendor === "zod" || oldZod
          ? "use Zod 4.2 or later (its schemas convert themselves), or convert it with " +
            "z.toJSONSchema(schema) (Zod 4) or the zod-to-json-schema package (Zod 3)"
          : "convert it to JSON Schema with the library's converter"),
    );
  }
  let converted: unknown;
  try {
    converted = convert.call(standard!.jsonSchema, { target: "draft-2020-12" });
  } catch (error) {
    throw new Error(
      `is a ${vendor} schema whose conversion to JSON Schema failed: ${messageOf(error)}`,
    );
  }
  if (!isObject(converted)) {
    throw new Error(`is a ${vendor} schema whose conversion to JSON Schema gave no object`);
  }
  return converted as JsonObject;
}

/** A Standard Schema, or a Zod 3 schema from before Standard Schema (it has `_def`). */
function isLibrarySchema(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return "~standard" in value || isOldZod(value);
}

function isOldZod(value: object): boolean {
  return "_def" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}
