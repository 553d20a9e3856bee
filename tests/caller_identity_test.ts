// One caller, one identity (issue 34, adr/0054), over a real `main.ts --http` against a
// hand-made authorization server on loopback (tests/_token_issuer.ts, whose introspection says
// what each test wants): a token that names neither a subject nor a client, introspected (the
// user only in `username`, or nothing) or a JWT, is refused with 401 invalid_token saying so,
// where before every such token was one caller, and bob's joined alice's session. Tokens that
// name a subject, or only a client, are callers of their own: none reaches another's session.
import { match, strictEqual } from "node:assert/strict";
import { legacyHeaders, postInitialize } from "./_http_server.ts";
import { FIXTURE_TOOLS, spawnHttpServer } from "./_server_process.ts";
import { startTokenIssuer } from "./_token_issuer.ts";
import { INTROSPECTION_ID_ENV, INTROSPECTION_SECRET_ENV } from "../lib/settings/table.ts";

const NO_CALLER =
  /^Bearer error="invalid_token", .*error_description="The token names no caller: it has no sub, client_id or azp claim"/;

Deno.test("a token naming no subject and no client is refused, introspected or a JWT; callers that are named never share a session", async () => {
  const issuer = await startTokenIssuer();
  const server = await spawnHttpServer(
    ["--tools", FIXTURE_TOOLS, "--auth-issuer", issuer.issuer],
    {
      [INTROSPECTION_ID_ENV]: issuer.introspector.clientId,
      [INTROSPECTION_SECRET_ENV]: issuer.introspector.clientSecret,
    },
  );
  try {
    const { url } = server;
    const active = (fields: Record<string, unknown>) => ({
      active: true,
      aud: url,
      exp: Math.floor(Date.now() / 1000) + 300,
      ...fields,
    });
    issuer.answer("alice-opaque", active({ username: "alice" }));
    issuer.answer("bob-opaque", active({ username: "bob" }));
    issuer.answer("nobody-opaque", active({}));
    issuer.answer("empty-opaque", active({ sub: "", client_id: "" }));
    issuer.answer("carol-opaque", active({ sub: "carol" }));
    issuer.answer("app1-opaque", active({ client_id: "app-1" }));
    issuer.answer("app2-opaque", active({ client_id: "app-2" }));
    const anonymous = {
      "alice, by username": "alice-opaque",
      "bob, by username": "bob-opaque",
      "an answer naming no one": "nobody-opaque",
      "empty sub and client_id": "empty-opaque",
      "a JWT without sub or client_id": await issuer.jwt({ aud: url }),
      "a JWT naming a username": await issuer.jwt({ aud: url, username: "alice" }),
    };
    const open = (token: string) =>
      postInitialize(url, "2025-11-25", { authorization: `Bearer ${token}` });

    for (const [what, token] of Object.entries(anonymous)) {
      const refused = await open(token);
      const body = await refused.json();
      strictEqual(refused.status, 401, `${what}: ${JSON.stringify(body)}`);
      match(refused.headers.get("www-authenticate") ?? "", NO_CALLER, what);
      match(body.error.message, /^Unauthorized: The token names no caller/, what);
    }

    // Named callers, introspected and JWT: each session answers its opener only.
    const named = [
      "carol-opaque",
      "app1-opaque",
      "app2-opaque",
      await issuer.jwt({ aud: url, sub: "dave" }),
      await issuer.jwt({ aud: url, azp: "app-3" }),
    ];
    const sessions: string[] = [];
    for (const token of named) {
      const opened = await open(token);
      await opened.body?.cancel();
      strictEqual(opened.status, 200);
      sessions.push(opened.headers.get("mcp-session-id")!);
    }
    for (const [i, session] of sessions.entries()) {
      for (const [j, token] of named.entries()) {
        const answer = await fetch(url, {
          method: "POST",
          headers: legacyHeaders(session, { authorization: `Bearer ${token}` }),
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
        await answer.body?.cancel();
        strictEqual(answer.status, i === j ? 200 : 404, `token ${j} in session ${i}`);
      }
    }
  } finally {
    await server.stop();
    await issuer.stop();
  }
});
