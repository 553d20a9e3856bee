// The token verifier (lib/auth/) against a real authorization server: oidc-provider on loopback
// (tests/_oidc.ts) mints the tokens, publishes the keys and answers introspection. Time is the
// verifier's `now`, driven by each test; every fetch the verifier makes goes through a counting
// wrapper, so "without a fetch" and "once" are asserted, never durations.
import assert from "node:assert/strict";
import * as jose from "npm:jose@6.2.18";
import { answerCache } from "../lib/auth/answer_cache.ts";
import { tokenKey } from "../lib/auth/token_key.ts";
import { canonicalUri } from "../lib/auth/claims.ts";
import { fetchIssuerMetadata } from "../lib/auth/issuer_metadata.ts";
import {
  createTokenVerifier,
  MAX_TOKEN_LENGTH,
  type TokenVerifierOptions,
  type Verification,
  VERIFIED_SECONDS,
} from "../lib/auth/verifier.ts";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import { recorder } from "./_diagnostics.ts";

const RESOURCE = "https://mcp.example.com/mcp";
const OPAQUE_RESOURCE = "https://mcp.example.com/opaque";

/** A fetch that records the path of every request, and may change what the issuer answers. */
function countingFetch(
  rewrite?: (url: URL, response: () => Promise<Response>) => Promise<Response>,
) {
  const paths: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    paths.push(url.pathname);
    const real = () => fetch(input, init);
    return rewrite ? rewrite(url, real) : real();
  };
  return {
    fetch: fetchFn,
    paths,
    count: (pattern: RegExp) => paths.filter((path) => pattern.test(path)).length,
  };
}

const JWKS = /^\/jwks$/;
const METADATA = /\.well-known/;
const INTROSPECTION = /\/token\/introspection$/;

/** The verifier's clock: seconds since the epoch, moved by the test. */
function clock(start = Date.now() / 1000) {
  let now = start;
  return {
    now: () => now,
    set: (seconds: number) => {
      now = seconds;
    },
    advance: (seconds: number) => {
      now += seconds;
    },
  };
}

function verifierFor(
  as: AuthServer,
  overrides: Partial<TokenVerifierOptions> = {},
) {
  const counter = countingFetch();
  const time = clock();
  const diagnostics = recorder();
  const verifier = createTokenVerifier({
    issuer: as.issuer,
    resource: RESOURCE,
    fetch: counter.fetch,
    now: time.now,
    diagnostics,
    ...overrides,
  });
  return { verifier, counter, time, diagnostics };
}

function assertOk(verification: Verification) {
  if (!verification.ok) {
    assert.fail(`expected ok, got ${verification.reason}: ${verification.message}`);
  }
  return verification.auth;
}

function assertRefused(
  verification: Verification,
  reason: "invalid" | "unavailable",
  message: RegExp | string,
) {
  assert.equal(verification.ok, false, `expected ${reason}, got ok`);
  if (verification.ok) return;
  assert.equal(verification.reason, reason, verification.message);
  if (typeof message === "string") assert.equal(verification.message, message);
  else assert.match(verification.message, message);
}

/** A JWT signed with `jwk` (the issuer's private key, or anyone's). */
async function signed(
  jwk: jose.JWK,
  claims: jose.JWTPayload,
  header: Partial<jose.JWTHeaderParameters> = {},
): Promise<string> {
  const key = await jose.importJWK(jwk, "ES256");
  return await new jose.SignJWT(claims)
    .setProtectedHeader({
      alg: "ES256",
      typ: "at+jwt",
      kid: jwk.kid,
      ...header,
    })
    .sign(key);
}

function b64(value: unknown): string {
  return jose.base64url.encode(JSON.stringify(value));
}

