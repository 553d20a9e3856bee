// The official MCP TypeScript SDK v2 client signs in to toolshed with its own OAuth support,
// given only the server's URL (issue 24): the 401's challenge leads it to the protected resource
// metadata, that to the authorization server (oidc-provider on loopback, tests/_oidc.ts), where
// it registers, authorizes with PKCE for this server as the resource and redeems the code; the
// tool sees the user who signed in; a 403 insufficient_scope makes it authorize again for the
// union of the scopes, and the call goes through. Once in a 2026-07-28 connection, once in a
// 2025-11-25 session (the SDK's default).
//
// Nobody is at a browser: the client's OAuthClientProvider "redirects" by following the
// authorization URL with the harness's unattended sign-in (`as.authorize`), and the test, as
// an application's callback handler would, hands the redirect back to `transport.finishAuth`
// and repeats what stopped for the sign-in. Every request the SDK makes goes through a fetch
// that notes it, so the test reads the whole exchange as the client saw it.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  Client,
  type ClientOptions,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "npm:@modelcontextprotocol/client@2.4.0";
import * as jose from "npm:jose@6.2.18";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import { type AuthServer, startAuthServer } from "./_oidc.ts";
import { serveForTest } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

const tools: Tool[] = [
  checkDefinition(
    {
      description: "Says who is calling",
      inputSchema: { type: "object" },
      handler: (_args: unknown, ctx: ToolContext) => ({ subject: ctx.auth?.subject ?? null }),
    },
    "whoami",
    "tools/whoami.ts",
  ),
  checkDefinition(
    {
      description: "Deploys",
      inputSchema: { type: "object" },
      scopes: ["deploy"],
      handler: () => "deployed",
    },
    "deploy",
    "tools/deploy.ts",
  ),
];

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
 * application to hand to `finishAuth`. `note` hears of each sign-in.
 */
