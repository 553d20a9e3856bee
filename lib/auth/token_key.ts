// What a token is kept under in toolshed's caches of answers: its SHA-256, never the token (a dump
// of a cache then gives nobody a credential). Synchronous (node:crypto), because it runs on every
// request that carries a token: WebCrypto's digest is asynchronous, a turn of the event loop and a
// thread hop each time (~29 µs against ~7 µs for a 900-character token on this 2-core machine,
// bench/oauth_verify_bench.ts).
//
// node:crypto is taken at the first token, not imported: a static `node:` import would load
// Deno's Node layer at every start of the one-file bundle (build/bundle.ts refuses it, adr/0008),
// where this module is inlined even though the verifier is imported only when OAuth is on.
import type { createHash as CreateHash } from "node:crypto";

let createHash: typeof CreateHash | undefined;

export function tokenKey(token: string): string {
  createHash ??= process.getBuiltinModule("node:crypto").createHash;
  return createHash("sha256").update(token).digest("base64url");
}
