// examples/oauth: what its README promises, with real processes on loopback: the example's own
// issuer.ts (oidc-provider and its development sign-in pages) and `main.ts --http --dir
// examples/oauth --auth-issuer <it> --auth-scope mcp`, as the README runs them.
//
// By hand, with fetch, as a client and a person at a browser do it: no token is 401 naming the
// metadata, which names the issuer; dynamic registration, PKCE, `resource=` toolshed's URL, the
// sign-in page (any name, any password) and the consent page, the code exchanged for a JWT; the
// tools see who signed in; `deploy` and the prompt asking `deploy` are 403 insufficient_scope
// naming the scopes to ask for, until a second sign-in (the consent page only: the user is signed
// in already) grants it. Then the official SDK clients (2.4.0 and 1.32.2) do the same through the
// same pages. Two choices of issuer.ts are what lets them step up, and these steps fail without
// them (tried): a registered `scope` is not kept (both clients register with the first
// challenge's, and oidc-provider would refuse them more), and no refresh tokens (1.32.2 answers
// a 403 by refreshing, which cannot add a scope). Every network wait has a hang guard; both
// processes are always stopped.
import { DEFAULT_ALGORITHMS } from "../../lib/auth/algorithms.ts";
import assert from "node:assert/strict";
import {
  Client as ModernClient,
  type OAuthClientProvider,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorized,
} from "npm:@modelcontextprotocol/client@2.4.0";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { UnauthorizedError as LegacyUnauthorized } from "npm:@modelcontextprotocol/sdk@1.32.2/client/auth.js";
import { modernHeaders } from "../_http_server.ts";
import { type HttpServerProcess, spawnHttpServer, withHangGuard } from "../_server_process.ts";
import { exampleDir, modernMeta, startExampleProcess } from "./_example.ts";

const DIR = exampleDir("oauth");
/** Where the authorization server sends the browser back: nothing listens there, it is read. */
const REDIRECT_URI = "http://127.0.0.1:1/callback";

/** `deno run -A examples/oauth/issuer.ts --port 0`: the README's command, on a free port. */
function startIssuer(): Promise<{ url: string; stop(): Promise<void> }> {
  // Its first start downloads and loads oidc-provider.
  return startExampleProcess(
    "examples/oauth/issuer.ts",
    /(http:\/\/127\.0\.0\.1:\d+)$/,
    "the issuer",
  );
}

/** A fetch that cannot hang the suite. */
function request(url: string | URL, init: RequestInit, what: string): Promise<Response> {
  return withHangGuard(fetch(url, init), what);
}

/** One request of a person's browser: it keeps the cookies, and follows no redirect itself. */
type Visit = (url: URL, form?: Record<string, string>) => Promise<Response>;

function browser(): Visit {
  const cookies = new Map<string, string>();
  return async (url, form) => {
    const response = await request(url, {
      method: form === undefined ? "GET" : "POST",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
      },
      ...(form === undefined ? {} : { body: new URLSearchParams(form) }),
    }, `${form === undefined ? "GET" : "POST"} ${url}`);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const equals = pair.indexOf("=");
      cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
    return response;
  };
}

/** A development page's form: where it posts, and the prompt it answers (login or consent). */
function formOf(page: string): { action: string; prompt: string } {
  const action = /<form[^>]* action="([^"]+)"[^>]* method="post"/.exec(page)?.[1];
  const prompt = /<input type="hidden" name="prompt" value="([a-z]+)"\/>/.exec(page)?.[1];
  assert.ok(action !== undefined && prompt !== undefined, `a page without its form:\n${page}`);
  return { action: action.replaceAll("&amp;", "&"), prompt };
}

/**
 * What the person does once a client opens `authorizationUrl` in the browser: types `user` and
 * any password on the sign-in page, continues on the consent page, until the authorization
 * server sends the browser back to the client. The pages shown, and that last URL.
 */
