// Prompts written as code: a module's default export checked field by field as a
// PromptDefinition, and what its `get` returns turned into checked messages. The fields a
// Markdown prompt shares with a module are checked here too (markdown_prompts.ts).
import { didYouMean } from "../util/suggest.ts";
import { isObject, type JsonObject, MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { checkIcons, checkPromptMessage } from "../schema/mcp_shapes.ts";
import type { GetPromptResult, Prompt } from "./prompts.ts";
import type { Completer, PromptArgument, PromptContext } from "./types.ts";
import { frozenJson, jsonProblem, kindOf, PRIMITIVE_NAME } from "./json_wire.ts";
import { checkScopes } from "./scopes.ts";

/** What a prompt's name must look like (the rule tool names follow). */
/** What an argument's name must look like: something a `{{placeholder}}` can name. */
const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const ARGUMENT_FIELDS = new Set(["name", "title", "description", "required"]);
/** The fields of a PromptDefinition, in the order messages list them. */
export const MODULE_FIELDS: readonly string[] = [
  "name",
  "title",
  "description",
  "arguments",
  "complete",
  "icons",
  "_meta",
  "timeoutMs",
  "scopes",
  "get",
];

/** A prompt's fields once checked: everything but the way it produces messages. */
interface PromptFields {
  name: string;
  description: string;
  listing: Readonly<JsonObject>;
  arguments: readonly PromptArgument[];
  completers: ReadonlyMap<string, Completer>;
  timeoutMs: number | undefined;
  scopes: readonly string[];
}

/**
 * Checks a module's default export as a PromptDefinition and serves it; throws with the
 * first problem found. `defaultName` is the file name without its extension.
 */
export function modulePrompt(definition: unknown, defaultName: string): Prompt {
  if (!isObject(definition)) {
    throw new Error(
      "the module must default-export a prompt object ({ description, arguments, get })",
    );
  }
  const fields = checkPromptFields(definition, defaultName, MODULE_FIELDS, true);
  const get = definition.get;
  if (typeof get !== "function") throw new Error("get must be a function");
  return {
    name: fields.name,
    listing: fields.listing,
    arguments: fields.arguments,
    timeoutMs: fields.timeoutMs,
    scopes: fields.scopes,
    completers: fields.completers,
    get: async (args: Readonly<Record<string, string>>, ctx: PromptContext) =>
      promptResult(fields.name, await get.call(definition, { ...args }, ctx), fields.description),
  };
}

/**
 * Checks the fields a prompt declares (all but `get`), refusing any not in `allowed`; throws
 * with the first problem found. Functions are allowed as completers only when `functions`.
 */
export function checkPromptFields(
  definition: JsonObject,
  defaultName: string,
  allowed: readonly string[],
  functions: boolean,
): PromptFields {
  for (const key of Object.keys(definition)) {
    if (!allowed.includes(key)) {
      throw new Error(
        `unknown field "${key}"${didYouMean(key, allowed)} (a prompt may have ${
          allowed.map((field) => `"${field}"`).join(", ")
        })`,
      );
    }
  }
  const name = definition.name === undefined ? defaultName : definition.name;
  if (typeof name !== "string") throw new Error("name must be a string");
  if (!PRIMITIVE_NAME.test(name)) {
    throw new Error(
      `the name "${name}" is invalid: use 1 to 128 letters, digits, "_", "-" or "."`,
    );
  }
  const { title, description, icons, _meta, timeoutMs } = definition;
  if (title !== undefined && typeof title !== "string") throw new Error("title must be a string");
  if (typeof description !== "string" || description.trim() === "") {
    throw new Error("description must be a non-empty string");
  }
  const declared = checkArguments(definition.arguments);
  const completers = checkCompleters(definition.complete, declared, functions);
  const badIcons = icons === undefined ? undefined : checkIcons(icons);
  if (badIcons !== undefined) throw new Error(`icons are invalid: ${badIcons}`);
  if (_meta !== undefined && !isObject(_meta)) throw new Error("_meta must be an object");
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0 &&
      (timeoutMs as number) <= MAX_TIMER_MS)
  ) {
    throw new Error(`timeoutMs must be an integer from 1 to ${MAX_TIMER_MS} (milliseconds)`);
  }
  const scopes = checkScopes(definition.scopes);
  const listing: JsonObject = { name };
  if (title !== undefined) listing.title = title;
  listing.description = description;
  if (declared.length > 0) listing.arguments = declared;
  if (icons !== undefined) listing.icons = sentAsJson("icons", icons);
  if (_meta !== undefined) listing._meta = sentAsJson("_meta", _meta);
  return {
    name,
    description,
    listing: frozenJson(listing),
    arguments: declared,
    completers,
    timeoutMs: timeoutMs as number | undefined,
    scopes,
  };
}

