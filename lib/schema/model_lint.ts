// What common model APIs reject or mangle in a tool that MCP itself accepts. An MCP client
// passes a tool's name, description and inputSchema on to the model API it talks to; when
// that API refuses one tool, it usually refuses the whole request, so one bad tool can stop
// every conversation in the client. These checks find such tools before a client does.
//
// Each rule names the API that refuses and cites where that is documented or reported:
//   Anthropic: tool names ^[a-zA-Z0-9_-]{1,64}$, and top-level property keys
//     ^[a-zA-Z0-9_.-]{1,64}$, and no oneOf/allOf/anyOf at the top level of input_schema
//     https://docs.anthropic.com/en/api/messages (tools[].name)
//     https://github.com/beautyfree/appstore-connect-mcp/issues/2 (property keys)
//     https://github.com/anthropics/claude-code/issues/5319 (top-level oneOf/allOf/anyOf)
//   OpenAI: function names a-z, A-Z, 0-9, "_" and "-", at most 64; descriptions at most 1024
//     characters; parameters of type "object" without oneOf/anyOf/allOf/enum/not at the top
//     level; every array schema has "items"
//     https://platform.openai.com/docs/api-reference/chat/create (tools[].function.name)
//     https://github.com/getsentry/sentry-mcp/issues/106 (description length)
//     https://github.com/nspady/google-calendar-mcp/issues/39 (top level)
//     https://github.com/sigoden/aichat/pull/1049 (array schema missing items)
//   Gemini: function names start with a letter or "_", at most 64; parameter names
//     [A-Za-z_][A-Za-z0-9_]*; `parameters` is a subset of OpenAPI 3.0's Schema: one `type`
//     (not a list), string enums, anyOf but no oneOf/allOf/not/const/$ref
//     https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration
//     https://ai.google.dev/api/caching#Schema
//     https://github.com/taylorwilsdon/google_workspace_mcp/issues/1099 (type lists, const)
//
// A finding is an error only when every one of these APIs refuses it (a name over 64
// characters); anything else is a warning, since a client for another API works.
// `additionalProperties`, which Gemini's OpenAPI subset also lacks, is left out on purpose:
// it is in nearly every schema, and Gemini clients now send JSON Schema as is
// (`parametersJsonSchema`), where it is accepted; flagging it would bury the rest.
// outputSchema is not linted: clients validate results against it, no model API receives it.
import { isObject } from "../util/json.ts";
import { OPENAI_DESCRIPTION, TOOL_NAME_LENGTH } from "./client_limits.ts";

/** One thing a model API would refuse or mangle. */
interface ModelFinding {
  readonly severity: "error" | "warning";
  /** Where: "name", "description", or "inputSchema". */
  readonly field: "name" | "description" | "inputSchema";
  /** A JSON pointer into the schema ("" for its root); undefined outside the schema. */
  readonly pointer: string | undefined;
  /** The APIs that refuse (or mangle) it. */
  readonly apis: readonly ModelApi[];
  /** What is wrong and why, one sentence without the tool's name. */
  readonly message: string;
}

type ModelApi = "Anthropic" | "OpenAI" | "Gemini";

/** What of a tool the model APIs receive. */
interface LintedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

const ANTHROPIC_OPENAI_NAME = /^[a-zA-Z0-9_-]+$/;
const GEMINI_NAME_START = /^[a-zA-Z_]/;
const MAX_NAME = TOOL_NAME_LENGTH.limit;
const OPENAI_MAX_DESCRIPTION = OPENAI_DESCRIPTION.limit;
const ANTHROPIC_PROPERTY_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;
const GEMINI_PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
/** Combinators OpenAI refuses at the root of parameters (Anthropic: the first three). */
const ROOT_REFUSED = ["oneOf", "anyOf", "allOf", "enum", "not"] as const;
const ROOT_REFUSED_SET: ReadonlySet<string> = new Set(ROOT_REFUSED);
const ANTHROPIC_ROOT_REFUSED = new Set(["oneOf", "anyOf", "allOf"]);
/** Keywords Gemini's Schema has no field for (its only combinator is anyOf). */
const GEMINI_MISSING = ["$ref", "$defs", "definitions", "const", "oneOf", "allOf", "not"];

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value is one subschema (`items` may be a list in older drafts). */
const SCHEMA_ONES = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);

/** Every finding for one tool, in a stable order: name, description, then the schema. */
export function lintForModels(tool: LintedTool): ModelFinding[] {
  return [...lintName(tool.name), ...lintDescription(tool.description), ...lintSchema(tool)];
}

