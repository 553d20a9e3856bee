// The official MCP TypeScript SDK v2 client signs in to toolshed with its own OAuth support,
// given only the server's URL (issue 24): the 401's challenge leads it to the protected resource
// metadata, that to the authorization server (oidc-provider on loopback, tests/_oidc.ts), where
// it registers, authorizes with PKCE for this server as the resource and redeems the code; the
// tool sees the user who signed in; a 403 insufficient_scope makes it authorize again for the
// union of the scopes, and the call goes through. Once in a 2026-07-28 connection, once in a
// 2025-11-25 session (the SDK's default); each with Bearer tokens, and again with DPoP (RFC 9449):
// the client's provider implements `dpop()`, so the SDK signs a proof into each token request,
// oidc-provider binds the token to its key (`cnf.jkt`), and the SDK presents it to toolshed as
// `Authorization: DPoP` with a new proof on every request, the step-up's too.
//
// Nobody is at a browser: the client's OAuthClientProvider "redirects" by following the
// authorization URL with the harness's unattended sign-in (`as.authorize`), and the test, as
// an application's callback handler would, hands the redirect back to `transport.finishAuth`
// and repeats what stopped for the sign-in. Every request the SDK makes goes through a fetch
// that notes it (with its credentials: the scheme, which saved token, whether a proof came), so
// the test reads the whole exchange as the client saw it, and checks every DPoP proof sent.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  Client,
  type ClientOptions,
  DpopSession,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "npm:@modelcontextprotocol/client@2.4.0";
import * as jose from "npm:jose@6.2.18";
import { DEFAULT_ALGORITHMS } from "../lib/auth/algorithms.ts";
import { OAUTH_TOOLS } from "./_oauth_tools.ts";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import { serveForTest } from "./_http_server.ts";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const tools = OAUTH_TOOLS;

/** Where the authorization server sends the user back to the client (nothing listens there). */
const REDIRECT_URL = "http://127.0.0.1:1/callback";

/** A client's OAuth state, kept in memory, and what a user at a browser would have done. */
interface SignedInClient {
  readonly provider: OAuthClientProvider;
  /** The tokens the client saved, in order. */
  readonly saved: OAuthTokens[];
  /** The client as the authorization server registered it, once it has. */
  registered(): OAuthClientInformationMixed | undefined;
  /** The redirect back from the last sign-in (code, state, iss), taken once. */
  takeRedirect(): URLSearchParams;
}

/**
 * An OAuthClientProvider whose browser is the harness: sent to an authorization URL, it signs
 * the user in unattended, checks the state it gave, and keeps the redirect back for the
 * application to hand to `finishAuth`. `note` hears of each sign-in. With `dpop`, the provider
 * implements `dpop()` with that one session, as the SDK asks (the same session on every call).
 */
