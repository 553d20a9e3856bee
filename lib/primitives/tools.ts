// Tools as the core serves them: a definition checked field by field, its schemas compiled
// once. Where definitions come from (a directory, a sidecar) is discovery's concern.
import { asJsonSchema, type StandardValidate, standardValidator } from "./standard_schema.ts";
import { isObject, type JsonObject, MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { jsonProblem, PRIMITIVE_NAME } from "./json_wire.ts";
import { checkAnnotations, checkIcons } from "../schema/mcp_shapes.ts";
import { compileSchema, dynamicRefProblem, type SchemaCheck } from "../schema/compile.ts";
import type { ToolDefinition } from "./types.ts";
import { didYouMean } from "../util/suggest.ts";
import { checkScopes } from "./scopes.ts";
import { checkRateLimit, type Rate } from "./rate.ts";
import { checkToolApp, linkedMeta } from "./apps.ts";
import { alwaysLoadMeta } from "./always_load.ts";
import { checkMaxResultChars, maxResultMeta } from "./result_size.ts";

/** A tool as the dispatcher serves it: its definition plus what start-up compiled. */
export interface Tool {
  name: string;
  /** The file it came from, as shown in messages (e.g. `tools/add.ts`). */
  file: string;
  definition: ToolDefinition;
  validateInput: SchemaCheck;
  /**
   * An inputSchema written with a schema library: its own validator (`~standard.validate`),
   * run after validateInput; the value it gives is what the handler receives (adr/0069).
   */
  parseArguments?: StandardValidate | undefined;
  validateOutput: SchemaCheck | undefined;
  /** Top-level `default`s of the inputSchema's properties, filled into missing arguments. */
  argumentDefaults: readonly [string, unknown][];
  /** Set by the definition; undefined means the server-wide default applies. */
  timeoutMs: number | undefined;
  /** Client capabilities a call needs (their top-level keys), or undefined for none. */
  requiredClientCapabilities: Readonly<JsonObject> | undefined;
  /** The arguments its inputSchema mirrors into `Mcp-Param-*` headers (`x-mcp-header`). */
  headerParams: readonly HeaderParam[];
  /** Whether a call may run as a task (the tasks extension), or undefined for never. */
  task: "optional" | "required" | undefined;
  /** Set by the definition: how long a call runs inline before it becomes a job (adr/0070). */
  jobAfterMs: number | undefined;
  /** How long a job answers the same caller's same call again, not run twice (adr/0070). */
  jobReuseMs: number | undefined;
  /** The OAuth scopes a caller's token must grant to call it (none: any caller may). */
  scopes: readonly string[];
  /** How often one caller may call it (`rateLimit`, adr/0043); undefined: no limit of its own. */
  rateLimit: Rate | undefined;
  /** The toolset it belongs to (its folder `tools/<set>/`, adr/0045); undefined: top-level. */
  toolset?: string;
  /**
   * Code may call it (`code: true`, adr/0073 §5) though its annotations do not say it only
   * reads; a destructive one also needs the operator's `--code-writes destructive`.
   */
  code: boolean;
  /** The most characters of text one result carries to a client (`maxResultChars`). */
  maxResultChars: number | undefined;
  /** The app in ui/ it links to (`ui`, adr/0048), whose `ui://` URI its `_meta` carries. */
  app?: string;
  /**
   * Set by toolshed on a tool it made (a mounted tool, adr/0071 §5), never from a definition
   * (checkDefinition refuses the field): its handler's context is lent the request's front token,
   * which it reads with `frontTokenOf(ctx)` (front_token.ts) to trade it for an upstream's.
   */
  forwardsIdentity?: true;
  /**
   * Set by toolshed on the code-mode tool that runs a model's code (adr/0073 §4), never from a
   * definition: its handler's context is lent the request's inner calls (inner_calls.ts).
   */
  makesInnerCalls?: true;
}

/** An argument mirrored into the HTTP header `Mcp-Param-<header>` (SEP-2243). */
interface HeaderParam {
  /** The `x-mcp-header` value: the header is `Mcp-Param-<header>`. */
  header: string;
  /** Property names from the arguments object down to the argument. */
  path: readonly string[];
}

/** Tools found together, sorted by name, and an index by name (what discovery returns). */
export interface ToolSet {
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
}

/**
 * The built-in tool that follows jobs (adr/0070): its name is toolshed's own, so a tool of
 * the directory cannot take it (its "file" is this).
 */
export const JOB_TOOL = { name: "toolshed_job", file: "(toolshed)" } as const;

/** The fields a tool module and a sidecar share. */
export const DEFINITION_FIELDS = [
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "icons",
  "timeoutMs",
  "requiredClientCapabilities",
  "task",
  "jobAfterMs",
  "jobReuseMs",
  "scopes",
  "rateLimit",
  "ui",
  "code",
  "alwaysLoad",
  "maxResultChars",
];
const KNOWN_FIELDS = new Set([...DEFINITION_FIELDS, "name", "_meta", "handler"]);
/** Checks a definition field by field; throws with the first problem found. */
export function checkDefinition(definition: JsonObject, defaultName: string, file: string): Tool {
  for (const key of Object.keys(definition)) {
    if (!KNOWN_FIELDS.has(key)) {
      throw new Error(`unknown field "${key}"${didYouMean(key, KNOWN_FIELDS)}`);
    }
  }
  const name = definition.name === undefined ? defaultName : definition.name;
  if (typeof name !== "string") throw new Error("name must be a string");
  if (!PRIMITIVE_NAME.test(name)) {
    throw new Error(
      `the name "${name}" is invalid: use 1 to 128 letters, digits, "_", "-" or "."`,
    );
  }
  if (name === JOB_TOOL.name && file !== JOB_TOOL.file) {
    throw new Error(
      `the name "${name}" is toolshed's own (the tool that follows jobs, adr/0070): ` +
        "give the tool another name",
    );
  }
  // A library's schema (Zod 4 …) becomes the JSON Schema it converts to, listed and checked;
  // an inputSchema's own validator runs after that check, on each call.
  let parseArguments: StandardValidate | undefined;
  for (const [field, side] of [["inputSchema", "input"], ["outputSchema", "output"]] as const) {
    try {
      const schema = asJsonSchema(definition[field], side);
      if (side === "input") parseArguments = standardValidator(definition[field]);
      if (schema !== definition[field]) definition = { ...definition, [field]: schema };
    } catch (error) {
      throw new Error(`${field} ${messageOf(error)}`);
    }
  }
  const { description, inputSchema, outputSchema, handler, title, annotations, icons, timeoutMs } =
    definition;
  if (typeof description !== "string" || description.trim() === "") {
    throw new Error("description must be a non-empty string");
  }
  if (!isObject(inputSchema) || inputSchema.type !== "object") {
    throw new Error('inputSchema must be an object schema with type "object"');
  }
  if (outputSchema !== undefined && !isObject(outputSchema)) {
    throw new Error("outputSchema must be a JSON Schema object");
  }
  if (typeof handler !== "function") throw new Error("handler must be a function");
  if (title !== undefined && typeof title !== "string") throw new Error("title must be a string");
  const badAnnotations = annotations === undefined ? undefined : checkAnnotations(annotations);
  if (badAnnotations) throw new Error(`annotations are invalid: ${badAnnotations}`);
  const badIcons = icons === undefined ? undefined : checkIcons(icons);
  if (badIcons) throw new Error(`icons are invalid: ${badIcons}`);
  if (definition._meta !== undefined && !isObject(definition._meta)) {
    throw new Error("_meta must be an object");
  }
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0 &&
      (timeoutMs as number) <= MAX_TIMER_MS)
  ) {
    throw new Error(`timeoutMs must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`);
  }
  const required = definition.requiredClientCapabilities;
  if (
    required !== undefined &&
    !(isObject(required) && Object.values(required).every((value) => isObject(value)))
  ) {
    throw new Error(
      'requiredClientCapabilities must be an object of capabilities, e.g. { "sampling": {} }',
    );
  }
  const task = definition.task;
  if (task !== undefined && task !== "optional" && task !== "required") {
    throw new Error('task must be "optional" or "required"');
  }
  const jobAfterMs = definition.jobAfterMs;
  if (
    jobAfterMs !== undefined &&
    !(Number.isInteger(jobAfterMs) && (jobAfterMs as number) >= 0 &&
      (jobAfterMs as number) <= MAX_TIMER_MS)
  ) {
    throw new Error(`jobAfterMs must be an integer from 0 to ${MAX_TIMER_MS} (milliseconds)`);
  }
  const jobReuseMs = definition.jobReuseMs;
  if (
    jobReuseMs !== undefined &&
    !(Number.isInteger(jobReuseMs) && (jobReuseMs as number) > 0 &&
      (jobReuseMs as number) <= MAX_TIMER_MS)
  ) {
    throw new Error(`jobReuseMs must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`);
  }
  for (const [field, value] of [["jobAfterMs", jobAfterMs], ["jobReuseMs", jobReuseMs]]) {
    if (value !== undefined && task === undefined) {
      throw new Error(`${field} needs task "optional" or "required": only a task becomes a job`);
    }
  }
  if (definition.code !== undefined && typeof definition.code !== "boolean") {
    throw new Error(
      "code must be true (code in code mode may call it, adr/0073) or false (the default)",
    );
  }
  const scopes = checkScopes(definition.scopes);
  const rateLimit = checkRateLimit(definition.rateLimit);
  const app = checkToolApp(definition.ui);
  if (app !== undefined) {
    definition = { ...definition, _meta: linkedMeta(definition._meta as JsonObject, app) };
  }
  const maxResultChars = checkMaxResultChars(definition.maxResultChars);
  const meta = maxResultMeta(
    maxResultChars,
    alwaysLoadMeta(definition.alwaysLoad, definition._meta as JsonObject | undefined),
  );
  if (meta !== definition._meta) definition = { ...definition, _meta: meta };
  checkWireFields(definition);
  const headerParams = headerParamsOf(inputSchema);
  return {
    name,
    file,
    definition: definition as unknown as ToolDefinition,
    validateInput: compileOrExplain(inputSchema, "inputSchema"),
    parseArguments,
    validateOutput: outputSchema === undefined
      ? undefined
      : compileOrExplain(outputSchema, "outputSchema"),
    argumentDefaults: defaultsOf(inputSchema),
    timeoutMs: timeoutMs as number | undefined,
    requiredClientCapabilities: required === undefined
      ? undefined
      : Object.freeze(structuredClone(required as JsonObject)),
    headerParams,
    task,
    jobAfterMs: jobAfterMs as number | undefined,
    jobReuseMs: jobReuseMs as number | undefined,
    scopes,
    rateLimit,
    code: definition.code === true,
    maxResultChars,
    ...app === undefined ? {} : { app },
  };
}

