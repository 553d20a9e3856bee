// Completing one argument (of a prompt) or variable (of a resource template) from what its
// author declared: a list, offered by case-insensitive prefix, or a function.
import { messageOf } from "../util/json.ts";
import type { Completer, CompletionContext } from "./types.ts";

/** Most values one `completion/complete` answer may carry (MCP). */
const MAX_COMPLETION_VALUES = 100;

interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** No completer: nothing to offer (not an error: the argument exists, it just has no list). */
export const NO_COMPLETION: Completion = Object.freeze({ values: Object.freeze([]) as never });

/** The values of a list completer that start with `value`, ignoring case. */
function prefixMatches(list: readonly string[], value: string): string[] {
  const typed = value.toLowerCase();
  return list.filter((candidate) => candidate.toLowerCase().startsWith(typed));
}

/**
 * What `completer` offers for `value`: at most MAX_COMPLETION_VALUES values, with `total`
 * and `hasMore` when there were more. Rejects when a function completer throws or returns
 * something other than a list of strings.
 */
export async function complete(
  completer: Completer,
  value: string,
  context: CompletionContext,
): Promise<Completion> {
  let values: readonly unknown[];
  if (typeof completer === "function") {
    const answer: unknown = await completer(value, context);
    if (!Array.isArray(answer)) {
      throw new Error(`the completer returned ${describe(answer)}, not a list of strings`);
    }
    values = answer;
  } else {
    values = prefixMatches(completer, value);
  }
  const bad = values.findIndex((item) => typeof item !== "string");
  if (bad !== -1) {
    throw new Error(`the completer's value ${bad} is ${describe(values[bad])}, not a string`);
  }
  const strings = values as readonly string[];
  if (strings.length <= MAX_COMPLETION_VALUES) return { values: [...strings] };
  return {
    values: strings.slice(0, MAX_COMPLETION_VALUES),
    total: strings.length,
    hasMore: true,
  };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  try {
    return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
  } catch (error) {
    return messageOf(error);
  }
}
