// The issuer's signing keys (its JWKS, at `jwks_uri`), cached. A token signed with a key the
// cache does not hold makes the set be fetched again, but not more than once per
// UNKNOWN_KEY_COOLDOWN_SECONDS: a flood of tokens with made-up `kid`s costs the issuer one fetch
// per cooldown, however large the flood (adr/0038).
import { createLocalJWKSet } from "npm:jose@6.2.18/jwks/local";
import { isObject } from "../util/json.ts";
import { cachedDocument } from "./cached_document.ts";
import { askIssuer, IssuerUnavailable } from "./issuer_fetch.ts";

/**
 * How long a fetched key set is used before it is fetched again, in seconds: a key the issuer
 * withdraws stops being accepted within this, and an idle server asks six times an hour.
 */
const KEY_SET_MAX_AGE_SECONDS = 600;

/**
 * The least time between two fetches of the key set for tokens whose key it does not hold, in
 * seconds (jose's remote key set uses the same). An issuer that publishes a new key before it
 * signs with it, as RFC 7517 deployments and oidc-provider's guide do, is never waited for; one
 * that signs with a key the moment it publishes it sees such tokens refused for 30 s at most.
 */
const UNKNOWN_KEY_COOLDOWN_SECONDS = 30;

/** A key lookup jose's `jwtVerify` takes. */
type KeyLookup = ReturnType<typeof createLocalJWKSet>;

export interface KeySet {
  /** The cached keys (fetched when there are none or they are old). */
  current(): Promise<KeyLookup>;
  /** Fetches the set again for a key it lacks, unless it was fetched within the cooldown. */
  refetchForUnknownKey(): Promise<boolean>;
}

export function issuerKeySet(options: {
  readonly fetch: typeof fetch;
  /** The `jwks_uri` of the issuer's current metadata. */
  readonly jwksUri: () => Promise<string>;
  readonly now: () => number;
  readonly onFailure: (message: string) => void;
}): KeySet {
  const document = cachedDocument<KeyLookup>({
    maxAgeSeconds: KEY_SET_MAX_AGE_SECONDS,
    now: options.now,
    onFailure: options.onFailure,
    fetchDocument: async () => {
      const url = await options.jwksUri();
      const { status, body } = await askIssuer(options.fetch, url);
      if (status !== 200 || !isObject(body) || !Array.isArray(body.keys)) {
        throw new IssuerUnavailable(
          `Cannot fetch the authorization server's keys: "${url}" answered ${status}${
            status === 200 ? " without a JSON Web Key Set" : ""
          }`,
        );
      }
      try {
        return createLocalJWKSet({ keys: body.keys });
      } catch (error) {
        throw new IssuerUnavailable(
          `Cannot use the authorization server's keys from "${url}": ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    },
  });
  return {
    current: () => document.get(),
    refetchForUnknownKey: () => document.refetch(UNKNOWN_KEY_COOLDOWN_SECONDS),
  };
}