Deno.test("verify() accepts a client_credentials JWT for this resource and says who calls", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter, time } = verifierFor(as);
    const token = await as.token({ scope: "tools:read tools:call", resource: RESOURCE });
    const auth = assertOk(await verifier.verify(token));
    const claims = jose.decodeJwt(token);
    assert.equal(auth.subject, "test-client");
    assert.equal(auth.clientId, "test-client");
    assert.deepEqual(auth.scopes, ["tools:read", "tools:call"]);
    assert.equal(auth.issuer, as.issuer);
    assert.equal(auth.expiresAt, claims.exp);
    assert.equal(auth.claims.jti, claims.jti);
    assert.equal(auth.claims.aud, RESOURCE);
    assert.ok(!JSON.stringify(auth).includes(token), "the AuthInfo never holds the token");
    // The metadata and the keys were fetched once, and a second token needs neither again.
    assert.equal(counter.count(METADATA), 1);
    assert.equal(counter.count(JWKS), 1);
    time.advance(60);
    assertOk(await verifier.verify(await as.token({ scope: "tools:read", resource: RESOURCE })));
    assert.equal(counter.paths.length, 2);
    assert.equal((await verifier.issuerMetadata()).issuer, as.issuer);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() accepts a user's token from an unattended authorization-code login", async () => {
  const as = await startAuthServer({ accountId: "alice" });
  try {
    const { verifier } = verifierFor(as);
    const login = await as.login({ scope: "tools:read", resource: RESOURCE });
    const auth = assertOk(await verifier.verify(login.accessToken));
    assert.equal(auth.subject, "alice");
    assert.equal(auth.clientId, login.clientId);
    assert.notEqual(login.clientId, as.client.clientId, "a dynamically registered client");
    assert.deepEqual(auth.scopes, ["tools:read"]);
    assert.equal(jose.decodeProtectedHeader(login.accessToken).typ, "at+jwt");
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refuses a token for another audience, naming both, without a fetch", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter } = verifierFor(as);
    const token = await as.token({ scope: "tools:read", resource: "https://other.example/mcp" });
    assertRefused(
      await verifier.verify(token),
      "invalid",
      'The token\'s audience "https://other.example/mcp" is not this server ("https://mcp.example.com/mcp")',
    );
    assert.equal(counter.paths.length, 0);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() compares the audience as a canonical URI: scheme and host in any case, a trailing slash or not", async () => {
  const as = await startAuthServer();
  try {
    const { verifier } = verifierFor(as);
    for (const audience of ["HTTPS://MCP.Example.COM/mcp/", "https://mcp.example.com:443/mcp"]) {
      assertOk(await verifier.verify(await as.token({ scope: "tools:read", resource: audience })));
    }
    // The path is case-sensitive, and another path is another resource.
    for (const audience of ["https://mcp.example.com/MCP", "https://mcp.example.com/mcp/x"]) {
      assertRefused(
        await verifier.verify(await as.token({ scope: "tools:read", resource: audience })),
        "invalid",
        /^The token's audience .* is not this server/,
      );
    }
    // An audience array names the server when one of its members does.
    const [key] = as.keys;
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: as.issuer, exp: now + 60, sub: "s" };
    assertOk(await verifier.verify(await signed(key, { ...claims, aud: ["x", `${RESOURCE}/`] })));
    assertRefused(
      await verifier.verify(await signed(key, { ...claims, aud: ["x", "y"] })),
      "invalid",
      'The token\'s audiences "x", "y" do not include this server ("https://mcp.example.com/mcp")',
    );
    assertRefused(
      await verifier.verify(await signed(key, claims)),
      "invalid",
      /^The token names no audience \("aud"\)/,
    );
  } finally {
    await as.stop();
  }
  assert.equal(canonicalUri("HTTPS://Example.COM:443/a/"), "https://example.com/a");
  assert.equal(canonicalUri("https://example.com/"), "https://example.com");
  assert.equal(canonicalUri("https://example.com/A?q=1"), "https://example.com/A?q=1");
  assert.equal(canonicalUri("urn:example:mcp"), "urn:example:mcp");
});

Deno.test("verify() refuses a token of another issuer, without asking either", async () => {
  const as = await startAuthServer();
  const other = await startAuthServer();
  try {
    const { verifier, counter } = verifierFor(as);
    const token = await other.token({ scope: "tools:read", resource: RESOURCE });
    assertRefused(
      await verifier.verify(token),
      "invalid",
      `The token's issuer "${other.issuer}" is not the one this server trusts ("${as.issuer}")`,
    );
    assert.equal(counter.paths.length, 0);
  } finally {
    await as.stop();
    await other.stop();
  }
});

Deno.test("verify() refuses an expired token, after the leeway", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, time } = verifierFor(as, { clockToleranceSeconds: 30 });
    const token = await as.token({ scope: "tools:read", resource: RESOURCE });
    const { exp } = jose.decodeJwt(token) as { exp: number };
    time.set(exp + 29);
    assertOk(await verifier.verify(token));
    time.set(exp + 30);
    assertRefused(
      await verifier.verify(token),
      "invalid",
      `The token expired at "${new Date(exp * 1000).toISOString()}"`,
    );
  } finally {
    await as.stop();
  }
});

