// A JWT access token (RFC 9068, or any JWT the issuer signs): its claims are checked first, on
// the decoded payload, so a token that would be refused anyway costs no crypto and no fetch;
// then jose checks the signature against the issuer's keys (and the claims again, now vouched
// for). Nothing in the payload is believed before the signature verifies.
import { jwtVerify } from "npm:jose@6.2.18/jwt/verify";
import * as errors from "npm:jose@6.2.18/errors";
import type { JsonObject } from "../util/json.ts";
import { claimsProblem } from "./claims.ts";
import type { KeySet } from "./key_set.ts";
import { quoted } from "./token_shape.ts";
import type { Outcome } from "./types.ts";

/**
 * The `typ` values of an access token: RFC 9068's, and the generic "JWT" most issuers still use
 * (so `typ` is not required). A JWT typed otherwise (a logout token's "logout+jwt", a DPoP
 * proof's "dpop+jwt", a security event's "secevent+jwt") is another kind of JWT, whatever its
 * audience says.
 */
const ACCESS_TOKEN_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt", "application/jwt"]);

interface JwtContext {
  readonly keySet: KeySet;
  readonly issuer: string;
  readonly resource: string;
  readonly algorithms: readonly string[];
  readonly leeway: number;
  readonly now: number;
}

export async function verifyJwt(
  token: string,
  header: JsonObject,
  claims: JsonObject,
  context: JwtContext,
): Promise<Outcome> {
  const { issuer, resource, now, leeway } = context;
  const problem = claimsProblem(claims, { issuer, resource, now, leeway, complete: true });
  if (problem) return { problem };
  if (header.typ !== undefined && !ACCESS_TOKEN_TYPES.has(String(header.typ).toLowerCase())) {
    return {
      problem: `The token's type ${quoted(header.typ)} is not an access token's ("at+jwt")`,
    };
  }
  let keys = await context.keySet.current();
  for (let round = 0;; round++) {
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: [...context.algorithms],
        issuer,
        clockTolerance: leeway,
        currentDate: new Date(now * 1000),
        requiredClaims: ["exp"],
      });
      return { claims: payload as JsonObject };
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey && round === 0 &&
        await context.keySet.refetchForUnknownKey()
      ) {
        keys = await context.keySet.current();
        continue;
      }
      return { problem: problemOf(error, header) };
    }
  }
}

/** jose's refusal as one sentence of ours; anything that is not jose's is thrown on. */
function problemOf(error: unknown, header: JsonObject): string {
  if (error instanceof errors.JWKSNoMatchingKey) {
    return header.kid === undefined
      ? 'The token names no key ("kid"), and no key of the authorization server fits it'
      : `The token's key ${quoted(header.kid)} is not one the authorization server publishes ` +
        `for verifying signatures (none by that id, or its "use" or "key_ops" say otherwise)`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return "The token's signature does not verify with the authorization server's key";
  }
  if (error instanceof errors.JWTExpired) return "The token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The token's ${quoted(error.claim)} claim is not valid: ${error.reason}`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `The token's algorithm ${quoted(header.alg)} is not one this server accepts`;
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return `The token is not a well-formed JWT: ${error.message}`;
  }
  if (error instanceof errors.JOSEError) {
    return `The token cannot be verified: ${error.message}`;
  }
  throw error;
}