function lintName(name: string): ModelFinding[] {
  const found: ModelFinding[] = [];
  const at = { field: "name", pointer: undefined } as const;
  if (name.length > MAX_NAME) {
    found.push({
      ...at,
      severity: "error",
      apis: ["Anthropic", "OpenAI", "Gemini"],
      message: `the name is ${name.length} characters long: Anthropic, OpenAI and Gemini ` +
        `accept at most ${MAX_NAME}`,
    });
  }
  if (!ANTHROPIC_OPENAI_NAME.test(name)) {
    found.push({
      ...at,
      severity: "warning",
      apis: ["Anthropic", "OpenAI"],
      message: `the name "${name}" has a character Anthropic and OpenAI refuse in tool names: ` +
        `use letters, digits, "_" and "-"`,
    });
  }
  if (!GEMINI_NAME_START.test(name)) {
    found.push({
      ...at,
      severity: "warning",
      apis: ["Gemini"],
      message: `the name "${name}" does not start with a letter or "_", which Gemini requires`,
    });
  }
  return found;
}

function lintDescription(description: string): ModelFinding[] {
  if (description.length <= OPENAI_MAX_DESCRIPTION) return [];
  return [{
    severity: "warning",
    field: "description",
    pointer: undefined,
    apis: ["OpenAI"],
    message: `the description is ${description.length} characters long: OpenAI refuses more ` +
      `than ${OPENAI_MAX_DESCRIPTION}`,
  }];
}

function lintSchema(tool: LintedTool): ModelFinding[] {
  const found: ModelFinding[] = [];
  const root = tool.inputSchema;
  const add = (pointer: string, apis: ModelApi[], message: string) =>
    found.push({ severity: "warning", field: "inputSchema", pointer, apis, message });

  for (const keyword of ROOT_REFUSED) {
    if (!Object.hasOwn(root, keyword)) continue;
    const apis: ModelApi[] = ANTHROPIC_ROOT_REFUSED.has(keyword)
      ? ["Anthropic", "OpenAI"]
      : ["OpenAI"];
    add(
      `/${keyword}`,
      apis,
      `"${keyword}" at the root of inputSchema is refused by ${apis.join(" and ")}: ` +
        `describe the arguments as properties of one object`,
    );
  }
  if (isObject(root.properties)) {
    for (const key of Object.keys(root.properties)) {
      const pointer = `/properties/${escape(key)}`;
      if (!ANTHROPIC_PROPERTY_KEY.test(key)) {
        add(
          pointer,
          ["Anthropic"],
          `the argument name "${key}" is refused by Anthropic, which allows 1 to 64 letters, ` +
            `digits, "_", "-" and "."`,
        );
      }
      if (!GEMINI_PARAMETER_NAME.test(key)) {
        add(
          pointer,
          ["Gemini"],
          `the argument name "${key}" is refused by Gemini, which allows a letter or "_" ` +
            `followed by letters, digits and "_" (at most 64)`,
        );
      }
    }
  }

  const seen = new Set<object>();
  const visit = (schema: unknown, pointer: string): void => {
    if (!isObject(schema) || seen.has(schema)) return;
    seen.add(schema);
    const type = schema.type;
    if (Array.isArray(type)) {
      add(
        `${pointer}/type`,
        ["Gemini"],
        `a list of types is refused by Gemini, whose "type" is one name: use "anyOf" ` +
          `(or "nullable": true for null)`,
      );
    }
    const types = Array.isArray(type) ? type : [type];
    if (types.includes("array") && !Object.hasOwn(schema, "items")) {
      add(
        pointer,
        ["OpenAI"],
        `an array schema without "items" is refused by OpenAI ("array schema missing items"): ` +
          `say what the array holds, e.g. "items": {}`,
      );
    }
    if (Array.isArray(schema.enum) && schema.enum.some((value) => typeof value !== "string")) {
      add(
        `${pointer}/enum`,
        ["Gemini"],
        `an "enum" of values that are not strings is refused by Gemini, whose enums are strings`,
      );
    }
    for (const keyword of GEMINI_MISSING) {
      if (!Object.hasOwn(schema, keyword)) continue;
      // At the root it is reported once, as refused there by Anthropic and OpenAI.
      if (pointer === "" && ROOT_REFUSED_SET.has(keyword)) continue;
      add(
        `${pointer}/${escape(keyword)}`,
        ["Gemini"],
        `"${keyword}" is not in the OpenAPI subset Gemini accepts for function parameters ` +
          `(it has "anyOf" but no "oneOf", "allOf", "not", "const" or "$ref")`,
      );
    }
    for (const [keyword, value] of Object.entries(schema)) {
      const at = `${pointer}/${escape(keyword)}`;
      if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) visit(sub, `${at}/${escape(name)}`);
      } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
        value.forEach((sub, index) => visit(sub, `${at}/${index}`));
      } else if (SCHEMA_ONES.has(keyword)) {
        if (Array.isArray(value)) value.forEach((sub, index) => visit(sub, `${at}/${index}`));
        else visit(value, at);
      }
    }
  };
  visit(root, "");
  return found;
}

/** A JSON pointer token (RFC 6901). */
function escape(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
