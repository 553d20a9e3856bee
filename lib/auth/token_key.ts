// What a token is kept under in toolshed's caches of answers: its SHA-256, never the token (a dump
// of a cache then gives nobody a credential). Synchronous (node:crypto), because it runs on every
// request that carries a token: WebCrypto's digest is asynchronous, a turn of the event loop and a
// thread hop each time (~29 µs against ~7 µs for a 900-character token on this 2-core machine,
// bench/oauth_verify_bench.ts).
import { createHash } from "node:crypto";

export function tokenKey(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
