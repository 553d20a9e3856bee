// DPoP proofs (RFC 9449 §4.3): a request whose access token is bound to a key carries, in its
// `DPoP` header, a JWT signed by that key naming the request (method and URL), the moment, and
// the token. What is checked, in order: its shape and header (`typ` dpop+jwt, an asymmetric
// algorithm of the allowlist, a public `jwk`), its signature with that embedded key, then its
// claims: `htm` and `htu` naming this request, `iat` within the window, `ath` the token's hash,
// and a `jti` not taken before on this instance within the window. What it answers is the key's
// RFC 7638 thumbprint, which the token's `cnf.jkt` must equal (lib/auth/claims.ts), and how to
// spend the proof: its id is kept against replay (proof_memory.ts) only once the token it came
// with is verified as bound to its key, so that proofs no verified token vouches for take no room
// (adr/0054).
import { jwtVerify } from "npm:jose@6.2.18/jwt/verify";
import { EmbeddedJWK } from "npm:jose@6.2.18/jwk/embedded";
import { calculateJwkThumbprint } from "npm:jose@6.2.18/jwk/thumbprint";
import * as errors from "npm:jose@6.2.18/errors";
import { isObject, type JsonObject } from "../util/json.ts";
import { canonicalUri } from "./claims.ts";
import { quoted } from "./token_shape.ts";
import { type ProofMemory, proofMemory, type ProofRefusal } from "./proof_memory.ts";

/** How far a proof's `iat` may be from now, either way, in seconds (RFC 9449 §11.1). */
const PROOF_WINDOW_SECONDS = 300;

/** The longest proof looked at, in characters (a proof with an RSA 4096 key is ~1.5 KiB). */
const MAX_PROOF_LENGTH = 8192;

interface ProofRequest {
  /** The request's method (`POST`). */
  readonly method: string;
  /** The endpoint's canonical URI, which `htu` must name (without query or fragment). */
  readonly url: string;
  /** The access token the request carries, whose hash `ath` must be. */
  readonly token: string;
  /** Seconds since the epoch. */
  readonly now: number;
}

/** Why a proof is not taken: the status to answer, one sentence, and when to try again. */
export interface ProofProblem {
  /** 401 for a proof that is not good; 429 for a key over its quota; 503 for a full memory. */
  readonly status: 401 | 429 | 503;
  readonly problem: string;
  readonly retryAfter?: number;
}

/** A proof whose signature and claims hold, not yet spent. */
export interface CheckedProof {
  /** The proof key's RFC 7638 thumbprint, which the token's `cnf.jkt` must equal. */
  readonly jkt: string;
  /**
   * Spends the proof: keeps its id against replay, or says why it cannot be spent. Called once
   * the token is verified as bound to `jkt`, in the same turn as that verdict (no await between),
   * so that of two requests racing with one proof only one is answered.
   */
  spend(): ProofProblem | undefined;
}

export interface ProofChecker {
  /** The proof, checked but not spent, or why it is refused (one sentence). */
  check(proof: string, request: ProofRequest): Promise<CheckedProof | { problem: string }>;
}

const USED = "The DPoP proof was used before: each request needs a new one";

/**
 * A checker accepting `algorithms` (the asymmetric ones the tokens are checked with), keeping
 * the ids of spent proofs in `memory`.
 */
export function proofChecker(
  algorithms: readonly string[],
  memory: ProofMemory = proofMemory(),
): ProofChecker {
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
      const wrongToken = await hashProblem(payload, request.token);
      if (wrongToken) return { problem: wrongToken };
      const jkt = await calculateJwkThumbprint(jwk, "sha256");
      const jti = payload.jti as string;
      const { now } = request;
      // A replay is refused before its token costs a check; the decisive look is in spend().
      if (memory.seen(jkt, jti, now)) return { problem: USED };
      const until = (payload.iat as number) + PROOF_WINDOW_SECONDS;
      return { jkt, spend: () => spendProblem(memory.take(jkt, jti, until, now)) };
    },
  };
}

function spendProblem(refusal: ProofRefusal | undefined): ProofProblem | undefined {
  if (refusal === undefined) return undefined;
  switch (refusal.kind) {
    case "used":
      return { status: 401, problem: USED };
    case "key-full":
      return {
        status: 429,
        problem: `The DPoP key has ${refusal.limit} proofs within their window already, ` +
          "as many as this server keeps for one key",
        retryAfter: refusal.retryAfter,
      };
    case "full":
      return {
        status: 503,
        problem:
          `This server keeps ${refusal.limit} DPoP proofs within their window already, as many as it can`,
        retryAfter: refusal.retryAfter,
      };
  }
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
