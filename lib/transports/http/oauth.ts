// Toolshed as an OAuth 2.1 resource server over HTTP (issue 24, adr/0038): the step that asks
// every request to the endpoint for an access token and learns who is calling, and the
// protected resource metadata (RFC 9728) that tells a client where to get one. What the spec
// asks of a resource server (https://modelcontextprotocol.io/specification/2026-07-28/basic/
// authorization): a token only in `Authorization: Bearer` (never the query string), 401 with a
// `WWW-Authenticate` challenge naming the metadata and the scopes to ask for, a token checked
// for this server as its audience (lib/auth), 403 `insufficient_scope` naming every scope an
// operation needs, and no `offline_access` in any challenge. A verifier that cannot decide
// (the authorization server unreachable) refuses: 503, never a request let through.
import type { TokenVerifier, TokenVerifierOptions } from "../../auth/verifier.ts";
import { canonicalUri } from "../../auth/claims.ts";
import { covers } from "../../primitives/scopes.ts";
import { messageOf } from "../../util/json.ts";
import { jsonAnswer } from "./answer.ts";
import { errorMessage, HttpErrorCode } from "./errors.ts";
import type { HttpHandler, HttpStep } from "./exchange.ts";
import { BEARER_TOKEN } from "./auth.ts";

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
  /** JWS algorithms accepted (default: the asymmetric ones). */
  readonly algorithms?: readonly string[];
  /** A verifier of one's own (tests); default: lib/auth's, for `issuer`. */
  readonly verifier?: TokenVerifier;
}

/** Where RFC 9728 puts a resource's metadata, before the resource's path. */
export const METADATA_PREFIX = "/.well-known/oauth-protected-resource";

/** What the step and the metadata need: the resource, its issuer, its base scopes. */
export interface ResourceServer {
  /** The canonical URI of the MCP endpoint: the audience tokens must name. */
  readonly resource: string;
  /** The authorization server (its issuer identifier). */
  readonly issuer: string;
  /** Scopes every request needs (`--auth-scope`); asked for in every challenge. */
  readonly scopes: readonly string[];
  /** The metadata's URL as clients reach it (named in every challenge). */
  readonly metadataUrl: string;
  /** The local paths serving the metadata: path-aware for the endpoint, and the root. */
  readonly metadataPaths: readonly string[];
  readonly verifier: TokenVerifier;
}

/**
 * The resource server for an endpoint served at `localPath` and reached by clients at
 * `publicUrl` (the endpoint's URL, `https://mcp.example.com/mcp`, or the server's origin).
 */
export function resourceServerOf(options: {
  readonly publicUrl: string;
  readonly localPath: string;
  readonly issuer: string;
  readonly scopes: readonly string[];
  readonly verifier: TokenVerifier;
}): ResourceServer {
  const resource = resourceOf(options.publicUrl, options.localPath);
  const url = new URL(resource);
  const publicPath = url.pathname === "/" ? "" : url.pathname;
  const paths = new Set([
    `${METADATA_PREFIX}${publicPath}`,
    `${METADATA_PREFIX}${options.localPath}`,
    METADATA_PREFIX,
  ]);
  return {
    resource,
    issuer: options.issuer,
    scopes: options.scopes,
    metadataUrl: `${url.origin}${METADATA_PREFIX}${publicPath}`,
    metadataPaths: [...paths],
    verifier: options.verifier,
  };
}

/**
 * lib/auth's verifier, imported when it is made (jose and the verifier cost ~14 ms to import,
 * which a server without OAuth never pays) and used once loaded. Options it refuses (an http
 * issuer off loopback, `none` among the algorithms) leave every token unchecked: refused (503)
 * and said on the diagnostics, as the command line refuses them before they get here.
 */
