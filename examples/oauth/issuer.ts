// deno-lint-ignore-file no-console -- a program of its own: it says where it listens
// issuer.ts: an OAuth authorization server to try toolshed's sign-in with, on this machine.
//   deno run -A examples/oauth/issuer.ts      (--port N or ISSUER_PORT picks the port, default 9000)
//
// FOR DEVELOPMENT ONLY. Everything is in memory (clients, sign-ins, keys: gone when it stops),
// any name signs in with any password (oidc-provider's development pages), and it speaks plain
// HTTP on 127.0.0.1. In front of real users, use a real authorization server and https.
//
// It is oidc-provider (npm), configured as an MCP client expects: open dynamic client
// registration, the authorization code flow with PKCE (S256), and resource indicators (RFC 8707):
// a client names toolshed's URL as `resource=`, and gets a JWT access token for it (RFC 9068)
// with the scopes `mcp` and `deploy` it asked for and the user granted.
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string" } } });
const port = Number(values.port ?? Deno.env.get("ISSUER_PORT") ?? "9000");
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid port "${values.port ?? Deno.env.get("ISSUER_PORT")}": use 0 to 65535`);
  Deno.exit(2);
}

/** The scopes toolshed's tools ask for: `mcp` for every request, `deploy` for tools/deploy.ts. */
const SCOPES = ["mcp", "deploy"];

// oidc-provider is a Node library: it runs under Deno's Node layer, and warns at import that Deno
// is not Node. That warning, and only that one, is kept out of the way.
const warn = console.warn;
console.warn = () => {};
const { default: Provider } = await import("npm:oidc-provider@9.13.3");
const { createMemoryAdapter } = await import(
  "npm:oidc-provider@9.13.3/lib/adapters/memory_adapter.js"
);
console.warn = warn;

// The port first: the issuer's URL names it (and --port 0 takes any free one).
const server = createServer();
await new Promise<void>((resolve, reject) => {
  server.once("error", reject);
  server.listen(port, "127.0.0.1", () => resolve());
});
const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

// A signing key made at start: tokens from a previous run no longer verify, as none should.
const { privateKey } = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  true,
  ["sign", "verify"],
);
// Without WebCrypto's `key_ops` ("sign"), which oidc-provider would publish with the public key
// and which tells a resource server not to verify with it.
const { key_ops: _ops, ext: _ext, ...signingKey } = await crypto.subtle.exportKey(
  "jwk",
  privateKey,
);
const random = () => crypto.randomUUID();

const provider = new Provider(issuer, {
  adapter: createMemoryAdapter(0),
  jwks: { keys: [{ ...signingKey, kid: random(), alg: "ES256", use: "sig" }] },
  cookies: { keys: [random()] },
  clientDefaults: { id_token_signed_response_alg: "ES256" },
  // The authorization code flow only (OAuth 2.1: no implicit flow).
  responseTypes: ["code"],
  // Listed in discovery. No `offline_access`: this server gives no refresh tokens (below).
  scopes: ["openid", ...SCOPES],
  // MCP clients register with the scopes of their first sign-in (`scope`), and oidc-provider
  // would then refuse them any other: step-up asks for `deploy` later. So it is not kept.
  extraClientMetadata: {
    properties: ["scope"],
    validator: (_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) => {
      if (key === "scope") delete metadata.scope;
    },
  },
  // Whoever signs in is an account: its id is the name typed on the sign-in page.
  findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  // No refresh tokens (a client may still register for the grant, as most do): the TypeScript
  // SDK 1.x answers a 403 insufficient_scope by refreshing the token it holds, which cannot add
  // a scope, rather than asking the user. Without one it asks. A sign-in lasts an hour.
  issueRefreshToken: () => false,
  pkce: { required: () => true },
  // Clients that run in a browser page may call the token endpoint from it (CORS).
  clientBasedCORS: () => true,
  ttl: {
    AccessToken: 3600,
    AuthorizationCode: 60,
    IdToken: 3600,
    Interaction: 600,
    Session: 86400,
    Grant: 86400,
  },
  features: {
    // The sign-in and consent pages: any name, any password. Development only.
    devInteractions: { enabled: true },
    // Open registration (RFC 7591): a client registers itself, no initial access token.
    registration: { enabled: true },
    // Bearer tokens: toolshed takes `Authorization: Bearer`, not DPoP-bound tokens.
    dPoP: { enabled: false },
    resourceIndicators: {
      enabled: true,
      // The resource named at the authorization request is the token's audience, also when the
      // token request does not repeat it.
      defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
      useGrantedResource: () => true,
      // Every resource (toolshed's URL, whatever its port) offers the same scopes, and gets JWTs.
      getResourceServerInfo: () => ({
        scope: SCOPES.join(" "),
        accessTokenTTL: 3600,
        accessTokenFormat: "jwt",
      }),
    },
  },
});

server.on("request", provider.callback());

console.log(`Development authorization server (in memory, any name signs in): ${issuer}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    server.closeAllConnections();
    server.close(() => Deno.exit(0));
  });
}