async function clickThrough(
  visit: Visit,
  authorizationUrl: URL,
  user: string,
): Promise<{ pages: string[]; callback: URL }> {
  const issuer = authorizationUrl.origin;
  const pages: string[] = [];
  let at = authorizationUrl;
  let response = await visit(at);
  for (let step = 0; step < 12; step++) {
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      at = new URL(response.headers.get("location")!, at);
      if (at.origin !== issuer) return { pages, callback: at };
      response = await visit(at);
      continue;
    }
    const page = await response.text();
    assert.equal(response.status, 200, page);
    pages.push(page);
    const { action, prompt } = formOf(page);
    const fields: Record<string, string> = prompt === "login"
      ? { prompt, login: user, password: "any password" }
      : { prompt };
    response = await visit(new URL(action, at), fields);
  }
  throw new Error(`the sign-in did not come back to the client: last at ${at}`);
}

/** What a client learns from a 401, and the client it registered there. */
interface Registered {
  readonly resource: string;
  readonly issuer: string;
  readonly endpoints: Record<string, string>;
  readonly clientId: string;
}

/**
 * What an MCP client does on a 401: reads the metadata the challenge names, then the
 * authorization server's, and registers itself (RFC 7591, a public client) with the scope the
 * challenge named and the grants clients ask for.
 */
async function discoverAndRegister(challenge: string): Promise<Registered> {
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  const scope = /scope="([^"]+)"/.exec(challenge)?.[1];
  assert.ok(metadataUrl && scope, challenge);
  const metadata = await (await request(metadataUrl, {}, "the resource metadata")).json();
  const [issuer] = metadata.authorization_servers as string[];
  const endpoints = await (await request(
    `${issuer}/.well-known/oauth-authorization-server`,
    {},
    "the authorization server's metadata",
  )).json();
  const registered = await request(endpoints.registration_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "examples/oauth test",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope,
    }),
  }, "the registration");
  const registration = await registered.json();
  assert.equal(registered.status, 201, JSON.stringify(registration));
  return { resource: metadata.resource, issuer, endpoints, clientId: registration.client_id };
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/**
 * A sign-in asking `scope` for the client's resource: the authorization request with PKCE, the
 * pages, then the code exchanged for tokens. The access token and the pages shown.
 */
async function signIn(
  client: Registered,
  visit: Visit,
  user: string,
  scope: string,
): Promise<{ accessToken: string; pages: string[] }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const authorization = new URL(client.endpoints.authorization_endpoint);
  authorization.search = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: client.resource,
  }).toString();
  const { pages, callback } = await clickThrough(visit, authorization, user);
  assert.equal(callback.origin + callback.pathname, REDIRECT_URI, String(callback));
  assert.equal(callback.searchParams.get("state"), state);
  assert.equal(callback.searchParams.get("iss"), client.issuer);
  const code = callback.searchParams.get("code");
  assert.ok(code, `no code: ${callback}`);
  const exchanged = await request(client.endpoints.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: client.clientId,
      code_verifier: verifier,
      resource: client.resource,
    }),
  }, "the token request");
  const tokens = await exchanged.json();
  assert.equal(exchanged.status, 200, JSON.stringify(tokens));
  assert.equal(tokens.token_type, "Bearer");
  // None, though the client registered for the grant (issuer.ts says why).
  assert.equal(tokens.refresh_token, undefined);
  return { accessToken: tokens.access_token, pages };
}

let nextId = 0;
/** A 2026-07-28 request to the endpoint, with the token if given: status, headers, JSON body. */
async function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
  token?: string,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const name = typeof params.name === "string" ? params.name : undefined;
  const response = await request(url, {
    method: "POST",
    headers: {
      ...modernHeaders(method, name),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++nextId,
      method,
      params: { ...params, _meta: modernMeta() },
    }),
  }, `${method} ${name ?? ""}`);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** The text a tools/call answered, or fails with the whole answer. */
function textOf(answer: { status: number; body: Record<string, unknown> }): string {
  const result = answer.body.result as { content?: { text: string }[]; isError?: boolean };
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(result?.content && !result.isError, JSON.stringify(answer.body));
  return result.content[0].text;
}

/** The claims of a JWT, unverified (toolshed verifies it; the test only reads it). */
function claimsOf(jwt: string): Record<string, unknown> {
  const payload = jwt.split(".")[1].replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(atob(payload));
}

/**
 * An SDK client's OAuth provider, in memory, whose "browser" is `clickThrough` signing `user`
 * in. `callback()` is where the last sign-in came back to (what a real client's redirect
 * handler receives).
 */
