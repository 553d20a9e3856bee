// How results look on the wire in each protocol era. The handlers build era-neutral
// objects; these functions add the 2026-07-28 fields, or shape them for a 2025-era version
// without a word of 2026 vocabulary (adr/0004).
import { isObject } from "../util/json.ts";
import { LIST_TTL_MS, META_SERVER_INFO, SERVER_INFO } from "../wire/protocol.ts";
import type { VersionFeatures } from "../wire/versions.ts";
import type { CallToolResult } from "../primitives/tool_call.ts";
import type { Tool } from "../primitives/tools.ts";
import type { JsonObject } from "../util/json.ts";

/** The `_meta` of a result that brings none of its own; shared, never mutated. */
const SERVER_META = Object.freeze({ [META_SERVER_INFO]: SERVER_INFO });

/** The `_meta` naming `serverInfo` (default: toolshed's own), made once per server. */
export function serverMetaOf(serverInfo: Readonly<JsonObject> | undefined): Readonly<JsonObject> {
  return serverInfo === undefined
    ? SERVER_META
    : Object.freeze({ [META_SERVER_INFO]: Object.freeze(serverInfo) });
}

/**
 * A 2026-07-28 result: `resultType` first ("complete" unless the handler set one), cache
 * hints when asked for, serverInfo merged into `_meta`. (A plain loop: object rest/spread
 * was a measurable share of a call, bench/core_bench.ts.)
 */
export function statelessResult(
  result: JsonObject,
  cacheable: boolean,
  listTtlMs = LIST_TTL_MS,
  serverMeta: Readonly<JsonObject> = SERVER_META,
): JsonObject {
  const stamped: JsonObject = {
    resultType: typeof result.resultType === "string" ? result.resultType : "complete",
  };
  for (const key in result) {
    if (key !== "resultType" && key !== "_meta") stamped[key] = result[key];
  }
  // A handler that knows better (a read) sets its own hints; lists take the default.
  // ...and an incomplete result (input_required) is no answer to cache.
  // A list shown to its caller alone says "private" and takes the default time.
  if (cacheable && stamped.resultType === "complete") {
    if (stamped.ttlMs === undefined) stamped.ttlMs = listTtlMs;
    if (stamped.cacheScope === undefined) stamped.cacheScope = "public";
  }
  stamped._meta = isObject(result._meta)
    ? { ...result._meta, ...serverMeta }
    : serverMeta as JsonObject;
  return stamped;
}

/** The `Tool` object `tools/list` sends to a 2026-07-28 client. */
export function statelessTool(tool: Tool): JsonObject {
  const { title, description, inputSchema, outputSchema, annotations, icons, _meta } =
    tool.definition;
  return dropUndefined({
    name: tool.name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
    icons,
    _meta,
  });
}

/** The `Tool` object for a 2025-era session of the given version. */
export function sessionTool(tool: Tool, can: VersionFeatures): JsonObject {
  const { title, description, inputSchema, outputSchema, annotations, icons, _meta } =
    tool.definition;
  return dropUndefined({
    name: tool.name,
    title: can.toolTitle ? title : undefined,
    description,
    inputSchema,
    outputSchema: can.structuredContent && outputSchema
      ? sessionOutputSchema(outputSchema)
      : undefined,
    annotations: can.toolAnnotations ? annotations : undefined,
    icons: can.toolIcons ? icons : undefined,
    _meta: can.structuredContent ? _meta : undefined,
  });
}

/** A CallToolResult for a 2025-era session: structured content only where the version has it. */
export function sessionCallResult(
  result: CallToolResult,
  tool: Tool,
  can: VersionFeatures,
): JsonObject {
  const { resultType: _dropped, ...rest } = result;
  if (!("structuredContent" in rest)) return rest;
  if (!can.structuredContent) {
    const { structuredContent: _omitted, ...plain } = rest;
    return plain;
  }
  const schema = tool.definition.outputSchema;
  const wrap = schema ? !hasObjectRoot(schema) : !isObject(rest.structuredContent);
  return wrap ? { ...rest, structuredContent: { result: rest.structuredContent } } : rest;
}

function hasObjectRoot(schema: JsonObject): boolean {
  return schema.type === "object";
}

/**
 * Handshake-era clients require an object root. A schema with any other root is wrapped
 * as `{ result: <schema> }`, with same-document `$ref`s pointed at the new location.
 */
function sessionOutputSchema(schema: JsonObject): JsonObject {
  if (hasObjectRoot(schema)) return schema;
  const { $schema, ...inner } = schema;
  // draft-04 names a resource's base URI `id`; later drafts `$id`.
  const idKeyword = typeof $schema === "string" && $schema.includes("draft-04") ? "id" : "$id";
  return dropUndefined({
    $schema,
    type: "object",
    properties: { result: relocateRefs(inner, "#/properties/result", idKeyword) },
    required: ["result"],
  });
}

function relocateRefs(value: unknown, base: string, idKeyword: string): unknown {
  if (Array.isArray(value)) return value.map((item) => relocateRefs(item, base, idKeyword));
  if (!isObject(value)) return value;
  // A subschema with a base URI of its own is a resource: its "#/..." refs point into it,
  // wherever it sits, so it moves as it is.
  const id = value[idKeyword];
  if (typeof id === "string" && !id.startsWith("#")) return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    // Only JSON-pointer refs move; anchors ("#name") and other documents stay as they are.
    copy[key] =
      key === "$ref" && typeof item === "string" && (item === "#" || item.startsWith("#/"))
        ? base + item.slice(1)
        : relocateRefs(item, base, idKeyword);
  }
  return copy;
}

function dropUndefined(object: JsonObject): JsonObject {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

/**
 * A listing (`Resource`, `ResourceTemplate`, `Prompt`) for a version: `title` and `icons`
 * only where the version has them. The object itself when nothing is dropped.
 */
export function listingFor(listing: Readonly<JsonObject>, can: VersionFeatures): JsonObject {
  const dropTitle = !can.toolTitle && "title" in listing;
  const dropIcons = !can.toolIcons && "icons" in listing;
  if (!dropTitle && !dropIcons) return listing as JsonObject;
  const shaped: JsonObject = {};
  for (const key in listing) {
    if ((key === "title" && dropTitle) || (key === "icons" && dropIcons)) continue;
    shaped[key] = listing[key];
  }
  return shaped;
}
