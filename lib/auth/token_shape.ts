// What a token is before any key touches it (adr/0038): its size, its characters, and for a JWT
// its header and payload as JSON and its algorithm against the allowlist. Everything here is
// bounded by the token's length and costs no fetch and no crypto, so a flood of junk tokens costs
// a string scan each.
import { isObject, type JsonObject } from "../util/json.ts";

/**
 * The longest token looked at, in characters. JWT access tokens run from under 1 KiB to a few
 * (an Entra ID token with many groups nears 6 KiB), and common proxies refuse a header line
 * longer than 8 KiB (nginx's `large_client_header_buffers`), so nothing longer arrives honestly.
 */
export const MAX_TOKEN_LENGTH = 8192;

/** An RFC 6750 §2.1 `b64token`, what a bearer token may be made of. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** One segment of a compact JWS: base64url without padding. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

type TokenShape =
  /** A compact JWS whose header and payload are JSON objects, with an accepted algorithm. */
  | { readonly kind: "jwt"; readonly header: JsonObject; readonly claims: JsonObject }
  /** Anything else a bearer token may be: asked of the issuer by introspection. */
  | { readonly kind: "opaque" }
  | { readonly kind: "invalid"; readonly message: string };

/** The shape of `token`, refusing what no key needs to see. */
export function shapeOf(token: string, algorithms: ReadonlySet<string>): TokenShape {
  if (token.length === 0) return invalid("The token is empty");
  if (token.length > MAX_TOKEN_LENGTH) {
    return invalid(`The token is longer than ${MAX_TOKEN_LENGTH} characters`);
  }
  if (!B64TOKEN.test(token)) {
    return invalid("The token has characters a bearer token cannot have (RFC 6750 §2.1)");
  }
  const parts = token.split(".");
  if (parts.length === 5) {
    return invalid("The token is encrypted (a JWE), and this server accepts signed tokens only");
  }
  if (parts.length !== 3) return { kind: "opaque" };
  const [headerPart, payloadPart, signaturePart] = parts;
  const header = jsonSegment(headerPart);
  if (header === undefined) return invalid("The token's header is not a base64url JSON object");
  const alg = header.alg;
  if (typeof alg !== "string") return invalid('The token\'s header names no algorithm ("alg")');
  if (alg.toLowerCase() === "none") return invalid('The token is unsigned (algorithm "none")');
  if (!algorithms.has(alg)) {
    return invalid(
      `The token's algorithm ${quoted(alg)} is not one this server accepts (${
        [...algorithms].join(", ")
      })`,
    );
  }
  const claims = jsonSegment(payloadPart);
  if (claims === undefined) return invalid("The token's payload is not a base64url JSON object");
  if (signaturePart.length === 0 || !BASE64URL.test(signaturePart)) {
    return invalid("The token's signature is missing or not base64url");
  }
  return { kind: "jwt", header, claims };
}

function invalid(message: string): TokenShape {
  return { kind: "invalid", message };
}

function jsonSegment(segment: string): JsonObject | undefined {
  if (segment.length === 0 || !BASE64URL.test(segment)) return undefined;
  try {
    const bytes = Uint8Array.fromBase64(segment, { alphabet: "base64url" });
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A value from a token as a message shows it: JSON-quoted (so control characters are escaped)
 * and cut at 100 characters, since a hostile token chooses its claims.
 */
export function quoted(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}