function sdkProvider(user: string): OAuthClientProvider & { callback(): URL } {
  const visit = browser();
  const saved: Record<string, unknown> = {};
  let callback: URL | undefined;
  return {
    redirectUrl: REDIRECT_URI,
    clientMetadata: {
      client_name: `examples/oauth test (${user})`,
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    clientInformation: () => saved.client as never,
    saveClientInformation: (client) => void (saved.client = client),
    tokens: () => saved.tokens as never,
    saveTokens: (tokens) => void (saved.tokens = tokens),
    saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
    codeVerifier: () => saved.verifier as string,
    saveDiscoveryState: (state) => void (saved.discovery = state),
    discoveryState: () => saved.discovery as never,
    async redirectToAuthorization(url) {
      callback = (await clickThrough(visit, url, user)).callback;
    },
    callback: () => callback!,
  };
}

const DEPLOY = { name: "deploy", arguments: { version: "1.4.0", environment: "staging" } };

/** The text of a CallToolResult an SDK client returned. */
function sdkText(result: unknown): string {
  const { content, isError } = result as { content: { text: string }[]; isError?: boolean };
  assert.ok(!isError, JSON.stringify(result));
  return content[0].text;
}

Deno.test("examples/oauth: a user signs in at issuer.ts, the tools see who, deploy asks for more", async (t) => {
  const issuer = await startIssuer();
  let server: HttpServerProcess | undefined;
  try {
    server = await spawnHttpServer([
      "--dir",
      DIR,
      "--auth-issuer",
      issuer.url,
      "--auth-scope",
      "mcp",
    ]);
    const { url } = server;
    const metadataUrl = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    const stepUp = `Bearer error="insufficient_scope", resource_metadata="${metadataUrl}", ` +
      'scope="mcp deploy"';

    const byHand = await t.step("by hand: the 401, the pages, the tokens, the 403", async () => {
      // No token: 401, and the challenge names the metadata, which names the issuer.
      const anonymous = await post(url, "tools/call", { name: "whoami", arguments: {} });
      assert.equal(anonymous.status, 401);
      const challenge = anonymous.headers.get("www-authenticate")!;
      assert.equal(challenge, `Bearer resource_metadata="${metadataUrl}", scope="mcp"`);
      const metadata = await (await request(metadataUrl, {}, "the metadata")).json();
      assert.deepEqual(metadata, {
        resource: url,
        authorization_servers: [issuer.url],
        bearer_methods_supported: ["header"],
        dpop_signing_alg_values_supported: DEFAULT_ALGORITHMS,
        scopes_supported: ["mcp"],
      });

      // alice signs in, asking what the challenge named: the sign-in page, then consent.
      const client = await discoverAndRegister(challenge);
      const visit = browser();
      const first = await signIn(client, visit, "alice", "mcp");
      assert.deepEqual(first.pages.map((page) => formOf(page).prompt), ["login", "consent"]);
      assert.ok(first.pages[1].includes(`<li>${url}:</li>`), first.pages[1]);
      const claims = claimsOf(first.accessToken);
      assert.equal(claims.sub, "alice");
      assert.equal(claims.aud, url);
      assert.equal(claims.scope, "mcp");

      const whoami = { name: "whoami", arguments: {} };
      const whoamiSh = { name: "whoami_sh", arguments: {} };
      assert.equal(
        textOf(await post(url, "tools/call", whoami, first.accessToken)),
        `You are alice, signed in with the client ${client.clientId}, with the scopes: mcp`,
      );
      assert.equal(
        textOf(await post(url, "tools/call", whoamiSh, first.accessToken)),
        "You are alice, with the scopes: mcp",
      );

      // deploy, and the prompt asking the same scope, are listed but refused: 403 naming every
      // scope to ask for, which makes a client ask the user for more.
      const listed = await post(url, "tools/list", {}, first.accessToken);
      const tools = (listed.body.result as { tools: { name: string }[] }).tools;
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ["deploy", "whoami", "whoami_sh"]);
      const refused = await post(url, "tools/call", DEPLOY, first.accessToken);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.headers.get("www-authenticate"), stepUp);
      const prompt = { name: "release_notes", arguments: { version: "1.4.0" } };
      const notes = await post(url, "prompts/get", prompt, first.accessToken);
      assert.equal(notes.status, 403, JSON.stringify(notes.body));
      assert.equal(notes.headers.get("www-authenticate"), stepUp);

      // The client asks again with the scopes the 403 named (more than it registered with).
      // alice is signed in already: the consent page only, naming deploy.
      const second = await signIn(client, visit, "alice", "mcp deploy");
      assert.deepEqual(second.pages.map((page) => formOf(page).prompt), ["consent"]);
      assert.ok(second.pages[0].includes("<li>deploy</li>"), second.pages[0]);
      assert.equal(claimsOf(second.accessToken).scope, "mcp deploy");
      assert.equal(
        textOf(await post(url, "tools/call", DEPLOY, second.accessToken)),
        "Deployed 1.4.0 to staging, as alice",
      );
      const granted = await post(url, "prompts/get", prompt, second.accessToken);
      assert.equal(granted.status, 200, JSON.stringify(granted.body));
      const [message] = (granted.body.result as { messages: { content: { text: string } }[] })
        .messages;
      assert.match(message.content.text, /^Draft the release notes of version 1\.4\.0 /);
      assert.equal(
        textOf(await post(url, "tools/call", whoamiSh, second.accessToken)),
        "You are alice, with the scopes: mcp deploy",
      );
    });

    // The official SDK clients register with the scope of the first challenge: they step up
    // only because the issuer does not keep a registered scope.
    const modern = await t.step("the SDK client 2.4.0 signs in and steps up", async () => {
      const provider = sdkProvider("bob");
      const client = new ModernClient({ name: "examples/oauth test", version: "1" });
      const connect = () => new ModernTransport(new URL(url), { authProvider: provider });
      let transport = connect();
      await assert.rejects(withHangGuard(client.connect(transport), "connect"), ModernUnauthorized);
      await withHangGuard(transport.finishAuth(provider.callback().searchParams), "finishAuth");
      transport = connect();
      await withHangGuard(client.connect(transport), "connect, signed in");
      try {
        const whoami = await withHangGuard(
          client.callTool({ name: "whoami", arguments: {} }),
          "whoami",
        );
        assert.match(sdkText(whoami), /^You are bob, signed in with the client .+: mcp$/);
        // The 403 sends the client to the consent page; it then calls again.
        await assert.rejects(withHangGuard(client.callTool(DEPLOY), "deploy"), ModernUnauthorized);
        await withHangGuard(transport.finishAuth(provider.callback().searchParams), "finishAuth");
        const deployed = await withHangGuard(client.callTool(DEPLOY), "deploy, stepped up");
        assert.equal(sdkText(deployed), "Deployed 1.4.0 to staging, as bob");
      } finally {
        await client.close();
      }
    });

    // The SDK client 1.x answers a 403 by refreshing the token it holds, if it holds a refresh
    // token (which cannot add a scope): it asks the user only because the issuer gives none.
    const legacy = await t.step("the SDK client 1.32.2 signs in and steps up", async () => {
      const provider = sdkProvider("carol");
      const client = new LegacyClient({ name: "examples/oauth test", version: "1" });
      const connect = () => new LegacyTransport(new URL(url), { authProvider: provider });
      let transport = connect();
      await assert.rejects(withHangGuard(client.connect(transport), "connect"), LegacyUnauthorized);
      const code = () => provider.callback().searchParams.get("code")!;
      await withHangGuard(transport.finishAuth(code()), "finishAuth");
      transport = connect();
      await withHangGuard(client.connect(transport), "connect, signed in");
      try {
        const whoami = await withHangGuard(
          client.callTool({ name: "whoami", arguments: {} }),
          "whoami",
        );
        assert.match(sdkText(whoami), /^You are carol, signed in with the client .+: mcp$/);
        await assert.rejects(withHangGuard(client.callTool(DEPLOY), "deploy"), LegacyUnauthorized);
        await withHangGuard(transport.finishAuth(code()), "finishAuth");
        const deployed = await withHangGuard(client.callTool(DEPLOY), "deploy, stepped up");
        assert.equal(sdkText(deployed), "Deployed 1.4.0 to staging, as carol");
      } finally {
        await client.close();
      }
    });
    assert.ok(byHand && modern && legacy, "a step failed (above)");
  } finally {
    await server?.stop();
    await issuer.stop();
  }
});