Deno.test("verify() checks a JWT's signature once, then trusts it by its hash until it expires, 5 minutes at most", async () => {
  const as = await startAuthServer({ accessTokenSeconds: 3600, scopes: "tools:read tools:write" });
  const subtle = crypto.subtle;
  const real = subtle.verify.bind(subtle);
  let checks = 0;
  subtle.verify = ((...args: Parameters<SubtleCrypto["verify"]>) => {
    checks++;
    return real(...args);
  }) as SubtleCrypto["verify"];
  try {
    const { verifier, time } = verifierFor(as);
    const token = await as.token({ scope: "tools:read", resource: RESOURCE });
    const other = await as.token({ scope: "tools:write", resource: RESOURCE });
    for (let i = 0; i < 3; i++) assertOk(await verifier.verify(token));
    assert.equal(checks, 1, "one signature check for three requests");
    assert.deepEqual(assertOk(await verifier.verify(other)).scopes, ["tools:write"]);
    assert.equal(checks, 2, "another token is checked on its own");
    time.advance(VERIFIED_SECONDS - 1);
    assertOk(await verifier.verify(token));
    assert.equal(checks, 2);
    time.advance(1);
    assertOk(await verifier.verify(token));
    assert.equal(checks, 3, "checked again after VERIFIED_SECONDS");
    // What is kept is the token's claims, not a verdict on how it was sent: bound tokens still
    // need their proof each time (verify's proofKey).
    assertRefused(await verifier.verify(token, "some-key"), "invalid", /not bound to a key/);
  } finally {
    subtle.verify = real;
    await as.stop();
  }
});

Deno.test("verify() refuses a token not valid yet (nbf), or issued in the future (iat), after the leeway", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, time } = verifierFor(as);
    const now = Math.floor(time.now());
    const base = { iss: as.issuer, aud: RESOURCE, exp: now + 600, sub: "s" };
    const early = await signed(as.keys[0], { ...base, nbf: now + 120 });
    assertRefused(
      await verifier.verify(early),
      "invalid",
      `The token is not valid before "${new Date((now + 120) * 1000).toISOString()}"`,
    );
    time.set(now + 120 - 29);
    assertOk(await verifier.verify(early));

    const token = await as.token({ scope: "tools:read", resource: RESOURCE });
    const { iat } = jose.decodeJwt(token) as { iat: number };
    time.set(iat - 31);
    assertRefused(await verifier.verify(token), "invalid", /was issued at .*, in the future$/);
    time.set(iat - 29);
    assertOk(await verifier.verify(token));
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refuses a JWT without an issuer or an expiry, one bound to a key (cnf), and one that is not an access token", async () => {
  const as = await startAuthServer();
  try {
    const { verifier } = verifierFor(as);
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: as.issuer, aud: RESOURCE, exp: now + 60, sub: "s" };
    assertOk(await verifier.verify(await signed(as.keys[0], claims, { typ: "JWT" })));
    assertOk(await verifier.verify(await signed(as.keys[0], claims, { typ: undefined })));
    const { iss: _iss, ...withoutIssuer } = claims;
    assertRefused(
      await verifier.verify(await signed(as.keys[0], withoutIssuer)),
      "invalid",
      'The token names no issuer ("iss")',
    );
    const { exp: _exp, ...withoutExpiry } = claims;
    assertRefused(
      await verifier.verify(await signed(as.keys[0], withoutExpiry)),
      "invalid",
      'The token has no expiry ("exp")',
    );
    assertRefused(
      await verifier.verify(await signed(as.keys[0], { ...claims, cnf: { jkt: "0ZcOCORZ" } })),
      "invalid",
      'The token is bound to a key (DPoP): send it as "Authorization: DPoP" with a proof',
    );
    assertRefused(
      await verifier.verify(await signed(as.keys[0], claims, { typ: "logout+jwt" })),
      "invalid",
      'The token\'s type "logout+jwt" is not an access token\'s ("at+jwt")',
    );
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refuses a token whose payload was changed after signing", async () => {
  const as = await startAuthServer();
  try {
    const { verifier } = verifierFor(as);
    const token = await as.token({ scope: "tools:read", resource: RESOURCE });
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload)));
    const tampered = [header, b64({ ...claims, scope: "tools:read tools:call admin" }), signature]
      .join(".");
    assertRefused(
      await verifier.verify(tampered),
      "invalid",
      "The token's signature does not verify with the authorization server's key",
    );
    // And one signed by a key the issuer never published, under the issuer's kid.
    const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const forged = await signed(
      { ...await jose.exportJWK(privateKey), kid: as.keys[0].kid },
      claims,
    );
    assertRefused(await verifier.verify(forged), "invalid", /signature does not verify/);
  } finally {
    await as.stop();
  }
});

