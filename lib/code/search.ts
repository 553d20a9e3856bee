// Tool search for code mode (adr/0073 decision 1): a BM25F index of one snapshot of tools, built
// once, asked many times. A query's words are matched against each tool's name, title,
// description and parameters; a hit is the tool's name, title and the first sentence of its
// description, so a model reads a short list and asks for declarations of the tools it picks.
import type { Tool } from "../primitives/tools.ts";
import { isObject } from "../util/json.ts";

/** One tool a search found. */
export interface Hit {
  name: string;
  /** The tool's display title (`title`, else `annotations.title`), when it has one. */
  title?: string;
  /** The first sentence of its description, at most SUMMARY_CHARS characters. */
  summary: string;
}

/** An index of a snapshot of tools. */
export interface SearchIndex {
  /**
   * The tools that match `query` best, best first, at most `limit` (DEFAULT_HITS): a tool
   * matches when one of the query's words is among its words. Throws on a query with no word,
   * one longer than MAX_QUERY_CHARS, or a limit that is not an integer from 1 to MAX_HITS. The
   * hits are frozen: one search's caller cannot change the next one's.
   */
  search(query: string, limit?: number): Hit[];
}

/** Longest query, in UTF-16 code units: a model describes a tool in a line, not a page. */
export const MAX_QUERY_CHARS = 1_000;
/** Most hits one search answers. */
export const MAX_HITS = 50;
/** Hits when no limit is given. */
export const DEFAULT_HITS = 10;
/** Longest summary, in characters (code points), its ellipsis included. */
export const SUMMARY_CHARS = 160;

/** BM25's saturation (k1) and length normalisation (b), the usual values. */
const K1 = 1.2;
const B = 0.75;

/**
 * What each field of a tool weighs: the name says most, in fewest words; a parameter's
 * description least (they repeat across tools: "Page size", "API key").
 */
const FIELDS = [
  { of: (tool: Tool) => [tool.name], weight: 3 },
  { of: (tool: Tool) => [titleOf(tool) ?? ""], weight: 2 },
  { of: (tool: Tool) => [tool.definition.description], weight: 1.5 },
  { of: (tool: Tool) => parametersOf(tool).map(([name]) => name), weight: 1 },
  { of: (tool: Tool) => parametersOf(tool).map(([, description]) => description), weight: 0.5 },
] as const;

/** The postings of every term, packed: term `t`'s are at `starts[t]` to `starts[t + 1]`. */
interface Postings {
  termIds: ReadonlyMap<string, number>;
  starts: Uint32Array;
  /** The tools (by index) where each term is found. */
  docs: Uint32Array;
  /** Each one's weighted, length-normalised frequency of it (BM25F). */
  weights: Float64Array;
}

/** Builds the index of `tools` (a snapshot: the index does not follow later changes). */
export function searchIndex(tools: readonly Tool[]): SearchIndex {
  // Built apart, so that what building needs (the words of every field) is not kept.
  const { termIds, starts, docs, weights } = postingsOf(tools);
  const names = tools.map((tool) => tool.name);
  const hits = tools.map((tool) => Object.freeze(hitOf(tool)));
  const count = tools.length;

  return {
    search(query, limit = DEFAULT_HITS) {
      if (typeof query !== "string") throw new TypeError("The query must be a string");
      if (query.length > MAX_QUERY_CHARS) {
        throw new RangeError(
          `The query is ${query.length} characters long, more than ${MAX_QUERY_CHARS}: ` +
            "describe the tool in a few words",
        );
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HITS) {
        throw new RangeError(`The limit "${limit}" is not an integer from 1 to ${MAX_HITS}`);
      }
      const terms = new Set(termsOf(query, new Map()));
      if (terms.size === 0) {
        throw new RangeError(
          `The query "${query}" has no word to search for: give a few words that describe the tool`,
        );
      }
      const scores = new Float64Array(count);
      const matched: number[] = [];
      for (const term of terms) {
        const id = termIds.get(term);
        if (id === undefined) continue;
        const [start, end] = [starts[id], starts[id + 1]];
        const idf = Math.log(1 + (count - (end - start) + 0.5) / (end - start + 0.5));
        for (let i = start; i < end; i++) {
          if (scores[docs[i]] === 0) matched.push(docs[i]);
          scores[docs[i]] += idf * weights[i] * (K1 + 1) / (K1 + weights[i]);
        }
      }
      return matched.sort((a, b) =>
        scores[b] - scores[a] || compareNames(names[a], names[b]) || a - b
      ).slice(0, limit).map((doc) => hits[doc]);
    },
  };
}

