// The token verifier of toolshed as an OAuth 2.1 resource server (issue 24, adr/0038): given the
// bearer token of a request, it says who is calling (an AuthInfo) or why not, following the
// resource server's duties of the MCP authorization spec
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization, "Token
// Handling" and "Access Token Privilege Restriction"; RFC 6750, RFC 8707, RFC 9068):
//
// 1. the token's shape, before anything else (token_shape.ts): size, characters, JSON, the
//    algorithm against the allowlist; no fetch, no crypto;
// 2. a JWT: its claims (issuer, audience as a canonical URI, expiry with the leeway), then its
//    signature against the issuer's keys (jwt.ts, key_set.ts), found from the issuer's metadata
//    (issuer_metadata.ts);
// 3. anything else: RFC 7662 introspection, when this server has credentials for it
//    (introspection.ts);
// 4. then, for either: the key binding (DPoP) and a caller, its subject or its client: a token
//    naming neither is refused, never one caller with every other such token (adr/0054).
//
// It fails closed: what it cannot check (the issuer unreachable, an answer it cannot read, a bug)
// is `unavailable`, never accepted. Trouble with the issuer is said on the diagnostics once a
// minute at most, whatever the number of requests that meet it.
import { throttledReport } from "../util/throttled_report.ts";
import type { JsonObject } from "../util/json.ts";
import { authInfoOf, bindingProblem, callerProblem } from "./claims.ts";
import { answerCache } from "./answer_cache.ts";
import { tokenKey } from "./token_key.ts";
import { cachedDocument } from "./cached_document.ts";
import { IssuerUnavailable } from "./issuer_fetch.ts";
import { endpointOf, fetchIssuerMetadata } from "./issuer_metadata.ts";
import { verifyJwt } from "./jwt.ts";
import { issuerKeySet } from "./key_set.ts";
import { introspector } from "./introspection.ts";
import { quoted, shapeOf } from "./token_shape.ts";
import type { Outcome, TokenVerifier, TokenVerifierOptions } from "./types.ts";
import { DEFAULT_ALGORITHMS } from "./algorithms.ts";

export type { TokenVerifier, TokenVerifierOptions, Verification } from "./types.ts";
export { MAX_TOKEN_LENGTH } from "./token_shape.ts";

export { DEFAULT_ALGORITHMS } from "./algorithms.ts";

/**
 * The leeway for exp, nbf and iat, in seconds: clocks kept by NTP differ by well under a second,
 * so this covers a host whose clock has drifted, while adding at most half a minute to a token's
 * life (access tokens live minutes to hours).
 */
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** How long the issuer's metadata is used before it is fetched again, in seconds. */
const METADATA_MAX_AGE_SECONDS = 3600;

/**
 * How long a verified JWT is trusted without checking it again, at most, in seconds: a key the
 * issuer withdraws stops being honoured within this (plus the key set's 10 minutes).
 */
export const VERIFIED_SECONDS = 300;

/** How often issuer trouble may reach the diagnostics, in milliseconds. */
const REPORT_EVERY_MS = 60_000;

