// What introspection answered, kept for a while by the SHA-256 of the token (never the token:
// a dump of this map gives nobody a credential). Bounded by entries and by bytes, least recently
// used out first, so a flood of distinct tokens costs memory up to the bound and no further
// (adr/0038).
import type { Outcome } from "./types.ts";

/** The most answers kept. */
const ANSWER_CACHE_ENTRIES = 10_000;
/** The most bytes of answers kept (each counted as its JSON's length plus 200 for the key and the entry). */
const ANSWER_CACHE_BYTES = 8 * 1024 * 1024;

interface Entry {
  readonly outcome: Outcome;
  /** Seconds since the epoch after which the entry is not used. */
  readonly until: number;
  readonly bytes: number;
}

export interface AnswerCache {
  /** The outcome kept for `key`, unless it is past its time. */
  get(key: string, now: number): Outcome | undefined;
  /** Keeps `outcome` for `key` until `until`, making room by dropping the least recently used. */
  set(key: string, outcome: Outcome, until: number, bytes: number): void;
  readonly size: number;
}

export function answerCache(
  limits: { readonly entries: number; readonly bytes: number } = {
    entries: ANSWER_CACHE_ENTRIES,
    bytes: ANSWER_CACHE_BYTES,
  },
): AnswerCache {
  // A Map iterates in insertion order: re-inserting on each hit keeps the least recently used
  // first, where eviction takes from.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (key: string, entry: Entry) => {
    entries.delete(key);
    bytes -= entry.bytes;
  };
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      drop(key, entry);
      if (now >= entry.until) return undefined;
      entries.set(key, entry);
      bytes += entry.bytes;
      return entry.outcome;
    },
    set(key, outcome, until, size) {
      const old = entries.get(key);
      if (old) drop(key, old);
      const entry = { outcome, until, bytes: size + 200 };
      if (entry.bytes > limits.bytes) return;
      while (entries.size >= limits.entries || bytes + entry.bytes > limits.bytes) {
        const [oldestKey, oldest] = entries.entries().next().value!;
        drop(oldestKey, oldest);
      }
      entries.set(key, entry);
      bytes += entry.bytes;
    },
    get size() {
      return entries.size;
    },
  };
}