/** The `x-mcp-header` annotation (SEP-2243, 2026-07-28 `basic/transports`). */
const X_MCP_HEADER = "x-mcp-header";
/** An HTTP field name (RFC 9110 `1*tchar`), what follows `Mcp-Param-`. */
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The property types an `x-mcp-header` may mark (never `number`, objects or arrays). */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords whose values are data, not schemas: an `x-mcp-header` key there is a value. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/**
 * The arguments an inputSchema marks with `x-mcp-header`, checked as clients check them
 * (they drop a tool that breaks a rule): only on a `string`, `integer` or `boolean` property
 * reachable from the root through `properties` alone, its value a non-empty header token
 * unique ignoring case. An annotation anywhere else (under `items`, `anyOf`, `$defs`) is
 * refused too, rather than silently never mirrored.
 */
function headerParamsOf(inputSchema: JsonObject): HeaderParam[] {
  const found: HeaderParam[] = [];
  const seen = new Map<string, string>();
  const where = (path: readonly string[]) => path.length === 0 ? "the root" : `"${path.join(".")}"`;
  const visit = (schema: unknown, path: string[] | undefined, pointer: string): void => {
    if (Array.isArray(schema)) {
      schema.forEach((item, i) => visit(item, undefined, `${pointer}/${i}`));
      return;
    }
    if (!isObject(schema)) return;
    if (Object.hasOwn(schema, X_MCP_HEADER)) {
      const header = schema[X_MCP_HEADER];
      if (path === undefined || path.length === 0) {
        throw new Error(
          `inputSchema has "${X_MCP_HEADER}" at "${pointer}": it may only mark a property ` +
            `reachable through "properties" alone`,
        );
      }
      if (typeof header !== "string" || !HEADER_TOKEN.test(header)) {
        throw new Error(
          `inputSchema property ${where(path)} has an invalid "${X_MCP_HEADER}": ` +
            `${JSON.stringify(header)} is not a non-empty HTTP header name token`,
        );
      }
      if (typeof schema.type !== "string" || !HEADER_TYPES.has(schema.type)) {
        throw new Error(
          `inputSchema property ${where(path)} has "${X_MCP_HEADER}" but its type is ` +
            `${
              JSON.stringify(schema.type ?? null)
            }: only "string", "integer" and "boolean" can be ` +
            `mirrored into a header`,
        );
      }
      const clash = seen.get(header.toLowerCase());
      if (clash !== undefined) {
        throw new Error(
          `inputSchema properties "${clash}" and "${path.join(".")}" have the same ` +
            `"${X_MCP_HEADER}" ${JSON.stringify(header)} (header names ignore case)`,
        );
      }
      seen.set(header.toLowerCase(), path.join("."));
      found.push({ header, path: Object.freeze([...path]) });
    }
    for (const [key, value] of Object.entries(schema)) {
      if (DATA_KEYWORDS.has(key)) continue;
      const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (key === "properties" && isObject(value)) {
        for (const [name, property] of Object.entries(value)) {
          const escaped = name.replaceAll("~", "~0").replaceAll("/", "~1");
          visit(property, path === undefined ? undefined : [...path, name], `${at}/${escaped}`);
        }
      } else {
        visit(value, undefined, at);
      }
    }
  };
  visit(inputSchema, [], "");
  return found;
}

