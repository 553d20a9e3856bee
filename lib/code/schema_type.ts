// One JSON Schema as a TypeScript type (adr/0073 decision 3), written by hand for the subset MCP
// tools use: what a type can say is the type; what it cannot (patterns, formats, bounds,
// defaults, examples) is kept in comments beside it. A local `$ref` is a name the caller gives
// (SchemaNames), never the target copied in, so the text grows with the schema alone, recursion
// included; nesting past MAX_SCHEMA_DEPTH is declared `unknown` and says so.
import { isObject, type JsonObject } from "../util/json.ts";

/** Schemas nested deeper than this under a tool's root (or a named type) are `unknown`. */
export const MAX_SCHEMA_DEPTH = 32;

/** A value kept in a comment (a default, an example, a `not`) is cut after this many characters. */
export const MAX_COMMENT_VALUE = 1_000;

/** The named types of one schema document: a tool's input or output schema. */
export interface SchemaNames {
  /** The document `#…` refs point into. */
  readonly document: JsonObject;
  /** The name of the type a local ref (`#/$defs/X`, `#`) points to, given at its first use. */
  nameOf(pointer: string): string;
}

/** A type's text, and whether it needs parentheses inside another (a union, an intersection). */
interface Rendered {
  readonly text: string;
  readonly loose: boolean;
}

const UNKNOWN: Rendered = { text: "unknown", loose: false };
const NEVER: Rendered = { text: "never", loose: false };
const atom = (text: string): Rendered => ({ text, loose: false });

/**
 * The TypeScript type of `schema`, its object literals indented under `indent` (the indentation
 * of the line the type starts on).
 */
export function typeOf(schema: unknown, names: SchemaNames, indent: string): string {
  return render(schema, names, 0, indent).text;
}

/** What a schema says for its reader: title, description, then a tag per kept keyword. */
export function docLines(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const lines: string[] = [];
  for (const key of ["title", "description"]) {
    if (typeof schema[key] === "string") lines.push(...textLines(schema[key] as string));
  }
  // `number` is TypeScript's for an integer too: the schema's word is kept.
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (
    types.includes("integer") && !Object.hasOwn(schema, "const") && !Object.hasOwn(schema, "enum")
  ) {
    lines.push("@integer");
  }
  for (const key of KEPT_KEYWORDS) {
    if (!Object.hasOwn(schema, key)) continue;
    const value = schema[key];
    if (key === "examples" && Array.isArray(value)) {
      for (const example of value) lines.push(`@example ${commentValue(example)}`);
    } else if (key === "deprecated" || key === "readOnly" || key === "writeOnly") {
      if (value === true) lines.push(`@${key}`);
    } else {
      const shown = typeof value === "string" && WORDS.has(key) ? value : commentValue(value);
      lines.push(`@${key} ${shown}`);
    }
  }
  return lines;
}

/**
 * A JSDoc block of `lines` at `indent` (nothing for no lines), each line safe: a `*` + `/` in
 * the text is written `*\/`, so no text ends the comment.
 */
