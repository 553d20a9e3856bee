// DPoP proofs (RFC 9449 §4.3): a request whose access token is bound to a key carries, in its
// `DPoP` header, a JWT signed by that key naming the request (method and URL), the moment, and
// the token. What is checked, in order: its shape and header (`typ` dpop+jwt, an asymmetric
// algorithm of the allowlist, a public `jwk`), its signature with that embedded key, then its
// claims: `htm` and `htu` naming this request, `iat` within the window, `ath` the token's hash,
// and a `jti` not seen before on this instance within the window. What it answers is the key's
// RFC 7638 thumbprint, which the token's `cnf.jkt` must equal (lib/auth/claims.ts).
import { jwtVerify } from "npm:jose@6.2.18/jwt/verify";
import { EmbeddedJWK } from "npm:jose@6.2.18/jwk/embedded";
import { calculateJwkThumbprint } from "npm:jose@6.2.18/jwk/thumbprint";
import * as errors from "npm:jose@6.2.18/errors";
import { isObject, type JsonObject } from "../util/json.ts";
import { canonicalUri } from "./claims.ts";
import { quoted } from "./token_shape.ts";

/** How far a proof's `iat` may be from now, either way, in seconds (RFC 9449 §11.1). */
export const PROOF_WINDOW_SECONDS = 300;

/** Proof ids remembered against replay, at most; past it the oldest are forgotten. */
export const REMEMBERED_PROOFS = 10_000;

/** The longest proof looked at, in characters (a proof with an RSA 4096 key is ~1.5 KiB). */
const MAX_PROOF_LENGTH = 8192;

export interface ProofRequest {
  /** The request's method (`POST`). */
  readonly method: string;
  /** The endpoint's canonical URI, which `htu` must name (without query or fragment). */
  readonly url: string;
  /** The access token the request carries, whose hash `ath` must be. */
  readonly token: string;
  /** Seconds since the epoch. */
  readonly now: number;
}

export interface ProofChecker {
  /** The proof key's thumbprint, or why the proof is refused (one sentence). */
  check(proof: string, request: ProofRequest): Promise<{ jkt: string } | { problem: string }>;
}

/** A checker accepting `algorithms` (the asymmetric ones the tokens are checked with). */
export function proofChecker(algorithms: readonly string[]): ProofChecker {
  /** Proof ids seen, with the moment each may be forgotten, oldest first. */
  const seen = new Map<string, number>();
  const remember = (jti: string, until: number, now: number) => {
    for (const [id, expiry] of seen) {
      if (expiry > now && seen.size < REMEMBERED_PROOFS) break;
      seen.delete(id);
    }
    seen.set(jti, until);
  };
  return {
    async check(proof, request) {
      if (proof.length > MAX_PROOF_LENGTH) {
        return { problem: `The DPoP proof is longer than ${MAX_PROOF_LENGTH} characters` };
      }
      let payload: JsonObject;
      let jwk: JsonObject;
      try {
        const verified = await jwtVerify(proof, EmbeddedJWK, {
          typ: "dpop+jwt",
          algorithms: [...algorithms],
        });
        payload = verified.payload as JsonObject;
        jwk = verified.protectedHeader.jwk as JsonObject;
      } catch (error) {
        return { problem: problemOf(error) };
      }
      if (!isObject(jwk) || "d" in jwk) {
        return { problem: "The DPoP proof's key is not a public key" };
      }
      const problem = claimsProblem(payload, request);
      if (problem) return { problem };
      // Seen and remembered in one turn, so that two requests racing with one proof are one.
      const jti = payload.jti as string;
      const expiry = seen.get(jti);
      if (expiry !== undefined && expiry > request.now) {
        return { problem: "The DPoP proof was used before: each request needs a new one" };
      }
      remember(jti, (payload.iat as number) + PROOF_WINDOW_SECONDS, request.now);
      const wrongToken = await hashProblem(payload, request.token);
      if (wrongToken) return { problem: wrongToken };
      return { jkt: await calculateJwkThumbprint(jwk, "sha256") };
    },
  };
}

function claimsProblem(payload: JsonObject, request: ProofRequest): string | undefined {
  const { jti, htm, htu, iat } = payload;
  if (typeof jti !== "string" || jti === "" || jti.length > 256) {
    return 'The DPoP proof has no usable id ("jti")';
  }
  if (htm !== request.method) {
    return `The DPoP proof is for the method ${quoted(htm)}, not ${quoted(request.method)}`;
  }
  const url = typeof htu === "string" ? URL.parse(htu) : null;
  if (url === null) return 'The DPoP proof names no URL ("htu")';
  url.search = "";
  url.hash = "";
  if (canonicalUri(url.href) !== canonicalUri(request.url)) {
    return `The DPoP proof is for ${quoted(htu)}, not this server (${quoted(request.url)})`;
  }
  if (typeof iat !== "number" || !Number.isFinite(iat)) {
    return 'The DPoP proof has no time ("iat")';
  }
  if (Math.abs(request.now - iat) > PROOF_WINDOW_SECONDS) {
    return `The DPoP proof was made at ${
      new Date(iat * 1000).toISOString()
    }, more than ${PROOF_WINDOW_SECONDS} s from now`;
  }
  return undefined;
}

/** `ath` must be the base64url SHA-256 of the access token (RFC 9449 §4.2). */
async function hashProblem(payload: JsonObject, token: string): Promise<string | undefined> {
  if (typeof payload.ath !== "string") return 'The DPoP proof does not name the token ("ath")';
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  const expected = new Uint8Array(digest).toBase64({ alphabet: "base64url", omitPadding: true });
  return payload.ath === expected ? undefined : "The DPoP proof is for another access token";
}

function problemOf(error: unknown): string {
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return "The DPoP proof's algorithm is not one this server accepts";
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return "The DPoP proof's signature does not verify with the key it carries";
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The DPoP proof's ${quoted(error.claim)} is not valid: ${error.reason}`;
  }
  if (error instanceof errors.JOSEError) return `The DPoP proof is not valid: ${error.message}`;
  throw error;
}
