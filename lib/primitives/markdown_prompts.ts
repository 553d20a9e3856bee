// Prompts written as Markdown: YAML front matter declares the prompt (the fields a module
// declares, without code), and the text after it is one user message whose `{{argument}}`
// placeholders are filled in. The template is split once, at load, into literal text and
// placeholders, so filling it in is linear in the text and the values, and a value is
// never scanned again (a value holding "{{x}}" stays as it is).
import { isObject, messageOf } from "../util/json.ts";
import { checkPromptFields, MODULE_FIELDS } from "./prompt_modules.ts";
import type { Prompt } from "./prompts.ts";

/** The fields front matter may hold: a module's, but for the code (`get`, `timeoutMs`). */
const MARKDOWN_FIELDS: readonly string[] = MODULE_FIELDS.filter((field) =>
  field !== "get" && field !== "timeoutMs"
);

/** A body split at load: literal text, and placeholders by the argument they name. */
type TemplatePart = string | { readonly argument: string };

type YamlModule = typeof import("npm:js-yaml@5.5.0");
let yamlModule: Promise<YamlModule> | undefined;

/**
 * The YAML library, loaded on first use: a server without Markdown prompts never loads it.
 * js-yaml, not `yaml`: its first import costs ~12 ms against ~70 ms (adr/0013).
 */
function yaml(): Promise<YamlModule> {
  return yamlModule ??= import("npm:js-yaml@5.5.0");
}

/**
 * Serves the Markdown prompt `text` (a file's contents), named `defaultName` unless its
 * front matter sets `name`; throws with the first problem found.
 */
export async function markdownPrompt(text: string, defaultName: string): Promise<Prompt> {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (lines[0].trimEnd() !== "---") {
    throw new Error(
      'a Markdown prompt needs front matter with a description: a first line "---", then ' +
        '"description: What the prompt is for", then a line "---"',
    );
  }
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (close === -1) {
    throw new Error('the front matter that opens on line 1 has no closing "---" line');
  }
  const front = await parseFrontMatter(lines.slice(1, close).join("\n"));
  if (front === null || front === undefined) {
    throw new Error('the front matter is empty: it needs at least "description"');
  }
  if (!isObject(front)) {
    throw new Error("the front matter must be a YAML mapping of fields (description, arguments …)");
  }
  const fields = checkPromptFields(front, defaultName, MARKDOWN_FIELDS, false);
  let first = close + 1;
  while (first < lines.length && lines[first].trim() === "") first++;
  const body = lines.slice(first).join("\n").trimEnd();
  if (body === "") throw new Error("the prompt has no text after its front matter");
  const parts = splitTemplate(body, first + 1, fields.arguments.map((argument) => argument.name));
  const { name, description } = fields;
  return {
    name,
    listing: fields.listing,
    arguments: fields.arguments,
    timeoutMs: undefined,
    scopes: fields.scopes,
    completers: fields.completers,
    get: (args) =>
      Promise.resolve({
        description,
        messages: [{ role: "user", content: { type: "text", text: fillTemplate(parts, args) } }],
      }),
  };
}

/**
 * The front matter as a value, read with the YAML 1.2 core schema (no dates or other types
 * JSON cannot carry); throws with the library's error and the file's line.
 */
export async function parseFrontMatter(source: string): Promise<unknown> {
  // Nothing between the two "---" lines: no fields (this library refuses an empty input).
  if (source.trim() === "") return null;
  const { load, CORE_SCHEMA } = await yaml();
  try {
    return load(source, { schema: CORE_SCHEMA }) as unknown;
  } catch (error) {
    const mark = (error as { mark?: { line?: unknown } }).mark;
    const reason = (error as { reason?: unknown }).reason;
    // The front matter starts on the file's second line; the library counts from 0.
    const where = typeof mark?.line === "number" ? ` (line ${mark.line + 2})` : "";
    const message = typeof reason === "string" ? reason : messageOf(error).split("\n")[0];
    throw new Error(`the front matter is not valid YAML: ${message}${where}`);
  }
}

/**
 * `\{{` (a literal "{{"), a placeholder `{{ name }}` (any white space around the name, line
 * breaks too: a formatter that rewraps Markdown may break a line inside one), or a `{{` that
 * starts neither. Scanned once, left to right.
 */
const TEMPLATE_TOKEN = /\\\{\{|\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}|\{\{/g;

/**
 * Splits `body` (whose first line is the file's line `firstLine`) into literal text and
 * placeholders; throws naming every placeholder of an undeclared argument, or the first
 * `{{` that starts no placeholder.
 */
function splitTemplate(
  body: string,
  firstLine: number,
  declared: readonly string[],
): TemplatePart[] {
  const known = new Set(declared);
  const parts: TemplatePart[] = [];
  const undeclared: string[] = [];
  let literal = "";
  let last = 0;
  let line = firstLine;
  for (const match of body.matchAll(TEMPLATE_TOKEN)) {
    const index = match.index;
    const before = body.slice(last, index);
    line += countNewlines(before);
    literal += before;
    last = index + match[0].length;
    if (match[0] === "\\{{") {
      literal += "{{";
    } else if (match[1] !== undefined) {
      if (!known.has(match[1])) undeclared.push(`"${match[0]}" on line ${line}`);
      if (literal !== "") parts.push(literal);
      literal = "";
      parts.push(Object.freeze({ argument: match[1] }));
    } else {
      throw new Error(
        `the "{{" on line ${line} starts no placeholder: write "{{name}}" with the name of ` +
          `an argument, or "\\{{" for a literal "{{"`,
      );
    }
  }
  if (undeclared.length > 0) {
    const arguments_ = declared.length === 0
      ? "the front matter declares no arguments"
      : `the arguments are ${declared.map((name) => `"${name}"`).join(", ")}`;
    throw new Error(
      `the placeholder${undeclared.length > 1 ? "s" : ""} ${undeclared.join(", ")} ` +
        `name${undeclared.length > 1 ? "" : "s"} no declared argument: ${arguments_}`,
    );
  }
  literal += body.slice(last);
  if (literal !== "") parts.push(literal);
  return parts;
}

/** The template with each placeholder replaced by its argument's value ("" when absent). */
function fillTemplate(
  parts: readonly TemplatePart[],
  args: Readonly<Record<string, string>>,
): string {
  return parts.map((part) =>
    typeof part === "string" ? part : Object.hasOwn(args, part.argument) ? args[part.argument] : ""
  ).join("");
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
