// lib/mounts/http_link.ts's 2025 session against the official SDK's Streamable HTTP server
// (npm:@modelcontextprotocol/sdk@1.32.2, in this process on 127.0.0.1): the session headers,
// the GET stream for notifications not tied to a call, a lost session (404) initialized again,
// DELETE at close; and redirects to another origin refused.
import assert from "node:assert/strict";
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js";
import { createUpstream, UpstreamError } from "../lib/mounts/upstream.ts";
import { recorder } from "./_diagnostics.ts";

const within = () => AbortSignal.timeout(30_000);

/** Polls `condition` every 20 ms, at most 500 times; fails naming `what` after. */
async function eventually(condition: () => boolean, what: string) {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Never: ${what}`);
}

/** A 2025 SDK server keeping sessions in a map a test can empty; `seen` lists each exchange. */
function legacyServer() {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  /** The servers that opened a session, in order. */
  const opened: McpServer[] = [];
  const seen: string[] = [];
  /** The ids of the calls of "wait" the server started, and those it saw cancelled. */
  const started: (string | number)[] = [];
  const cancelled: (string | number)[] = [];
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const session = request.headers.get("mcp-session-id");
    seen.push(
      `${request.method} ${session === null ? "-" : "session"} ${
        request.headers.get("mcp-protocol-version") ?? "-"
      }`,
    );
    if (session !== null) {
      const transport = sessions.get(session);
      if (transport !== undefined) return transport.handleRequest(request);
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" } },
        { status: 404 },
      );
    }
    const server = new McpServer({ name: "legacy", version: "1.0.0" });
    server.registerTool(
      "hello",
      { description: "Says hello" },
      () => ({ content: [{ type: "text", text: "hello" }] }),
    );
    server.registerTool(
      "wait",
      { description: "Waits until cancelled" },
      (extra: { signal: AbortSignal; requestId: string | number }) =>
        new Promise((resolve) => {
          started.push(extra.requestId);
          extra.signal.addEventListener("abort", () => {
            cancelled.push(extra.requestId);
            resolve({ content: [] });
          });
        }),
    );
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id: string) => {
          sessions.set(id, transport);
          opened.push(server);
        },
      });
    servers.push(server);
    await server.connect(transport);
    return transport.handleRequest(request);
  });
  return {
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    sessions,
    opened,
    seen,
    started,
    cancelled,
    async close() {
      for (const server of servers) await server.close();
      await http.shutdown();
    },
  };
}

Deno.test("createUpstream() keeps a 2025 HTTP session, its GET stream, and opens it again when lost", async (t) => {
  const legacy = legacyServer();
  const upstream = createUpstream(
    { kind: "http", url: legacy.url, headers: () => ({}) },
    { diagnostics: recorder(), name: "legacy" },
  );
  try {
    await t.step("connect() initializes and sends the session's headers after", async () => {
      const server = await upstream.connect(within());
      assert.equal(server.era, "session");
      assert.equal(server.protocolVersion, "2025-11-25");
      const hello = await upstream.request("tools/call", { name: "hello", arguments: {} }, {
        signal: within(),
      });
      assert.deepEqual(hello.content, [{ type: "text", text: "hello" }]);
      assert.ok(legacy.seen.includes("POST session 2025-11-25"), legacy.seen.join("\n"));
    });
    await t.step("a notification on the GET stream reaches the listeners", async () => {
      const heard: string[] = [];
      upstream.onNotification((method) => heard.push(method));
      await eventually(() => legacy.seen.includes("GET session 2025-11-25"), "the GET stream");
      // The stream is open once the server's transport holds it.
      await eventually(() => {
        legacy.opened[0].sendToolListChanged();
        return heard.includes("notifications/tools/list_changed");
      }, "tools/list_changed heard");
    });
    await t.step(
      "a session the server lost (404) is initialized again and the call sent again",
      async () => {
        legacy.sessions.clear();
        const hello = await upstream.request("tools/call", { name: "hello", arguments: {} }, {
          signal: within(),
        });
        assert.deepEqual(hello.content, [{ type: "text", text: "hello" }]);
        assert.equal(legacy.opened.length, 2);
      },
    );
    await t.step(
      "cancelling a call POSTs notifications/cancelled, which the server acts on",
      async () => {
        const controller = new AbortController();
        const call = upstream.request("tools/call", { name: "wait", arguments: {} }, {
          signal: controller.signal,
        });
        await eventually(
          () => legacy.seen.length > 0 && legacy.seen.at(-1) !== "",
          "the call sent",
        );
        setTimeout(() => controller.abort(), 100);
        const error = await call.then(() => assert.fail("resolved"), (error) => error);
        assert.ok(error instanceof UpstreamError);
        assert.equal(error.kind, "cancelled");
        await eventually(() => legacy.cancelled.length === 1, "the server saw the cancel");
      },
    );
    await t.step("close() ends the session with DELETE", async () => {
      await upstream.close();
      assert.equal(legacy.seen.at(-1), "DELETE session 2025-11-25");
    });
  } finally {
    await upstream.close();
    await legacy.close();
  }
});

Deno.test("createUpstream() follows no redirect to another origin", async () => {
  const other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({}),
  );
  const redirecting = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.redirect(`http://127.0.0.1:${other.addr.port}/mcp`, 307),
  );
  const diagnostics = recorder();
  const upstream = createUpstream(
    { kind: "http", url: `http://127.0.0.1:${redirecting.addr.port}/mcp`, headers: () => ({}) },
    { diagnostics, name: "redirecting" },
  );
  try {
    const error = await upstream.connect(within()).then(
      () => assert.fail("connected"),
      (error) => error,
    );
    assert.ok(error instanceof UpstreamError);
    assert.equal(error.kind, "down");
    assert.match(error.message, /another origin/);
  } finally {
    await upstream.close();
    await redirecting.shutdown();
    await other.shutdown();
  }
});