function signedInClient(
  as: AuthServer,
  note: (line: string) => void,
  dpop?: DpopSession,
): SignedInClient {
  let information: OAuthClientInformationMixed | undefined;
  let tokens: OAuthTokens | undefined;
  let verifier: string | undefined;
  let discovery: OAuthDiscoveryState | undefined;
  let state: string | undefined;
  let redirect: URL | undefined;
  const saved: OAuthTokens[] = [];
  const provider: OAuthClientProvider = {
    redirectUrl: REDIRECT_URL,
    clientMetadata: {
      client_name: "toolshed oauth_sdk_test",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    state: () => state = crypto.randomUUID(),
    clientInformation: () => information,
    saveClientInformation(next) {
      information = next;
    },
    tokens: () => tokens,
    saveTokens(next) {
      tokens = next;
      saved.push(next);
    },
    async redirectToAuthorization(url) {
      const asked = url.searchParams;
      const pkce = `PKCE ${asked.get("code_challenge_method")}`;
      // RFC 9449 §10's dpop_jkt, should the SDK ever bind the code to its key too.
      const jkt = asked.has("dpop_jkt") ? ` dpop_jkt=${asked.get("dpop_jkt")}` : "";
      note(
        `the user signs in at ${url.origin}${url.pathname} for ${asked.get("resource")} ` +
          `${JSON.stringify(asked.get("scope"))} (${pkce})${jkt}`,
      );
      const back = await as.authorize(url);
      if (back.searchParams.get("state") !== state) {
        throw new Error(`The authorization server redirected with another state: "${back}"`);
      }
      redirect = back;
    },
    saveCodeVerifier(next) {
      verifier = next;
    },
    codeVerifier() {
      if (verifier === undefined) throw new Error("No PKCE code verifier was saved");
      return verifier;
    },
    discoveryState: () => discovery,
    saveDiscoveryState(next) {
      discovery = next;
    },
    // Absent without a session, so that the Bearer runs take the SDK's path without DPoP.
    ...(dpop === undefined ? {} : { dpop: () => dpop }),
  };
  return {
    provider,
    saved,
    registered: () => information,
    takeRedirect() {
      if (redirect === undefined) throw new Error("The client sent nobody to sign in");
      const { searchParams } = redirect;
      redirect = undefined;
      return searchParams;
    },
  };
}

/** A request as it left the SDK (what the fetch under all of the SDK's wrappers was given). */
interface Sent {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly answer: Promise<Response>;
}

/**
 * A fetch that notes each request the SDK makes and its answer: method, URL, the JSON-RPC
 * method and tool of a POST to the endpoint, the credentials (`[DPoP #1, proof]`: the
 * Authorization scheme, which of the saved tokens, whether a DPoP proof came), the status, and
 * the challenge of a 401 or 403. The endpoint's GET (a 2025 session's stream, opened in the
 * background) is left out of the notes, but kept in `sent` with every other request.
 */
function noting(
  endpoint: string,
  note: (line: string) => void,
  saved: readonly OAuthTokens[],
  sent: Sent[],
): FetchLike {
  return async (url, init) => {
    const target = String(url);
    const method = init?.method ?? "GET";
    const headers = new Headers(init?.headers);
    const answer = fetch(url, init);
    sent.push({ method, url: target, headers, answer });
    const response = await answer;
    if (target === endpoint && method === "GET") return response;
    let rpc = "";
    if (target === endpoint && typeof init?.body === "string") {
      const message = JSON.parse(init.body);
      rpc = ` ${message.method}${message.params?.name ? ` ${message.params.name}` : ""}`;
    }
    const challenge = response.headers.get("www-authenticate");
    const outcome = `${response.status}${challenge ? ` ${challenge}` : ""}`;
    note(`${method} ${target}${rpc}${credentialsOf(headers, saved)} ${outcome}`);
    return response;
  };
}

/** ` [DPoP #2, proof]`, ` [Bearer #1]`, ` [proof]`, or nothing for a request without any. */
function credentialsOf(headers: Headers, saved: readonly OAuthTokens[]): string {
  const parts: string[] = [];
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const [scheme, token] = authorization.split(" ");
    const number = saved.findIndex((tokens) => tokens.access_token === token) + 1;
    parts.push(number > 0 ? `${scheme} #${number}` : `${scheme} (a token never saved)`);
  }
  if (headers.has("dpop")) parts.push("proof");
  return parts.length > 0 ? ` [${parts.join(", ")}]` : "";
}

/**
 * Every DPoP proof the SDK sent, checked as RFC 9449 §4.2 and §4.3 ask: typed dpop+jwt, signed
 * by the key it carries, which is the session's; `htm` and `htu` this request's (no query);
 * `ath` the hash of the token beside it, and none at the token endpoint; no `nonce` (nobody
 * asked for one); each `jti` once.
 */
async function checkProofs(sent: readonly Sent[], session: DpopSession): Promise<void> {
  const ids = new Set<string>();
  for (const { method, url, headers } of sent) {
    const proof = headers.get("dpop");
    if (proof === null) continue;
    const what = `the proof of ${method} ${url}`;
    const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
      typ: "dpop+jwt",
      algorithms: [session.alg],
    });
    strictEqual(
      await jose.calculateJwkThumbprint(protectedHeader.jwk!, "sha256"),
      session.thumbprint,
      what,
    );
    strictEqual(payload.htm, method, what);
    const target = new URL(url);
    strictEqual(payload.htu, `${target.origin}${target.pathname}`, what);
    const authorization = headers.get("authorization");
    const token = authorization?.startsWith("DPoP ") ? authorization.slice(5) : undefined;
    strictEqual(payload.ath, token === undefined ? undefined : await hashOf(token), what);
    strictEqual(payload.nonce, undefined, what);
    ok(typeof payload.jti === "string" && !ids.has(payload.jti), `${what}: a new jti`);
    ids.add(payload.jti);
  }
}