Deno.test('verify() refuses alg "none" and HS256 before any fetch or crypto', async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter } = verifierFor(as);
    const claims = jose.decodeJwt(await as.token({ scope: "tools:read", resource: RESOURCE }));
    const unsigned = `${b64({ alg: "none", typ: "at+jwt" })}.${b64(claims)}.`;
    assertRefused(
      await verifier.verify(unsigned),
      "invalid",
      'The token is unsigned (algorithm "none")',
    );
    const unsignedWithJunk = `${b64({ alg: "None" })}.${b64(claims)}.c2ln`;
    assertRefused(await verifier.verify(unsignedWithJunk), "invalid", /unsigned/);
    const hs256 = await new jose.SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: as.keys[0].kid })
      .sign(new TextEncoder().encode("anything at all, even the issuer's public key"));
    assertRefused(
      await verifier.verify(hs256),
      "invalid",
      /^The token's algorithm "HS256" is not one this server accepts \(RS256, .*EdDSA\)$/,
    );
    assert.equal(counter.paths.length, 0);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refuses garbage, an oversized token and an opaque one it cannot introspect, without a fetch", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter } = verifierFor(as);
    const good = await as.token({ scope: "tools:read", resource: RESOURCE });
    const [header, payload] = good.split(".");
    const cases: [string, RegExp][] = [
      ["", /^The token is empty$/],
      ["a".repeat(MAX_TOKEN_LENGTH + 1), /^The token is longer than 8192 characters$/],
      [`${good}${"A".repeat(MAX_TOKEN_LENGTH)}`, /longer than/],
      ["not a token!", /characters a bearer token cannot have/],
      ["a.b.c", /header is not a base64url JSON object/],
      [`${b64([1, 2])}.${payload}.c2ln`, /header is not a base64url JSON object/],
      [`${b64({ typ: "JWT" })}.${payload}.c2ln`, /names no algorithm/],
      [`${header}.${b64("text")}.c2ln`, /payload is not a base64url JSON object/],
      [`${header}.bm90IGpzb24.c2ln`, /payload is not a base64url JSON object/],
      [`${header}.${payload}.`, /signature is missing/],
      [`${header}.${payload}.c2ln=`, /characters a bearer token cannot have|signature/],
      ["eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d", /encrypted \(a JWE\)/],
      [
        "oGFpNQbBJ_IIgYBZT6SmKJ1xfcZOlyJEEq0mEOk3H2N",
        /^The token is not a JWT, and this server has no introspection credentials/,
      ],
    ];
    for (const [token, message] of cases) {
      const verification = await verifier.verify(token);
      assertRefused(verification, "invalid", message);
      if (!verification.ok && token.length > 0) {
        assert.ok(!verification.message.includes(token), "a message never echoes the token");
      }
    }
    assert.deepEqual(counter.paths, []);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refetches the keys once for a rotated key, not within the cooldown", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter, time } = verifierFor(as);
    assertOk(await verifier.verify(await as.token({ scope: "tools:read", resource: RESOURCE })));
    assert.equal(counter.count(JWKS), 1);
    await as.rotateKeys();
    const rotated = await as.token({ scope: "tools:read", resource: RESOURCE });
    assert.equal(jose.decodeProtectedHeader(rotated).kid, as.keys[0].kid);
    // Within 30 s of the last fetch, an unknown key is refused without asking.
    time.advance(10);
    assertRefused(
      await verifier.verify(rotated),
      "invalid",
      `The token's key "${as.keys[0].kid}" is not one the authorization server publishes ` +
        `for verifying signatures (none by that id, or its "use" or "key_ops" say otherwise)`,
    );
    assert.equal(counter.count(JWKS), 1);
    // After it, one fetch brings the new key in, and the old one still verifies.
    time.advance(21);
    assertOk(await verifier.verify(rotated));
    assert.equal(counter.count(JWKS), 2);
    assertOk(await verifier.verify(rotated));
    assert.equal(counter.count(JWKS), 2);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() fetches the keys at most once per cooldown under a flood of unknown kids", async () => {
  const as = await startAuthServer();
  try {
    const { verifier, counter, time } = verifierFor(as);
    assertOk(await verifier.verify(await as.token({ scope: "tools:read", resource: RESOURCE })));
    const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const attacker = await jose.exportJWK(privateKey);
    const flood = async (count: number) => {
      const now = Math.floor(time.now());
      const tokens = await Promise.all(
        Array.from(
          { length: count },
          () =>
            signed({ ...attacker, kid: crypto.randomUUID() }, {
              iss: as.issuer,
              aud: RESOURCE,
              exp: now + 300,
            }),
        ),
      );
      const answers = await Promise.all(tokens.map((token) => verifier.verify(token)));
      for (const answer of answers) {
        assertRefused(answer, "invalid", /is not one the authorization server publishes/);
      }
    };
    time.advance(31);
    await flood(50);
    assert.equal(counter.count(JWKS), 2, "one refetch for the whole flood");
    await flood(50);
    assert.equal(counter.count(JWKS), 2, "none within the cooldown");
    time.advance(31);
    await flood(50);
    assert.equal(counter.count(JWKS), 3, "one more after it");
  } finally {
    await as.stop();
  }
});