/** The declared arguments, as frozen copies holding only the wire fields. */
function checkArguments(value: unknown): readonly PromptArgument[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) {
    throw new Error("arguments must be a list of { name, title, description, required }");
  }
  const seen = new Set<string>();
  const declared = value.map((argument, index) => {
    if (!isObject(argument)) {
      throw new Error(`argument ${index} must be an object ({ name, description, required })`);
    }
    for (const key of Object.keys(argument)) {
      if (!ARGUMENT_FIELDS.has(key)) {
        throw new Error(
          `argument ${index} has an unknown field "${key}": an argument may have "name", ` +
            `"title", "description", "required"`,
        );
      }
    }
    const { name, title, description, required } = argument;
    if (typeof name !== "string" || !ARGUMENT_NAME.test(name)) {
      throw new Error(
        `argument ${index} has an invalid name ${showValue(name)}: use letters, digits, "_" ` +
          `or "-", starting with a letter or "_"`,
      );
    }
    if (seen.has(name)) throw new Error(`the argument "${name}" is declared twice`);
    seen.add(name);
    if (title !== undefined && typeof title !== "string") {
      throw new Error(`the title of argument "${name}" must be a string`);
    }
    if (description !== undefined && typeof description !== "string") {
      throw new Error(`the description of argument "${name}" must be a string`);
    }
    if (required !== undefined && typeof required !== "boolean") {
      throw new Error(`"required" of argument "${name}" must be true or false`);
    }
    const copy: PromptArgument = { name };
    if (title !== undefined) copy.title = title;
    if (description !== undefined) copy.description = description;
    if (required !== undefined) copy.required = required;
    return Object.freeze(copy);
  });
  return Object.freeze(declared);
}

function checkCompleters(
  value: unknown,
  declared: readonly PromptArgument[],
  functions: boolean,
): ReadonlyMap<string, Completer> {
  const completers = new Map<string, Completer>();
  if (value === undefined) return completers;
  const shape = functions ? "a list of strings or a function" : "a list of strings";
  if (!isObject(value)) {
    throw new Error(`complete must map argument names to ${shape}`);
  }
  for (const [name, completer] of Object.entries(value)) {
    if (!declared.some((argument) => argument.name === name)) {
      throw new Error(`complete names "${name}", which is not one of the prompt's arguments`);
    }
    const isList = Array.isArray(completer) &&
      completer.every((item) => typeof item === "string");
    if (!isList && !(functions && typeof completer === "function")) {
      throw new Error(`complete for "${name}" must be ${shape}`);
    }
    completers.set(name, completer as Completer);
  }
  return completers;
}

/**
 * What a prompt's `get` returned, as the result `prompts/get` sends: a string is one user
 * text message; an array is the messages; `{ description?, messages }` is taken as it is.
 * Anything else passes through JSON once, so that what is checked is what the client will
 * receive; a message whose content is a string gets a text block. Throws, naming the
 * prompt, when the value is not one of these or a message is invalid.
 */
function promptResult(
  promptName: string,
  value: unknown,
  description: string,
): GetPromptResult {
  if (typeof value === "string") {
    return { description, messages: [{ role: "user", content: { type: "text", text: value } }] };
  }
  const shown = `Prompt "${promptName}"`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new Error(`${shown} returned a value that is not JSON: ${firstLine(error)}`);
  }
  const expected = "a string, a list of messages or { description, messages }";
  if (text === undefined) throw new Error(`${shown} returned ${typeof value}, not ${expected}`);
  const sent: unknown = JSON.parse(text);
  let messages: unknown;
  if (Array.isArray(sent)) {
    messages = sent;
  } else if (isObject(sent) && Object.hasOwn(sent, "messages")) {
    const extra = Object.keys(sent).find((key) => key !== "messages" && key !== "description");
    if (extra !== undefined) {
      throw new Error(
        `${shown} returned an unknown field "${extra}": a result may have "description" ` +
          `and "messages"`,
      );
    }
    if (sent.description !== undefined) {
      if (typeof sent.description !== "string") {
        throw new Error(`${shown} returned a description that is not a string`);
      }
      description = sent.description;
    }
    messages = sent.messages;
    if (!Array.isArray(messages)) throw new Error(`${shown} returned messages that are not a list`);
  } else {
    throw new Error(`${shown} returned ${kindOf(sent)}, not ${expected}`);
  }
  const list = messages as unknown[];
  if (list.length === 0) throw new Error(`${shown} returned no messages`);
  return {
    description,
    messages: list.map((message, index) => checkMessage(shown, message, index)),
  };
}

function checkMessage(shown: string, message: unknown, index: number): JsonObject {
  if (!isObject(message)) {
    throw new Error(
      `${shown} returned a message ${index} that is not an object ({ role, content })`,
    );
  }
  const extra = Object.keys(message).find((key) => key !== "role" && key !== "content");
  if (extra !== undefined) {
    throw new Error(
      `${shown} returned message ${index} with an unknown field "${extra}": a message has ` +
        `"role" and "content"`,
    );
  }
  const checked = typeof message.content === "string"
    ? { role: message.role, content: { type: "text", text: message.content } }
    : message;
  const invalid = checkPromptMessage(checked);
  if (invalid !== undefined) {
    throw new Error(`${shown} returned an invalid message ${index}: ${invalid}`);
  }
  return checked;
}

/** `value` as JSON carries it; throws the problem when JSON would drop or change part of it. */
function sentAsJson(field: string, value: unknown): unknown {
  const problem = jsonProblem(field, value);
  if (problem !== undefined) throw new Error(problem);
  return JSON.parse(JSON.stringify(value));
}

/** A value in a message: JSON when it can be, its kind otherwise. */
function showValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? kindOf(value);
  } catch {
    return kindOf(value);
  }
}

/** V8 explains a cycle over several lines; the first one is the sentence. */
function firstLine(error: unknown): string {
  return messageOf(error).split("\n")[0];
}