/**
 * A verifier for tokens of `options.issuer` meant for `options.resource`. Throws at once, saying
 * which, when an option cannot work (an issuer that is not https, an algorithm that is symmetric).
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const { issuer, resource, diagnostics } = options;
  checkIssuer(issuer);
  checkResource(resource);
  const algorithms = checkAlgorithms(options.algorithms ?? DEFAULT_ALGORITHMS);
  const leeway = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  if (!(leeway >= 0 && Number.isFinite(leeway))) {
    throw new Error(
      `Cannot verify tokens with a clock tolerance of ${leeway} s: it must be 0 or more`,
    );
  }
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? (() => Date.now() / 1000);
  const report = throttledReport(diagnostics, REPORT_EVERY_MS);

  const metadata = cachedDocument<JsonObject>({
    fetchDocument: () => fetchIssuerMetadata(fetchFn, issuer),
    maxAgeSeconds: METADATA_MAX_AGE_SECONDS,
    now,
    onFailure: report,
  });
  const keySet = issuerKeySet({
    fetch: fetchFn,
    now,
    onFailure: report,
    jwksUri: async () => {
      const uri = endpointOf(await metadata.get(), "jwks_uri");
      if (uri === undefined) {
        throw new IssuerUnavailable(
          `The authorization server ${
            quoted(issuer)
          } publishes no keys ("jwks_uri"), so this server cannot check a JWT`,
        );
      }
      return uri;
    },
  });
  const introspection = options.introspection && introspector({
    fetch: fetchFn,
    endpoint: async () => endpointOf(await metadata.get(), "introspection_endpoint"),
    credentials: options.introspection,
    issuer,
    resource,
    leeway,
    now,
    onTrouble: report,
  });

  // JWTs verified here, by their hash, until they expire or for VERIFIED_SECONDS at most: a client
  // sends the same token with every request, and its signature check was ~17 times the CPU of a
  // whole unauthenticated request (bench:http). Refusals are not kept: each costs its checks again.
  const verified = answerCache();
  const check = async (token: string): Promise<Outcome> => {
    const key = tokenKey(token);
    const at = now();
    const kept = verified.get(key, at);
    if (kept !== undefined) return kept;
    const shape = shapeOf(token, algorithms);
    if (shape.kind === "invalid") return { problem: shape.message };
    if (shape.kind === "jwt") {
      const outcome = await verifyJwt(token, shape.header, shape.claims, {
        keySet,
        issuer,
        resource,
        algorithms: [...algorithms],
        leeway,
        now: at,
      });
      if ("claims" in outcome) {
        const exp = outcome.claims.exp as number; // required by verifyJwt
        verified.set(key, outcome, Math.min(exp + leeway, at + VERIFIED_SECONDS), token.length);
      }
      return outcome;
    }
    if (introspection === undefined) {
      return {
        problem:
          "The token is not a JWT, and this server has no introspection credentials to check it with",
      };
    }
    return await introspection.check(token);
  };

  return {
    async verify(token, proofKey) {
      try {
        const outcome = await check(token);
        if (!("claims" in outcome)) {
          return { ok: false, reason: "invalid", message: outcome.problem };
        }
        const unbound = bindingProblem(outcome.claims, proofKey);
        if (unbound !== undefined) return { ok: false, reason: "invalid", message: unbound };
        const auth = authInfoOf(outcome.claims, issuer);
        const nobody = callerProblem(auth);
        return nobody === undefined
          ? { ok: true, auth }
          : { ok: false, reason: "invalid", message: nobody };
      } catch (error) {
        if (error instanceof IssuerUnavailable) {
          return { ok: false, reason: "unavailable", message: error.message };
        }
        // A bug, or something no one foresaw: refused, and said with its stack.
        diagnostics.error("The token verifier failed unexpectedly", error);
        return {
          ok: false,
          reason: "unavailable",
          message: "The token could not be verified because of an error in this server",
        };
      }
    },
    issuerMetadata: () => metadata.get(),
  };
}

function checkIssuer(issuer: string): void {
  const url = URL.parse(issuer);
  const problem = url === null
    ? "it is not a URL"
    : url.search !== "" || url.hash !== ""
    ? "an issuer has no query or fragment (RFC 8414 §2)"
    : url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname))
    ? undefined
    : "it must be an https URL (http only on a loopback host, for development)";
  if (problem) throw new Error(`Cannot verify tokens of the issuer ${quoted(issuer)}: ${problem}`);
}

function checkResource(resource: string): void {
  const url = URL.parse(resource);
  const problem = url === null || (url.protocol !== "https:" && url.protocol !== "http:")
    ? "it is not an http(s) URL"
    : url.hash !== ""
    ? "a resource indicator has no fragment (RFC 8707 §2)"
    : undefined;
  if (problem) {
    throw new Error(`Cannot verify tokens for the resource ${quoted(resource)}: ${problem}`);
  }
}

function checkAlgorithms(algorithms: readonly string[]): ReadonlySet<string> {
  if (algorithms.length === 0) throw new Error("Cannot verify tokens with no algorithm allowed");
  for (const alg of algorithms) {
    if (alg.toLowerCase() === "none" || alg.toUpperCase().startsWith("HS")) {
      throw new Error(
        `Cannot verify tokens with the algorithm ${
          quoted(alg)
        }: only asymmetric signatures are accepted (a shared secret would let every verifier sign)`,
      );
    }
  }
  return new Set(algorithms);
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