async function hashOf(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return jose.base64url.encode(new Uint8Array(digest));
}

function scopesOf(tokens: OAuthTokens | undefined): string[] {
  return (tokens?.scope ?? "").split(" ").filter(Boolean).sort();
}

/** One authorization server for the file; each test its own toolshed and its own client. */
let authServer: AuthServer | undefined;
async function issuer(): Promise<AuthServer> {
  // The SDK registers a client with the first scope it asks for; for oidc-provider, that
  // scope would limit every later request, the step-up's too.
  return authServer ??= await startAuthServer({
    scopes: "mcp deploy",
    registeredScopeLimits: false,
  });
}

interface Era {
  readonly name: string;
  readonly version: string;
  readonly options: ClientOptions;
  /** What a connect sends, and the statuses of a connect signed in. */
  readonly opening: readonly string[];
  readonly opened: readonly string[];
  /** The statuses of the streams the client opens (GET) once connected. */
  readonly streams: readonly string[];
}

const ERAS: readonly Era[] = [
  {
    name: "a 2026-07-28 connection (versionNegotiation auto)",
    version: "2026-07-28",
    options: { versionNegotiation: { mode: "auto" } },
    opening: ["server/discover"],
    opened: ["server/discover 200"],
    streams: [],
  },
  {
    name: "a 2025-11-25 session (the SDK's default)",
    version: "2025-11-25",
    options: {},
    opening: ["initialize"],
    opened: ["initialize 200", "notifications/initialized 202"],
    streams: ["200"],
  },
];

/** How the client holds its tokens: plain Bearer, or bound to a key of its own (DPoP). */
type Binding = "Bearer" | "DPoP";
const BINDINGS: readonly Binding[] = ["Bearer", "DPoP"];

for (const era of ERAS) {
  for (const binding of BINDINGS) {
    const name = binding === "Bearer"
      ? `oauth sdk: the SDK client signs in given only the URL, calls as the user, and steps up to a tool's scope, in ${era.name}`
      : `oauth sdk: with DPoP, the SDK client's tokens are bound to its key, every request after sign-in is DPoP with a new proof, and the step-up stays DPoP, in ${era.name}`;
    Deno.test(name, () => signInAndStepUp(era, binding));
  }
}

