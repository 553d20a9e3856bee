// The keys that seal a 2026-07-28 `requestState` (request_state.ts; adr/0016): one signs,
// and every key a state still within its lifetime may have been sealed with verifies, so a
// key can be rotated without failing the rounds under way. In this process by default (from
// TOOLSHED_STATE_KEY and TOOLSHED_STATE_KEY_PREVIOUS, or one random key); shared through
// Redis with --redis (lib/redis/key_ring.ts).
import { stateKey } from "./request_state.ts";

export interface KeyRing {
  /** The key new state is sealed with. */
  signing(): Promise<CryptoKey>;
  /** The keys state may have been sealed with, the signing one first. */
  verifying(): Promise<readonly CryptoKey[]>;
}

/**
 * A ring of fixed keys: `secrets[0]` signs and all of them verify; none given: one random
 * key of this process. The keys are made at their first use.
 */
export function createKeyRing(secrets: readonly string[] = []): KeyRing {
  let keys: Promise<CryptoKey[]> | undefined;
  const all = () =>
    keys ??= secrets.length === 0
      ? Promise.all([stateKey()])
      : Promise.all(secrets.map((secret) => stateKey(secret)));
  return {
    signing: async () => (await all())[0],
    verifying: all,
  };
}
