// DPoP proofs (RFC 9449 §4.2) as a client makes them, for tests: a JWT typed dpop+jwt, signed
// by the client's key, carrying its public key, the request's method and URL, the moment, an id,
// and (at a resource server) the access token's hash. Each field can be set wrong on purpose.
import * as jose from "npm:jose@6.2.18";

export interface ProofOptions {
  readonly method: string;
  readonly url: string;
  /** The access token, hashed into `ath` (absent: no `ath`, as at the token endpoint). */
  readonly token?: string;
  /** Seconds since the epoch (default: now). */
  readonly iat?: number;
  readonly jti?: string;
  /** Claims to add or override, e.g. `{ ath: "wrong" }`. */
  readonly claims?: Record<string, unknown>;
  /** The header's `typ` (default dpop+jwt). */
  readonly typ?: string;
}

/** A new ES256 key pair, its public key extractable. */
export function dpopKey(): Promise<CryptoKeyPair> {
  return jose.generateKeyPair("ES256", { extractable: true });
}

/** The RFC 7638 thumbprint of a key pair's public key (what `cnf.jkt` names). */
export async function thumbprintOf(key: CryptoKeyPair): Promise<string> {
  return await jose.calculateJwkThumbprint(await jose.exportJWK(key.publicKey), "sha256");
}

export async function dpopProof(key: CryptoKeyPair, options: ProofOptions): Promise<string> {
  const jwk = await jose.exportJWK(key.publicKey);
  const claims: Record<string, unknown> = {
    htm: options.method,
    htu: options.url,
    jti: options.jti ?? crypto.randomUUID(),
    iat: options.iat ?? Math.floor(Date.now() / 1000),
  };
  if (options.token !== undefined) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(options.token));
    claims.ath = jose.base64url.encode(new Uint8Array(digest));
  }
  return await new jose.SignJWT({ ...claims, ...options.claims })
    .setProtectedHeader({ alg: "ES256", typ: options.typ ?? "dpop+jwt", jwk })
    .sign(key.privateKey);
}
