// A key ring shared through Redis (adr/0016), for instances given --redis and no
// TOOLSHED_STATE_KEY: the key of each day is made by whichever instance needs it first
// (`SET NX` on `<prefix>:state-key:<day>`, a random 256-bit secret) and read by all the
// others. The day's key signs; the day's and the day before's verify, which covers every
// state still within its 15 minutes across midnight. Keys expire after two days.
import { REQUEST_STATE_TTL_MS, stateKey } from "../core/request_state.ts";
import type { KeyRing } from "../core/key_ring.ts";
import type { RedisLink } from "./connection.ts";

/** A new key signs every this often. */
export const KEY_ROTATION_MS = 24 * 60 * 60 * 1000;

export function createRedisKeyRing(link: RedisLink, now: () => number = Date.now): KeyRing {
  /** By period: the key, once read (a few periods at most are kept). */
  const cache = new Map<number, Promise<CryptoKey | undefined>>();
  const name = (period: number) => `${link.prefix}:state-key:${period}`;

  /** The period's key; made first when `make` and no instance has made it yet. */
  function keyOf(period: number, make: boolean): Promise<CryptoKey | undefined> {
    let key = cache.get(period);
    if (key === undefined) {
      key = (async () => {
        if (make) {
          const secret = Array.from(crypto.getRandomValues(new Uint8Array(32)))
            .map((byte) => byte.toString(16).padStart(2, "0")).join("");
          await link.client.set(name(period), secret, {
            condition: "NX",
            expiration: { type: "PX", value: 2 * KEY_ROTATION_MS + REQUEST_STATE_TTL_MS },
          });
        }
        const stored = await link.client.get(name(period));
        return typeof stored === "string" ? await stateKey(stored) : undefined;
      })();
      // A failed read is tried again next time, not remembered.
      key.catch(() => cache.delete(period));
      cache.set(period, key);
      for (const old of cache.keys()) if (old < period - 2) cache.delete(old);
    }
    return key;
  }

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
