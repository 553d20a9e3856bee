// Test helper: a real OAuth 2.1 / OpenID authorization server (oidc-provider, OpenID Certified)
// on 127.0.0.1, in the test's own process, for the token verifier and the OAuth tests above it.
//
//   const as = await startAuthServer({ opaqueResources: ["https://mcp.example.com/opaque"] });
//   const jwt = await as.token({ scope: "tools:read", resource: "https://mcp.example.com/mcp" });
//   … as.rotateKeys(); as.stop(); startAuthServer({ port: as.port, keys: as.keys }) brings it back.
//
// What it is configured for:
// - Resource indicators (RFC 8707): every resource a client names is accepted, with the scopes
//   `scopes` (default "tools:read tools:call"); its access tokens are JWTs (RFC 9068, `typ`
//   at+jwt, ES256) whose `aud` is the resource, except for `opaqueResources`, whose tokens are
//   opaque and introspected. A token is for a resource only when the client asks with `resource=`:
//   at the authorization request (then the code's token request may repeat it or leave it out), or
//   at a client_credentials token request (left out, the token is opaque with no audience, and
//   toolshed refuses it). The scopes are also in discovery's `scopes_supported`, and a client may
//   register with them.
// - client_credentials for `client` (`token()`): the token's `sub` and `client_id` are both that
//   client's id, "test-client" (RFC 9068 §2.2).
// - RFC 7662 introspection for `introspector` (client_secret_basic), the resource server's own
//   credentials.
// - Dynamic client registration (RFC 7591, open: no initial access token), PKCE (S256, required
//   for public clients), refresh tokens for any client allowed the refresh_token grant.
//   A client's registered `scope` limits what it may ask for later, as oidc-provider does by
//   default; `registeredScopeLimits: false` drops it at registration, so a client registered
//   with one scope (the SDK client registers with the first scope it asks for) can step up.
// - An unattended user: the interaction URL (`/interaction/<uid>`) signs in `accountId`
//   (default "test-user") and consents to every scope and resource asked, without a page.
//
// An authorization-code login with nobody at the keyboard (what the SDK client's OAuth flow
// needs; `login()` below does all of it with fetch):
// 1. register a client: POST `registration_endpoint` of the metadata with `redirect_uris` (any
//    URL, e.g. http://127.0.0.1:1/callback: nothing needs to listen there) and
//    `token_endpoint_auth_method: "none"`, or let the SDK client do it;
// 2. build the authorization URL with `response_type=code`, `client_id`, `redirect_uri`,
//    `scope`, `state`, `code_challenge` (S256) and `resource=<toolshed's canonical URI>` — the
//    SDK client builds it and hands it to its provider's `redirectToAuthorization(url)`;
// 3. `await as.authorize(url)` follows the redirects a browser would (cookies kept), through the
//    unattended sign-in and consent, and resolves with the URL the server redirects to at the
//    end: `redirect_uri?code=…&state=…&iss=…`;
// 4. exchange the code: POST `token_endpoint` with `grant_type=authorization_code`, `code`,
//    `redirect_uri`, `client_id`, `code_verifier` and `resource` again — with the SDK client,
//    `transport.finishAuth(code)`. The access token is a JWT for that resource.
//
// Key rotation: `rotateKeys()` puts a new signing key first (tokens from then on carry its `kid`)
// and keeps the old ones published, as oidc-provider recommends; registered clients, grants and
// tokens survive it (one store per server). oidc-provider is a Node library: it runs under
// Deno's Node layer on a `node:http` server, and its start-up notices (for Node and for the
// development store) are kept out of the test output.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import * as jose from "npm:jose@6.2.18";
import { dpopProof } from "./_dpop.ts";

const PROVIDER = "npm:oidc-provider@9.13.3";
const MEMORY_ADAPTER = "npm:oidc-provider@9.13.3/lib/adapters/memory_adapter.js";