Deno.test("verify() answers unavailable while the issuer is down, backs off, and recovers when it is back", async () => {
  const as = await startAuthServer();
  const token = await as.token({ scope: "tools:read", resource: RESOURCE });
  await as.stop();
  const { verifier, counter, time, diagnostics } = verifierFor(as);
  assertRefused(
    await verifier.verify(token),
    "unavailable",
    new RegExp(`^Cannot fetch "${as.issuer}/\\.well-known/oauth-authorization-server"`),
  );
  assert.equal(counter.paths.length, 1);
  // Within the backoff the issuer is not asked again.
  for (let i = 0; i < 20; i++) {
    assertRefused(await verifier.verify(token), "unavailable", /asking again in 1 s/);
  }
  assert.equal(counter.paths.length, 1);
  await assert.rejects(verifier.issuerMetadata(), /Cannot fetch/);
  assert.equal(diagnostics.entries.length, 1, diagnostics.text());
  assert.match(diagnostics.text(), /^toolshed: Cannot fetch /);

  const back = await startAuthServer({ port: as.port, keys: as.keys });
  try {
    assertRefused(await verifier.verify(token), "unavailable", /asking again/);
    time.advance(1);
    assertOk(await verifier.verify(token));
    // Once it has the keys, a token it can check is accepted while the issuer is away.
    await back.stop();
    time.advance(3600);
    assertOk(
      await verifier.verify(
        await signed(as.keys[0], {
          iss: as.issuer,
          sub: "test-user",
          aud: RESOURCE,
          exp: time.now() + 60,
        }),
      ),
    );
  } finally {
    await back.stop();
  }
});