/** The fields tools/list sends, which must reach the client as the tool defined them. */
const WIRE_FIELDS = [
  ...DEFINITION_FIELDS.filter((field) =>
    field !== "timeoutMs" && field !== "requiredClientCapabilities" && field !== "task" &&
    field !== "jobAfterMs" && field !== "jobReuseMs" && field !== "scopes" &&
    field !== "rateLimit" && field !== "ui"
  ),
  "_meta",
];

/**
 * Round-trips each wire field through JSON at load, so that a value JSON cannot carry (a
 * BigInt, a cycle) or carries as something else (a Date, NaN, a function, a Map) stops
 * start-up instead of breaking every tools/list. A key whose value is undefined vanishes,
 * as a missing key would, and is fine.
 */
function checkWireFields(definition: JsonObject): void {
  for (const field of WIRE_FIELDS) {
    const value = definition[field];
    if (value === undefined) continue;
    const problem = jsonProblem(field, value);
    if (problem !== undefined) throw new Error(problem);
  }
}

function defaultsOf(inputSchema: JsonObject): [string, unknown][] {
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
  return Object.entries(properties).flatMap(([key, property]) =>
    isObject(property) && property.default !== undefined ? [[key, property.default]] : []
  );
}

function compileOrExplain(schema: JsonObject, field: string): SchemaCheck {
  try {
    const refused = dynamicRefProblem(schema);
    if (refused !== undefined) throw new Error(refused);
    return compileSchema(schema);
  } catch (error) {
    throw new Error(`${field} is not a valid JSON Schema: ${messageOf(error)}`);
  }
}
