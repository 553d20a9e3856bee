// Every row of the status table (transports/http/statuses.ts, adr/0061 §3), exercised over HTTP
// in both eras where the era can reach it: a 2026-07-28 request (stateless) and a 2025-era one
// (a session, or the request that would open one). Each probe asserts the row's status, its
// JSON-RPC code where the row has one, and its headers. A row only one era can reach is listed
// with the reason (ONE_ERA); the core's routing rows are answered in band inside a session, and
// that is asserted too. The last test fails for a row no probe reached, so a new row needs one.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { type RowName, STATUSES } from "../lib/transports/http/statuses.ts";
import { oauthStep, type ResourceServer } from "../lib/transports/http/oauth.ts";
import type { Exchange } from "../lib/transports/http/exchange.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { AuthInfo, ToolContext } from "../lib/primitives/types.ts";
import type { TokenVerifier } from "../lib/auth/types.ts";
import { createServer } from "../lib/server/create_server.ts";
import { recorder } from "./_diagnostics.ts";
import {
  initializeBody,
  modernBody,
  modernHeaders,
  openLegacySession,
  type TestHttpServer,
  whileServed,
} from "./_http_server.ts";
import { callerNamed } from "./_oauth_tools.ts";
import { withHangGuard } from "./_server_process.ts";

type Era = "stateless" | "session";

/** Rows one era cannot reach, and why. */
const ONE_ERA: Partial<Record<RowName, string>> = {
  unsupportedVersion: "a session's requests claim no version of their own (their header's is " +
    "sessionVersionMismatch)",
  initializeRefused: "2026-07-28 has no initialize (one with its header is a headerMismatch)",
  sessionRequired: "2026-07-28 has no sessions",
  sessionNotFound: "2026-07-28 has no sessions",
  sessionVersionMismatch: "2026-07-28 has no sessions",
  notAcceptable: "only a session's GET stream asks for an event stream",
  streamConflict: "only a session has a GET stream",
  cannotResume: "only a session's streams are resumable",
  originRefused: "a CORS preflight carries no MCP header: it has no era",
  full: "listen streams (subscriptions/listen) are 2026-07-28's",
};

/** The core's routing rows, which a 2025-era session answers in band (200). */
const IN_BAND_IN_SESSION: readonly RowName[] = ["methodNotFound", "missingCapability"];

const reached = new Map<RowName, Set<Era>>();

/** Asserts `response` is `row`'s answer (status, code, `headers`), and counts it for `era`. */
async function expectRow(
  row: RowName,
  era: Era,
  response: Response,
  headers: Record<string, string | RegExp> = {},
): Promise<void> {
  const text = await response.text();
  const what = `${row} (${era}): ${text}`;
  const declared = STATUSES[row] as { status: number; code?: number; headers?: unknown };
  strictEqual(response.status, declared.status, what);
  if (declared.code !== undefined) strictEqual(JSON.parse(text).error.code, declared.code, what);
  else ok(typeof JSON.parse(text).error.code === "number", what);
  if (declared.headers !== undefined) ok(Object.keys(headers).length > 0, `${what}: no header`);
  for (const [name, value] of Object.entries(headers)) {
    const got = response.headers.get(name) ?? "";
    if (typeof value === "string") strictEqual(got, value, `${what}: ${name}`);
    else match(got, value, `${what}: ${name}`);
  }
  count(row, era);
}

function count(row: RowName, era: Era): void {
  const eras = reached.get(row) ?? new Set();
  eras.add(era);
  reached.set(row, eras);
}

/** A routing row's request in a session: answered 200, its error in band (or a tool error). */
async function expectInBand(row: RowName, response: Response): Promise<void> {
  const text = await response.text();
  strictEqual(response.status, 200, `${row} (session): ${text}`);
  const { error, result } = JSON.parse(text);
  ok(error !== undefined || result?.isError === true, `${row} (session): ${text}`);
  count(row, "session");
}

