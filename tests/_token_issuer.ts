// Test helper: a hand-made authorization server on 127.0.0.1 that says exactly what a test
// wants, where oidc-provider (tests/_oidc.ts) cannot be made to: RFC 8414 metadata, a JWKS of
// one ES256 key, JWTs with any claims (`jwt()`), and RFC 7662 introspection answering each
// opaque token with the answer set for it (`answer()`; unknown tokens are inactive), for the
// credentials `introspector` only.
//
//   const issuer = await startTokenIssuer();
//   issuer.answer("bob-token", { active: true, username: "bob", aud: resource });
//   const jwt = await issuer.jwt({ aud: resource, scope: "mcp" }); // iss, exp, iat added
import * as jose from "npm:jose@6.2.18";
import type { ClientCredentials } from "./_oidc.ts";

export interface TokenIssuer {
  /** The issuer identifier, `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** The credentials its introspection endpoint accepts (HTTP Basic). */
  readonly introspector: ClientCredentials;
  /** A JWT access token (typ at+jwt) with `claims`, `iss`, `iat` and a 5-minute `exp` added. */
  jwt(claims: Record<string, unknown>): Promise<string>;
  /** What introspection answers for `token` from now on. */
  answer(token: string, body: Record<string, unknown>): void;
  /** How many introspection questions it answered. */
  readonly asked: number;
  stop(): Promise<void>;
}

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
  const kid = crypto.randomUUID();
  const jwks = { keys: [{ ...await jose.exportJWK(publicKey), kid, alg: "ES256", use: "sig" }] };
  const introspector = { clientId: "toolshed", clientSecret: crypto.randomUUID() };
  const expected = `Basic ${btoa(`${introspector.clientId}:${introspector.clientSecret}`)}`;
  const answers = new Map<string, Record<string, unknown>>();
  let asked = 0;
  let issuer = "";
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ hostname, port }) => {
      issuer = `http://${hostname}:${port}`;
    },
  }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        introspection_endpoint: `${issuer}/introspect`,
      });
    }
    if (path === "/jwks") return Response.json(jwks);
    if (path === "/introspect" && request.method === "POST") {
      if (request.headers.get("authorization") !== expected) {
        return Response.json({ error: "invalid_client" }, { status: 401 });
      }
      asked++;
      const token = new URLSearchParams(await request.text()).get("token") ?? "";
      return Response.json(answers.get(token) ?? { active: false });
    }
    await request.body?.cancel();
    return new Response("not found", { status: 404 });
  });
  return {
    issuer,
    introspector,
    async jwt(claims) {
      const now = Math.floor(Date.now() / 1000);
      return await new jose.SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid })
        .sign(privateKey);
    },
    answer(token, body) {
      answers.set(token, body);
    },
    get asked() {
      return asked;
    },
    stop: () => server.shutdown(),
  };
}
