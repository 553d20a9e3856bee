// The DPoP proof ids an instance has honoured, kept against replay until each proof's window
// closes (RFC 9449 §11.1; adr/0054). Ids are kept under their proof key (the RFC 7638 thumbprint a
// verified token's `cnf.jkt` names), and only once that token was verified (lib/transports/http/
// oauth.ts): only a key's holder adds ids under it, so no flood of anyone else's proofs can push a
// key's ids out. Nothing unexpired is forgotten to make room: past a key's quota that key's new
// proofs are refused (its holder goes too fast), past the whole bound every key's new proofs are
// (this instance is full), until ids expire. An id is kept as its SHA-256 (a fixed 43 characters,
// whatever the `jti`'s length), so the bound in entries is a bound in bytes.
import { tokenKey } from "./token_key.ts";

/** Unexpired proof ids one key may have here at once: ~6.7 requests a second for 300 s. */
export const PROOFS_PER_KEY = 2_000;

/** Unexpired proof ids kept here at once, all keys together (~14 MB, adr/0054). */
const REMEMBERED_PROOFS = 100_000;

/** How often expired ids of every key are dropped (keys whose holder left go then), in seconds. */
const SWEEP_SECONDS = 60;

/** Why a proof is not taken: used before, or a bound (`limit`) reached, free in `retryAfter` s. */
export type ProofRefusal =
  | { readonly kind: "used" }
  | { readonly kind: "key-full" | "full"; readonly limit: number; readonly retryAfter: number };

export interface ProofMemory {
  /** Whether proof `id` of `key` was taken and its window is still open at `now`. */
  seen(key: string, id: string, now: number): boolean;
  /**
   * Takes proof `id` of `key`, kept until `until` (seconds since the epoch), or says why not:
   * checked and kept in one synchronous step, so that two requests with one proof are one.
   */
  take(key: string, id: string, until: number, now: number): ProofRefusal | undefined;
  /** Ids kept now, expired ones not yet dropped included. */
  readonly size: number;
}

interface ProofBounds {
  readonly perKey: number;
  readonly total: number;
}

export function proofMemory(
  bounds: ProofBounds = { perKey: PROOFS_PER_KEY, total: REMEMBERED_PROOFS },
): ProofMemory {
  /** Per key, the ids taken with the moment each may be forgotten. */
  const keys = new Map<string, Map<string, number>>();
  let size = 0;
  let sweptAt = -Infinity;
  /** The earliest moment an id kept at the last sweep may be forgotten. */
  let nextExpiry = Infinity;

  /** Drops the expired ids of `key`; answers the earliest moment one left may go. */
  const dropExpired = (key: string, ids: Map<string, number>, now: number): number => {
    let earliest = Infinity;
    for (const [id, until] of ids) {
      if (until <= now) {
        ids.delete(id);
        size--;
      } else if (until < earliest) earliest = until;
    }
    if (ids.size === 0) keys.delete(key);
    return earliest;
  };
  const sweep = (now: number) => {
    sweptAt = now;
    nextExpiry = Infinity;
    for (const [key, ids] of keys) nextExpiry = Math.min(nextExpiry, dropExpired(key, ids, now));
  };
  const wait = (until: number, now: number) => Math.max(1, Math.ceil(until - now));

  return {
    seen(key, id, now) {
      const until = keys.get(key)?.get(tokenKey(id));
      return until !== undefined && until > now;
    },
    take(key, id, until, now) {
      if (now - sweptAt >= SWEEP_SECONDS) sweep(now);
      const hashed = tokenKey(id);
      let ids = keys.get(key);
      const kept = ids?.get(hashed);
      if (kept !== undefined) {
        if (kept > now) return { kind: "used" };
        ids!.delete(hashed);
        size--;
      }
      if (ids !== undefined && ids.size >= bounds.perKey) {
        const earliest = dropExpired(key, ids, now);
        if (ids.size >= bounds.perKey) {
          return { kind: "key-full", limit: bounds.perKey, retryAfter: wait(earliest, now) };
        }
        if (ids.size === 0) ids = undefined; // dropped with its last id
      }
      if (size >= bounds.total) {
        // A sweep of everything costs its size: once a second at most, however many ask.
        if (now - sweptAt >= 1) sweep(now);
        if (size >= bounds.total) {
          return { kind: "full", limit: bounds.total, retryAfter: wait(nextExpiry, now) };
        }
        ids = keys.get(key);
      }
      if (ids === undefined) keys.set(key, ids = new Map());
      ids.set(hashed, until);
      size++;
      nextExpiry = Math.min(nextExpiry, until);
      return undefined;
    },
    get size() {
      return size;
    },
  };
}