const JSON_TYPES = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The headers of a 2025-era request: of the session `session`, when given. */
function legacyHeaders(session?: string): Record<string, string> {
  return session === undefined ? { ...JSON_TYPES } : {
    ...JSON_TYPES,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
}

function legacyBody(id: number, method: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

let nextId = 0;
/** A POST of `method` in `era` (a session's when `session` is given), with `extra` headers. */
function post(
  url: string,
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
  extra: Record<string, string> = {},
  session?: string,
): Promise<Response> {
  const name = typeof params.name === "string" ? params.name : undefined;
  return fetch(url, {
    method: "POST",
    headers: era === "stateless"
      ? { ...modernHeaders(method, name), ...extra }
      : { ...legacyHeaders(session), ...extra },
    body: era === "stateless"
      ? modernBody(++nextId, method, params)
      : legacyBody(++nextId, method, params),
  });
}

/** Each era's headers for a request that goes no further than the transport's steps. */
const ERA_HEADERS: Record<Era, Record<string, string>> = {
  stateless: modernHeaders("tools/list"),
  session: { ...JSON_TYPES },
};

let release: () => void = () => {};
let started: () => void = () => {};
const tools: Tool[] = [
  checkDefinition(
    { description: "Echoes", inputSchema: { type: "object" }, handler: () => "echoed" },
    "echo",
    "tools/echo.ts",
  ),
  checkDefinition(
    {
      description: "Deploys, with the scope to",
      inputSchema: { type: "object" },
      scopes: ["deploy"],
      handler: () => "deployed",
    },
    "deploy",
    "tools/deploy.ts",
  ),
  checkDefinition(
    {
      description: "Asks the user, so needs a client that can be asked",
      inputSchema: { type: "object" },
      requiredClientCapabilities: { elicitation: {} },
      handler: () => "asked",
    },
    "needy",
    "tools/needy.ts",
  ),
  checkDefinition(
    {
      description: "Holds until the test lets go",
      inputSchema: { type: "object" },
      handler: (_args: unknown, _ctx: ToolContext) =>
        new Promise<string>((resolve) => {
          release = () => resolve("released");
          started();
        }),
    },
    "held",
    "tools/held.ts",
  ),
];

function withServer(
  listen: Parameters<typeof whileServed>[1],
  config: Parameters<typeof whileServed>[2],
  run: (server: TestHttpServer) => Promise<void>,
): Promise<void> {
  return whileServed(tools, listen, config, run);
}

Deno.test("status matrix: the transport's own rows and the core's routing rows, in both eras", async () => {
  await withServer(
    {
      maxMessageBytes: 4096,
      maxListens: 0,
      corsOrigins: ["https://pages.example"],
    },
    {},
    async ({ url }) => {
      for (const era of ["stateless", "session"] as const) {
        const headers = ERA_HEADERS[era];
        const send = (init: RequestInit & { headers?: Record<string, string> }) =>
          fetch(url, {
            method: "POST",
            body: "{}",
            ...init,
            headers: { ...headers, ...init.headers },
          });
        await expectRow(
          "hostRefused",
          era,
          await send({ headers: { origin: "https://evil.example" } }),
        );
        await expectRow(
          "unsupportedMediaType",
          era,
          await send({ headers: { "content-type": "text/plain" } }),
        );
        await expectRow("badMessage", era, await send({ body: "{" }));
        await expectRow("bodyTooLarge", era, await send({ body: " ".repeat(5000) }));
        await expectRow(
          "headerMismatch",
          era,
          await send({
            headers: { "mcp-method": "tools/list" },
            body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled" }),
          }),
        );
      }
      await expectRow(
        "methodNotAllowed",
        "stateless",
        await fetch(url, { method: "GET", headers: modernHeaders("tools/list") }),
        { allow: "POST" },
      );
      await expectRow("methodNotAllowed", "session", await fetch(url, { method: "PUT" }), {
        allow: "GET, POST, DELETE",
      });
      await expectRow(
        "originRefused",
        "stateless",
        await fetch(url, {
          method: "OPTIONS",
          headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
        }),
      );
      await expectRow("full", "stateless", await post(url, "stateless", "subscriptions/listen"));

      // The core's routing rows: their own status in 2026-07-28, in band in a session.
      await expectRow("methodNotFound", "stateless", await post(url, "stateless", "no/such"));
      await expectRow(
        "missingCapability",
        "stateless",
        await post(url, "stateless", "tools/call", { name: "needy", arguments: {} }),
      );
      const claim = "2099-01-01";
      await expectRow(
        "unsupportedVersion",
        "stateless",
        await fetch(url, {
          method: "POST",
          headers: { ...modernHeaders("tools/list"), "mcp-protocol-version": claim },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/list",
            params: {
              _meta: {
                "io.modelcontextprotocol/protocolVersion": claim,
                "io.modelcontextprotocol/clientCapabilities": {},
              },
            },
          }),
        }),
      );
      const session = (await openLegacySession(url))!;
      await expectInBand("methodNotFound", await post(url, "session", "no/such", {}, {}, session));
      await expectInBand(
        "missingCapability",
        await post(url, "session", "tools/call", { name: "needy", arguments: {} }, {}, session),
      );
    },
  );
});

