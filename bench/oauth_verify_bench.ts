// What checking one request's credentials costs, in process, with nothing fetched: lib/auth's
// verifier (`createTokenVerifier(…).verify(token)`, adr/0038) on a JWT access token whose
// issuer's metadata and key set are already cached, against the shared-token check of
// `TOOLSHED_HTTP_TOKEN` (a SHA-256 digest compared in constant time, adr/0033) as the baseline.
// The issuer is bench/http/issuer.ts's stand-in, answered from memory; the verification is the
// real one. A token for another audience shows what a refused token costs before any crypto,
// and the runtime's own signature check (`crypto.subtle.verify` on the same bytes and key)
// shows how much of a verification is the signature alone.
import { createTokenVerifier } from "../lib/auth/verifier.ts";
import { createBearerCheck } from "../lib/transports/http/auth.ts";
import { answerOf, signer } from "./http/issuer.ts";
import { recorder } from "../tests/_diagnostics.ts";

const ISSUER = "http://127.0.0.1:9";
const RESOURCE = "http://127.0.0.1:8080/mcp";
const GROUP = "check one request's credentials";

let fetched = 0;
/** A verifier for tokens of a fresh `algorithm` key, warmed so that its cache holds the keys. */
async function warmVerifier(algorithm: string) {
  const keys = await signer(ISSUER, algorithm);
  const verifier = createTokenVerifier({
    issuer: ISSUER,
    resource: RESOURCE,
    diagnostics: recorder(),
    fetch: (input) => {
      fetched++;
      return Promise.resolve(answerOf(keys, new URL(String(input)).pathname));
    },
  });
  const token = await keys.mint(RESOURCE);
  const first = await verifier.verify(token);
  if (!first.ok) throw new Error(`The ${algorithm} token was refused: ${first.message}`);
  return { verifier, token, keys, signature: await signatureAlone(token, keys) };
}

/** The WebCrypto parameters of a JWS algorithm, for the key import and for the check. */
const WEBCRYPTO: Record<string, { key: Algorithm; check: Algorithm }> = {
  RS256: {
    key: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as Algorithm,
    check: { name: "RSASSA-PKCS1-v1_5" },
  },
  ES256: {
    key: { name: "ECDSA", namedCurve: "P-256" } as Algorithm,
    check: { name: "ECDSA", hash: "SHA-256" } as Algorithm,
  },
  EdDSA: { key: { name: "Ed25519" }, check: { name: "Ed25519" } },
};

/** `crypto.subtle.verify` of the token's signature with its issuer's key, and nothing else. */
async function signatureAlone(token: string, keys: Awaited<ReturnType<typeof signer>>) {
  const { key: keyAlgorithm, check } = WEBCRYPTO[keys.algorithm];
  const key = await crypto.subtle.importKey(
    "jwk",
    keys.jwks.keys[0] as JsonWebKey,
    keyAlgorithm,
    false,
    ["verify"],
  );
  const dot = token.lastIndexOf(".");
  const signed = new TextEncoder().encode(token.slice(0, dot));
  const signature = Uint8Array.fromBase64(token.slice(dot + 1), { alphabet: "base64url" });
  return async () => {
    if (!await crypto.subtle.verify(check, key, signature, signed)) throw new Error("bad");
  };
}

const shared = crypto.randomUUID();
const sharedCheck = createBearerCheck(shared);
const sharedHeaders = new Headers({ authorization: `Bearer ${shared}` });
if (await sharedCheck(sharedHeaders) !== "ok") throw new Error("The shared token was refused");

const rs256 = await warmVerifier("RS256");
const es256 = await warmVerifier("ES256");
const eddsa = await warmVerifier("EdDSA");
const otherAudience = await rs256.keys.mint("http://127.0.0.1:8081/mcp");
const fetchedWhenWarm = fetched;

Deno.bench({
  name: "shared token (TOOLSHED_HTTP_TOKEN): SHA-256 and a constant-time compare",
  group: GROUP,
  baseline: true,
  async fn() {
    if (await sharedCheck(sharedHeaders) !== "ok") throw new Error("refused");
  },
});

const warm = { RS256: rs256, ES256: es256, EdDSA: eddsa };
for (const [algorithm, { verifier, token, signature }] of Object.entries(warm)) {
  Deno.bench({
    name: `OAuth: a JWT access token, ${algorithm}, key set cached`,
    group: GROUP,
    async fn() {
      const verified = await verifier.verify(token);
      if (!verified.ok) throw new Error(verified.message);
      if (fetched !== fetchedWhenWarm) throw new Error("The verifier asked the issuer again");
    },
  });
  Deno.bench({
    name: `  its signature alone: crypto.subtle.verify, ${algorithm}`,
    group: GROUP,
    fn: signature,
  });
}

Deno.bench({
  name: "OAuth: a JWT for another audience, refused before any crypto",
  group: GROUP,
  async fn() {
    const verified = await rs256.verifier.verify(otherAudience);
    if (verified.ok) throw new Error("accepted a token for another audience");
  },
});
