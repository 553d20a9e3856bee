// What the token verifier is given and what it answers (re-exported by verifier.ts).
import type { AuthInfo } from "../primitives/types.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { JsonObject } from "../util/json.ts";

export interface TokenVerifierOptions {
  /**
   * The authorization server's issuer URL (`--auth-issuer`), exactly as its metadata's `issuer`
   * says it. Its metadata is found by RFC 8414 (`/.well-known/oauth-authorization-server`,
   * path-aware) or OpenID Discovery (`/.well-known/openid-configuration`). An https URL; http
   * only on a loopback host (for development and tests).
   */
  readonly issuer: string;
  /**
   * This server's canonical URI (`--public-url` + the MCP path, e.g.
   * https://mcp.example.com/mcp): a JWT access token's `aud` must name it (RFC 8707), an
   * introspected token's `aud` too when it has one.
   */
  readonly resource: string;
  /**
   * JWS algorithms accepted (default: the asymmetric ones, `DEFAULT_ALGORITHMS`); never "none",
   * never HS* (a shared secret would let anyone who verifies also sign).
   */
  readonly algorithms?: readonly string[];
  /** Leeway for exp/nbf/iat, in seconds (default `DEFAULT_CLOCK_TOLERANCE_SECONDS`, 30). */
  readonly clockToleranceSeconds?: number;
  /**
   * Credentials for RFC 7662 introspection of opaque (non-JWT) tokens, sent with HTTP Basic to
   * the issuer's `introspection_endpoint`. Without them an opaque token is refused.
   */
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
  /** The fetch to use (tests may pass one); default globalThis.fetch. */
  readonly fetch?: typeof fetch;
  /** Seconds since the epoch; default Date.now()/1000 (tests drive it). */
  readonly now?: () => number;
  /** Where issuer trouble is said, once per minute at most. */
  readonly diagnostics: Diagnostics;
}

export type Verification =
  | { readonly ok: true; readonly auth: AuthInfo }
  /** The token is not good: 401 invalid_token, `message` one sentence saying why (never echoing the token). */
  | { readonly ok: false; readonly reason: "invalid"; readonly message: string }
  /** The verifier cannot decide now (the issuer's metadata or JWKS or introspection unreachable): fail closed; the lead answers 503. */
  | { readonly ok: false; readonly reason: "unavailable"; readonly message: string };

export interface TokenVerifier {
  /**
   * Who the token names, or why not. `proofKey` is the RFC 7638 thumbprint of the key that signed
   * the request's DPoP proof (already checked, lib/auth/dpop.ts): a key-bound token must be bound
   * to it, and without it a key-bound token is refused.
   */
  verify(token: string, proofKey?: string): Promise<Verification>;
  /**
   * The issuer's authorization-server metadata (cached), for diagnostics and for
   * `scopes_supported` if useful. Rejects with the reason when it cannot be had.
   */
  issuerMetadata(): Promise<Record<string, unknown>>;
}

/** What one check of a token found: the claims it vouches for, or why it does not. */
export type Outcome = { readonly claims: JsonObject } | { readonly problem: string };
