// Token buckets by key (adr/0043), kept as one number each: the moment the bucket will be full
// again (the "theoretical arrival time" of the generic cell rate algorithm, GCRA). A bucket of
// capacity C that gains a token every I ms takes a request at `now` when, after it, it would be
// full no later than C·I from now; so a key absent and a key whose moment has passed are the
// same full bucket, and a full bucket can be forgotten without changing any answer. That is what
// bounds memory here (the least recently used key goes first, and it is almost always full) and
// what lets Redis expire a key the moment its bucket is full again (lib/redis/rate_buckets.ts
// runs the same arithmetic in one script).

/** One bucket a request takes a token from. */
export interface BucketLimit {
  /** The bucket's name; what shares a name shares the bucket. */
  readonly key: string;
  /** Tokens a full bucket holds. */
  readonly capacity: number;
  /** Milliseconds one token takes to come back. */
  readonly intervalMs: number;
}

/** Why a request was refused: the limit (its index) that refused it and how long until it may. */
export interface Refusal {
  readonly index: number;
  readonly retryAfterMs: number;
}

/**
 * Takes one token from each of `limits`, all or none: undefined when taken, else the refusal
 * that waits longest (a refused request takes nothing). Local buckets answer at once; shared
 * ones may take a round trip.
 */
export interface Buckets {
  take(limits: readonly BucketLimit[]): Refusal | undefined | Promise<Refusal | undefined>;
}

export interface LocalBuckets extends Buckets {
  take(limits: readonly BucketLimit[]): Refusal | undefined;
  /** Keys held now (at most `maxKeys`). */
  size(): number;
  /** Buckets forgotten while not full (the bound reached): their callers started afresh. */
  forgotten(): number;
}

/** Keys the local buckets hold before the least recently used goes (adr/0043: ~16 MB). */
const MAX_BUCKET_KEYS = 100_000;
/** Below this (ms) a wait is rounding, not a refusal (an interval of 1/3 ms adds up unevenly). */
const EPSILON_MS = 1e-6;

/** Buckets in this process's memory, at most `maxKeys` of them, on the clock `now` (ms). */
export function createLocalBuckets(
  maxKeys = MAX_BUCKET_KEYS,
  now: () => number = performance.now.bind(performance),
): LocalBuckets {
  /** The moment each bucket is full again; in order of use, the least recent first. */
  const full = new Map<string, number>();
  let forgotten = 0;
  return {
    take(limits) {
      const t = now();
      let refusal: Refusal | undefined;
      for (let i = 0; i < limits.length; i++) {
        const { key, capacity, intervalMs } = limits[i];
        const wait = Math.max(full.get(key) ?? t, t) + intervalMs - t - capacity * intervalMs;
        if (wait > EPSILON_MS && (refusal === undefined || wait > refusal.retryAfterMs)) {
          refusal = { index: i, retryAfterMs: wait };
        }
      }
      if (refusal !== undefined) {
        // A caller being refused is the one to remember: its buckets move to the back too.
        for (const { key } of limits) {
          const until = full.get(key);
          if (until === undefined) continue;
          full.delete(key);
          full.set(key, until);
        }
        return refusal;
      }
      for (const { key, intervalMs } of limits) {
        const before = full.get(key);
        if (before !== undefined) full.delete(key); // to the back: the most recently used
        full.set(key, Math.max(before ?? t, t) + intervalMs);
      }
      while (full.size > maxKeys) {
        const [oldest, until] = full.entries().next().value!;
        if (until > t) forgotten++;
        full.delete(oldest);
      }
      return undefined;
    },
    size: () => full.size,
    forgotten: () => forgotten,
  };
}

/** Keys longer than this are replaced by a hash of them (a bound on each key's memory). */
const MAX_KEY_CHARS = 160;

/**
 * `key`, or, when it is long, a 106-bit digest of it (two 53-bit cyrb53 hashes) with its length:
 * a caller's key comes from a token's subject or a client's address, and the local buckets'
 * memory is bounded by key count times key size.
 */
export function boundedKey(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  return `#${cyrb53(key, 1).toString(36)}.${cyrb53(key, 2).toString(36)}.${key.length}`;
}

/** cyrb53 (public domain, bryc): a fast 53-bit string hash. Not cryptographic. */
function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
