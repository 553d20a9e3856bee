// Patterns in a schema run on client strings with the runtime's backtracking regex
// engine; one that can backtrack super-linearly lets a client stall the server with a
// short string (ReDoS). Such a pattern is refused at start-up, found by redos-detector
// (adr/0010), which is loaded only when some schema has a pattern.
import { isObject } from "../util/json.ts";
import { subschemasOf } from "./compile.ts";
import type { JsonObject } from "../util/json.ts";

interface Verdict {
  safe: boolean;
  error: string | null;
}
type Analyse = (pattern: string, options: Record<string, unknown>) => Verdict;

/** Most time the analysis of one pattern may take; past it the pattern is refused. */
const ANALYSIS_TIMEOUT_MS = 2_000;

let analyser: Promise<Analyse> | undefined;
const verdicts = new Map<string, string | undefined>();

/** Every `pattern` and `patternProperties` key in a schema, in document order. */
function patternsOf(schema: unknown): string[] {
  const found = new Set<string>();
  const queue: unknown[] = [schema];
  for (let i = 0; i < queue.length; i++) {
    const next = queue[i];
    if (!isObject(next)) continue;
    if (typeof next.pattern === "string") found.add(next.pattern);
    if (isObject(next.patternProperties)) {
      for (const key of Object.keys(next.patternProperties)) found.add(key);
    }
    queue.push(...subschemasOf(next as JsonObject));
  }
  return [...found];
}

/**
 * Throws an Error naming the first pattern in `schema` that could take super-linear time,
 * or that the analysis could not prove safe.
 */
export async function refuseUnsafePatterns(schema: JsonObject, field: string): Promise<void> {
  const patterns = patternsOf(schema);
  if (patterns.length === 0) return;
  analyser ??= import("npm:redos-detector@6.1.4/dist/redos-detector.mjs").then((module) =>
    module.isSafePattern as Analyse
  );
  const isSafePattern = await analyser;
  for (const pattern of patterns) {
    if (!verdicts.has(pattern)) verdicts.set(pattern, judge(isSafePattern, pattern));
    const problem = verdicts.get(pattern);
    if (problem !== undefined) {
      throw new Error(`${field} has the pattern "${pattern}", which ${problem}`);
    }
  }
}

function judge(isSafePattern: Analyse, pattern: string): string | undefined {
  let verdict: Verdict;
  try {
    verdict = isSafePattern(pattern, { unicode: true, timeout: ANALYSIS_TIMEOUT_MS });
  } catch (error) {
    return `could not be checked for catastrophic backtracking (${
      error instanceof Error ? error.message.split("\n")[0] : String(error)
    }); simplify it`;
  }
  if (verdict.safe) return undefined;
  if (verdict.error === "hitMaxSteps" || verdict.error === "timedOut") {
    return "is too complex to be proven safe from catastrophic backtracking (ReDoS); simplify it";
  }
  return "can backtrack catastrophically (ReDoS): a client could stall the server with one " +
    "string. Rewrite it so that no text can be matched in two ways by the same repetition " +
    "(https://redosdetector.com shows where)";
}
