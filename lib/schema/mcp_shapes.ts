// The MCP shapes toolshed checks before they reach a client, as JSON Schemas checked by
// the same validator as tool arguments. A strict client (both official SDKs are) rejects
// a whole `tools/list` for one bad icon, or a `tools/call` for one bad content block; so
// tool metadata is checked at load and a handler's own CallToolResult at each call.
import { compileSchema, type SchemaCheck } from "./compile.ts";
import type { JsonObject } from "../util/json.ts";

const ICONS = {
  type: "array",
  items: {
    type: "object",
    properties: {
      src: { type: "string", pattern: "^(https:|data:)" },
      mimeType: { type: "string" },
      sizes: { type: "array", items: { type: "string" } },
      theme: { enum: ["light", "dark"] },
    },
    required: ["src"],
  },
};

const ANNOTATIONS = {
  type: "object",
  properties: {
    title: { type: "string" },
    readOnlyHint: { type: "boolean" },
    destructiveHint: { type: "boolean" },
    idempotentHint: { type: "boolean" },
    openWorldHint: { type: "boolean" },
  },
};

/** One `ContentBlock`, by its `type` (MCP 2026-07-28 `ContentBlock` union). */
const CONTENT_BLOCK = {
  type: "object",
  required: ["type"],
  properties: {
    type: { enum: ["text", "image", "audio", "resource_link", "resource"] },
    annotations: {
      type: "object",
      properties: {
        audience: { type: "array", items: { enum: ["user", "assistant"] } },
        priority: { type: "number", minimum: 0, maximum: 1 },
        lastModified: { type: "string" },
      },
    },
    _meta: { type: "object" },
  },
  allOf: [
    {
      if: { properties: { type: { const: "text" } } },
      then: { required: ["text"], properties: { text: { type: "string" } } },
    },
    {
      if: { properties: { type: { enum: ["image", "audio"] } } },
      then: {
        required: ["data", "mimeType"],
        properties: { data: { type: "string" }, mimeType: { type: "string" } },
      },
    },
    {
      if: { properties: { type: { const: "resource_link" } } },
      then: {
        required: ["uri", "name"],
        properties: { uri: { type: "string" }, name: { type: "string" } },
      },
    },
    {
      if: { properties: { type: { const: "resource" } } },
      then: {
        required: ["resource"],
        properties: {
          resource: {
            type: "object",
            required: ["uri"],
            properties: {
              uri: { type: "string" },
              mimeType: { type: "string" },
              text: { type: "string" },
              blob: { type: "string" },
            },
            anyOf: [{ required: ["text"] }, { required: ["blob"] }],
          },
        },
      },
    },
  ],
};

/** MCP `Annotations` of a resource (or a content block). */
const RESOURCE_ANNOTATIONS = {
  type: "object",
  properties: {
    audience: { type: "array", items: { enum: ["user", "assistant"] } },
    priority: { type: "number", minimum: 0, maximum: 1 },
    lastModified: { type: "string" },
  },
};

/** One `TextResourceContents` or `BlobResourceContents` of a `resources/read` result. */
const RESOURCE_CONTENTS = {
  type: "object",
  required: ["uri"],
  properties: {
    uri: { type: "string" },
    mimeType: { type: "string" },
    text: { type: "string" },
    blob: { type: "string", contentEncoding: "base64" },
    _meta: { type: "object" },
  },
  oneOf: [{ required: ["text"] }, { required: ["blob"] }],
};

/** One `PromptMessage`: a role and one content block. */
const PROMPT_MESSAGE = {
  type: "object",
  required: ["role", "content"],
  properties: { role: { enum: ["user", "assistant"] }, content: CONTENT_BLOCK },
};

const CALL_TOOL_RESULT = {
  type: "object",
  required: ["content"],
  properties: {
    content: { type: "array", items: CONTENT_BLOCK },
    isError: { type: "boolean" },
    _meta: { type: "object" },
  },
};

/** Prepares a schema on first use: most servers never need some of these checks. */
function onFirstUse(schema: JsonObject): SchemaCheck {
  let check: SchemaCheck | undefined;
  return (value) => (check ??= compileSchema(schema))(value);
}

export const checkIcons: SchemaCheck = onFirstUse(ICONS);
export const checkAnnotations: SchemaCheck = onFirstUse(ANNOTATIONS);
export const checkCallToolResult: SchemaCheck = onFirstUse(CALL_TOOL_RESULT);
export const checkResourceAnnotations: SchemaCheck = onFirstUse(RESOURCE_ANNOTATIONS);
export const checkResourceContents: SchemaCheck = onFirstUse(RESOURCE_CONTENTS);
export const checkPromptMessage: SchemaCheck = onFirstUse(PROMPT_MESSAGE);