export function loadedVerifier(options: TokenVerifierOptions): TokenVerifier {
  const made = import("../../auth/verifier.ts").then((module) =>
    module.createTokenVerifier(options)
  );
  made.catch((error) => options.diagnostics.error("The OAuth token verifier cannot start", error));
  return {
    async verify(token) {
      try {
        return (await made).verify(token);
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

/**
 * The canonical URI of the endpoint clients reach at `publicUrl`: the URL as given, or, for an
 * origin alone (`https://mcp.example.com`), the origin and the endpoint's path here.
 */
export function resourceOf(publicUrl: string, localPath: string): string {
  const given = new URL(publicUrl);
  return canonicalUri(given.pathname === "/" ? `${given.origin}${localPath}` : given.href);
}

/** `Bearer <token>`: the scheme in any case, one or more spaces, the token. */
const BEARER_CREDENTIALS = /^bearer +(\S+)$/i;

/**
 * The step: a request without a usable token is refused with the challenge that starts a
 * client's sign-in; one with a good token goes on with `exchange.auth` set, unless it lacks a
 * base scope (403). The token itself goes no further than the verifier.
 */
export function oauthStep(server: ResourceServer): HttpStep {
  const unauthorized = (error: string | undefined, description: string) =>
    jsonAnswer(
      errorMessage(undefined, {
        code: HttpErrorCode.Refused,
        message: `Unauthorized: ${description}`,
      }),
      401,
      { "www-authenticate": challenge(server, error, description, server.scopes) },
    );
  return (next) => async (exchange) => {
    const { request } = exchange;
    if (tokenInQuery(request.url)) {
      return jsonAnswer(
        errorMessage(undefined, {
          code: HttpErrorCode.Refused,
          message: "Bad Request: an access token goes in the Authorization header, never the URL",
        }),
        400,
        {
          "www-authenticate": challenge(
            server,
            "invalid_request",
            "an access token goes in the Authorization header, never the URL",
            server.scopes,
          ),
        },
      );
    }
    const credentials = request.headers.get("authorization");
    if (credentials === null) {
      return unauthorized(undefined, "this server needs an OAuth access token (Bearer)");
    }
    const token = BEARER_CREDENTIALS.exec(credentials)?.[1];
    if (token === undefined) {
      return unauthorized(undefined, "the Authorization header must be Bearer and one token");
    }
    if (!BEARER_TOKEN.test(token)) {
      return unauthorized("invalid_token", "the token has characters a bearer token cannot");
    }
    const verified = await server.verifier.verify(token);
    if (!verified.ok) {
      if (verified.reason === "invalid") {
        return unauthorized("invalid_token", verified.message);
      }
      return jsonAnswer(
        errorMessage(undefined, {
          code: HttpErrorCode.Refused,
          message: `Service Unavailable: the token cannot be checked now (${verified.message})`,
        }),
        503,
        { "retry-after": "5" },
      );
    }
    const { auth } = verified;
    if (!covers(auth, server.scopes)) {
      return jsonAnswer(
        errorMessage(undefined, {
          code: HttpErrorCode.Refused,
          message: `Forbidden: this server needs the scopes ${server.scopes.join(" ")}`,
        }),
        403,
        { "www-authenticate": scopeChallenge(server, []) },
      );
    }
    exchange.auth = auth;
    if (exchange.note !== undefined) exchange.note.subject = auth.subject ?? auth.clientId;
    return next(exchange);
  };
}

/**
 * The challenge of a 403 for an operation needing `required` besides the base scopes: every
 * scope, in one challenge (a client asks for all of them at once, not one per retry).
 */
export function scopeChallenge(server: ResourceServer, required: readonly string[]): string {
  const all = [...new Set([...server.scopes, ...required])];
  return challenge(server, "insufficient_scope", undefined, all);
}

/** The metadata document (RFC 9728 §2), readable from any origin: it is public. */
export function metadataRoute(server: ResourceServer): HttpHandler {
  const document: Record<string, unknown> = {
    resource: server.resource,
    authorization_servers: [server.issuer],
    bearer_methods_supported: ["header"],
  };
  // The scopes for basic use, what a client asks for when a challenge names none.
  if (server.scopes.length > 0) document.scopes_supported = server.scopes;
  const body = JSON.stringify(document);
  const open = { "access-control-allow-origin": "*" };
  return ({ request }) => {
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...open,
          "access-control-allow-methods": "GET, HEAD, OPTIONS",
          "access-control-allow-headers": "MCP-Protocol-Version",
          "access-control-max-age": "600",
        },
      });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: use GET\n", {
        status: 405,
        headers: { ...open, allow: "GET, HEAD, OPTIONS", "content-type": "text/plain" },
      });
    }
    return new Response(request.method === "HEAD" ? null : body, {
      status: 200,
      headers: {
        ...open,
        "content-type": "application/json",
        "cache-control": "public, max-age=300",
      },
    });
  };
}

/** A `WWW-Authenticate: Bearer` value (RFC 6750 §3), with the metadata (RFC 9728 §5.1). */
function challenge(
  server: ResourceServer,
  error: string | undefined,
  description: string | undefined,
  scopes: readonly string[],
): string {
  const parts = [`resource_metadata="${server.metadataUrl}"`];
  if (scopes.length > 0) parts.push(`scope="${scopes.join(" ")}"`);
  if (error !== undefined) parts.unshift(`error="${error}"`);
  if (error !== undefined && description !== undefined) {
    parts.push(`error_description="${quotable(description)}"`);
  }
  return `Bearer ${parts.join(", ")}`;
}

/** RFC 6750 §3: an error_description holds printable ASCII but `"` and `\`. */
function quotable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "?");
}

/** Whether the URL carries `access_token` in its query (RFC 6750 §2.3, which MCP forbids). */
function tokenInQuery(url: string): boolean {
  if (!url.includes("access_token")) return false;
  return URL.parse(url)?.searchParams.has("access_token") === true;
}