export function jsDoc(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return "";
  const safe = lines.flatMap((line) => commentSafe(line).split(LINE_BREAK));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${
    safe.map((line) => `${indent} *${line === "" ? "" : ` ${line}`}`).join("\n")
  }\n${indent} */\n`;
}

/** A property or method name as TypeScript reads it: bare when an identifier, else quoted. */
export function memberName(name: string): string {
  return IDENTIFIER.test(name) && name !== "new" ? name : JSON.stringify(name);
}

/** The lines of a text, trailing spaces and blank lines at either end removed. */
export function textLines(text: string): string[] {
  const lines = text.split(LINE_BREAK).map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Keywords TypeScript cannot say, kept as tags in this order (title and description first). */
const KEPT_KEYWORDS = [
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
  "not",
  "if",
  "then",
  "else",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
];

/** Keywords whose string value is written as it is, not as JSON (a pattern reads better bare). */
const WORDS = new Set(["format", "pattern", "contentMediaType", "contentEncoding"]);
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;
const LINE_BREAKS = new RegExp(LINE_BREAK.source, "g");
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Keywords that make a schema without `type` an object's, or an array's. */
const OBJECT_KEYWORDS = ["properties", "additionalProperties", "patternProperties", "required"];
const ARRAY_KEYWORDS = ["items", "prefixItems", "additionalItems"];

function render(schema: unknown, names: SchemaNames, depth: number, indent: string): Rendered {
  if (schema === false) return NEVER;
  if (!isObject(schema)) return UNKNOWN;
  if (depth > MAX_SCHEMA_DEPTH) {
    return {
      text: `unknown /* nested deeper than ${MAX_SCHEMA_DEPTH} schemas: not declared */`,
      loose: true,
    };
  }
  const parts: Rendered[] = [];
  if (typeof schema.$ref === "string") parts.push(refType(schema.$ref, names));
  const own = ownType(schema, names, depth, indent);
  if (own !== undefined) parts.push(own);
  for (const key of ["anyOf", "oneOf"]) {
    const members = schema[key];
    if (Array.isArray(members)) {
      parts.push(union(members.map((member) => inline(member, names, depth + 1, indent))));
    }
  }
  if (Array.isArray(schema.allOf)) {
    parts.push(...schema.allOf.map((member) => inline(member, names, depth + 1, indent)));
  }
  return intersection(parts);
}

/** A schema where no JSDoc can stand (an item, a member): what it says goes in a comment before it. */
function inline(schema: unknown, names: SchemaNames, depth: number, indent: string): Rendered {
  const type = render(schema, names, depth, indent);
  const lines = docLines(schema);
  if (lines.length === 0) return type;
  const note = commentSafe(lines.join("; ")).replace(LINE_BREAKS, " ");
  return { text: `/* ${note} */ ${type.text}`, loose: true };
}

/** What `const`, `enum` or `type` (or, without them, the keywords of one type) say. */
function ownType(
  schema: JsonObject,
  names: SchemaNames,
  depth: number,
  indent: string,
): Rendered | undefined {
  if (Object.hasOwn(schema, "const")) return atom(literal(schema.const));
  if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => atom(literal(value))));
  let types: string[];
  if (typeof schema.type === "string") types = [schema.type];
  else if (Array.isArray(schema.type)) types = schema.type.filter((t) => typeof t === "string");
  else if (OBJECT_KEYWORDS.some((key) => Object.hasOwn(schema, key))) types = ["object"];
  else if (ARRAY_KEYWORDS.some((key) => Object.hasOwn(schema, key))) types = ["array"];
  else return undefined;
  return union(types.map((type) => {
    switch (type) {
      case "object":
        return objectType(schema, names, depth, indent);
      case "array":
        return arrayType(schema, names, depth, indent);
      case "integer":
        return atom("number");
      case "string":
      case "number":
      case "boolean":
      case "null":
        return atom(type);
      default:
        return UNKNOWN;
    }
  }));
}

function objectType(
  schema: JsonObject,
  names: SchemaNames,
  depth: number,
  indent: string,
): Rendered {
  const inner = `${indent}  `;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required)
      ? schema.required.filter((name) => typeof name === "string")
      : [],
  );
  const members: string[] = [];
  const valueTypes: Rendered[] = [];
  let optional = false;
  for (const [name, property] of Object.entries(properties)) {
    const type = render(property, names, depth + 1, inner);
    const mark = required.has(name) ? "" : "?";
    if (mark !== "") optional = true;
    valueTypes.push(type);
    members.push(
      `${jsDoc(docLines(property), inner)}${inner}${memberName(name)}${mark}: ${type.text};`,
    );
  }
  // A required name the schema gives no property for must still be there, of any type.
  for (const name of required) {
    if (Object.hasOwn(properties, name)) continue;
    valueTypes.push(UNKNOWN);
    members.push(`${inner}${memberName(name)}: unknown;`);
  }
  // Other keys: an index signature, whose type admits the named properties' too (TypeScript's rule).
  const extras: Rendered[] = [];
  const extraDoc: string[] = [];
  const patterns = isObject(schema.patternProperties) ? schema.patternProperties : {};
  for (const [pattern, each] of Object.entries(patterns)) {
    extras.push(render(each, names, depth + 1, inner));
    const about = docLines(each);
    extraDoc.push(`keys matching ${pattern}${about.length > 0 ? `: ${about.join("; ")}` : ""}`);
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== false) {
    extras.push(render(additional, names, depth + 1, inner));
    extraDoc.push(...docLines(additional));
  } else if (additional === undefined && members.length === 0 && extras.length === 0) {
    extras.push(UNKNOWN);
  }
  if (extras.length === 0) {
    return members.length === 0 ? atom("Record<string, never>") : block(members, indent);
  }
  // TypeScript holds each property to the index signature, so its type admits theirs too; a
  // property's object type is not written there again (nested, the text would double at each
  // level): the signature is then `unknown`, and what other keys hold is said above it.
  const extra = union(extras);
  let value = UNKNOWN;
  if (valueTypes.every((type) => !type.text.includes("\n"))) {
    value = union([extra, ...valueTypes, ...(optional ? [atom("undefined")] : [])]);
  } else if (extra.text !== "unknown") {
    extraDoc.push(`other keys: ${extra.text}`);
  }
  const signature = `[key: string]: ${value.text}`;
  if (members.length === 0 && extraDoc.length === 0 && !signature.includes("\n")) {
    return atom(`{ ${signature} }`);
  }
  members.push(`${jsDoc(extraDoc, inner)}${inner}${signature};`);
  return block(members, indent);
}

function block(members: readonly string[], indent: string): Rendered {
  return atom(`{\n${members.join("\n")}\n${indent}}`);
}

function arrayType(
  schema: JsonObject,
  names: SchemaNames,
  depth: number,
  indent: string,
): Rendered {
  // 2020-12: prefixItems, then items for the rest; drafts before it: items as a list, then
  // additionalItems.
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
    ? schema.items
    : undefined;
  if (prefix === undefined) return atom(arrayOf(inline(schema.items, names, depth + 1, indent)));
  const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
  const least = typeof schema.minItems === "number" ? schema.minItems : 0;
  const elements = prefix.map((item, i) => {
    const type = inline(item, names, depth + 1, indent);
    return i < least ? type.text : `${parenthesized(type)}?`;
  });
  if (rest !== false) elements.push(`...${arrayOf(inline(rest, names, depth + 1, indent))}`);
  return atom(`[${elements.join(", ")}]`);
}

/** `T[]`, or `Array<T>` where `T[]` would read wrong (a union, a comment, an object literal). */
function arrayOf(item: Rendered): string {
  return item.loose || item.text.includes("\n") ? `Array<${item.text}>` : `${item.text}[]`;
}

function refType(ref: string, names: SchemaNames): Rendered {
  if (ref !== "#" && !ref.startsWith("#/")) {
    return {
      text: `unknown /* $ref ${commentSafe(JSON.stringify(ref))} is not followed */`,
      loose: true,
    };
  }
  if (pointerTarget(names.document, ref) === undefined) {
    return {
      text: `unknown /* $ref ${commentSafe(JSON.stringify(ref))} points nowhere */`,
      loose: true,
    };
  }
  return atom(names.nameOf(ref));
}

/** What a local ref (`#`, `#/a/b`, RFC 6901 in a URI fragment) points to in `document`. */
export function pointerTarget(document: JsonObject, ref: string): unknown {
  let at: unknown = document;
  if (ref === "#") return at;
  for (const raw of ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(segment)) at = at[Number(segment)];
    else if (isObject(at) && Object.hasOwn(at, segment)) at = at[segment];
    else return undefined;
  }
  return at;
}

function union(members: readonly Rendered[]): Rendered {
  if (members.some((member) => member.text === "unknown")) return UNKNOWN;
  const texts = new Set<string>();
  const kept = members.filter((member) => {
    if (member.text === "never" || texts.has(member.text)) return false;
    texts.add(member.text);
    return true;
  });
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0];
  return { text: kept.map(parenthesized).join(" | "), loose: true };
}

function intersection(parts: readonly Rendered[]): Rendered {
  if (parts.some((part) => part.text === "never")) return NEVER;
  const kept = parts.filter((part) => part.text !== "unknown");
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0];
  return { text: kept.map(parenthesized).join(" & "), loose: true };
}

function parenthesized(type: Rendered): string {
  return type.loose ? `(${type.text})` : type.text;
}

/** A JSON value as a TypeScript literal type (JSON's syntax is TypeScript's for these). */
function literal(value: unknown): string {
  return JSON.stringify(value) ?? "unknown";
}

/** A value in a comment: its JSON, cut at MAX_COMMENT_VALUE characters. */
function commentValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= MAX_COMMENT_VALUE ? text : `${text.slice(0, MAX_COMMENT_VALUE)}…`;
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