Deno.test("status matrix: a 2025-era session's rows", async () => {
  await withServer({}, {}, async ({ url }) => {
    // Opening: an initialize that does not pin a session (its params are wrong) is refused.
    await expectRow(
      "initializeRefused",
      "session",
      await fetch(url, {
        method: "POST",
        headers: JSON_TYPES,
        body: legacyBody(1, "initialize", { capabilities: {} }),
      }),
    );
    await expectRow("sessionRequired", "session", await post(url, "session", "tools/list"));
    await expectRow(
      "sessionNotFound",
      "session",
      await post(url, "session", "tools/list", {}, {}, "no-such-session"),
    );
    const session = (await openLegacySession(url))!;
    // A second initialize in the session.
    await expectRow(
      "initializeRefused",
      "session",
      await fetch(url, {
        method: "POST",
        headers: legacyHeaders(session),
        body: initializeBody(),
      }),
    );
    await expectRow(
      "sessionVersionMismatch",
      "session",
      await post(
        url,
        "session",
        "tools/list",
        {},
        { "mcp-protocol-version": "2025-06-18" },
        session,
      ),
    );
    const get = (extra: Record<string, string>) =>
      fetch(url, { method: "GET", headers: { ...legacyHeaders(session), ...extra } });
    await expectRow("notAcceptable", "session", await get({ accept: "application/json" }));
    await expectRow(
      "cannotResume",
      "session",
      await get({ accept: "text/event-stream", "last-event-id": "nothing-kept" }),
    );
    const stream = await get({ accept: "text/event-stream" });
    strictEqual(stream.status, 200);
    await expectRow("streamConflict", "session", await get({ accept: "text/event-stream" }));
    await stream.body?.cancel();
  });
});

Deno.test("status matrix: a rate limit's 429 with Retry-After, in both eras and on opening a session", async () => {
  const retry = /^[1-9][0-9]*$/;
  await withServer({}, { rateLimit: "1/min" }, async ({ url }) => {
    strictEqual((await post(url, "stateless", "tools/list")).status, 200);
    await expectRow("rateLimited", "stateless", await post(url, "stateless", "tools/list"), {
      "retry-after": retry,
    });
    // The same address's bucket is used up: opening a session is refused too.
    await expectRow("rateLimited", "session", await post(url, "session", "initialize"), {
      "retry-after": retry,
    });
  });
  await withServer({}, { rateLimit: "1/min" }, async ({ url }) => {
    const session = (await openLegacySession(url))!;
    // A session's requests have a bucket of their own.
    strictEqual((await post(url, "session", "tools/list", {}, {}, session)).status, 200);
    await expectRow(
      "rateLimited",
      "session",
      await post(url, "session", "tools/list", {}, {}, session),
      { "retry-after": retry },
    );
  });
});

Deno.test("status matrix: the drain's 503 and a shared token's 401, in both eras", async () => {
  await withServer({ bearerToken: "s3cret" }, {}, async ({ url }) => {
    for (const era of ["stateless", "session"] as const) {
      await expectRow("unauthorized", era, await post(url, era, "tools/list"), {
        "www-authenticate": /^Bearer/,
      });
    }
  });
  await withServer({}, {}, async ({ url, server }) => {
    const holding = new Promise<void>((resolve) => started = resolve);
    const held = post(url, "stateless", "tools/call", { name: "held", arguments: {} });
    await withHangGuard(holding, "the held call starting");
    const stopped = server.shutdown("the test drains it");
    await expectRow(
      "shuttingDown",
      "stateless",
      await post(url, "stateless", "tools/call", { name: "echo", arguments: {} }),
    );
    await expectRow("shuttingDown", "session", await post(url, "session", "initialize"));
    release();
    strictEqual((await withHangGuard(held, "the held call")).status, 200);
    await withHangGuard(stopped, "the drain");
  });
});

Deno.test("status matrix: the body's rows and a fault, embedded (a body that fails, one that stops coming, a budget full, a request whose handling throws)", async () => {
  const server = await createServer({
    primitives: { tools },
    http: { bodyTimeoutMs: 50, maxBodyBytes: 100 },
    diagnostics: recorder(),
  });
  try {
    for (const era of ["stateless", "session"] as const) {
      const send = (body: BodyInit) =>
        server.fetch(
          new Request("http://localhost/mcp", { method: "POST", headers: ERA_HEADERS[era], body }),
        );
      await expectRow(
        "bodyUnreadable",
        era,
        await send(
          new ReadableStream({
            pull(controller) {
              controller.error(new Error("the client's body fails"));
            },
          }),
        ),
      );
      await expectRow(
        "bodyTimeout",
        era,
        await send(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("{"));
            },
          }),
        ),
      );
      await expectRow("bodiesFull", era, await send(" ".repeat(200)), { "retry-after": "1" });
      // A request whose handling throws (here, reading its URL): the server's fault.
      const faulty = new Request("http://localhost/mcp", {
        method: "POST",
        headers: ERA_HEADERS[era],
        body: "{}",
      });
      Object.defineProperty(faulty, "url", {
        get() {
          throw new Error("the test's request fails");
        },
      });
      await expectRow("failed", era, await server.fetch(faulty));
    }
  } finally {
    await server.close();
  }
});

