// Identity across the hop, end to end through a mount file (adr/0071 §5): a front toolshed
// whose directory holds only `tools/team.mcp.json`, its callers signed in at a real
// oidc-provider (tests/_token_exchange_issuer.ts adds RFC 8693 to it), mounts a second toolshed
// over HTTP with its own `--auth-issuer` (the same provider) and its own resource. Between the
// two sits a recording hop (a loopback proxy) that keeps every request the upstream received, so
// the tests see what went upstream and never trust the front's word for it. The official SDK
// clients (2025-11-25 and 2026-07-28) call through the front with a user's token.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "npm:@modelcontextprotocol/client@2.4.0";
import * as jose from "npm:jose@6.2.18";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { JsonObject } from "../lib/util/json.ts";
import type { Server } from "../lib/server/create_server.ts";
import type { HttpServer } from "../lib/transports/http/server.ts";
import { type ExchangeIssuer, startExchangeIssuer } from "./_token_exchange_issuer.ts";
import { serveForTest, type TestHttpServer } from "./_http_server.ts";
import { composeForTest } from "./_in_process.ts";
import { recorder } from "./_diagnostics.ts";
import { serverDir } from "./_mounts.ts";
import { withHangGuard } from "./_server_process.ts";

/** The upstream toolshed's resource (its `--public-url`): the audience of an exchanged token. */
const UPSTREAM = "https://team.example/mcp";
/** The front toolshed's resource: what a caller's token is for. */
const FRONT = "https://gateway.example/mcp";
/** Where the mount's client secret comes from (`${…}` in the mount file). */
const SECRET_VAR = "MOUNTS_IDENTITY_TEST_SECRET";
const CLIENT_VAR = "MOUNTS_IDENTITY_TEST_CLIENT";
/** Where a static credential comes from. */
const STATIC_VAR = "MOUNTS_IDENTITY_TEST_UPSTREAM_TOKEN";

/** The upstream's one tool: who it was called by, as its own OAuth step verified. */
const WHOAMI: Tool = checkDefinition(
  {
    description: "Says who called, as the token this server verified says it",
    inputSchema: { type: "object" },
    handler: (_args: unknown, ctx: ToolContext) => ({
      subject: ctx.auth?.subject ?? null,
      audience: (ctx.auth?.claims.aud ?? null) as JsonObject,
      scopes: [...(ctx.auth?.scopes ?? [])],
      jti: (ctx.auth?.claims.jti ?? null) as JsonObject,
      clientId: ctx.auth?.clientId ?? null,
    }),
  },
  "whoami",
  "tools/whoami.ts",
);

/** A request the upstream received, as it came. */
interface Received {
  readonly authorization: string | null;
  readonly text: string;
}

