// Prompts as the server serves them: the object `prompts/list` sends, the arguments to check,
// and a getter. Markdown files and modules both become these (discovery/prompts_dir.ts).
import type { JsonObject } from "../util/json.ts";
import type { Completer, PromptArgument, PromptContext } from "./types.ts";

export interface Prompt {
  readonly name: string;
  /** The file it came from, as messages show it; a reload keeps it when the file breaks. */
  readonly file?: string;
  /** The `Prompt` object lists send, with every field it has (the core drops what an era lacks). */
  readonly listing: Readonly<JsonObject>;
  readonly arguments: readonly PromptArgument[];
  readonly timeoutMs: number | undefined;
  /** The OAuth scopes a caller's token must grant to get it (primitives/scopes.ts). */
  readonly scopes: readonly string[];
  /** Completion sources by argument name. */
  readonly completers: ReadonlyMap<string, Completer>;
  /**
   * The prompt's messages for `args` (already checked against `arguments`), as checked
   * `PromptMessage` objects. Rejects when the prompt fails.
   */
  get(args: Readonly<Record<string, string>>, ctx: PromptContext): Promise<GetPromptResult>;
}

export interface GetPromptResult {
  description?: string;
  messages: JsonObject[];
}

/**
 * Why `args` do not suit `prompt` (one sentence), or undefined when they do: each value a
 * string, every required argument present, no argument the prompt does not take.
 */
export function argumentProblem(prompt: Prompt, args: unknown): string | undefined {
  if (args === undefined) args = {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return "arguments must be an object";
  }
  const given = args as Record<string, unknown>;
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  for (const key of Object.keys(given)) {
    if (!known.has(key)) return `prompt "${prompt.name}" takes no argument "${key}"`;
    if (typeof given[key] !== "string") return `argument "${key}" must be a string`;
  }
  const missing = prompt.arguments.filter((argument) =>
    argument.required === true && !Object.hasOwn(given, argument.name)
  );
  if (missing.length > 0) {
    return `missing required argument${missing.length > 1 ? "s" : ""} ${
      missing.map((argument) => `"${argument.name}"`).join(", ")
    } for prompt "${prompt.name}"`;
  }
  return undefined;
}