function callerWith(scopes: string[]): AuthInfo {
  return callerNamed("alice", scopes);
}

/** Tokens: "reader" has the base scope "mcp", "outsider" none, "down" cannot be checked. */
const verifier: TokenVerifier = {
  verify: (token) =>
    Promise.resolve(
      token === "reader"
        ? { ok: true, auth: callerWith(["mcp"]) }
        : token === "outsider"
        ? { ok: true, auth: callerWith([]) }
        : token === "down"
        ? { ok: false, reason: "unavailable", message: "the issuer does not answer" }
        : { ok: false, reason: "invalid", message: "unknown token" },
    ),
  issuerMetadata: () => Promise.resolve({}),
};

Deno.test("status matrix: OAuth's rows (the token's refusals, a scope's 403 with its challenge), in both eras", async () => {
  const oauth = { issuer: "https://issuer.example", scopes: ["mcp"], verifier };
  await withServer({ oauth }, {}, async ({ url }) => {
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const challenge = /^Bearer .*resource_metadata=/;
    for (const era of ["stateless", "session"] as const) {
      await expectRow("tokenRefused", era, await post(url, era, "tools/list"), {
        "www-authenticate": challenge,
      });
      await expectRow(
        "tokenInQuery",
        era,
        await fetch(`${url}?access_token=x`, {
          method: "POST",
          headers: { ...ERA_HEADERS[era], ...bearer("reader") },
          body: "{}",
        }),
        { "www-authenticate": /error="invalid_request"/ },
      );
      await expectRow(
        "tokenUncheckable",
        era,
        await post(url, era, "tools/list", {}, bearer("down")),
        { "retry-after": "5" },
      );
      await expectRow(
        "baseScopeMissing",
        era,
        await post(url, era, "tools/list", {}, bearer("outsider")),
        { "www-authenticate": /error="insufficient_scope"/ },
      );
    }
    const deploy = { name: "deploy", arguments: {} };
    const scopeChallenge = /error="insufficient_scope".*scope="mcp deploy"/;
    await expectRow(
      "insufficientScope",
      "stateless",
      await post(url, "stateless", "tools/call", deploy, bearer("reader")),
      { "www-authenticate": scopeChallenge },
    );
    const session = (await openLegacySession(url, bearer("reader")))!;
    await expectRow(
      "insufficientScope",
      "session",
      await post(url, "session", "tools/call", deploy, bearer("reader"), session),
      { "www-authenticate": scopeChallenge },
    );
  });
});

Deno.test("status matrix: the DPoP proof memory's 429 and 503 with Retry-After, through the OAuth step, in both eras", async () => {
  const server = (status: 429 | 503): ResourceServer => ({
    resource: "http://127.0.0.1/mcp",
    issuer: "https://issuer.example",
    scopes: [],
    algorithms: ["ES256"],
    metadataUrl: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp",
    metadataPaths: ["/.well-known/oauth-protected-resource/mcp"],
    verifier: {
      verify: () => Promise.resolve({ ok: true, auth: callerWith([]) }),
      issuerMetadata: () => Promise.resolve({}),
    },
    proofs: {
      check: () =>
        Promise.resolve({
          jkt: "key",
          spend: () => ({ status, problem: "the proof memory is full", retryAfter: 3 }),
        }),
    },
  });
  const next = () => new Response("reached", { status: 299 });
  const noConnection = {
    close() {},
    closeWhenAnswered() {},
    bodyDeadline: () => () => {},
    readingStarted() {},
    readingEnded() {},
  };
  for (const era of ["stateless", "session"] as const) {
    for (const [row, status] of [["proofsTooMany", 429], ["proofsUnavailable", 503]] as const) {
      const exchange: Exchange = {
        request: new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { ...ERA_HEADERS[era], authorization: "DPoP token", dpop: "proof" },
          body: "{}",
        }),
        connection: noConnection,
        note: undefined,
      };
      await expectRow(row, era, await oauthStep(server(status))(next)(exchange), {
        "retry-after": "3",
      });
    }
  }
});

Deno.test("status matrix: every row was reached in both eras, or in the one that can reach it", () => {
  const missing: string[] = [];
  for (const row of Object.keys(STATUSES) as RowName[]) {
    const eras = reached.get(row) ?? new Set<Era>();
    const needed = ONE_ERA[row] === undefined ? 2 : 1;
    if (eras.size < needed) missing.push(`${row} (${[...eras].join(", ") || "never"})`);
  }
  deepStrictEqual(missing, []);
  for (const row of IN_BAND_IN_SESSION) ok(reached.get(row)?.has("session"), row);
});
