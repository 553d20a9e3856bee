// DPoP (RFC 9449) at toolshed as a resource server (issue 24): a token bound to a client's key,
// issued by a real authorization server (oidc-provider with DPoP on), is accepted as
// `Authorization: DPoP` with a proof of that key for this request, and refused as Bearer, without
// a proof, with a proof of another key, for another URL, method or token, stale, replayed or
// untyped; each refusal a 401 in the DPoP scheme saying why. A Bearer token sent as DPoP is
// refused too (RFC 9449 §7.1).
import { match, strictEqual } from "node:assert/strict";
import { OAUTH_TOOLS } from "./_oauth_tools.ts";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import { dpopKey, dpopProof, type ProofOptions, thumbprintOf } from "./_dpop.ts";
import { modernHeaders, serveForTest, type TestHttpServer } from "./_http_server.ts";

const tools = OAUTH_TOOLS;

async function withServer(run: (server: TestHttpServer, as: AuthServer) => Promise<void>) {
  const as = await startAuthServer({ scopes: "mcp deploy" });
  const server = await serveForTest(tools, { oauth: { issuer: as.issuer } });
  try {
    await run(server, as);
  } finally {
    await server.close();
    await as.stop();
  }
}

let id = 0;
function call(
  url: string,
  name: string,
  authorization: string | undefined,
  proof: string | undefined,
) {
  return fetch(url, {
    method: "POST",
    headers: {
      ...modernHeaders("tools/call", name),
      ...(authorization === undefined ? {} : { authorization }),
      ...(proof === undefined ? {} : { dpop: proof }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}

Deno.test("dpop: a token bound to the client's key is accepted with a proof of that key, and ctx.auth shows the binding", async () => {
  await withServer(async (server, as) => {
    const key = await dpopKey();
    const token = await as.token({ scope: "mcp", resource: server.url, dpop: key });
    const proof = await dpopProof(key, { method: "POST", url: server.url, token });
    const answer = await call(server.url, "whoami", `DPoP ${token}`, proof);
    strictEqual(answer.status, 200);
    const body = await answer.json();
    strictEqual(body.result.structuredContent.jkt, await thumbprintOf(key));
    strictEqual(body.result.structuredContent.subject, as.client.clientId);
    // A scope it lacks: 403 in its own scheme, so that the client steps up as DPoP.
    const refused = await call(
      server.url,
      "deploy",
      `DPoP ${token}`,
      await dpopProof(key, { method: "POST", url: server.url, token }),
    );
    await refused.body?.cancel();
    strictEqual(refused.status, 403);
    match(
      refused.headers.get("www-authenticate")!,
      /^DPoP error="insufficient_scope", resource_metadata="[^"]+", scope="deploy", algs="[^"]+"$/,
    );
  });
});

Deno.test("dpop: every broken proof, and a bound token without one, is a 401 saying why", async () => {
  await withServer(async (server, as) => {
    const key = await dpopKey();
    const other = await dpopKey();
    const token = await as.token({ scope: "mcp", resource: server.url, dpop: key });
    const bearer = await as.token({ scope: "mcp", resource: server.url });
    const proof = (options: Partial<ProofOptions> = {}, signer = key) =>
      dpopProof(signer, { method: "POST", url: server.url, token, ...options });
    const replayed = await proof();
    // A GET's proof names GET: past the token check, a GET without a session is the endpoint's
    // 400 (a stream belongs to a 2025-era session), not a 401.
    const get = await fetch(server.url, {
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await proof({ method: "GET" }),
        accept: "text/event-stream",
      },
    });
    strictEqual(get.status, 400, "a GET with its own proof passes the token check");
    match((await get.json()).error.message, /Mcp-Session-Id header is required/);
    const first = await call(server.url, "whoami", `DPoP ${token}`, replayed);
    await first.body?.cancel();
    strictEqual(first.status, 200, "the proof's first use");
    const cases: [string, string, string | undefined, RegExp, string][] = [
      [
        "bound token as Bearer",
        `Bearer ${token}`,
        undefined,
        /bound to a key \(DPoP\)/,
        "invalid_token",
      ],
      ["no proof", `DPoP ${token}`, undefined, /needs one DPoP proof/, "invalid_dpop_proof"],
      [
        "two proofs",
        `DPoP ${token}`,
        `${await proof()}, ${await proof()}`,
        /one DPoP proof/,
        "invalid_dpop_proof",
      ],
      [
        "another key",
        `DPoP ${token}`,
        await proof({}, other),
        /another key than the one the token is bound to/,
        "invalid_token",
      ],
      [
        "another URL",
        `DPoP ${token}`,
        await proof({ url: "http://127.0.0.1:1/mcp" }),
        /is for "http:\/\/127\.0\.0\.1:1\/mcp", not this server/,
        "invalid_dpop_proof",
      ],
      [
        "another method",
        `DPoP ${token}`,
        await proof({ method: "GET" }),
        /for the method "GET", not "POST"/,
        "invalid_dpop_proof",
      ],
      [
        "another token",
        `DPoP ${token}`,
        await proof({ token: bearer }),
        /for another access token/,
        "invalid_dpop_proof",
      ],
      [
        "no ath",
        `DPoP ${token}`,
        await proof({ token: undefined }),
        /does not name the token/,
        "invalid_dpop_proof",
      ],
      [
        "stale",
        `DPoP ${token}`,
        await proof({ iat: Math.floor(Date.now() / 1000) - 3600 }),
        /more than 300 s from now/,
        "invalid_dpop_proof",
      ],
      ["replayed", `DPoP ${token}`, replayed, /used before/, "invalid_dpop_proof"],
      ["untyped", `DPoP ${token}`, await proof({ typ: "JWT" }), /"typ"/, "invalid_dpop_proof"],
      [
        "a Bearer token as DPoP",
        `DPoP ${bearer}`,
        await proof({ token: bearer }),
        /not bound to a key/,
        "invalid_token",
      ],
    ];
    for (const [what, authorization, dpop, message, error] of cases) {
      const answer = await call(server.url, "whoami", authorization, dpop);
      const body = await answer.json();
      strictEqual(answer.status, 401, what);
      match(body.error.message, message, what);
      const scheme = authorization.startsWith("DPoP") ? "DPoP" : "Bearer";
      match(
        answer.headers.get("www-authenticate")!,
        new RegExp(`^${scheme} error="${error}"`),
        what,
      );
    }
  });
});
