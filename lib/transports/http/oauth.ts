// Toolshed as an OAuth 2.1 resource server over HTTP (issue 24, adr/0040): the step that asks
// every request to the endpoint for an access token and learns who is calling. What the spec
// asks of a resource server (https://modelcontextprotocol.io/specification/2026-07-28/basic/
// authorization): a token only in `Authorization` (never the query string), 401 with a challenge
// naming the metadata and the scopes to ask for (oauth_challenge.ts, oauth_metadata.ts), a token
// checked for this server as its audience (lib/auth), 403 `insufficient_scope` naming every scope
// an operation needs. A token bound to a key (DPoP, RFC 9449) comes as `Authorization: DPoP` with
// a proof of the key in the `DPoP` header. A verifier that cannot decide (the authorization
// server unreachable) refuses: 503, never a request let through.
import type { TokenVerifier, TokenVerifierOptions } from "../../auth/verifier.ts";
import type { CheckedProof, ProofChecker, ProofProblem } from "../../auth/dpop.ts";
import { DEFAULT_ALGORITHMS } from "../../auth/algorithms.ts";
import { canonicalUri } from "../../auth/claims.ts";
import { covers } from "../../primitives/scopes.ts";
import { setFact } from "../../methods/facts.ts";
import { messageOf } from "../../util/json.ts";
import { HttpErrorCode } from "./errors.ts";
import { refuse } from "./statuses.ts";
import type { HttpStep } from "./exchange.ts";
import { BEARER_TOKEN } from "./auth.ts";
import { challenge, insufficientScope, type Scheme } from "./oauth_challenge.ts";
import { METADATA_PREFIX } from "./oauth_metadata.ts";

/** How an HTTP server is a resource server (`--auth-issuer` and the flags beside it). */
export interface OAuthHttpOptions {
  /** The authorization server's issuer URL; its metadata names its keys and endpoints. */
  readonly issuer: string;
  /**
   * The MCP endpoint's URL as clients reach it (`https://mcp.example.com/mcp`): the audience
   * tokens must name and the `resource` of the metadata. Default: the address served, which
   * is right only when clients reach the server by it (not behind a proxy, not a wildcard).
   */
  readonly publicUrl?: string;
  /** Scopes every request needs, asked for in every challenge (`--auth-scope`). */
  readonly scopes?: readonly string[];
  /** Client credentials for RFC 7662 introspection of opaque tokens. */
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
  /** JWS algorithms accepted, for tokens and DPoP proofs (default: the asymmetric ones). */
  readonly algorithms?: readonly string[];
  /** A verifier of one's own (tests); default: lib/auth's, for `issuer`. */
  readonly verifier?: TokenVerifier;
}

/** What the step and the metadata need: the resource, its issuer, its base scopes, the checks. */
export interface ResourceServer {
  /** The canonical URI of the MCP endpoint: the audience tokens must name. */
  readonly resource: string;
  /** The authorization server (its issuer identifier). */
  readonly issuer: string;
  /** Scopes every request needs (`--auth-scope`); asked for in every challenge. */
  readonly scopes: readonly string[];
  /** JWS algorithms accepted (DPoP proofs' too: named in the metadata and challenges). */
  readonly algorithms: readonly string[];
  /** The metadata's URL as clients reach it (named in every challenge). */
  readonly metadataUrl: string;
  /** The local paths serving the metadata: path-aware for the endpoint, and the root. */
  readonly metadataPaths: readonly string[];
  readonly verifier: TokenVerifier;
  readonly proofs: ProofChecker;
}

/**
 * The resource server of an endpoint served at `localPath` and reached by clients at
 * `publicUrl` (the endpoint's URL, `https://mcp.example.com/mcp`, or the server's origin).
 * lib/auth is imported when the first request needs it (jose and the verifier cost ~14 ms to
 * import, which a server without OAuth never pays).
 */
export function resourceServerOf(
  options: OAuthHttpOptions,
  endpoint: { readonly publicUrl: string; readonly localPath: string },
  diagnostics: TokenVerifierOptions["diagnostics"],
): ResourceServer {
  const resource = resourceOf(endpoint.publicUrl, endpoint.localPath);
  const url = new URL(resource);
  const publicPath = url.pathname === "/" ? "" : url.pathname;
  const paths = new Set([
    `${METADATA_PREFIX}${publicPath}`,
    `${METADATA_PREFIX}${endpoint.localPath}`,
    METADATA_PREFIX,
  ]);
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  return {
    resource,
    issuer: options.issuer,
    scopes: options.scopes ?? [],
    algorithms,
    metadataUrl: `${url.origin}${METADATA_PREFIX}${publicPath}`,
    metadataPaths: [...paths],
    verifier: options.verifier ?? loadedVerifier({
      issuer: options.issuer,
      resource,
      algorithms,
      introspection: options.introspection,
      diagnostics,
    }),
    proofs: loadedProofChecker(algorithms),
  };
}

/**
 * The canonical URI of the endpoint clients reach at `publicUrl`: the URL as given, or, for an
 * origin alone (`https://mcp.example.com`), the origin and the endpoint's path here.
 */
export function resourceOf(publicUrl: string, localPath: string): string {
  const given = new URL(publicUrl);
  return canonicalUri(given.pathname === "/" ? `${given.origin}${localPath}` : given.href);
}

/** `<scheme> <token>`: Bearer or DPoP, in any case, one or more spaces, the token. */
const CREDENTIALS = /^(bearer|dpop) +(\S+)$/i;

/**
 * The step: a request without a usable token is refused with the challenge that starts a
 * client's sign-in; one with a good token goes on with its `caller` fact set (and the challenge a
 * refusal for scopes will carry), unless it lacks a base scope (403). The token itself goes no
 * further than the verifier.
 */