export interface AuthServerOptions {
  /** The port to listen on (default: any free one); a stopped server's port brings it back. */
  readonly port?: number;
  /** Private signing keys (JWKs with `kid`), first signs; default: a new ES256 key. */
  readonly keys?: readonly jose.JWK[];
  /** Resources whose access tokens are opaque (introspected), not JWTs. */
  readonly opaqueResources?: readonly string[];
  /** The scopes every resource offers (space-separated). */
  readonly scopes?: string;
  /** Access token lifetime, in seconds (default 300). */
  readonly accessTokenSeconds?: number;
  /** The subject the unattended sign-in logs in. */
  readonly accountId?: string;
  /**
   * Whether the `scope` a client registers with (RFC 7591 §2) limits the scopes it may ask for
   * later (default true); false drops it at registration, so a client can step up beyond it.
   */
  readonly registeredScopeLimits?: boolean;
  /** More clients, as oidc-provider's `clients` configuration takes them. */
  readonly clients?: readonly Record<string, unknown>[];
  /**
   * Called with each provider made (at start, and again at each key rotation) before it serves:
   * where a test registers a grant of its own (`registerGrantType`, tests/_token_exchange_issuer.ts).
   */
  readonly extend?: (provider: unknown) => void;
}

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface AuthServer {
  /** The issuer identifier, `http://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  readonly port: number;
  /** The confidential client that mints tokens with client_credentials. */
  readonly client: ClientCredentials;
  /** The resource server's introspection credentials (RFC 7662). */
  readonly introspector: ClientCredentials;
  /** The private signing keys published, the signing one first (pass to restart with them). */
  readonly keys: readonly jose.JWK[];
  /** An access token from client_credentials: a JWT for `resource`, opaque for an opaque one. */
  token(options: { scope: string; resource: string; dpop?: CryptoKeyPair }): Promise<string>;
  /** Follows an authorization URL unattended; resolves with the redirect back to the client. */
  authorize(url: string | URL): Promise<URL>;
  /** A whole authorization-code login (registration, PKCE, sign-in, exchange) with fetch. */
  login(options: { scope: string; resource: string }): Promise<LoginResult>;
  /** A new signing key, first; the previous keys stay published. */
  rotateKeys(): Promise<void>;
  /** The subject the unattended sign-in logs in from now on (another user). */
  signInAs(accountId: string): void;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}

export interface LoginResult {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  /** The dynamically registered client's id. */
  readonly clientId: string;
}

