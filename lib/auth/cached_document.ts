// A document of the issuer's (its metadata, its key set) kept between verifications: fetched
// once for any number of waiting callers, refreshed when old, kept when a refresh fails, and
// after a failure asked again only once the backoff has passed (backoff.ts, adr/0038).
import { backoff } from "./backoff.ts";

interface CachedDocumentOptions<T> {
  /** Fetches the document; throws (an IssuerUnavailable, saying why) when it cannot. */
  readonly fetchDocument: () => Promise<T>;
  /** How long a fetched document is used before it is fetched again, in seconds. */
  readonly maxAgeSeconds: number;
  /** Seconds since the epoch. */
  readonly now: () => number;
  /** Told of each failed fetch (the caller throttles what reaches a person). */
  readonly onFailure: (message: string) => void;
}

interface CachedDocument<T> {
  /**
   * The document: the cached one while it is young, else a fresh one; the old one when the
   * fetch fails or waits out a backoff. Throws IssuerUnavailable when there is none to give.
   */
  get(): Promise<T>;
  /**
   * Fetches again now, unless the last attempt was less than `cooldownSeconds` ago: resolves
   * true when the document in the cache was fetched for this call (or by a fetch already under
   * way), false when nothing was fetched. Throws IssuerUnavailable when the fetch fails, or when
   * the last one failed and its backoff still runs.
   */
  refetch(cooldownSeconds: number): Promise<boolean>;
}

export function cachedDocument<T>(options: CachedDocumentOptions<T>): CachedDocument<T> {
  const { now } = options;
  const wait = backoff(now);
  let value: T | undefined;
  let fetchedAt = -Infinity;
  let lastAttemptAt = -Infinity;
  let pending: Promise<T> | undefined;

  const attempt = (): Promise<T> => {
    pending ??= (async () => {
      lastAttemptAt = now();
      try {
        const fresh = await options.fetchDocument();
        value = fresh;
        fetchedAt = now();
        wait.succeeded();
        return fresh;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        options.onFailure(message);
        throw wait.failed(message);
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };

  return {
    async get() {
      if (value !== undefined && now() - fetchedAt < options.maxAgeSeconds) return value;
      const waiting = pending === undefined ? wait.waiting() : undefined;
      if (waiting) {
        if (value !== undefined) return value;
        throw waiting;
      }
      try {
        return await attempt();
      } catch (error) {
        // A refresh that fails keeps the document it would have replaced: what it says was
        // true a moment ago, and the issuer being down is no reason to refuse every token.
        if (value !== undefined) return value;
        throw error;
      }
    },
    async refetch(cooldownSeconds) {
      if (pending !== undefined) {
        await pending;
        return true;
      }
      const waiting = wait.waiting();
      if (waiting) throw waiting;
      if (now() - lastAttemptAt < cooldownSeconds) return false;
      await attempt();
      return true;
    },
  };
}