export function oauthStep(server: ResourceServer): HttpStep {
  const deny = (
    row: "tokenInQuery" | "tokenRefused",
    scheme: Scheme,
    error: string | undefined,
    description: string,
  ) =>
    refuse(
      row,
      undefined,
      {
        code: HttpErrorCode.Refused,
        message: `${row === "tokenInQuery" ? "Bad Request" : "Unauthorized"}: ${description}`,
      },
      challenge(server, scheme, error, description, server.scopes),
    );
  return (next) => async (exchange) => {
    const { request } = exchange;
    if (tokenInQuery(request.url)) {
      return deny(
        "tokenInQuery",
        "Bearer",
        "invalid_request",
        "an access token goes in the Authorization header, never the URL",
      );
    }
    const credentials = request.headers.get("authorization");
    if (credentials === null) {
      return deny("tokenRefused", "Bearer", undefined, "this server needs an OAuth access token");
    }
    const given = CREDENTIALS.exec(credentials);
    if (given === null) {
      return deny(
        "tokenRefused",
        "Bearer",
        undefined,
        "the Authorization header must be Bearer (or DPoP) and one token",
      );
    }
    const scheme: Scheme = given[1].toLowerCase() === "dpop" ? "DPoP" : "Bearer";
    const token = given[2];
    if (!BEARER_TOKEN.test(token)) {
      return deny(
        "tokenRefused",
        scheme,
        "invalid_token",
        "the token has characters a token cannot have",
      );
    }
    let proof: CheckedProof | undefined;
    if (scheme === "DPoP") {
      const header = request.headers.get("dpop");
      // A proof has no comma: one there means several DPoP headers, which RFC 9449 §4.3 refuses.
      if (header === null || header.includes(",")) {
        return deny(
          "tokenRefused",
          scheme,
          "invalid_dpop_proof",
          "a DPoP token needs one DPoP proof",
        );
      }
      const checked = await server.proofs.check(header, {
        method: request.method,
        url: server.resource,
        token,
        now: Date.now() / 1000,
      });
      if ("problem" in checked) {
        return deny("tokenRefused", scheme, "invalid_dpop_proof", checked.problem);
      }
      proof = checked;
    }
    const verified = await server.verifier.verify(token, proof?.jkt);
    // Spent only now that a verified token vouches for its key, in this turn (adr/0054).
    const unspent = verified.ok ? proof?.spend() : undefined;
    if (unspent?.status === 401) {
      return deny("tokenRefused", scheme, "invalid_dpop_proof", unspent.problem);
    }
    if (unspent !== undefined) return boundReached(unspent);
    if (!verified.ok) {
      if (verified.reason === "invalid") {
        return deny("tokenRefused", scheme, "invalid_token", verified.message);
      }
      return refuse("tokenUncheckable", undefined, {
        code: HttpErrorCode.Refused,
        message: `Service Unavailable: the token cannot be checked now (${verified.message})`,
      });
    }
    const { auth } = verified;
    if (!covers(auth, server.scopes)) {
      return refuse(
        "baseScopeMissing",
        undefined,
        {
          code: HttpErrorCode.Refused,
          message: `Forbidden: this server needs the scopes ${server.scopes.join(" ")}`,
        },
        insufficientScope(server, scheme, server.scopes, []),
      );
    }
    setFact(exchange, "caller", auth);
    // For a tool toolshed made to trade it for an upstream's token (adr/0071 §5), and no other.
    setFact(exchange, "frontToken", token);
    exchange.scopeChallenge = (required) =>
      insufficientScope(server, scheme, server.scopes, required);
    if (exchange.note !== undefined) exchange.note.subject = auth.subject ?? auth.clientId;
    return next(exchange);
  };
}

/** A proof not spent because a bound of the proof memory is reached: 429 or 503, and when. */
function boundReached(refused: ProofProblem): Response {
  const tooMany = refused.status === 429;
  return refuse(
    tooMany ? "proofsTooMany" : "proofsUnavailable",
    undefined,
    {
      code: HttpErrorCode.Refused,
      message: `${tooMany ? "Too Many Requests" : "Service Unavailable"}: ${refused.problem}`,
    },
    refused.retryAfter ?? 1,
  );
}

/**
 * lib/auth's verifier, imported now (not at start-up of a server without OAuth). Options it
 * refuses (an http issuer off loopback, `none` among the algorithms) are said once, and every
 * token is then refused (503), as the command line refuses them before they get here.
 */
function loadedVerifier(options: TokenVerifierOptions): TokenVerifier {
  const made = import("../../auth/verifier.ts").then((module) =>
    module.createTokenVerifier(options)
  );
  made.catch((error) => options.diagnostics.error("The OAuth token verifier cannot start", error));
  return {
    async verify(token, proofKey) {
      try {
        return (await made).verify(token, proofKey);
      } catch (error) {
        return {
          ok: false,
          reason: "unavailable",
          message: `the verifier cannot start: ${messageOf(error)}`,
        };
      }
    },
    issuerMetadata: async () => (await made).issuerMetadata(),
  };
}

/** lib/auth's DPoP proof checker, imported at the first DPoP request. */
function loadedProofChecker(algorithms: readonly string[]): ProofChecker {
  const made = once(() =>
    import("../../auth/dpop.ts").then((module) => module.proofChecker(algorithms))
  );
  return { check: async (proof, request) => (await made()).check(proof, request) };
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => made ??= make();
}

/** Whether the URL carries `access_token` in its query (RFC 6750 §2.3, which MCP forbids). */
function tokenInQuery(url: string): boolean {
  if (!url.includes("access_token")) return false;
  return URL.parse(url)?.searchParams.has("access_token") === true;
}