function postingsOf(tools: readonly Tool[]): Postings {
  const cache = new Map<string, readonly string[]>();
  const fieldTerms = tools.map((tool) =>
    FIELDS.map((field) => termsOf(field.of(tool).join(" "), cache))
  );
  const averages = FIELDS.map((_, f) =>
    fieldTerms.reduce((sum, fields) => sum + fields[f].length, 0) / Math.max(tools.length, 1)
  );
  const found = new Map<string, { docs: number[]; weights: number[] }>();
  fieldTerms.forEach((fields, doc) => {
    const weighted = new Map<string, number>();
    fields.forEach((terms, f) => {
      // BM25F: a field's counts, normalised by its length against the field's average, weighed.
      const norm = 1 - B + B * terms.length / averages[f];
      for (const term of terms) {
        weighted.set(term, (weighted.get(term) ?? 0) + FIELDS[f].weight / norm);
      }
    });
    for (const [term, weight] of weighted) {
      let postings = found.get(term);
      if (!postings) found.set(term, postings = { docs: [], weights: [] });
      postings.docs.push(doc);
      postings.weights.push(weight);
    }
  });
  const termIds = new Map<string, number>();
  const starts = new Uint32Array(found.size + 1);
  let total = 0;
  for (const [term, { docs }] of found) {
    termIds.set(term, termIds.size);
    starts[termIds.size] = total += docs.length;
  }
  const docs = new Uint32Array(total);
  const weights = new Float64Array(total);
  for (const [term, posting] of found) {
    docs.set(posting.docs, starts[termIds.get(term)!]);
    weights.set(posting.weights, starts[termIds.get(term)!]);
  }
  return { termIds, starts, docs, weights };
}

/** Orders names by UTF-16 code units, the same on every machine (no locale). */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function titleOf(tool: Tool): string | undefined {
  const { title, annotations } = tool.definition;
  return title ?? annotations?.title;
}

/** The top-level parameters of a tool's inputSchema: each name and its description. */
function parametersOf(tool: Tool): [string, string][] {
  const properties = tool.definition.inputSchema.properties;
  if (!isObject(properties)) return [];
  return Object.entries(properties).map(([name, schema]) => [
    name,
    isObject(schema) && typeof schema.description === "string" ? schema.description : "",
  ]);
}

function hitOf(tool: Tool): Hit {
  const title = titleOf(tool);
  const summary = summaryOf(tool.definition.description);
  return title === undefined ? { name: tool.name, summary } : { name: tool.name, title, summary };
}

/**
 * The first sentence of `description`: up to the first `.`, `!` or `?` followed by a space, or
 * the first line break, at most SUMMARY_CHARS characters (cut at a word, ending with "…").
 */
function summaryOf(description: string): string {
  const text = description.trim();
  const end = text.search(/[.!?](?=\s)|\n/);
  const sentence = (end === -1 ? text : text.slice(0, text[end] === "\n" ? end : end + 1))
    .replace(/\s+/g, " ").trim();
  const chars = [...sentence];
  if (chars.length <= SUMMARY_CHARS) return sentence;
  const cut = chars.slice(0, SUMMARY_CHARS - 1).join("");
  const space = cut.lastIndexOf(" ");
  return (space > SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

/**
 * The terms of a text: its words (runs of letters and digits, so split at `_`, `-`, `.` and
 * every other sign), each word's camelCase parts too (`spacecraftClass` → spacecraftclass,
 * spacecraft, class; `IPv6` → ipv6, i, pv6), lowercased, and each term's stem where it differs
 * (as Lucene's word delimiter keeps the original beside its parts, and its keyword repeat a word
 * beside its stem): a query's exact words count more than their parts or stems.
 */
function termsOf(text: string, cache: Map<string, readonly string[]>): string[] {
  const terms: string[] = [];
  for (const [word] of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    let known = cache.get(word);
    if (!known) cache.set(word, known = wordTerms(word));
    terms.push(...known);
  }
  return terms;
}

function wordTerms(word: string): string[] {
  const lower = word.toLowerCase();
  const parts = lower === word
    ? [word]
    : word.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u);
  const terms: string[] = [];
  for (const part of parts.length > 1 ? [word, ...parts] : parts) {
    const term = part.toLowerCase();
    const stemmed = stem(term);
    terms.push(term);
    if (stemmed !== term) terms.push(stemmed);
  }
  return terms;
}

/**
 * A light English stemmer, so that "spacecrafts", "searching" and "classes" find "spacecraft",
 * "search" and "class": plural endings, then "-ing" where at least four letters remain. Words
 * that are not English pass through unchanged or nearly; the query goes through the same steps.
 */
function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let stemmed = word;
  if (/ies$/.test(stemmed) && stemmed.length > 4) stemmed = stemmed.slice(0, -3) + "y";
  else if (/(sses|xes|ches|shes|zzes)$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (/[^sui]s$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (/ing$/.test(stemmed) && stemmed.length >= 7) stemmed = stemmed.slice(0, -3);
  return stemmed;
}
