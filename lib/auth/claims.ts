// What a token's claims must say for this server to accept it, the same for a JWT's payload and
// for an introspection answer, and the AuthInfo a handler reads from them.
import type { AuthInfo } from "../primitives/types.ts";
import { isObject, type JsonObject } from "../util/json.ts";
import { quoted } from "./token_shape.ts";

/**
 * A URI in the form the MCP spec calls canonical ("Canonical Server URI"): lowercase scheme and
 * host (the URL parser does that, and drops a default port), no trailing slash on the path (so
 * `https://mcp.example.com/mcp/` and `https://mcp.example.com/mcp` are one resource, as are
 * `https://mcp.example.com/` and `https://mcp.example.com`); the path's case, the query and a
 * fragment are kept, so they must match exactly. A string that is not an absolute URL (an
 * audience may be any string) is returned as it is, to be compared as it is.
 */
export function canonicalUri(uri: string): string {
  const url = URL.parse(uri);
  if (url === null || url.host === "") return uri;
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}${url.search}${url.hash}`;
}

/** Why `claims` do not make a token for `resource` from `issuer` at `now`, or undefined. */
export function claimsProblem(
  claims: JsonObject,
  expected: {
    readonly issuer: string;
    readonly resource: string;
    readonly now: number;
    readonly leeway: number;
    /** A JWT must name its issuer, audience and expiry; an introspection answer may omit them. */
    readonly complete: boolean;
  },
): string | undefined {
  const { issuer, resource, now, leeway, complete } = expected;
  if (claims.iss !== undefined || complete) {
    if (typeof claims.iss !== "string") return 'The token names no issuer ("iss")';
    if (claims.iss !== issuer) {
      return `The token's issuer ${quoted(claims.iss)} is not the one this server trusts (${
        quoted(issuer)
      })`;
    }
  }
  for (const name of ["exp", "nbf", "iat"]) {
    if (claims[name] !== undefined && !Number.isFinite(claims[name])) {
      return `The token's ${quoted(name)} is not a number`;
    }
  }
  const exp = claims.exp as number | undefined;
  const nbf = claims.nbf as number | undefined;
  const iat = claims.iat as number | undefined;
  if (exp === undefined && complete) return 'The token has no expiry ("exp")';
  if (exp !== undefined && now - leeway >= exp) return `The token expired at ${time(exp)}`;
  if (nbf !== undefined && now + leeway < nbf) return `The token is not valid before ${time(nbf)}`;
  if (iat !== undefined && now + leeway < iat) {
    return `The token says it was issued at ${time(iat)}, in the future`;
  }
  const audience = claims.aud;
  if (audience !== undefined || complete) {
    const problem = audienceProblem(audience, resource);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Why the token's key binding (`cnf`) does not match how it was sent, or undefined: a token
 * bound to a key (DPoP, RFC 9449 §6) is good only with a proof signed by that key (`proofKey`,
 * the proof key's RFC 7638 thumbprint), and a token sent with a proof must be bound to its key
 * (§7.1). A certificate-bound token (RFC 8705) cannot be checked here, so it is refused.
 */
export function bindingProblem(
  claims: JsonObject,
  proofKey: string | undefined,
): string | undefined {
  const { cnf } = claims;
  if (cnf === undefined) {
    return proofKey === undefined
      ? undefined
      : "The token came with a DPoP proof but is not bound to a key: send it as Bearer";
  }
  if (!isObject(cnf)) return 'The token\'s "cnf" is not an object';
  if (typeof cnf.jkt !== "string") {
    return cnf["x5t#S256"] !== undefined
      ? "The token is bound to a client certificate (RFC 8705), which this server cannot check"
      : 'The token is bound to a key ("cnf") in a way this server cannot check';
  }
  if (proofKey === undefined) {
    return 'The token is bound to a key (DPoP): send it as "Authorization: DPoP" with a proof';
  }
  return cnf.jkt === proofKey
    ? undefined
    : "The DPoP proof is signed with another key than the one the token is bound to";
}

/** RFC 8707 and the MCP spec's Token Handling: the token must have been issued for this server. */
function audienceProblem(audience: unknown, resource: string): string | undefined {
  const expected = canonicalUri(resource);
  const named = typeof audience === "string"
    ? [audience]
    : Array.isArray(audience)
    ? audience.filter((value): value is string => typeof value === "string")
    : [];
  if (named.length === 0) {
    return `The token names no audience ("aud"); this server accepts tokens issued for ${
      quoted(resource)
    }`;
  }
  if (named.some((value) => canonicalUri(value) === expected)) return undefined;
  if (named.length === 1) {
    return `The token's audience ${quoted(named[0])} is not this server (${quoted(resource)})`;
  }
  const shown = named.slice(0, 5).map(quoted).join(", ") + (named.length > 5 ? ", …" : "");
  return `The token's audiences ${shown} do not include this server (${quoted(resource)})`;
}

function time(seconds: number): string {
  const date = new Date(seconds * 1000);
  return quoted(Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString());
}

/**
 * Who the claims say is calling: never the token itself. An empty string names no one. An
 * introspection answer may leave out `iss`: the issuer that answered (`issuer`) vouches for it.
 */
export function authInfoOf(claims: JsonObject, issuer?: string): AuthInfo {
  const text = (value: unknown) => typeof value === "string" && value !== "" ? value : undefined;
  return {
    subject: text(claims.sub),
    clientId: text(claims.client_id) ?? text(claims.azp),
    scopes: scopesOf(claims),
    issuer: text(claims.iss) ?? issuer,
    expiresAt: typeof claims.exp === "number" ? claims.exp : undefined,
    claims,
  };
}

/**
 * Why a token's caller cannot be told apart from another's, or undefined: what a caller starts
 * is bound to its subject, else its client (lib/methods/caller.ts), so a token naming neither
 * would share it with every other such token (adr/0054). A user named only by `username` (RFC
 * 7662) is not enough: a display name need not be unique or stable. The claim names go unquoted:
 * the message becomes a challenge's error_description, where a double quote cannot go.
 */
export function callerProblem(auth: Pick<AuthInfo, "subject" | "clientId">): string | undefined {
  return auth.subject === undefined && auth.clientId === undefined
    ? "The token names no caller: it has no sub, client_id or azp claim"
    : undefined;
}

/** `scope` (RFC 9068, RFC 7662: space-separated), else `scp` (an array, or a string). */
function scopesOf(claims: JsonObject): string[] {
  const words = (value: string) => value.split(" ").filter((word) => word !== "");
  if (typeof claims.scope === "string") return words(claims.scope);
  if (typeof claims.scp === "string") return words(claims.scp);
  if (Array.isArray(claims.scp)) {
    return claims.scp.filter((value): value is string => typeof value === "string");
  }
  return [];
}