async function signInAndStepUp(era: Era, binding: Binding): Promise<void> {
  const as = await issuer();
  as.signInAs("alice");
  const server = await serveForTest(tools, {
    oauth: { issuer: as.issuer, scopes: ["mcp"] },
    logRequests: true,
  });
  const origin = new URL(server.url).origin;
  const trace: string[] = [];
  const sent: Sent[] = [];
  const note = (line: string) =>
    trace.push(line.replaceAll(origin, "<mcp>").replaceAll(as.issuer, "<as>"));
  const session = binding === "DPoP" ? await DpopSession.create() : undefined;
  const user = signedInClient(as, note, session);
  const connect = () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      authProvider: user.provider,
      fetch: noting(server.url, note, user.saved, sent),
    });
    const client = new Client({ name: "toolshed-oauth-sdk-test", version: "1.0.0" }, era.options);
    return { transport, client, connected: client.connect(transport) };
  };
  // The key the token must be bound to: its thumbprint as the SDK says, checked against the
  // public key the session signs with (RFC 7638).
  const jkt = session?.thumbprint;
  if (session) {
    strictEqual(await jose.calculateJwkThumbprint(session.publicJwk, "sha256"), jkt);
  }
  const cnf = jkt === undefined ? undefined : { jkt };
  let client: Client | undefined;
  try {
    // No token: the connect stops where a browser would leave the page, after discovery,
    // registration and the authorization request; the redirect back brings the code.
    const first = connect();
    await withHangGuard(rejects(first.connected, UnauthorizedError), "the first connect");
    const registered = user.registered();
    ok(registered?.client_id, "the client registered itself");
    await withHangGuard(first.transport.finishAuth(user.takeRedirect()), "the code's exchange");
    deepStrictEqual(scopesOf(user.saved[0]), ["mcp"]);
    strictEqual(user.saved[0].token_type, binding);
    const claims = jose.decodeJwt(user.saved[0].access_token);
    strictEqual(claims.aud, server.url);
    strictEqual(claims.iss, as.issuer);
    strictEqual(claims.sub, "alice");
    strictEqual(claims.client_id, registered.client_id);
    deepStrictEqual(claims.cnf, cnf);

    // Signed in: the tool sees alice, and the key her token is bound to.
    const second = connect();
    client = second.client;
    await withHangGuard(second.connected, "the signed-in connect");
    strictEqual(client.getNegotiatedProtocolVersion(), era.version);
    const who = await withHangGuard(
      client.callTool({ name: "whoami", arguments: {} }),
      "whoami",
    );
    deepStrictEqual(who.structuredContent, { subject: "alice", jkt: jkt ?? null });

    // A tool's scope: 403 insufficient_scope, a new authorization for the union of the
    // scopes (the same registered client), a new token, and the call again.
    await withHangGuard(
      rejects(client.callTool({ name: "deploy", arguments: {} }), UnauthorizedError),
      "deploy without its scope",
    );
    await withHangGuard(second.transport.finishAuth(user.takeRedirect()), "the step-up");
    deepStrictEqual(scopesOf(user.saved[1]), ["deploy", "mcp"]);
    strictEqual(user.saved[1].token_type, binding);
    const stepped = jose.decodeJwt(user.saved[1].access_token);
    strictEqual(stepped.sub, "alice");
    deepStrictEqual(stepped.cnf, cnf);
    const deployed = await withHangGuard(
      client.callTool({ name: "deploy", arguments: {} }),
      "deploy",
    );
    deepStrictEqual(deployed.content, [{ type: "text", text: "deployed" }]);
    strictEqual(user.registered()?.client_id, registered.client_id);
  } catch (error) {
    // What the client saw up to there says more than the SDK's error alone.
    throw new Error(`The sign-in stopped: ${error}\n${trace.join("\n")}`, { cause: error });
  } finally {
    await withHangGuard(client?.close() ?? Promise.resolve(), "the client closing");
    await server.close();
  }

  // The exchange as the client saw it. After sign-in, every request to toolshed carries the
  // token as `binding` says, with a proof exactly when it is DPoP; the token requests carry a
  // proof exactly when it is DPoP (so that the token comes bound); nothing else carries either.
  const metadata = "<mcp>/.well-known/oauth-protected-resource/mcp";
  const proof = binding === "DPoP" ? ", proof" : "";
  const signedIn = (token: number) => ` [${binding} #${token}${proof}]`;
  const atToken = binding === "DPoP" ? " [proof]" : "";
  const algs = binding === "DPoP" ? `, algs="${DEFAULT_ALGORITHMS.join(" ")}"` : "";
  const opened = era.opened.map((line) => {
    const [rpc, status] = line.split(" ");
    return `POST <mcp>/mcp ${rpc}${signedIn(1)} ${status}`;
  });
  deepStrictEqual(trace, [
    `POST <mcp>/mcp ${era.opening[0]} 401 Bearer resource_metadata="${metadata}", scope="mcp"`,
    `GET ${metadata} 200`,
    "GET <as>/.well-known/oauth-authorization-server 200",
    "POST <as>/reg 201",
    'the user signs in at <as>/auth for <mcp>/mcp "mcp offline_access" (PKCE S256)',
    `POST <as>/token${atToken} 200`,
    ...opened,
    `POST <mcp>/mcp tools/call whoami${signedIn(1)} 200`,
    `POST <mcp>/mcp tools/call deploy${signedIn(1)} 403 ` +
    `${binding} error="insufficient_scope", resource_metadata="${metadata}", scope="mcp deploy"${algs}`,
    'the user signs in at <as>/auth for <mcp>/mcp "mcp deploy offline_access" (PKCE S256)',
    `POST <as>/token${atToken} 200`,
    `POST <mcp>/mcp tools/call deploy${signedIn(2)} 200`,
  ]);
  // A 2025 session's stream, opened in the background after the connect: its answer, waited for.
  const streams = await withHangGuard(
    Promise.all(
      sent.filter(({ method, url }) => method === "GET" && url === server.url).map(
        async ({ headers, answer }) =>
          `GET <mcp>/mcp${credentialsOf(headers, user.saved)} ${(await answer).status}`,
      ),
    ),
    "the streams' answers",
  );
  deepStrictEqual(streams, era.streams.map((status) => `GET <mcp>/mcp${signedIn(1)} ${status}`));
  // Every request, the stream's too: to toolshed, no credentials or the binding's scheme (with
  // a proof exactly when DPoP); anywhere else, no access token.
  const tokens = new Set(user.saved.map((saved) => saved.access_token));
  for (const { method, url, headers } of sent) {
    const authorization = headers.get("authorization");
    const what = `${method} ${url}${credentialsOf(headers, user.saved)}`;
    if (url !== server.url) {
      ok(![...tokens].some((token) => authorization?.includes(token)), what);
    } else if (authorization !== null) {
      ok(authorization.startsWith(`${binding} `), what);
      strictEqual(headers.has("dpop"), binding === "DPoP", what);
    }
  }
  // The two token requests and every signed-in request to toolshed, each with its own proof.
  if (session) await checkProofs(sent, session);
  // The server's own account: the 401 before anyone signed in, the 403 and then the call,
  // both for alice.
  const logged = server.diagnostics.entries.map((line) => line.replace(/ [\d.]+ ms\n$/, ""));
  const refused = logged.indexOf("toolshed: POST /mcp 401 -");
  const forbidden = logged.indexOf('toolshed: POST /mcp 403 "tools/call" by "alice"');
  const allowed = logged.lastIndexOf('toolshed: POST /mcp 200 "tools/call" by "alice"');
  ok(0 <= refused && refused < forbidden && forbidden < allowed, server.diagnostics.text());
}

