// Toolshed as an OAuth 2.1 resource server over real HTTP (issue 24), against a real
// authorization server (oidc-provider, tests/_oidc.ts) and the real verifier: the metadata a
// client discovers, each refusal with the status and challenge the spec names, the caller in
// `ctx.auth`, scopes as 403 step-up challenges in both eras, and sessions, tasks and
// requestState that another user's token cannot reach.
import { deepStrictEqual, match, ok, rejects, strictEqual } from "node:assert/strict";
import * as jose from "npm:jose@6.2.18";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { createServer } from "../lib/server/create_server.ts";
import { recorder } from "./_diagnostics.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { OAuthHttpOptions } from "../lib/transports/http/oauth.ts";
import { DEFAULT_ALGORITHMS } from "../lib/auth/algorithms.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import {
  modernBody,
  modernHeaders,
  openLegacySession,
  serveForTest,
  type TestHttpServer,
} from "./_http_server.ts";
import { ASK_TOOL, askAnswered, DEPLOY_TOOL } from "./_oauth_tools.ts";

const TASKS = "io.modelcontextprotocol/tasks";

const tools: Tool[] = [
  checkDefinition(
    {
      description: "Says who is calling",
      inputSchema: { type: "object" },
      handler: (_args: unknown, ctx: ToolContext) => ({ auth: ctx.auth ?? null }),
    },
    "whoami",
    "tools/whoami.ts",
  ),
  DEPLOY_TOOL,
  ASK_TOOL,
  checkDefinition(
    {
      description: "Works until told to stop, as a task",
      inputSchema: { type: "object" },
      task: "optional",
      handler: (_args: unknown, ctx: ToolContext) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
          setTimeout(() => resolve("done"), 2_000);
        }),
    },
    "job",
    "tools/job.ts",
  ),
];

/** One authorization server for the file; each test its own toolshed. */
let authServer: AuthServer | undefined;
async function issuer(): Promise<AuthServer> {
  return authServer ??= await startAuthServer({ scopes: "mcp deploy" });
}

async function withServer(
  oauth: Partial<OAuthHttpOptions>,
  run: (server: TestHttpServer, as: AuthServer) => Promise<void>,
): Promise<void> {
  const as = await issuer();
  const server = await serveForTest(tools, {
    oauth: { issuer: as.issuer, ...oauth },
    logRequests: true,
  });
  try {
    await run(server, as);
  } finally {
    await server.close();
  }
}

let nextId = 0;
/** A 2026-07-28 request; its status, its headers, its JSON body. */
async function post(
  url: string,
  method: string,
  params: JsonObject,
  token?: string,
  extra: Record<string, string> = {},
  capabilities: JsonObject = {},
) {
  const named = params.name ?? params.taskId ?? params.uri;
  const name = typeof named === "string" ? named : undefined;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...modernHeaders(method, name),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...extra,
    },
    body: modernBody(++nextId, method, params, capabilities),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === "" ? {} : JSON.parse(text)) as JsonObject & {
      result?: JsonObject;
      error?: JsonObject;
    },
  };
}

function textOf(result: JsonObject | undefined): string {
  return ((result?.content as JsonObject[] | undefined)?.[0]?.text as string) ?? "";
}

Deno.test("oauth: the protected resource metadata names the resource and its issuer, at the path-aware URL and the root, readable from any origin", async () => {
  await withServer({ scopes: ["mcp"] }, async (server, as) => {
    const origin = new URL(server.url).origin;
    for (
      const path of [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
      ]
    ) {
      const response = await fetch(`${origin}${path}`, {
        headers: { origin: "https://elsewhere.example" },
      });
      strictEqual(response.status, 200, path);
      strictEqual(response.headers.get("access-control-allow-origin"), "*");
      deepStrictEqual(await response.json(), {
        resource: server.url,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ["header"],
        dpop_signing_alg_values_supported: DEFAULT_ALGORITHMS,
        scopes_supported: ["mcp"],
      });
    }
    const preflight = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" },
    });
    await preflight.body?.cancel();
    strictEqual(preflight.status, 204);
    strictEqual(preflight.headers.get("access-control-allow-origin"), "*");
    const posted = await fetch(`${origin}/.well-known/oauth-protected-resource`, {
      method: "POST",
    });
    await posted.body?.cancel();
    strictEqual(posted.status, 405);
  });
});

