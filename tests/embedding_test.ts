// Embedding (adr/0025): the server createServer builds answers web-standard requests
// (`fetch`), so it mounts inside an app of one's own. The official SDK clients (v2 speaking
// 2026-07-28, v1 in a 2025-11-25 session) connect to /mcp of a Deno.serve app and of a Hono app
// that serve their own pages beside it, on loopback; a Hono app answers in process through
// `app.request` too. Middleware given to createServer sees the calls; the Host guard, the
// bearer token and the drain hold as they do over toolshed's own listener.
import assert, { strictEqual } from "node:assert/strict";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "npm:@modelcontextprotocol/client@2.4.0";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { Hono } from "npm:hono@4.13.19";
import { createServer, type Server } from "../lib/server/create_server.ts";

import { checkDefinition } from "../lib/primitives/tools.ts";
import type { Middleware } from "../lib/primitives/types.ts";
import { recorder } from "./_diagnostics.ts";
import { withHangGuard } from "./_server_process.ts";

const SERVER_DIR = new URL("./fixtures/server/", import.meta.url);
const CLIENT_INFO = { name: "toolshed-embedding-test", version: "1.0.0" };
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The fixture server directory, with a middleware that notes every tool call it sees. */
async function embeddable(http: NonNullable<Parameters<typeof createServer>[0]>["http"] = {}) {
  const calls: string[] = [];
  const noting: Middleware = (next) => (call) => {
    if (call.method === "tools/call") calls.push(`${call.params.name} over ${call.transport}`);
    return next(call);
  };
  const server = await createServer({
    dir: SERVER_DIR,
    http,
    middleware: [noting],
    diagnostics: recorder(),
  });
  return { server, calls };
}

/** Lists the tools and calls `report` with both SDK clients against `url`. */
async function exercise(url: URL): Promise<string[]> {
  const seen: string[] = [];
  const modern = new ModernClient(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await modern.connect(new ModernHttpTransport(url));
  try {
    const { tools } = await modern.listTools();
    seen.push(`v2 lists ${tools.map((tool) => tool.name).join(", ")}`);
    const result = await modern.callTool({ name: "report", arguments: { steps: 2 } });
    seen.push(`v2 ${(result.content as { text: string }[])[0].text}`);
  } finally {
    await modern.close();
  }
  const legacy = new LegacyClient(CLIENT_INFO);
  const transport = new LegacyHttpTransport(url);
  await legacy.connect(transport);
  try {
    seen.push(`v1 session ${transport.sessionId === undefined ? "none" : "opened"}`);
    const result = await legacy.callTool({ name: "report", arguments: { steps: 1 } });
    seen.push(`v1 ${(result.content as { text: string }[])[0].text}`);
  } finally {
    await transport.terminateSession();
    await legacy.close();
  }
  return seen;
}

/** A 2026-07-28 tools/list to `url`, as a client POSTs it. */
function listTools(url: string, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
  });
}

const EXPECTED = [
  "v2 lists report",
  "v2 Reported 2 step(s)",
  "v1 session opened",
  "v1 Reported 1 step(s)",
];

async function drained(server: Server, app: Deno.HttpServer): Promise<void> {
  await withHangGuard(server.close(), "the embedded server's drain");
  await withHangGuard(app.shutdown(), "the app closing");
}

Deno.test("embedding: the official SDK clients reach /mcp of a Deno.serve app that serves its own pages beside it", async () => {
  const { server, calls } = await embeddable();
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp") return server.fetch(request);
    return new Response(`the app's own ${pathname}\n`);
  });
  try {
    const base = `http://127.0.0.1:${app.addr.port}`;
    assert.deepEqual(await exercise(new URL(`${base}/mcp`)), EXPECTED);
    assert.equal(await (await fetch(`${base}/about`)).text(), "the app's own /about\n");
    assert.deepEqual(calls, ["report over http", "report over http"]);
  } finally {
    await drained(server, app);
  }
});

