// A tool's results bounded the way hosts read them (adr/0073 §6). `maxResultChars: N` on a
// definition does two things: the text of every result the tool answers a client with is cut to
// N characters in all, its last line saying so (so the model learns to ask for less rather than
// reading a silently shortened answer; its structured content goes too, unless an outputSchema
// requires it), and tools/list carries
// `_meta["anthropic/maxResultSizeChars"]: N`, the key Claude Code 2.1.332 reads as the size up to
// which it keeps one tool's result in the conversation. Calls made by code in code mode get the
// whole result: code is no host, and reducing a large answer is what it is for.
import { isObject, type JsonObject } from "../util/json.ts";
import { refuseOtherValue } from "./always_load.ts";

/** The `_meta` key Claude Code reads (a positive finite number). */
const MAX_RESULT_KEY = "anthropic/maxResultSizeChars";

/** The bounds of `maxResultChars`: room for the note that says a result was cut, and 10 M. */
export const MIN_RESULT_CHARS = 1_000;
export const MAX_RESULT_CHARS = 10_000_000;

/** What a result holds: the text blocks are what is bounded. */
interface Result {
  content: unknown[];
  [key: string]: unknown;
}

/** `value` as a `maxResultChars`, or throws saying what it must be. */
export function checkMaxResultChars(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < MIN_RESULT_CHARS ||
    value > MAX_RESULT_CHARS
  ) {
    throw new Error(
      `maxResultChars must be an integer from ${MIN_RESULT_CHARS} to ${MAX_RESULT_CHARS} ` +
        `(characters of text in one result), not ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  return value;
}

/**
 * The `_meta` a definition's `maxResultChars` gives its tool (the author's own merged in), or the
 * author's unchanged when the field is absent; throws when the author's `_meta` sets the key to
 * another value.
 */
export function maxResultMeta(
  maxResultChars: number | undefined,
  meta: JsonObject | undefined,
): JsonObject | undefined {
  if (maxResultChars === undefined) return meta;
  refuseOtherValue(meta, MAX_RESULT_KEY, maxResultChars, "maxResultChars");
  return { ...meta, [MAX_RESULT_KEY]: maxResultChars };
}

/**
 * `result` with its text blocks cut to `maxChars` characters in all (a note saying so included),
 * never splitting a surrogate pair; the same object when it fits or there is no bound. Other
 * blocks (images, resources) stay whole. A cut result loses its `structuredContent`, which some
 * hosts show in the text's place, unless `keepStructured` (an outputSchema requires it).
 */
export function boundedResult<T extends Result>(
  result: T,
  maxChars: number | undefined,
  keepStructured: boolean,
): T {
  if (maxChars === undefined) return result;
  let total = 0;
  for (const block of result.content) total += textOf(block)?.length ?? 0;
  if (total <= maxChars) return result;
  const note = `\n[toolshed cut this result at ${maxChars} of its ${total} characters: ` +
    "ask for less, a page or a summary]";
  let left = maxChars - note.length;
  let noted = false;
  const content: unknown[] = [];
  for (const block of result.content) {
    const text = textOf(block);
    if (text === undefined) {
      content.push(block);
      continue;
    }
    if (noted) continue;
    if (text.length <= left) {
      left -= text.length;
      content.push(block);
      continue;
    }
    // A high surrogate left at the end would be half a character.
    const end = left > 0 && isHighSurrogate(text.charCodeAt(left - 1)) ? left - 1 : left;
    content.push({ ...(block as JsonObject), text: text.slice(0, end) + note });
    noted = true;
  }
  if (keepStructured || !("structuredContent" in result)) return { ...result, content };
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content } as T;
}

function textOf(block: unknown): string | undefined {
  return isObject(block) && block.type === "text" && typeof block.text === "string"
    ? block.text
    : undefined;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