/** A loopback hop in front of `target` that keeps every request, headers and body, in full. */
function recordingHop(target: string): {
  url: string;
  received: Received[];
  close(): Promise<void>;
} {
  const received: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = request.body === null ? undefined : await request.arrayBuffer();
      const headers = [...request.headers].map(([name, value]) => `${name}: ${value}`);
      received.push({
        authorization: request.headers.get("authorization"),
        text: `${headers.join("\n")}\n\n${new TextDecoder().decode(body ?? new ArrayBuffer(0))}`,
      });
      const forwarded = new Headers(request.headers);
      forwarded.delete("host");
      return await fetch(new URL(new URL(request.url).pathname, target), {
        method: request.method,
        headers: forwarded,
        body,
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    received,
    close: () => withHangGuard(server.shutdown(), "the recording hop closing"),
  };
}

/** A front toolshed serving `dir` over HTTP, its callers signed in at `as` when given. */
async function frontOf(
  dir: string,
  as: ExchangeIssuer | undefined,
): Promise<
  {
    url: string;
    composed: Server;
    diagnostics: ReturnType<typeof recorder>;
    close(): Promise<void>;
  }
> {
  const diagnostics = recorder();
  const composed = await composeForTest({
    dir,
    diagnostics,
    http: true,
    toolTimeoutMs: 10_000,
    ...(as === undefined ? {} : { oauth: { issuer: as.issuer, publicUrl: FRONT } }),
  });
  let server: HttpServer;
  try {
    server = composed.serveHttp({ hostname: "127.0.0.1", port: 0 });
  } catch (error) {
    await composed.close();
    throw error;
  }
  return {
    url: server.url,
    composed,
    diagnostics,
    async close() {
      await withHangGuard(server.shutdown("the test is over"), "shutdown");
      await withHangGuard(server.done, "the front closing");
      await withHangGuard(composed.close(), "the front's mounts closing");
    },
  };
}

/**
 * A server directory of one mount, `tools/team.mcp.json` = `entry`, with the pins toolshed
 * writes the first time it reaches an upstream serving WHOAMI (pins say what a model sees, not
 * where: an upstream that wants a token for its list cannot be listed without a caller).
 */
async function mountDir(entry: JsonObject): Promise<string> {
  const open = await serveForTest([WHOAMI]);
  const dir = await serverDir({ "tools/team.mcp.json": { type: "http", url: open.url } });
  try {
    const first = await composeForTest({ dir, diagnostics: recorder() });
    await first.close();
  } finally {
    await open.close();
  }
  const pins = JSON.parse(await Deno.readTextFile(`${dir}/tools/team.pins.json`));
  deepStrictEqual(Object.keys(pins.tools), ["whoami"]);
  await Deno.writeTextFile(`${dir}/tools/team.mcp.json`, JSON.stringify(entry, null, 2));
  return dir;
}

/** The mount entry of `url` whose callers' tokens are exchanged for `audience`. */
function exchangeEntry(url: string, audience = UPSTREAM): JsonObject {
  return {
    type: "http",
    url,
    toolshed: {
      auth: {
        exchange: {
          audience,
          resource: audience,
          scopes: ["tools:call"],
          clientId: `\${${CLIENT_VAR}}`,
          clientSecret: `\${${SECRET_VAR}}`,
        },
      },
    },
  };
}

/** A caller's token for the front toolshed: `user` signs in (authorization code, PKCE). */
async function signIn(as: ExchangeIssuer, user: string): Promise<string> {
  as.server.signInAs(user);
  return (await as.server.login({ scope: "tools:read tools:call", resource: FRONT }))
    .accessToken;
}

/** What a call answered, as the tests read it. */
interface Answered {
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: unknown;
}

/** Calls `name` through the front at `url` with `token`, by the SDK client of 2025-11-25. */
async function callLegacy(
  url: string,
  token: string | undefined,
  name: string,
): Promise<Answered> {
  const client = new Client({ name: "mounts-identity-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  });
  await withHangGuard(client.connect(transport), "the SDK client connecting");
  try {
    return await withHangGuard<Answered>(
      client.callTool({ name, arguments: {} }),
      `calling "${name}"`,
    );
  } finally {
    await client.close();
  }
}

/** Calls `name` through the front at `url` with `token`, by the SDK client v2 (2026-07-28). */
async function callModern(url: string, token: string, name: string): Promise<Answered> {
  const client = new ModernClient({ name: "mounts-identity-test", version: "1" }, {
    versionNegotiation: { mode: "auto" },
  });
  const transport = new ModernTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await withHangGuard(client.connect(transport), "the SDK v2 client connecting");
  try {
    strictEqual(client.getNegotiatedProtocolVersion(), "2026-07-28");
    return await withHangGuard<Answered>(
      client.callTool({ name, arguments: {} }),
      `calling "${name}"`,
    );
  } finally {
    await client.close();
  }
}

function seenBy(result: Answered): JsonObject {
  ok(result.isError !== true, JSON.stringify(result));
  return result.structuredContent as JsonObject;
}

function textOf(result: Answered): string {
  return (result.content as { text?: string }[]).map((block) => block.text ?? "").join("\n");
}

/** The claims of a JWT, unverified (the test compares them; the servers verified them). */
function claimsOf(token: string): jose.JWTPayload {
  return jose.decodeJwt(token);
}

/** `run` with an issuer, an upstream signed in at it, and the recording hop before it. */
async function withUpstream(
  run: (as: ExchangeIssuer, hop: ReturnType<typeof recordingHop>) => Promise<void>,
) {
  const as = await startExchangeIssuer({ upstreams: [UPSTREAM] });
  Deno.env.set(CLIENT_VAR, as.exchanger.clientId);
  Deno.env.set(SECRET_VAR, as.exchanger.clientSecret);
  let upstream: TestHttpServer | undefined;
  let hop: ReturnType<typeof recordingHop> | undefined;
  try {
    upstream = await serveForTest([WHOAMI], { oauth: { issuer: as.issuer, publicUrl: UPSTREAM } });
    hop = recordingHop(upstream.url);
    await run(as, hop);
  } finally {
    await hop?.close();
    await upstream?.close();
    await as.stop();
    Deno.env.delete(CLIENT_VAR);
    Deno.env.delete(SECRET_VAR);
  }
}

Deno.test("a mounted upstream sees each caller by an exchanged token of its own audience, never the caller's token", async () => {
  await withUpstream(async (as, hop) => {
    const dir = await mountDir(exchangeEntry(hop.url));
    const front = await frontOf(dir, as);
    try {
      const alice = await signIn(as, "alice");
      const first = seenBy(await callLegacy(front.url, alice, "team_whoami"));
      strictEqual(first.subject, "alice");
      strictEqual(first.audience, UPSTREAM);
      deepStrictEqual(first.scopes, ["tools:call"]);
      strictEqual(first.clientId, as.exchanger.clientId);
      ok(first.jti !== claimsOf(alice).jti, "the upstream saw the front token's jti");
      strictEqual(claimsOf(alice).aud, FRONT);

      const again = seenBy(await callModern(front.url, alice, "team_whoami"));
      deepStrictEqual(again, first, "the same exchanged token serves alice's second call");

      const bob = await signIn(as, "bob");
      const other = seenBy(await callLegacy(front.url, bob, "team_whoami"));
      strictEqual(other.subject, "bob");
      strictEqual(other.audience, UPSTREAM);
      ok(other.jti !== first.jti && other.jti !== claimsOf(bob).jti, JSON.stringify(other));

      strictEqual(as.exchanges, 2, "the issuer is asked once per caller");
      ok(hop.received.length > 0, "nothing reached the upstream");
      for (const { authorization, text } of hop.received) {
        ok(!text.includes(alice) && !text.includes(bob), `a front token went upstream:\n${text}`);
        ok(authorization !== null, `a request went upstream without a token:\n${text}`);
        const claims = claimsOf(authorization.replace(/^Bearer /, ""));
        strictEqual(claims.aud, UPSTREAM);
        ok(claims.sub === "alice" || claims.sub === "bob", JSON.stringify(claims));
      }
      ok(!front.diagnostics.text().includes(alice), "the front token was logged");
      ok(!/cannot be checked/.test(front.diagnostics.text()), front.diagnostics.text());
    } finally {
      await front.close();
    }
  });
});

Deno.test("an exchange the issuer refuses is an isError result naming its error, and nothing goes upstream", async () => {
  await withUpstream(async (as, hop) => {
    const dir = await mountDir(exchangeEntry(hop.url, "https://unknown.example/mcp"));
    const front = await frontOf(dir, as);
    try {
      const alice = await signIn(as, "alice");
      const result = await callLegacy(front.url, alice, "team_whoami");
      strictEqual(result.isError, true, JSON.stringify(result));
      match(textOf(result), /invalid_target/);
      match(textOf(result), /team\.mcp\.json/);
      ok(!textOf(result).includes(alice), "the refusal shows the front token");
      ok(as.exchanges >= 1, "the issuer was never asked");
      deepStrictEqual(hop.received, [], "a request went upstream without an exchanged token");
    } finally {
      await front.close();
    }
  });
});

Deno.test("a mount that exchanges tokens gives a caller without OAuth an isError result saying why", async () => {
  await withUpstream(async (_as, hop) => {
    const dir = await mountDir(exchangeEntry(hop.url));
    const front = await frontOf(dir, undefined);
    try {
      const result = await callLegacy(front.url, undefined, "team_whoami");
      strictEqual(result.isError, true, JSON.stringify(result));
      match(textOf(result), /team\.mcp\.json" exchanges the caller's token/);
      match(textOf(result), /--auth-issuer/);
      deepStrictEqual(hop.received, []);
    } finally {
      await front.close();
    }
  });
});

Deno.test("a static credential from the environment reaches the upstream, and the caller's token does not", async () => {
  const as = await startExchangeIssuer({ upstreams: [UPSTREAM] });
  const shared = jose.base64url.encode(crypto.getRandomValues(new Uint8Array(24)));
  Deno.env.set(STATIC_VAR, shared);
  const upstream = await serveForTest([WHOAMI], { bearerToken: shared });
  const hop = recordingHop(upstream.url);
  try {
    const dir = await serverDir({
      "tools/team.mcp.json": {
        type: "http",
        url: hop.url,
        headers: { Authorization: `Bearer \${${STATIC_VAR}}` },
      },
    });
    const front = await frontOf(dir, as);
    try {
      const alice = await signIn(as, "alice");
      const seen = seenBy(await callLegacy(front.url, alice, "team_whoami"));
      deepStrictEqual(seen.subject, null, "a shared credential names no caller upstream");
      ok(hop.received.length > 0);
      for (const { authorization, text } of hop.received) {
        strictEqual(authorization, `Bearer ${shared}`);
        ok(!text.includes(alice), `the front token went upstream:\n${text}`);
      }
      strictEqual(as.exchanges, 0);
    } finally {
      await front.close();
    }
  } finally {
    Deno.env.delete(STATIC_VAR);
    await hop.close();
    await upstream.close();
    await as.stop();
  }
});