Deno.test("oauth: without a usable token, 401 with the challenge that starts a sign-in; never a token from the URL", async () => {
  await withServer({ scopes: ["mcp"] }, async (server) => {
    const metadata = `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;
    const none = await post(server.url, "tools/list", {});
    strictEqual(none.status, 401);
    strictEqual(
      none.headers.get("www-authenticate"),
      `Bearer resource_metadata="${metadata}", scope="mcp"`,
    );
    strictEqual((none.body.error as JsonObject).code, -32000);
    const basic = await post(server.url, "tools/list", {}, undefined, {
      authorization: "Basic dXNlcjpwYXNz",
    });
    strictEqual(basic.status, 401);
    const garbage = await post(server.url, "tools/list", {}, "not.a.jwt");
    strictEqual(garbage.status, 401);
    match(
      garbage.headers.get("www-authenticate")!,
      /^Bearer error="invalid_token", resource_metadata="[^"]+", scope="mcp", error_description="[^"]+"$/,
    );
    const inQuery = await post(`${server.url}?access_token=abc`, "tools/list", {});
    strictEqual(inQuery.status, 400);
    match(inQuery.headers.get("www-authenticate")!, /error="invalid_request"/);
  });
});

Deno.test("oauth: a token for this server reaches the tool as ctx.auth (the caller, never the token); the request log names the subject", async () => {
  await withServer({}, async (server, as) => {
    const token = await as.token({ scope: "mcp", resource: server.url });
    const answer = await post(server.url, "tools/call", { name: "whoami", arguments: {} }, token);
    strictEqual(answer.status, 200, JSON.stringify(answer.body));
    const { auth } = (answer.body.result as JsonObject).structuredContent as { auth: JsonObject };
    strictEqual(auth.subject, as.client.clientId);
    strictEqual(auth.clientId, as.client.clientId);
    deepStrictEqual(auth.scopes, ["mcp"]);
    strictEqual(auth.issuer, as.issuer);
    ok(!JSON.stringify(answer.body).includes(token), "the token is not handed on");
    ok(
      server.diagnostics.entries.some((line) =>
        line.includes(`"tools/call" by ${JSON.stringify(as.client.clientId)}`)
      ),
      server.diagnostics.text(),
    );
  });
});

Deno.test("oauth: tokens for another audience, from another issuer, forged, unsigned or tampered are 401 invalid_token", async () => {
  await withServer({}, async (server, as) => {
    const elsewhere = await as.token({ scope: "mcp", resource: "http://127.0.0.1:1/mcp" });
    const other = await startAuthServer({ scopes: "mcp" });
    try {
      const foreign = await other.token({ scope: "mcp", resource: server.url });
      const good = await as.token({ scope: "mcp", resource: server.url });
      const [header, payload, signature] = good.split(".");
      const claims = JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload)));
      const tampered = [
        header,
        jose.base64url.encode(JSON.stringify({ ...claims, sub: "someone-else" })),
        signature,
      ].join(".");
      const unsigned = [
        jose.base64url.encode(JSON.stringify({ alg: "none", typ: "at+jwt" })),
        payload,
        "",
      ].join(".");
      const { privateKey } = await jose.generateKeyPair("ES256");
      const forged = await new jose.SignJWT(claims)
        .setProtectedHeader({
          alg: "ES256",
          typ: "at+jwt",
          kid: JSON.parse(new TextDecoder().decode(jose.base64url.decode(header))).kid,
        })
        .sign(privateKey);
      for (
        const [what, token] of Object.entries({ elsewhere, foreign, tampered, unsigned, forged })
      ) {
        const answer = await post(server.url, "tools/list", {}, token);
        strictEqual(answer.status, 401, what);
        match(answer.headers.get("www-authenticate")!, /^Bearer error="invalid_token"/, what);
      }
    } finally {
      await other.stop();
    }
  });
});

Deno.test("oauth: an issuer that cannot be reached fails closed: 503, saying why, never the call", async () => {
  const gone = await startAuthServer({ scopes: "mcp" });
  const server = await serveForTest(tools, { oauth: { issuer: gone.issuer } });
  try {
    const token = await gone.token({ scope: "mcp", resource: server.url });
    await gone.stop();
    const answer = await post(server.url, "tools/call", { name: "whoami", arguments: {} }, token);
    strictEqual(answer.status, 503);
    match((answer.body.error as JsonObject).message as string, /cannot be checked now/);
  } finally {
    await server.close();
  }
});

Deno.test("oauth: a base scope the token lacks is 403 insufficient_scope; a tool's scope too, naming every scope, in either era", async () => {
  await withServer({ scopes: ["mcp"] }, async (server, as) => {
    const metadata = `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;
    const without = await as.token({ scope: "deploy", resource: server.url });
    const base = await post(server.url, "tools/list", {}, without);
    strictEqual(base.status, 403);
    strictEqual(
      base.headers.get("www-authenticate"),
      `Bearer error="insufficient_scope", resource_metadata="${metadata}", scope="mcp"`,
    );
    const token = await as.token({ scope: "mcp", resource: server.url });
    const listed = await post(server.url, "tools/list", {}, token);
    ok(
      ((listed.body.result as JsonObject).tools as JsonObject[]).some((tool) =>
        tool.name === "deploy"
      ),
    );
    const refused = await post(server.url, "tools/call", { name: "deploy", arguments: {} }, token);
    strictEqual(refused.status, 403);
    strictEqual(
      refused.headers.get("www-authenticate"),
      `Bearer error="insufficient_scope", resource_metadata="${metadata}", scope="mcp deploy"`,
    );
    deepStrictEqual((refused.body.error as JsonObject).data, { requiredScopes: ["deploy"] });
    const stepped = await as.token({ scope: "mcp deploy", resource: server.url });
    const allowed = await post(
      server.url,
      "tools/call",
      { name: "deploy", arguments: {} },
      stepped,
    );
    strictEqual(textOf(allowed.body.result), "deployed");

    // A 2025-era session: the same 403, not an in-band error (a client steps up on the status).
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    const session = (await openLegacySession(server.url, { authorization: `Bearer ${token}` }))!;
    const call = await fetch(server.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "deploy", arguments: {} },
      }),
    });
    await call.body?.cancel();
    strictEqual(call.status, 403);
    match(call.headers.get("www-authenticate")!, /error="insufficient_scope".*scope="mcp deploy"/);
  });
});