function signedInClient(as: AuthServer, note: (line: string) => void): SignedInClient {
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
      note(
        `the user signs in at ${url.origin}${url.pathname} for ${asked.get("resource")} ` +
          `${JSON.stringify(asked.get("scope"))} (PKCE ${asked.get("code_challenge_method")})`,
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

/**
 * A fetch that notes each request the SDK makes and its answer: method, URL, the JSON-RPC
 * method and tool of a POST to the endpoint, the status, and the challenge of a 401 or 403.
 * The endpoint's GET (a 2025 session's stream, opened in the background) is left out.
 */
function noting(endpoint: string, note: (line: string) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const target = String(url);
    const method = init?.method ?? "GET";
    if (target === endpoint && method === "GET") return response;
    let rpc = "";
    if (target === endpoint && typeof init?.body === "string") {
      const message = JSON.parse(init.body);
      rpc = ` ${message.method}${message.params?.name ? ` ${message.params.name}` : ""}`;
    }
    const challenge = response.headers.get("www-authenticate");
    note(`${method} ${target}${rpc} ${response.status}${challenge ? ` ${challenge}` : ""}`);
    return response;
  };
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
}

const ERAS: readonly Era[] = [
  {
    name: "a 2026-07-28 connection (versionNegotiation auto)",
    version: "2026-07-28",
    options: { versionNegotiation: { mode: "auto" } },
    opening: ["server/discover"],
    opened: ["server/discover 200"],
  },
  {
    name: "a 2025-11-25 session (the SDK's default)",
    version: "2025-11-25",
    options: {},
    opening: ["initialize"],
    opened: ["initialize 200", "notifications/initialized 202"],
  },
];

for (const era of ERAS) {
  Deno.test(`oauth sdk: the SDK client signs in given only the URL, calls as the user, and steps up to a tool's scope, in ${era.name}`, async () => {
    const as = await issuer();
    as.signInAs("alice");
    const server = serveForTest(tools, {
      oauth: { issuer: as.issuer, scopes: ["mcp"] },
      logRequests: true,
    });
    const origin = new URL(server.url).origin;
    const trace: string[] = [];
    const note = (line: string) =>
      trace.push(line.replaceAll(origin, "<mcp>").replaceAll(as.issuer, "<as>"));
    const user = signedInClient(as, note);
    const connect = () => {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        authProvider: user.provider,
        fetch: noting(server.url, note),
      });
      const client = new Client({ name: "toolshed-oauth-sdk-test", version: "1.0.0" }, era.options);
      return { transport, client, connected: client.connect(transport) };
    };
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
      const claims = jose.decodeJwt(user.saved[0].access_token);
      strictEqual(claims.aud, server.url);
      strictEqual(claims.iss, as.issuer);
      strictEqual(claims.sub, "alice");
      strictEqual(claims.client_id, registered.client_id);

      // Signed in: the tool sees alice.
      const second = connect();
      client = second.client;
      await withHangGuard(second.connected, "the signed-in connect");
      strictEqual(client.getNegotiatedProtocolVersion(), era.version);
      const who = await withHangGuard(
        client.callTool({ name: "whoami", arguments: {} }),
        "whoami",
      );
      deepStrictEqual(who.structuredContent, { subject: "alice" });

      // A tool's scope: 403 insufficient_scope, a new authorization for the union of the
      // scopes (the same registered client), a new token, and the call again.
      await withHangGuard(
        rejects(client.callTool({ name: "deploy", arguments: {} }), UnauthorizedError),
        "deploy without its scope",
      );
      await withHangGuard(second.transport.finishAuth(user.takeRedirect()), "the step-up");
      deepStrictEqual(scopesOf(user.saved[1]), ["deploy", "mcp"]);
      strictEqual(jose.decodeJwt(user.saved[1].access_token).sub, "alice");
      const deployed = await withHangGuard(
        client.callTool({ name: "deploy", arguments: {} }),
        "deploy",
      );
      deepStrictEqual(deployed.content, [{ type: "text", text: "deployed" }]);
      strictEqual(user.registered()?.client_id, registered.client_id);
    } finally {
      await withHangGuard(client?.close() ?? Promise.resolve(), "the client closing");
      await server.close();
    }

    const metadata = "<mcp>/.well-known/oauth-protected-resource/mcp";
    deepStrictEqual(trace, [
      `POST <mcp>/mcp ${era.opening[0]} 401 Bearer resource_metadata="${metadata}", scope="mcp"`,
      `GET ${metadata} 200`,
      "GET <as>/.well-known/oauth-authorization-server 200",
      "POST <as>/reg 201",
      'the user signs in at <as>/auth for <mcp>/mcp "mcp offline_access" (PKCE S256)',
      "POST <as>/token 200",
      ...era.opened.map((line) => `POST <mcp>/mcp ${line}`),
      "POST <mcp>/mcp tools/call whoami 200",
      "POST <mcp>/mcp tools/call deploy 403 " +
      `Bearer error="insufficient_scope", resource_metadata="${metadata}", scope="mcp deploy"`,
      'the user signs in at <as>/auth for <mcp>/mcp "mcp deploy offline_access" (PKCE S256)',
      "POST <as>/token 200",
      "POST <mcp>/mcp tools/call deploy 200",
    ]);
    // The server's own account: the 401 before anyone signed in, the 403 and then the call,
    // both for alice.
    const logged = server.diagnostics.entries.map((line) => line.replace(/ [\d.]+ ms\n$/, ""));
    const refused = logged.indexOf("toolshed: POST /mcp 401 -");
    const forbidden = logged.indexOf('toolshed: POST /mcp 403 tools/call by "alice"');
    const allowed = logged.lastIndexOf('toolshed: POST /mcp 200 tools/call by "alice"');
    ok(0 <= refused && refused < forbidden && forbidden < allowed, server.diagnostics.text());
  });
}

Deno.test({
  name: "oauth sdk: the authorization server stops with the file",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await authServer?.stop();
  },
});
