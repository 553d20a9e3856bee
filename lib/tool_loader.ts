// Tool discovery: every module in the tools directory default-exports one tool definition.
// A bad tool stops start-up with a message naming its file; all problems are reported
// together so an author fixes them in one pass.
import { isObject, MAX_TIMER_MS, messageOf } from "./_json.ts";
import { checkAnnotations, checkIcons } from "./mcp_shapes.ts";
import { compileSchema, type SchemaCheck } from "./schema.ts";
import type { JsonObject, ToolDefinition } from "./types.ts";

/** A tool as the dispatcher serves it: its definition plus what start-up compiled. */
export interface Tool {
  name: string;
  /** The file it came from, as shown in messages (e.g. `tools/add.ts`). */
  file: string;
  definition: ToolDefinition;
  validateInput: SchemaCheck;
  validateOutput: SchemaCheck | undefined;
  /** Top-level `default`s of the inputSchema's properties, filled into missing arguments. */
  argumentDefaults: readonly [string, unknown][];
  /** Set by the definition; undefined means the server-wide default applies. */
  timeoutMs: number | undefined;
}

/** All tools, sorted by name (the `tools/list` order), and an index by name. */
export interface Registry {
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
}

/** Start-up failed because of the tools; `problems` holds one sentence per bad file. */
export class ToolLoadError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ToolLoadError";
    this.problems = problems;
  }
}

const TOOL_EXTENSIONS = /\.(ts|mts|js|mjs)$/;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const KNOWN_FIELDS = new Set([
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "icons",
  "_meta",
  "timeoutMs",
  "handler",
]);

/**
 * Loads every tool module in `dir`: a path (relative to the working directory) or a
 * directory URL. Files whose names start with `_` or `.`, other extensions and
 * subdirectories are not tools.
 */
export async function loadTools(dir: string | URL): Promise<Registry> {
  const dirUrl = typeof dir === "string"
    ? directoryUrl(dir)
    : new URL(dir.href.endsWith("/") ? dir.href : `${dir.href}/`);
  const shownDir = typeof dir === "string"
    ? dir.replace(/\/+$/, "")
    : decodeURIComponent(dirUrl.pathname).replace(/\/+$/, "");
  let fileNames: string[];
  try {
    fileNames = await toolFileNames(dirUrl);
  } catch (error) {
    throw new ToolLoadError([
      `Cannot read the tools directory "${shownDir}": ${messageOf(error)}`,
    ]);
  }

  // Modules load in parallel; names are checked in file order, so messages are stable.
  const loaded = await Promise.allSettled(
    fileNames.map((fileName) =>
      loadTool(new URL(fileName, dirUrl), fileName, `${shownDir}/${fileName}`)
    ),
  );
  const problems: string[] = [];
  const byName = new Map<string, Tool>();
  loaded.forEach((outcome, index) => {
    const file = `${shownDir}/${fileNames[index]}`;
    if (outcome.status === "rejected") {
      problems.push(`Cannot load tool "${file}": ${messageOf(outcome.reason)}`);
      return;
    }
    const tool = outcome.value;
    const clash = byName.get(tool.name);
    if (clash) {
      problems.push(
        `Cannot load tool "${file}": the name "${tool.name}" is already used by "${clash.file}"`,
      );
      return;
    }
    byName.set(tool.name, tool);
  });
  if (problems.length > 0) throw new ToolLoadError(problems);
  const tools = [...byName.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { tools, byName };
}

/**
 * The file URL of a directory path, relative to the working directory or absolute (POSIX
 * or Windows). Written out because node:url would load the Node compatibility layer.
 */
export function directoryUrl(path: string): URL {
  const absolute = /^([/\\]|[A-Za-z]:[/\\])/.test(path) ? path : `${Deno.cwd()}/${path}`;
  const slashed = absolute.replaceAll("\\", "/");
  const rooted = slashed.startsWith("/") ? slashed : `/${slashed}`;
  const encoded = encodeURI(rooted).replaceAll("#", "%23").replaceAll(
    "?",
    "%3F",
  );
  return new URL(`file://${encoded.endsWith("/") ? encoded : `${encoded}/`}`);
}

async function toolFileNames(dirUrl: URL): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dirUrl)) {
    if (
      entry.isDirectory || /^[_.]/.test(entry.name) ||
      !TOOL_EXTENSIONS.test(entry.name)
    ) {
      continue;
    }
    names.push(entry.name);
  }
  return names.sort();
}

async function loadTool(
  url: URL,
  fileName: string,
  file: string,
): Promise<Tool> {
  let module: Record<string, unknown>;
  try {
    module = await import(url.href);
  } catch (error) {
    // Deno cannot import into a compiled binary a module that was not embedded in it.
    const hint = Deno.build.standalone
      ? " (a compiled binary can only load the tools embedded when it was compiled)"
      : "";
    throw new Error(`the module failed to import: ${messageOf(error)}${hint}`);
  }
  const definition = module.default;
  if (!isObject(definition)) {
    throw new Error(
      "the module must default-export a tool object ({ description, inputSchema, handler })",
    );
  }
  return checkDefinition(
    definition,
    fileName.replace(TOOL_EXTENSIONS, ""),
    file,
  );
}

/** Checks a definition field by field; throws with the first problem found. */
export function checkDefinition(
  definition: JsonObject,
  defaultName: string,
  file: string,
): Tool {
  for (const key of Object.keys(definition)) {
    if (!KNOWN_FIELDS.has(key)) throw new Error(`unknown field "${key}"`);
  }
  const name = definition.name === undefined ? defaultName : definition.name;
  if (typeof name !== "string") throw new Error("name must be a string");
  if (!TOOL_NAME.test(name)) {
    throw new Error(
      `the name "${name}" is invalid: use 1 to 128 letters, digits, "_", "-" or "."`,
    );
  }
  const {
    description,
    inputSchema,
    outputSchema,
    handler,
    title,
    annotations,
    icons,
    timeoutMs,
  } = definition;
  if (typeof description !== "string" || description.trim() === "") {
    throw new Error("description must be a non-empty string");
  }
  if (!isObject(inputSchema) || inputSchema.type !== "object") {
    throw new Error('inputSchema must be an object schema with type "object"');
  }
  if (outputSchema !== undefined && !isObject(outputSchema)) {
    throw new Error("outputSchema must be a JSON Schema object");
  }
  if (typeof handler !== "function") {
    throw new Error("handler must be a function");
  }
  if (title !== undefined && typeof title !== "string") {
    throw new Error("title must be a string");
  }
  const badAnnotations = annotations === undefined ? undefined : checkAnnotations(annotations);
  if (badAnnotations) {
    throw new Error(`annotations are invalid: ${badAnnotations}`);
  }
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
    throw new Error(
      `timeoutMs must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`,
    );
  }
  return {
    name,
    file,
    definition: definition as unknown as ToolDefinition,
    validateInput: compileOrExplain(inputSchema, "inputSchema"),
    validateOutput: outputSchema === undefined
      ? undefined
      : compileOrExplain(outputSchema, "outputSchema"),
    argumentDefaults: defaultsOf(inputSchema),
    timeoutMs: timeoutMs as number | undefined,
  };
}

function defaultsOf(inputSchema: JsonObject): [string, unknown][] {
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
  return Object.entries(properties).flatMap(([key, property]) =>
    isObject(property) && property.default !== undefined ? [[key, property.default]] : []
  );
}

function compileOrExplain(schema: JsonObject, field: string): SchemaCheck {
  try {
    return compileSchema(schema);
  } catch (error) {
    throw new Error(`${field} is not a valid JSON Schema: ${messageOf(error)}`);
  }
}