Deno.test("oauth: another user's token reaches none of a user's session, task or requestState", async () => {
  await withServer({}, async (server, as) => {
    as.signInAs("alice");
    const alice = (await as.login({ scope: "mcp", resource: server.url })).accessToken;
    as.signInAs("bob");
    const bob = (await as.login({ scope: "mcp", resource: server.url })).accessToken;

    // A 2025-era session: its id is not a credential.
    const headers = (token: string) => ({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    });
    const session = (await openLegacySession(server.url, { authorization: `Bearer ${alice}` }))!;
    const inSession = (token: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          ...headers(token),
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
      });
    const stolen = await inSession(bob);
    await stolen.body?.cancel();
    strictEqual(stolen.status, 404);
    const own = await inSession(alice);
    await own.body?.cancel();
    strictEqual(own.status, 200);

    // A task: bob can neither read nor cancel alice's.
    const capabilities = { extensions: { [TASKS]: {} } };
    const started = await post(
      server.url,
      "tools/call",
      { name: "job", arguments: {} },
      alice,
      {},
      capabilities,
    );
    const { taskId } = started.body.result as { taskId: string };
    strictEqual(typeof taskId, "string", JSON.stringify(started.body));
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const other = await post(server.url, method, { taskId }, bob, {}, capabilities);
      strictEqual(
        (other.body.error as JsonObject | undefined)?.code,
        -32602,
        `${method} ${JSON.stringify(other.body)}`,
      );
    }
    const mine = await post(server.url, "tasks/get", { taskId }, alice, {}, capabilities);
    strictEqual((mine.body.result as JsonObject).status, "working");
    await post(server.url, "tasks/cancel", { taskId }, alice, {}, capabilities);

    // requestState: a round sealed for alice does not continue as bob.
    const asking = { elicitation: {} };
    const first = await post(
      server.url,
      "tools/call",
      { name: "ask", arguments: {} },
      alice,
      {},
      asking,
    );
    const round = askAnswered(first.body.result);
    const hijacked = await post(server.url, "tools/call", round, bob, {}, asking);
    match(JSON.stringify(hijacked.body), /requestState was issued to another caller/);
    const continued = await post(server.url, "tools/call", round, alice, {}, asking);
    strictEqual(textOf(continued.body.result), "answered accept");
  });
});

Deno.test("oauth: embedded, fetch checks tokens for the public URL it is given, and refuses to start without one", async () => {
  const as = await issuer();
  const publicUrl = "http://localhost:8123/mcp";
  await rejects(
    () => createServer({ primitives: { tools }, oauth: { issuer: as.issuer }, http: {} }),
    /Cannot serve OAuth embedded without oauth\.publicUrl/,
  );
  const server = await createServer({
    primitives: { tools },
    oauth: { issuer: as.issuer, publicUrl },
    http: {},
    diagnostics: recorder(),
  });
  try {
    const call = (token?: string) =>
      server.fetch(
        new Request(publicUrl, {
          method: "POST",
          headers: {
            ...modernHeaders("tools/call", "whoami"),
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "whoami",
              arguments: {},
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          }),
        }),
      );
    const refused = await call();
    await refused.body?.cancel();
    strictEqual(refused.status, 401);
    match(
      refused.headers.get("www-authenticate")!,
      /resource_metadata="http:\/\/localhost:8123\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const answered = await call(await as.token({ scope: "mcp", resource: publicUrl }));
    const body = await answered.json();
    strictEqual(body.result.structuredContent.auth.subject, as.client.clientId);
  } finally {
    await server.close();
  }
});

Deno.test({
  name: "oauth: the authorization server stops with the file",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await authServer?.stop();
  },
});