Deno.test("embedding: the official SDK clients reach /mcp of a Hono app, served and in process", async () => {
  const { server, calls } = await embeddable();
  const hono = new Hono();
  hono.get("/", (c) => c.text("the app's home"));
  hono.all("/mcp", (c) => server.fetch(c.req.raw));
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, hono.fetch);
  try {
    const base = `http://127.0.0.1:${app.addr.port}`;
    assert.deepEqual(await exercise(new URL(`${base}/mcp`)), EXPECTED);
    assert.equal(await (await fetch(`${base}/`)).text(), "the app's home");
    // In process, no socket: Hono's own request(), as an app's tests call it.
    const response = await hono.request(listTools("http://localhost/mcp"));
    assert.equal(response.status, 200);
    const listed = await response.json();
    assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name), ["report"]);
    assert.equal(calls.length, 2);
  } finally {
    await drained(server, app);
  }
});

Deno.test("embedding: http.allowedHosts and http.bearerToken guard fetch as --allow-host and the token guard --http", async () => {
  const { server } = await embeddable({
    allowedHosts: ["tools.example.com"],
    bearerToken: "s3cret",
  });
  const ask = (host: string, token?: string) =>
    server.fetch(
      listTools(
        `http://${host}/mcp`,
        token === undefined ? {} : { authorization: `Bearer ${token}` },
      ),
    );
  try {
    assert.equal((await ask("evil.example.com", "s3cret")).status, 403);
    const missing = await ask("tools.example.com");
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="toolshed"');
    await missing.body?.cancel();
    const served = await ask("tools.example.com", "s3cret");
    assert.equal(served.status, 200);
    await served.body?.cancel();
    // The probes answer without the token, as over --http.
    assert.equal((await server.fetch(new Request("http://tools.example.com/healthz"))).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("embedding: close() drains what fetch serves: a call in flight finishes, a new request gets 503", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  const server = await createServer({
    diagnostics: recorder(),
    shutdownGraceMs: 60_000,
    primitives: {
      tools: [
        checkDefinition(
          {
            description: "Waits until the test lets it finish",
            inputSchema: { type: "object" },
            handler: async () => {
              started();
              await held;
              return "finished";
            },
          },
          "held",
          "held.ts",
        ),
      ],
    },
  });
  const call = (id: number) =>
    server.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "held",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "held", arguments: {}, _meta: META },
        }),
      }),
    );
  const first = call(1);
  await withHangGuard(running, "the held call to start");
  let closed = false;
  const closing = server.close().then(() => closed = true);
  const refused = await call(2);
  assert.equal(refused.status, 503);
  await refused.body?.cancel();
  assert.equal(closed, false, "the drain waits for the call in flight");
  release();
  const answer = await withHangGuard(first, "the held call's answer");
  assert.equal(answer.status, 200);
  assert.deepEqual((await answer.json()).result.content, [{ type: "text", text: "finished" }]);
  await withHangGuard(closing, "the drain");
});

Deno.test("embedding: close() twice still aborts a session's call at the end of the grace, and fetch after close() answers 503 even if it never served", async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  const stubborn = checkDefinition(
    {
      description: "Runs until aborted",
      inputSchema: { type: "object" },
      handler: (_args: unknown, ctx: { signal: AbortSignal }) => {
        started();
        return new Promise<string>((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve(`aborted: ${ctx.signal.reason}`))
        );
      },
    },
    "stubborn",
    "stubborn.ts",
  );
  const server = await createServer({
    primitives: { tools: [stubborn] },
    diagnostics: recorder(),
    shutdownGraceMs: 200,
  });
  const post = (body: object, headers: Record<string, string> = {}) =>
    server.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      }),
    );
  const opened = await post({
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO },
  });
  const sessionId = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  const call = post(
    { id: 2, method: "tools/call", params: { name: "stubborn", arguments: {} } },
    { "mcp-session-id": sessionId },
  );
  await withHangGuard(running, "the session's call to start");
  // Two signals, two close()s: one drain, whose grace still ends the session's call.
  await withHangGuard(Promise.all([server.close(), server.close()]), "the drain");
  const answer = await (await withHangGuard(call, "the call's answer")).json();
  strictEqual(answer.result.content[0].text, "aborted: the server is shutting down");

  const neverServed = await createServer({
    primitives: { tools: [stubborn] },
    diagnostics: recorder(),
  });
  await neverServed.close();
  const late = await neverServed.fetch(listTools("http://localhost/mcp"));
  strictEqual(late.status, 503);
  strictEqual((await late.json()).error.message.includes("shut down"), true);
});