Deno.test("oauth sdk × toolsets: the SDK client given /mcp/<set> of an OAuth server signs in (the metadata's resource, /mcp, is a prefix of its URL), and lists exactly that set and the top-level tools", async () => {
  const as = await issuer();
  as.signInAs("alice");
  const server = await spawnHttpServer(
    [
      "--dir",
      new URL("../examples/toolsets", import.meta.url).pathname,
      "--auth-issuer",
      as.issuer,
      "--auth-scope",
      "mcp",
    ],
    { npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" },
  );
  try {
    const url = new URL(`${server.url}/issues`);
    const user = signedInClient(as, () => {});
    const connect = () => {
      const transport = new StreamableHTTPClientTransport(url, { authProvider: user.provider });
      const client = new Client({ name: "toolshed-oauth-toolsets", version: "1.0.0" }, {
        versionNegotiation: { mode: "auto" },
      });
      return { transport, client, connected: client.connect(transport) };
    };
    const first = connect();
    await withHangGuard(rejects(first.connected, UnauthorizedError), "the first connect");
    await withHangGuard(first.transport.finishAuth(user.takeRedirect()), "the code's exchange");
    // The token names the endpoint, not the set: one audience for every view of the server.
    strictEqual(jose.decodeJwt(user.saved[0].access_token).aud, server.url);
    const second = connect();
    await withHangGuard(second.connected, "the signed-in connect");
    try {
      const { tools: listed } = await withHangGuard(second.client.listTools(), "tools/list");
      deepStrictEqual(listed.map((tool) => tool.name).sort(), [
        "close_issue",
        "list_issues",
        "whoami",
      ]);
    } finally {
      await second.client.close();
    }
  } finally {
    await server.stop();
  }
});

Deno.test({
  name: "oauth sdk: the authorization server stops with the file",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await authServer?.stop();
  },
});
