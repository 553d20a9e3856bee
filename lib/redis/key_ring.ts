// A key ring shared through Redis (adr/0016), for instances given --redis and no
// TOOLSHED_STATE_KEY: the key of each day is made by whichever instance needs it first
// (`SET NX` on `<prefix>:state-key:<day>`, a random 256-bit secret) and read by all the
// others. The day's key signs; the day's and the day before's verify, which covers every
// state still within its 15 minutes across midnight. Keys expire after two days.
//
// Every instance converges on one key per day, whatever Redis loses (adr/0022): an instance
// that holds a key writes it back with `SET NX` and reads back what Redis holds, each time the
// link reconnects and whenever what it read is older than RECHECK_MS. So a Redis restarted
// empty is re-seeded with the key the instances already share (the first to write wins, and
// every other reads that one), never raced by a new random key on each instance.
import { REQUEST_STATE_TTL_MS, stateKey } from "../rounds/request_state.ts";
import type { KeyRing } from "../rounds/key_ring.ts";
import type { RedisLink } from "./connection.ts";

/** A new key signs every this often. */
export const KEY_ROTATION_MS = 24 * 60 * 60 * 1000;
/** A key read from Redis is read again (in the background) once it is this old. */
const RECHECK_MS = 30_000;

interface Held {
  /** The key, once read: undefined when there is none (a day nobody signed in). */
  key: Promise<CryptoKey | undefined>;
  /** Its secret, once read (what a re-seed writes back). */
  secret?: string;
  /** When it was read (ms since the epoch, of `now`). */
  readAt: number;
  /** A re-check under way. */
  checking?: Promise<void>;
}

export function createRedisKeyRing(link: RedisLink, now: () => number = Date.now): KeyRing {
  /** By period: the key, once read (a few periods at most are kept). */
  const held = new Map<number, Held>();
  const name = (period: number) => `${link.prefix}:state-key:${period}`;

  /** Writes `secret` unless the period has a key, and reads back the one Redis holds. */
  async function seed(period: number, secret: string | undefined): Promise<string | undefined> {
    return await link.run(async (client) => {
      if (secret !== undefined) {
        await client.set(name(period), secret, {
          condition: "NX",
          expiration: { type: "PX", value: 2 * KEY_ROTATION_MS + REQUEST_STATE_TTL_MS },
        });
      }
      const stored = await client.get(name(period));
      return typeof stored === "string" ? stored : undefined;
    });
  }

  const randomSecret = () => crypto.getRandomValues(new Uint8Array(32)).toHex();

  /** Reads the period's key again (writing back the one held), keeping the old on failure. */
  function recheck(period: number, entry: Held): Promise<void> {
    entry.checking ??= (async () => {
      try {
        const stored = await seed(period, entry.secret);
        if (stored !== entry.secret && stored !== undefined) {
          entry.secret = stored;
          entry.key = stateKey(stored);
        }
        entry.readAt = now();
      } catch {
        /* Redis is unreachable: the key held still serves */
      } finally {
        entry.checking = undefined;
      }
    })();
    return entry.checking;
  }

  /** The period's key; made first when `make` and no instance has made it yet. */
  function keyOf(period: number, make: boolean): Promise<CryptoKey | undefined> {
    const entry = held.get(period);
    if (entry !== undefined) {
      if (now() - entry.readAt >= RECHECK_MS) recheck(period, entry);
      return entry.key;
    }
    const fresh: Held = { key: Promise.resolve(undefined), readAt: now() };
    fresh.key = seed(period, make ? randomSecret() : undefined).then((stored) => {
      fresh.secret = stored;
      return stored === undefined ? undefined : stateKey(stored);
    });
    // A failed read is tried again next time, not remembered.
    fresh.key.catch(() => {
      if (held.get(period) === fresh) held.delete(period);
    });
    held.set(period, fresh);
    for (const old of held.keys()) if (old < period - 2) held.delete(old);
    return fresh.key;
  }

  // After an outage, Redis may be empty: write back what this instance holds, and read what
  // Redis holds then (another instance may have written first).
  link.onRestored(() =>
    Promise.all(
      [...held].filter(([, entry]) => entry.secret !== undefined).map(([period, entry]) =>
        recheck(period, entry)
      ),
    )
  );

  const period = () => Math.floor(now() / KEY_ROTATION_MS);
  return {
    async signing() {
      const key = await keyOf(period(), true);
      if (key === undefined) throw new Error("the shared key for requestState is missing");
      return key;
    },
    async verifying() {
      const current = period();
      const keys = await Promise.all([keyOf(current, true), keyOf(current - 1, false)]);
      return keys.filter((key) => key !== undefined);
    },
  };
}