/** The part of oidc-provider's API used here (the package has no types of its own). */
interface Provider {
  callback(): (request: IncomingMessage, response: ServerResponse) => void;
  interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
  interactionFinished(
    request: IncomingMessage,
    response: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: {
    new (fields: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
}

interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

interface Interaction {
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId: string };
  grantId?: string;
}

type ProviderConstructor = new (issuer: string, configuration: unknown) => Provider;

let loaded: Promise<{ Provider: ProviderConstructor; memoryAdapter: () => unknown }> | undefined;

/** oidc-provider, loaded once; its warning that Deno is not Node is not a test's output. */
function load() {
  loaded ??= (async () => {
    // deno-lint-ignore no-console -- silenced while oidc-provider's modules evaluate
    const warn = console.warn;
    // deno-lint-ignore no-console -- (the notice is printed at import, once)
    console.warn = () => {};
    try {
      const { default: Provider } = await import(PROVIDER);
      const { createMemoryAdapter } = await import(MEMORY_ADAPTER);
      return { Provider, memoryAdapter: () => createMemoryAdapter(0) };
    } finally {
      // deno-lint-ignore no-console -- and given back
      console.warn = warn;
    }
  })();
  return loaded;
}

async function newKey(): Promise<jose.JWK> {
  const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: crypto.randomUUID(), alg: "ES256", use: "sig" } as jose.JWK;
}

function secret(): string {
  return jose.base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}

function basic({ clientId, clientSecret }: ClientCredentials): string {
  return `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`;
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<AuthServer> {
  const { Provider, memoryAdapter } = await load();
  const scopes = options.scopes ?? "tools:read tools:call";
  const opaque = new Set(options.opaqueResources ?? []);
  let accountId = options.accountId ?? "test-user";
  const ttl = options.accessTokenSeconds ?? 300;
  const client = { clientId: "test-client", clientSecret: secret() };
  const introspector = { clientId: "toolshed", clientSecret: secret() };
  const adapter = memoryAdapter(); // one store for this server, kept across key rotations
  const cookieKeys = [secret()];
  let keys: jose.JWK[] = options.keys ? [...options.keys] : [await newKey()];

  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;

  const configure = (): Provider => {
    const made = makeProvider();
    options.extend?.(made);
    return made;
  };
  const makeProvider = (): Provider =>
    new Provider(issuer, {
      adapter,
      jwks: { keys },
      cookies: { keys: cookieKeys },
      clients: [
        {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          grant_types: ["client_credentials"],
          response_types: [],
          redirect_uris: [],
        },
        {
          client_id: introspector.clientId,
          client_secret: introspector.clientSecret,
          grant_types: [],
          response_types: [],
          redirect_uris: [],
        },
        ...options.clients ?? [],
      ],
      clientDefaults: { id_token_signed_response_alg: "ES256" },
      // oidc-provider's documented way to change a client's metadata as it is read: the validator
      // runs for each extra property, and may edit the metadata it is given.
      ...(options.registeredScopeLimits === false
        ? {
          extraClientMetadata: {
            properties: ["registered_scope_dropped"],
            validator: (
              _ctx: unknown,
              _key: string,
              _value: unknown,
              metadata: { scope?: string },
            ) => {
              delete metadata.scope;
            },
          },
        }
        : {}),
      // Also known outside resource indicators, so a client may register with them (`scope` in
      // its registration, as SDK clients send) and discovery lists them.
      scopes: ["openid", "offline_access", ...scopes.split(" ")],
      findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      },
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) =>
        client.grantTypeAllowed("refresh_token"),
      clientBasedCORS: () => true,
      renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
        ctx.type = "text/plain";
        ctx.body = `${out.error}: ${out.error_description}`;
      },
      ttl: {
        AccessToken: ttl,
        ClientCredentials: ttl,
        AuthorizationCode: 60,
        IdToken: 300,
        RefreshToken: 3600,
        Interaction: 300,
        Session: 3600,
        Grant: 3600,
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: {
          enabled: true,
          allowedPolicy: (_ctx: unknown, caller: { clientAuthMethod: string }) =>
            caller.clientAuthMethod !== "none",
        },
        registration: { enabled: true },
        dPoP: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: scopes,
            accessTokenTTL: ttl,
            accessTokenFormat: opaque.has(resource) ? "opaque" : "jwt",
          }),
        },
      },
    });

  let provider = configure();
  let handle = provider.callback();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", issuer).pathname;
    if (request.method === "GET" && path.startsWith("/interaction/")) {
      approve(provider, accountId, request, response).catch((error) => {
        response.statusCode = 500;
        response.end(`The unattended interaction failed: ${error}`);
      });
      return;
    }
    handle(request, response);
  });

  const metadata = async () =>
    await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json() as Record<
      string,
      string
    >;

  const form = async (
    url: string,
    fields: Record<string, string>,
    authorization?: string,
    dpop?: string,
  ) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(authorization ? { authorization } : {}),
        ...(dpop ? { dpop } : {}),
      },
      body: new URLSearchParams(fields),
    });
    const body = await response.json();
    if (!response.ok) {
      throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body)}`);
    }
    return body as Record<string, string>;
  };

  const authorize = async (url: string | URL): Promise<URL> => {
    const cookies = new Map<string, string>();
    let at = new URL(url);
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(at, {
        redirect: "manual",
        headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const equals = pair.indexOf("=");
        cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
      }
      const location = response.headers.get("location");
      const text = await response.text();
      if (response.status < 300 || response.status > 399 || location === null) {
        throw new Error(`The authorization server answered ${response.status}: ${text}`);
      }
      at = new URL(location, at);
      if (at.origin !== issuer) return at;
    }
    throw new Error("The authorization server redirected more than 10 times");
  };

  return {
    issuer,
    port,
    client,
    introspector,
    get keys() {
      return keys;
    },
    async token({ scope, resource, dpop }) {
      const { token_endpoint } = await metadata();
      // With a key: a DPoP proof of it, and the token comes bound to it (cnf.jkt).
      const proof = dpop && await dpopProof(dpop, { method: "POST", url: token_endpoint });
      const body = await form(
        token_endpoint,
        { grant_type: "client_credentials", scope, resource },
        basic(client),
        proof,
      );
      return body.access_token;
    },
    authorize,
    async login({ scope, resource }) {
      const endpoints = await metadata();
      const redirectUri = "http://127.0.0.1:1/callback";
      const registration = await fetch(endpoints.registration_endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
        }),
      });
      const { client_id: clientId } = await registration.json();
      const verifier = secret();
      const challenge = jose.base64url.encode(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
      );
      const state = secret();
      const url = new URL(endpoints.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        scope,
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource,
      }).toString();
      const back = await authorize(url);
      if (back.searchParams.get("state") !== state) {
        throw new Error(`The authorization server redirected without the state: ${back}`);
      }
      const code = back.searchParams.get("code");
      if (code === null) throw new Error(`The authorization server refused: ${back}`);
      const tokens = await form(endpoints.token_endpoint, {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      });
      return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, clientId };
    },
    signInAs(account) {
      accountId = account;
    },
    async rotateKeys() {
      keys = [await newKey(), ...keys];
      provider = configure();
      handle = provider.callback();
    },
    stop() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Signs `accountId` in and consents to what the client asked, one prompt at a time. */
async function approve(
  provider: Provider,
  accountId: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const interaction = await provider.interactionDetails(request, response);
  const { prompt, params, session, grantId } = interaction;
  let result: Record<string, unknown>;
  if (prompt.name === "login") {
    result = { login: { accountId } };
  } else {
    const grant = (grantId ? await provider.Grant.find(grantId) : undefined) ??
      new provider.Grant({
        accountId: session?.accountId ?? accountId,
        clientId: String(params.client_id),
      });
    const details = prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(" "));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(" "));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: true });
}