Deno.test("verify() introspects an opaque token once and keeps the answer (active and inactive)", async () => {
  const as = await startAuthServer({
    opaqueResources: [OPAQUE_RESOURCE],
    accessTokenSeconds: 3600,
  });
  try {
    const { verifier, counter, time } = verifierFor(as, {
      resource: OPAQUE_RESOURCE,
      introspection: as.introspector,
    });
    const token = await as.token({ scope: "tools:read", resource: OPAQUE_RESOURCE });
    assert.equal(token.split(".").length, 1, "an opaque token");
    const auth = assertOk(await verifier.verify(token));
    assert.equal(auth.clientId, "test-client");
    assert.deepEqual(auth.scopes, ["tools:read"]);
    assert.equal(auth.issuer, as.issuer);
    assert.equal(auth.claims.active, true);
    assert.equal(typeof auth.expiresAt, "number");
    assert.ok(!JSON.stringify(auth).includes(token));
    assert.equal(counter.count(INTROSPECTION), 1);
    time.advance(60);
    assertOk(await verifier.verify(token));
    assert.equal(counter.count(INTROSPECTION), 1, "the second answer came from the cache");
    // Past 5 minutes it is asked again, even though the token lives on.
    time.advance(241);
    assertOk(await verifier.verify(token));
    assert.equal(counter.count(INTROSPECTION), 2);

    // An unknown token is inactive, and that answer is kept for a minute.
    const unknown = jose.base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
    const [first, second] = await Promise.all([verifier.verify(unknown), verifier.verify(unknown)]);
    for (const answer of [first, second, await verifier.verify(unknown)]) {
      assertRefused(answer, "invalid", "The authorization server says the token is not active");
    }
    assert.equal(counter.count(INTROSPECTION), 3, "one question for three verifications");
    time.advance(61);
    assertRefused(await verifier.verify(unknown), "invalid", /not active/);
    assert.equal(counter.count(INTROSPECTION), 4);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() refuses a token that names no caller, a JWT or an introspection answer without sub, client_id or azp", async () => {
  const NO_CALLER = "The token names no caller: it has no sub, client_id or azp claim";
  const as = await startAuthServer({ opaqueResources: [OPAQUE_RESOURCE] });
  try {
    const { verifier } = verifierFor(as);
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: as.issuer, aud: RESOURCE, exp: now + 60 };
    for (const claims of [base, { ...base, sub: "", client_id: "" }, { ...base, username: "a" }]) {
      const token = await signed(as.keys[0], claims);
      assertRefused(await verifier.verify(token), "invalid", NO_CALLER);
    }
    const byAzp = assertOk(
      await verifier.verify(await signed(as.keys[0], { ...base, azp: "app" })),
    );
    assert.equal(byAzp.clientId, "app");

    // The issuer's own answer, with what names the caller taken out (the user left in `username`).
    let rewrite: (answer: Record<string, unknown>) => Record<string, unknown> = (answer) => answer;
    const rewriting = countingFetch(async (url, real) => {
      const response = await real();
      return INTROSPECTION.test(url.pathname)
        ? Response.json(rewrite(await response.json()))
        : response;
    });
    const token = await as.token({ scope: "tools:read", resource: OPAQUE_RESOURCE });
    const options = { resource: OPAQUE_RESOURCE, introspection: as.introspector };
    rewrite = ({ sub: _sub, client_id: _client, ...answer }) => ({ ...answer, username: "bob" });
    const anonymous = verifierFor(as, { ...options, fetch: rewriting.fetch });
    assertRefused(await anonymous.verifier.verify(token), "invalid", NO_CALLER);
    // A subject alone does, and the issuer that answered vouches for it when `iss` is left out.
    rewrite = ({ iss: _iss, client_id: _client, ...answer }) => ({ ...answer, sub: "carol" });
    const subjectOnly = verifierFor(as, { ...options, fetch: rewriting.fetch });
    const carol = assertOk(await subjectOnly.verifier.verify(token));
    assert.deepEqual([carol.subject, carol.clientId, carol.issuer], [
      "carol",
      undefined,
      as.issuer,
    ]);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() checks an introspected token's audience, and fails closed on refused credentials", async () => {
  const as = await startAuthServer({ opaqueResources: [OPAQUE_RESOURCE] });
  try {
    const token = await as.token({ scope: "tools:read", resource: OPAQUE_RESOURCE });
    const { verifier } = verifierFor(as, { introspection: as.introspector });
    assertRefused(
      await verifier.verify(token),
      "invalid",
      'The token\'s audience "https://mcp.example.com/opaque" is not this server ("https://mcp.example.com/mcp")',
    );
    const wrong = verifierFor(as, {
      resource: OPAQUE_RESOURCE,
      introspection: { clientId: as.introspector.clientId, clientSecret: "wrong" },
    });
    assertRefused(
      await wrong.verifier.verify(token),
      "unavailable",
      'The authorization server refused the introspection credentials of client "toolshed" (HTTP 401)',
    );
    assert.match(wrong.diagnostics.text(), /refused the introspection credentials/);
    // Backing off: the next token is not introspected until the wait is over.
    const asked = wrong.counter.count(INTROSPECTION);
    assertRefused(await wrong.verifier.verify(`${token}x`), "unavailable", /asking again/);
    assert.equal(wrong.counter.count(INTROSPECTION), asked);
  } finally {
    await as.stop();
  }
});

Deno.test("verify() finds the metadata by OpenID Discovery when RFC 8414's is missing, and refuses metadata naming another issuer", async () => {
  const as = await startAuthServer();
  try {
    const token = await as.token({ scope: "tools:read", resource: RESOURCE });
    const missing = countingFetch((url, real) =>
      url.pathname === "/.well-known/oauth-authorization-server"
        ? Promise.resolve(new Response("not here", { status: 404 }))
        : real()
    );
    const { verifier } = verifierFor(as, { fetch: missing.fetch });
    assertOk(await verifier.verify(token));
    assert.deepEqual(missing.paths, [
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/jwks",
    ]);

    const impostor = countingFetch(async (url, real) => {
      const response = await real();
      if (!METADATA.test(url.pathname)) return response;
      const body = await response.json();
      return Response.json({ ...body, issuer: "https://attacker.example" });
    });
    const refused = verifierFor(as, { fetch: impostor.fetch });
    assertRefused(
      await refused.verifier.verify(token),
      "unavailable",
      /names the issuer "https:\/\/attacker\.example", not "http:\/\/127\.0\.0\.1:\d+"; /,
    );
    assert.equal(
      impostor.count(JWKS),
      0,
      "no key is fetched from metadata that is not the issuer's",
    );
  } finally {
    await as.stop();
  }
  // An issuer with a path: RFC 8414's URL, then OpenID's path-inserted and appended ones.
  const asked: string[] = [];
  const nothing: typeof fetch = (input) => {
    asked.push(String(input));
    return Promise.resolve(new Response("{}", { status: 404 }));
  };
  await assert.rejects(fetchIssuerMetadata(nothing, "https://as.example.com/tenant/1/"));
  assert.deepEqual(asked, [
    "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
    "https://as.example.com/.well-known/openid-configuration/tenant/1",
    "https://as.example.com/tenant/1/.well-known/openid-configuration",
  ]);
});

Deno.test("createTokenVerifier() refuses options that cannot work, saying which", () => {
  const base = { issuer: "https://as.example.com", resource: RESOURCE, diagnostics: recorder() };
  const refusals: [Partial<TokenVerifierOptions>, RegExp][] = [
    [{ algorithms: ["RS256", "HS256"] }, /algorithm "HS256": only asymmetric signatures/],
    [{ algorithms: ["none"] }, /algorithm "none"/],
    [{ algorithms: [] }, /no algorithm/],
    [{ issuer: "http://as.example.com" }, /must be an https URL/],
    [{ issuer: "https://as.example.com?x=1" }, /no query or fragment/],
    [{ resource: "https://mcp.example.com/mcp#x" }, /no fragment/],
    [{ resource: "mcp" }, /not an http\(s\) URL/],
    [{ clockToleranceSeconds: -1 }, /clock tolerance of -1 s/],
  ];
  for (const [options, message] of refusals) {
    assert.throws(() => createTokenVerifier({ ...base, ...options }), message);
  }
  createTokenVerifier({ ...base, issuer: "http://127.0.0.1:8080" });
});

Deno.test("the introspection answer cache is bounded by entries and bytes, least recently used out first", () => {
  const cache = answerCache({ entries: 3, bytes: 1000 });
  const outcome = { problem: "no" };
  for (const key of ["a", "b", "c"]) cache.set(key, outcome, 100, 10);
  cache.get("a", 0); // a is now the most recently used
  cache.set("d", outcome, 100, 10);
  assert.equal(cache.size, 3);
  assert.equal(cache.get("b", 0), undefined, "the least recently used went");
  assert.deepEqual(cache.get("a", 0), outcome);
  // 3 entries of 10 + 200 bytes each fit in 1000; one of 500 + 200 makes two go.
  cache.set("e", outcome, 100, 500);
  assert.equal(cache.size, 2);
  assert.equal(cache.get("e", 0), outcome);
  // An entry larger than the whole bound is not kept, and an expired one is not given.
  cache.set("f", outcome, 100, 5000);
  assert.equal(cache.get("f", 0), undefined);
  assert.equal(cache.get("e", 100), undefined);
});

Deno.test("a token is kept under its SHA-256 in base64url, whatever code computes it", () => {
  // The verifier's cache, introspection's answers and the DPoP proofs seen look tokens up by
  // this key, and never hold the token itself. FIPS 180-2's "abc", and a token in UTF-8.
  assert.equal(tokenKey("abc"), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  assert.equal(tokenKey("jeton-é-✓"), "zxLXJmM9deijfx_mq_pM8gRLu_qWjadH5WvbO22-y2Q");
});
