// The Streamable HTTP transport (2026-07-28, stateless), in process over real loopback
// sockets with real fetch: the guard, the validation ladder and its statuses, the id
// echo, JSON and SSE answers, cancellation by closing the stream, the body limit, the
// concurrency cap, probes and drain; then main.ts as a process, and the official SDK v2
// client over HTTP. Nothing here measures time: waits are events, loops are bounded.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { loadQuietly } from "./_in_process.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { HttpOptions } from "../lib/transports/http/server.ts";
import { createAnswer, UNREAD_NOTIFICATIONS_BOUND_BYTES } from "../lib/transports/http/answer.ts";
import { createUnsentLedger } from "../lib/transports/http/unsent.ts";
import { acceptsEventStream, decodeHeaderValue } from "../lib/transports/http/headers.ts";
import { hostNameOf, MAX_UNSENT_BYTES } from "../lib/settings/values.ts";
import { SERVER_INFO } from "../lib/wire/protocol.ts";
import { recorder } from "./_diagnostics.ts";
import { modernHeaders, rawRequest, serveForTest, type TestHttpServer } from "./_http_server.ts";
import { events, FIXTURE_TOOLS, readLines, withHangGuard } from "./_server_process.ts";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SERVER_META = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
const SSE_CONTENT_TYPE = "text/event-stream";

// ---------------------------------------------------------------------------------------
// Tools the tests control: each call reports progress (a no-op without a progress token),
// says it started, and answers when released or ends when its signal aborts.

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => resolve = done);
  return { promise, resolve };
}

/** What the controlled tools did, call by call (in the order they started). */
interface Probe {
  /** Resolves when call number `n` (from 0) has started. */
  started(n: number): Promise<void>;
  /** Lets call number `n` answer. */
  release(n: number): void;
  /** Resolves with the abort reason of call number `n`'s signal. */
  aborted(n: number): Promise<unknown>;
  /** The most calls that ran at once. */
  readonly peak: number;
}

function probeTools(): { tools: Tool[]; probe: Probe } {
  const starts: Deferred<void>[] = [];
  const releases: Deferred<void>[] = [];
  const aborts: Deferred<unknown>[] = [];
  const slot = <T>(list: Deferred<T>[], n: number) => list[n] ??= deferred<T>();
  let calls = 0;
  let running = 0;
  let peak = 0;

  const held = async (_args: unknown, ctx: ToolContext) => {
    const n = calls++;
    running++;
    peak = Math.max(peak, running);
    ctx.progress(1, 2, "half way");
    slot(starts, n).resolve();
    try {
      await new Promise<void>((resolve, reject) => {
        slot(releases, n).promise.then(resolve);
        ctx.signal.addEventListener("abort", () => {
          slot(aborts, n).resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
      return `released ${n}`;
    } finally {
      running--;
    }
  };
  const reportsAtOnce = (_args: unknown, ctx: ToolContext) => {
    ctx.progress(1, 1, "all of it");
    return "reported";
  };
  const define = (name: string, handler: (args: unknown, ctx: ToolContext) => unknown) =>
    checkDefinition({ description: name, inputSchema: { type: "object" }, handler }, name, name);
  return {
    tools: [define("held", held), define("reports_at_once", reportsAtOnce)],
    probe: {
      started: (n) => slot(starts, n).promise,
      release: (n) => slot(releases, n).resolve(),
      aborted: (n) => slot(aborts, n).promise,
      get peak() {
        return peak;
      },
    },
  };
}

/** Fixture tools that must not run in the test process (see tests/_invariants.ts). */
const NOT_IN_PROCESS = new Set(["quitter", "careless", "chatty"]);

async function fixtureTools(): Promise<Tool[]> {
  const loaded = await loadQuietly(FIXTURE_TOOLS, { diagnostics: recorder() });
  return loaded.tools.filter((tool) => !NOT_IN_PROCESS.has(tool.name));
}

// ---------------------------------------------------------------------------------------
// A server in this process, on 127.0.0.1 and a free port, and ways to talk to it.

interface Started extends TestHttpServer {
  probe: Probe;
}

async function start(options: Partial<HttpOptions> = {}): Promise<Started> {
  const { tools, probe } = probeTools();
  return { ...await serveForTest([...await fixtureTools(), ...tools], options), probe };
}

/** A tools/call body; `meta` adds to the `_meta` envelope (a progress token, say). */
function callBody(
  id: number | string,
  name: string,
  { args = {}, meta = {} }: { args?: Record<string, unknown>; meta?: Record<string, unknown> } = {},
) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: { ...META, ...meta } },
  };
}

interface Answer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or undefined when it is empty. */
  json: unknown;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === "" ? undefined : JSON.parse(text),
  };
}

/** Posts a tools/call with the standard headers. */
function call(url: string, id: number | string, name: string) {
  return post(url, callBody(id, name), modernHeaders("tools/call", name));
}

/** One raw HTTP/1.1 POST of JSON to /mcp, for what fetch will not send (a Host header). */
function rawPost(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return rawRequest(port, "POST", "/mcp", { "content-type": "application/json", ...headers }, body);
}

const discover = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "server/discover",
  params: { _meta: META },
});

// ---------------------------------------------------------------------------------------
// A tools/call and the DNS-rebinding guard.

Deno.test("serveHttp() answers a tools/call with JSON carrying the request's id", async () => {
  const http = await start();
  try {
    match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const answer = await post(
      http.url,
      callBody("call-1", "echo", { args: { text: "hi" } }),
      modernHeaders("tools/call", "echo"),
    );
    strictEqual(answer.status, 200);
    strictEqual(answer.headers.get("content-type"), "application/json");
    deepStrictEqual(answer.json, {
      jsonrpc: "2.0",
      id: "call-1",
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "hi" }],
        _meta: SERVER_META,
      },
    });
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() refuses Host or Origin evil.example.com with 403 and serves localhost:PORT", async () => {
  const http = await start();
  try {
    const body = JSON.stringify(discover(1));
    const headers = modernHeaders("server/discover");
    const evilHost = await rawPost(http.port, { ...headers, host: "evil.example.com" }, body);
    strictEqual(evilHost.status, 403);
    deepStrictEqual(JSON.parse(evilHost.body), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          'Forbidden: the Host header "evil.example.com" names no allowed host (see --allow-host)',
      },
    });
    const evilBoth = await rawPost(http.port, {
      ...headers,
      host: "evil.example.com",
      origin: "http://evil.example.com",
    }, body);
    strictEqual(evilBoth.status, 403);
    const evilOrigin = await rawPost(http.port, {
      ...headers,
      host: `localhost:${http.port}`,
      origin: "http://evil.example.com",
    }, body);
    strictEqual(evilOrigin.status, 403);
    deepStrictEqual(JSON.parse(evilOrigin.body).error, {
      code: -32000,
      message: 'Forbidden: the Origin header "http://evil.example.com" names no allowed host ' +
        "(see --allow-host)",
    });
    const nullOrigin = await rawPost(http.port, {
      ...headers,
      host: `localhost:${http.port}`,
      origin: "null",
    }, body);
    strictEqual(nullOrigin.status, 403);
    const local = await rawPost(http.port, {
      ...headers,
      host: `localhost:${http.port}`,
      origin: `http://localhost:${http.port}`,
    }, body);
    strictEqual(local.status, 200);
    strictEqual(JSON.parse(local.body).id, 1);
    for (const host of [`127.0.0.1:${http.port}`, `[::1]:${http.port}`, "LOCALHOST"]) {
      strictEqual((await rawPost(http.port, { ...headers, host }, body)).status, 200, host);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() serves the names given as allowed hosts, and no others", async () => {
  const http = await start({ allowedHosts: ["mcp.example.com"] });
  try {
    const body = JSON.stringify(discover(1));
    const headers = modernHeaders("server/discover");
    const allowed = await rawPost(http.port, {
      ...headers,
      host: "mcp.example.com:8443",
      origin: "https://mcp.example.com",
    }, body);
    strictEqual(allowed.status, 200);
    const other = await rawPost(http.port, { ...headers, host: "example.com" }, body);
    strictEqual(other.status, 403);
  } finally {
    await http.close();
  }
});

// ---------------------------------------------------------------------------------------
// HTTP methods, media type, body limit.

Deno.test("serveHttp() answers a 2026-07-28 GET on /mcp with 405 and Allow: POST, and other methods with 405", async () => {
  const http = await start();
  try {
    // GET is a 2025-era session's stream (tests/http_sessions_test.ts); a 2026-07-28 client
    // has none, session id or not.
    const sessions: Record<string, string>[] = [{}, { "mcp-session-id": "whatever" }];
    for (const headers of sessions) {
      const response = await fetch(http.url, {
        headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28", ...headers },
      });
      strictEqual(response.status, 405);
      strictEqual(response.headers.get("allow"), "POST");
      deepStrictEqual(await response.json(), {
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message: "Method not allowed: GET (2026-07-28 has no GET stream; POST each message)",
        },
      });
    }
    const put = await fetch(http.url, { method: "PUT", body: "{}" });
    strictEqual(put.status, 405);
    strictEqual(put.headers.get("allow"), "GET, POST, DELETE");
    deepStrictEqual(await put.json(), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "Method not allowed: PUT (this endpoint takes GET, POST and DELETE)",
      },
    });
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers a body that is not application/json with 415", async () => {
  const http = await start();
  try {
    const expected = {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "Unsupported Media Type: Content-Type must be application/json",
      },
    };
    const headers = modernHeaders("server/discover");
    const text = await post(http.url, discover(1), { ...headers, "content-type": "text/plain" });
    deepStrictEqual([text.status, text.json], [415, expected]);
    const withCharset = await post(http.url, discover(2), {
      ...headers,
      "content-type": "Application/JSON; charset=utf-8",
    });
    strictEqual(withCharset.status, 200);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() refuses a body over --max-message-bytes with 413 and a JSON-RPC error", async () => {
  const http = await start({ maxMessageBytes: 100 });
  try {
    const expected = {
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: "Invalid request: the message is longer than the limit of 100 bytes",
      },
    };
    const big = JSON.stringify(callBody(1, "echo", { meta: { padding: "x".repeat(200) } }));
    const declared = await post(http.url, big, modernHeaders("tools/call", "echo"));
    deepStrictEqual([declared.status, declared.json], [413, expected]);
    // Without Content-Length (chunked), the body is counted as it arrives.
    const chunked = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "echo"),
      body: ReadableStream.from([new TextEncoder().encode(big)]),
    });
    deepStrictEqual([chunked.status, await chunked.json()], [413, expected]);
  } finally {
    await http.close();
  }
});

// ---------------------------------------------------------------------------------------
// Parse, shape and the validation ladder, in its order.

Deno.test("serveHttp() answers bodies that are not one JSON-RPC message with 400 and no id", async () => {
  const http = await start();
  try {
    const headers = modernHeaders("server/discover");
    const cases: [string, number, string][] = [
      ["{not json", -32700, "Parse error: "],
      ["", -32700, "Parse error: the body is empty"],
      ["\n  ", -32700, "Parse error: the body is empty"],
      [JSON.stringify([discover(1)]), -32600, "Invalid request: batch arrays are not supported"],
      [JSON.stringify({ jsonrpc: "2.0", id: null, method: "x" }), -32600, "Invalid request: id "],
      [
        JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} }),
        -32600,
        "Invalid request: a 2026-07-28 server sends no requests, so it takes no responses",
      ],
    ];
    for (const [body, code, message] of cases) {
      const answer = await post(http.url, body, headers);
      strictEqual(answer.status, 400, body);
      const json = answer.json as { id?: unknown; error: { code: number; message: string } };
      strictEqual("id" in json, false, `no id for ${body}`);
      strictEqual(json.error.code, code, body);
      ok(json.error.message.startsWith(message), `${body}: ${json.error.message}`);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers a missing or invalid _meta with 400 -32602, echoing the id", async () => {
  const http = await start();
  try {
    const headers = modernHeaders("server/discover");
    const noMeta = await post(http.url, {
      jsonrpc: "2.0",
      id: 7,
      method: "server/discover",
      params: {},
    }, headers);
    deepStrictEqual([noMeta.status, noMeta.json], [400, {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32602,
        message: "Missing required _meta field: io.modelcontextprotocol/protocolVersion",
      },
    }]);
    const noCapabilities = await post(http.url, {
      jsonrpc: "2.0",
      id: "eight",
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
    }, headers);
    deepStrictEqual([noCapabilities.status, noCapabilities.json], [400, {
      jsonrpc: "2.0",
      id: "eight",
      error: {
        code: -32602,
        message: "Missing required _meta field: io.modelcontextprotocol/clientCapabilities",
      },
    }]);
    // Without any version header either: this endpoint serves 2026-07-28 requests only.
    const { "mcp-protocol-version": _, ...noVersionHeader } = modernHeaders("tools/list");
    const claimless = await post(http.url, {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/list",
    }, noVersionHeader);
    deepStrictEqual([claimless.status, (claimless.json as { id: number }).id], [400, 9]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() checks headers against the body in the ladder's order, with 400 -32020 or -32022", async () => {
  const http = await start();
  try {
    const versionClaim = (claim: string) => ({
      jsonrpc: "2.0",
      id: 3,
      method: "server/discover",
      params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": claim } },
    });
    // A modern header with a claim of v999: the disagreement comes first.
    const mismatch = await post(
      http.url,
      versionClaim("v999.0.0"),
      modernHeaders("server/discover"),
    );
    deepStrictEqual([mismatch.status, mismatch.json], [400, {
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32020,
        message: 'Header mismatch: MCP-Protocol-Version header value "2026-07-28" does not match ' +
          'body value "v999.0.0"',
      },
    }]);
    // Both v999: the version is not served.
    const unsupported = await post(http.url, versionClaim("v999.0.0"), {
      ...modernHeaders("server/discover"),
      "mcp-protocol-version": "v999.0.0",
    });
    deepStrictEqual([unsupported.status, unsupported.json], [400, {
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: [MODERN], requested: "v999.0.0" },
      },
    }]);
    // An unsupported claim without any header: -32022 before the missing header.
    const { "mcp-protocol-version": _, ...noVersion } = modernHeaders("server/discover");
    strictEqual(
      ((await post(http.url, versionClaim("2025-11-25"), noVersion)).json as {
        error: { code: number };
      }).error.code,
      -32022,
    );
    const missingVersion = await post(http.url, discover(4), noVersion);
    deepStrictEqual([missingVersion.status, missingVersion.json], [400, {
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32020, message: "Missing required header: MCP-Protocol-Version" },
    }]);
    const { "mcp-method": __, ...noMethod } = modernHeaders("server/discover");
    const missingMethod = await post(http.url, discover(5), noMethod);
    deepStrictEqual([missingMethod.status, missingMethod.json], [400, {
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32020, message: "Missing required header: Mcp-Method" },
    }]);
    // Values are case-sensitive.
    const wrongCase = await post(http.url, discover(6), modernHeaders("SERVER/DISCOVER"));
    deepStrictEqual([wrongCase.status, wrongCase.json], [400, {
      jsonrpc: "2.0",
      id: 6,
      error: {
        code: -32020,
        message: 'Header mismatch: Mcp-Method header value "SERVER/DISCOVER" does not match body ' +
          'value "server/discover"',
      },
    }]);
    // Header names are not.
    const shouting = await post(http.url, discover(7), {
      "Content-Type": "application/json",
      "MCP-PROTOCOL-VERSION": MODERN,
      "MCP-METHOD": "server/discover",
    });
    strictEqual(shouting.status, 200);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() requires Mcp-Name on tools/call to mirror params.name, decoding base64", async () => {
  const http = await start();
  try {
    const echo = (id: number) => callBody(id, "echo", { args: { text: "named" } });
    const missing = await post(http.url, echo(1), modernHeaders("tools/call"));
    deepStrictEqual([missing.status, missing.json], [400, {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32020, message: "Missing required header: Mcp-Name" },
    }]);
    const other = await post(http.url, echo(2), modernHeaders("tools/call", "sha256"));
    deepStrictEqual([other.status, other.json], [400, {
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32020,
        message: 'Header mismatch: Mcp-Name header value "sha256" does not match body value "echo"',
      },
    }]);
    const encoded = await post(
      http.url,
      echo(3),
      modernHeaders("tools/call", "=?base64?ZWNobw==?="),
    );
    strictEqual(encoded.status, 200);
    const badBase64 = await post(
      http.url,
      echo(4),
      modernHeaders("tools/call", "=?base64?ZWNobw?="),
    );
    deepStrictEqual([badBase64.status, (badBase64.json as { error: unknown }).error], [400, {
      code: -32020,
      message: 'Invalid Mcp-Name header: "=?base64?ZWNobw?=" is not base64-encoded UTF-8 text ' +
        'inside "=?base64?" and "?="',
    }]);
    const padded = await post(http.url, echo(5), modernHeaders("tools/call", "  echo\t"));
    strictEqual(padded.status, 200, "optional whitespace around the value is not part of it");
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers unknown and removed methods with 404 -32601, echoing the id", async () => {
  const http = await start();
  try {
    for (const method of ["no/such_method", "initialize", "ping", "logging/setLevel"]) {
      const answer = await post(http.url, {
        jsonrpc: "2.0",
        id: method,
        method,
        params: { _meta: META },
      }, modernHeaders(method));
      strictEqual(answer.status, 404, method);
      const json = answer.json as { id: string; error: { code: number } };
      deepStrictEqual([json.id, json.error.code], [method, -32601]);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() refuses an initialize under a 2026-07-28 MCP-Protocol-Version with 400 -32020", async () => {
  // Without that header it opens a 2025-era session (tests/http_sessions_test.ts).
  const http = await start();
  try {
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    };
    const modernHeader = await post(http.url, initialize, modernHeaders("initialize"));
    deepStrictEqual([modernHeader.status, modernHeader.json], [400, {
      jsonrpc: "2.0",
      id: 0,
      error: {
        code: -32020,
        message: 'Header mismatch: MCP-Protocol-Version header value "2026-07-28" does not ' +
          'match body value "2025-06-18"',
      },
    }]);
    strictEqual(modernHeader.headers.get("mcp-session-id"), null);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() sends a handler's errors in-band with 200", async () => {
  const http = await start();
  try {
    const unknownTool = await call(http.url, 11, "no_such_tool");
    strictEqual(unknownTool.status, 200);
    deepStrictEqual((unknownTool.json as { id: number; error: { code: number } }).id, 11);
    strictEqual((unknownTool.json as { error: { code: number } }).error.code, -32602);
    const thrown = await call(http.url, 12, "boom");
    strictEqual(thrown.status, 200);
    strictEqual((thrown.json as { result: { isError: boolean } }).result.isError, true);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() accepts notifications with 202 and no body", async () => {
  const http = await start();
  try {
    const cancelled = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1 },
    };
    const accepted = await post(http.url, cancelled, modernHeaders("notifications/cancelled"));
    deepStrictEqual([accepted.status, accepted.json], [202, undefined]);
    const unknown = await post(http.url, { jsonrpc: "2.0", method: "notifications/whatever" }, {
      "content-type": "application/json",
    });
    deepStrictEqual([unknown.status, unknown.json], [202, undefined]);
    const mismatched = await post(http.url, cancelled, modernHeaders("notifications/other"));
    strictEqual(mismatched.status, 400);
    strictEqual("id" in (mismatched.json as object), false);
  } finally {
    await http.close();
  }
});

// ---------------------------------------------------------------------------------------
// JSON or SSE, and cancellation by closing the stream.

Deno.test("serveHttp() streams a progress notification, then the result, as server-sent events", async () => {
  const http = await start();
  try {
    const response = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "held"),
      body: JSON.stringify(callBody(21, "held", { meta: { progressToken: "p-21" } })),
    });
    strictEqual(response.status, 200);
    strictEqual(response.headers.get("content-type"), SSE_CONTENT_TYPE);
    strictEqual(response.headers.get("cache-control"), "no-cache, no-transform");
    strictEqual(response.headers.get("x-accel-buffering"), "no");
    const stream = events(response.body!);
    deepStrictEqual((await withHangGuard(stream.next(), "the progress event")).value, {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p-21", progress: 1, total: 2, message: "half way" },
    });
    // The result is not there yet: the tool answers only once released.
    http.probe.release(0);
    deepStrictEqual((await withHangGuard(stream.next(), "the result event")).value, {
      jsonrpc: "2.0",
      id: 21,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "released 0" }],
        _meta: SERVER_META,
      },
    });
    strictEqual((await stream.next()).done, true, "the stream ends after the result");
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() streams progress a synchronous tool sent before its result", async () => {
  const http = await start();
  try {
    const response = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "reports_at_once"),
      body: JSON.stringify(callBody(22, "reports_at_once", { meta: { progressToken: 22 } })),
    });
    strictEqual(response.headers.get("content-type"), SSE_CONTENT_TYPE);
    const all = [];
    for await (const event of events(response.body!)) all.push(event);
    deepStrictEqual(all, [
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: 22, progress: 1, total: 1, message: "all of it" },
      },
      {
        jsonrpc: "2.0",
        id: 22,
        result: {
          resultType: "complete",
          content: [{ type: "text", text: "reported" }],
          _meta: SERVER_META,
        },
      },
    ]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() sends a keep-alive comment on an event stream left idle, then the result", async () => {
  const http = await start({ keepAliveMs: 1 });
  try {
    const response = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "held"),
      body: JSON.stringify(callBody(24, "held", { meta: { progressToken: "p-24" } })),
    });
    strictEqual(response.headers.get("cache-control"), "no-cache, no-transform");
    strictEqual(response.headers.get("x-accel-buffering"), "no");
    const lines = readLines(response.body!);
    const seen: string[] = [];
    // The progress event, then (the tool being held) comments: wait for the first one.
    for (let i = 0; i < 100 && !seen.includes(": keep-alive"); i++) {
      const next = await withHangGuard(lines.next(), "a keep-alive comment");
      if (next.done) break;
      seen.push(next.value);
    }
    match(seen[0], /^data: .*"notifications\/progress"/);
    strictEqual(seen[1], "");
    ok(seen.includes(": keep-alive"), seen.join("\n"));
    http.probe.release(0);
    // Comments may keep coming until the result; a client's SSE parser skips them.
    const rest: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const next = await withHangGuard(lines.next(), "the rest of the stream");
      if (next.done) break;
      rest.push(next.value);
    }
    ok(rest.every((line) => line === "" || line === ": keep-alive" || line.startsWith("data: ")));
    const data = rest.filter((line) => line.startsWith("data: "));
    strictEqual(data.length, 1, "the result, once");
    strictEqual(JSON.parse(data[0].slice("data: ".length)).id, 24);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() with logRequests writes one line per request: method, path, status, JSON-RPC method, duration", async () => {
  const entries: string[] = [];
  let wanted = 0;
  let reached: () => void = () => {};
  const diagnostics = {
    error(message: string) {
      entries.push(message);
      if (entries.length === wanted) reached();
    },
    forward: () => undefined,
  };
  const http = await start({ logRequests: true, diagnostics });
  try {
    const logged = new Promise<void>((resolve) => reached = resolve);
    wanted = 4;
    await call(http.url, 1, "echo");
    await post(http.url, { jsonrpc: "2.0", method: "notifications/initialized" }, {
      ...modernHeaders("notifications/initialized"),
    });
    await post(http.url, "not json", modernHeaders("tools/call"));
    await (await fetch(new URL("/healthz", http.url))).text();
    await withHangGuard(logged, "four log lines");
    const ms = String.raw`\d+\.\d ms`;
    match(entries[0], new RegExp(`^POST /mcp 200 "tools/call" ${ms}$`));
    match(entries[1], new RegExp(`^POST /mcp 202 "notifications/initialized" ${ms}$`));
    match(entries[2], new RegExp(`^POST /mcp 400 - ${ms}$`));
    match(entries[3], new RegExp(`^GET /healthz 200 - ${ms}$`));
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() writes no request lines without logRequests", async () => {
  const http = await start();
  try {
    await call(http.url, 1, "echo");
    await (await fetch(new URL("/healthz", http.url))).text();
  } finally {
    await http.close();
  }
  // Only the shutdown's own line.
  deepStrictEqual(http.diagnostics.entries, ["toolshed: Shutting down: the test is over\n"]);
});

Deno.test("serveHttp() answers with JSON when the client does not accept event streams", async () => {
  const http = await start();
  try {
    const answer = await post(
      http.url,
      callBody(23, "reports_at_once", { meta: { progressToken: 23 } }),
      {
        ...modernHeaders("tools/call", "reports_at_once"),
        accept: "application/json",
      },
    );
    strictEqual(answer.headers.get("content-type"), "application/json");
    strictEqual((answer.json as { id: number }).id, 23);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() aborts the tool's signal when the client closes the event stream", async () => {
  const http = await start();
  try {
    const response = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "held"),
      body: JSON.stringify(callBody(31, "held", { meta: { progressToken: "p-31" } })),
    });
    const reader = response.body!.getReader();
    await withHangGuard(reader.read(), "the first event");
    await reader.cancel();
    strictEqual(
      await withHangGuard(http.probe.aborted(0), "the tool's abort"),
      "the client closed the connection",
    );
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() aborts the tool's signal when the client leaves before a JSON answer", async () => {
  const http = await start();
  try {
    const leaving = new AbortController();
    const response = await fetch(http.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "held"),
      body: JSON.stringify(callBody(32, "held")),
      signal: leaving.signal,
    });
    strictEqual(response.headers.get("content-type"), "application/json");
    await withHangGuard(http.probe.started(0), "the tool starting");
    leaving.abort();
    await response.body?.cancel().catch(() => {});
    strictEqual(
      await withHangGuard(http.probe.aborted(0), "the tool's abort"),
      "the client closed the connection",
    );
  } finally {
    await http.close();
  }
});

Deno.test("createAnswer() drops notifications a client leaves unread past the bound, never the result", async () => {
  const answer = createAnswer(true, createUnsentLedger(MAX_UNSENT_BYTES));
  const streamed = answer.stream(true, () => {});
  const padding = "x".repeat(1000);
  const sent = Math.ceil(UNREAD_NOTIFICATIONS_BOUND_BYTES / padding.length) * 2;
  for (let i = 0; i < sent; i++) {
    answer.notify({ jsonrpc: "2.0", method: "notifications/progress", params: { i, padding } });
  }
  streamed.finish({ jsonrpc: "2.0", id: 1, result: {} });
  const received = [];
  for await (const event of events(streamed.response.body!)) received.push(event);
  ok(received.length < sent, `${received.length} of ${sent} were queued`);
  ok(received.length > sent / 4, `${received.length} of ${sent} were queued`);
  deepStrictEqual(received.at(-1), { jsonrpc: "2.0", id: 1, result: {} });
});

// ---------------------------------------------------------------------------------------
// The concurrency cap, the probes and drain.

/** Reads /readyz until its text is `expected`, at most `tries` times (each a round trip). */
async function readyzUntil(http: Started, expected: string, tries = 1000): Promise<string> {
  const probeUrl = http.url.replace(/\/mcp$/, "/readyz");
  let text = "";
  for (let i = 0; i < tries; i++) {
    text = await (await fetch(probeUrl)).text();
    if (text === expected) break;
  }
  return text;
}

Deno.test("serveHttp() runs at most --max-concurrency requests at once; the rest wait their turn", async () => {
  const http = await start({ maxConcurrency: 1 });
  try {
    const first = call(http.url, 41, "held");
    await withHangGuard(http.probe.started(0), "the first call starting");
    const second = call(http.url, 42, "held");
    strictEqual(
      await readyzUntil(http, "ready (1 running, 1 waiting)\n"),
      "ready (1 running, 1 waiting)\n",
    );
    http.probe.release(0);
    await withHangGuard(http.probe.started(1), "the second call starting");
    http.probe.release(1);
    const answers = await withHangGuard(Promise.all([first, second]), "both answers");
    deepStrictEqual(answers.map((answer) => (answer.json as { id: number }).id), [41, 42]);
    strictEqual(http.probe.peak, 1);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers /healthz and /readyz; draining fails readiness and refuses new calls with 503", async () => {
  const http = await start();
  const base = http.url.replace(/\/mcp$/, "");
  const text = async (path: string) => {
    const response = await fetch(base + path);
    return [response.status, await response.text()];
  };
  deepStrictEqual(await text("/healthz"), [200, "ok\n"]);
  deepStrictEqual(await text("/readyz"), [200, "ready (0 running, 0 waiting)\n"]);
  deepStrictEqual(await text("/nowhere"), [404, "Not found: MCP is served on /mcp\n"]);
  const inFlight = call(http.url, 51, "held");
  await withHangGuard(http.probe.started(0), "the call starting");
  const stopped = http.server.shutdown("the test drains it");
  deepStrictEqual(await text("/readyz"), [503, "draining (1 running, 0 waiting)\n"]);
  deepStrictEqual(await text("/healthz"), [200, "ok\n"]);
  const refused = await call(http.url, 52, "echo");
  deepStrictEqual([refused.status, refused.json], [503, {
    jsonrpc: "2.0",
    id: 52,
    error: {
      code: -32603,
      message: "Internal error: the server shut down before this request could start",
    },
  }]);
  http.probe.release(0);
  const answer = await withHangGuard(inFlight, "the call in flight");
  deepStrictEqual([answer.status, (answer.json as { result: unknown }).result], [200, {
    resultType: "complete",
    content: [{ type: "text", text: "released 0" }],
    _meta: SERVER_META,
  }]);
  await withHangGuard(stopped, "the drain");
  await withHangGuard(http.server.done, "the server closing");
  deepStrictEqual(http.diagnostics.entries, ["toolshed: Shutting down: the test drains it\n"]);
});

Deno.test("serveHttp() aborts calls still running when the grace period ends, and answers them", async () => {
  // The slow tool never ends on its own: whatever the grace, it runs out.
  const http = await start({ shutdownGraceMs: 50 });
  const inFlight = call(http.url, 61, "slow");
  // The call is running once /readyz counts it.
  strictEqual(
    await readyzUntil(http, "ready (1 running, 0 waiting)\n"),
    "ready (1 running, 0 waiting)\n",
  );
  await withHangGuard(http.server.shutdown("the test drains it"), "the drain");
  const answer = await withHangGuard(inFlight, "the aborted call");
  strictEqual(answer.status, 200);
  const result = (answer.json as { result: { isError: boolean; content: { text: string }[] } })
    .result;
  strictEqual(result.isError, true);
  match(result.content[0].text, /shutting down/);
  await withHangGuard(http.server.done, "the server closing");
  deepStrictEqual(http.diagnostics.entries.slice(0, 2), [
    "toolshed: Shutting down: the test drains it\n",
    "toolshed: Requests still running after the grace period; aborting them\n",
  ]);
});

// ---------------------------------------------------------------------------------------
// The helpers on their own.

Deno.test("decodeHeaderValue() decodes the lower-case base64 sentinel and keeps anything else literal", () => {
  strictEqual(decodeHeaderValue("plain"), "plain");
  strictEqual(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
  strictEqual(decodeHeaderValue("=?BASE64?SGVsbG8=?="), "=?BASE64?SGVsbG8=?=");
  strictEqual(decodeHeaderValue("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
  strictEqual(decodeHeaderValue("=?base64?SGVsbG8?="), undefined);
  strictEqual(decodeHeaderValue("=?base64?SGVs!!!bG8=?="), undefined);
  strictEqual(decodeHeaderValue("=?base64?/w==?="), undefined, "not UTF-8");
});

Deno.test("acceptsEventStream() reads Accept as RFC 9110 does", () => {
  strictEqual(acceptsEventStream(null), true);
  strictEqual(acceptsEventStream("application/json, text/event-stream"), true);
  strictEqual(acceptsEventStream("text/*"), true);
  strictEqual(acceptsEventStream("*/*;q=0.1"), true);
  strictEqual(acceptsEventStream("application/json"), false);
  strictEqual(acceptsEventStream("text/event-stream;q=0"), false);
});

Deno.test("hostNameOf() reads a Host header's name and refuses anything else", () => {
  strictEqual(hostNameOf("LocalHost:8080"), "localhost");
  strictEqual(hostNameOf("[::1]:80"), "[::1]");
  strictEqual(hostNameOf("127.0.0.1"), "127.0.0.1");
  strictEqual(hostNameOf("evil.example@localhost"), undefined);
  strictEqual(hostNameOf("localhost/x"), undefined);
  strictEqual(hostNameOf(""), undefined);
});

// ---------------------------------------------------------------------------------------
// Through the real process, and with the official SDK v2 client.

Deno.test("main.ts --http 127.0.0.1:0 prints its URL on stderr, answers a tools/call, drains on SIGTERM", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../main.ts", import.meta.url).pathname,
      "--http",
      "127.0.0.1:0",
      "--tools",
      FIXTURE_TOOLS,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const lines = readLines(child.stderr);
  const seen: string[] = [];
  let url: string | undefined;
  try {
    // Not for-await with break, which would close the lines for good.
    while (url === undefined) {
      const next = await withHangGuard(lines.next(), "the listening line");
      if (next.done) break;
      seen.push(next.value);
      url = next.value.match(/^toolshed: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
    }
    ok(url, `no URL on stderr:\n${seen.join("\n")}`);
    const answer = await withHangGuard(
      post(
        url,
        callBody(1, "echo", { args: { text: "over http" } }),
        modernHeaders("tools/call", "echo"),
      ),
      "the tools/call",
    );
    deepStrictEqual([answer.status, answer.json], [200, {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "over http" }],
        _meta: SERVER_META,
      },
    }]);
  } finally {
    child.kill("SIGTERM");
  }
  const rest: string[] = [];
  for await (const line of lines) rest.push(line);
  const { code } = await withHangGuard(child.status, "the process exiting");
  strictEqual(code, 0, rest.join("\n"));
  ok(rest.includes("toolshed: Shutting down: received SIGTERM"), rest.join("\n"));
  strictEqual(await stdout, "", "nothing on stdout");
});

Deno.test("interop: the 2026-07-28 SDK client lists and calls a tool over Streamable HTTP", async () => {
  const http = await start();
  const client = new Client({ name: "toolshed-http-test", version: "1.0.0" }, {
    versionNegotiation: { mode: "auto" },
  });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    strictEqual(client.getNegotiatedProtocolVersion(), MODERN);
    const { tools } = await client.listTools();
    ok(tools.some((tool) => tool.name === "echo"), JSON.stringify(tools));
    const result = await client.callTool({ name: "echo", arguments: { text: "hello, http" } });
    deepStrictEqual(result.content, [{ type: "text", text: "hello, http" }]);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("serveHttp() holds a subscriptions/listen stream open, its acknowledgement first, and answers it when the server drains", async () => {
  const http = await start();
  const response = await fetch(http.url, {
    method: "POST",
    headers: modernHeaders("subscriptions/listen"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "l-1",
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    }),
  });
  strictEqual(response.status, 200);
  strictEqual(response.headers.get("content-type"), SSE_CONTENT_TYPE);
  const stream = events(response.body!);
  deepStrictEqual((await withHangGuard(stream.next(), "the acknowledgement")).value, {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { _meta: { "io.modelcontextprotocol/subscriptionId": "l-1" }, notifications: {} },
  });
  const stopped = http.server.shutdown("the test drains it");
  deepStrictEqual((await withHangGuard(stream.next(), "the graceful answer")).value, {
    jsonrpc: "2.0",
    id: "l-1",
    result: {
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/subscriptionId": "l-1", ...SERVER_META },
    },
  });
  await withHangGuard(stopped, "the drain");
  await withHangGuard(http.server.done, "the server closing");
});

Deno.test("serveHttp() holds at most maxListens listen streams open: one more is 503, and a closed one frees its place", async () => {
  const http = await start({ maxListens: 1 });
  const listen = (id: string) =>
    fetch(http.url, {
      method: "POST",
      headers: modernHeaders("subscriptions/listen"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { _meta: META, notifications: { toolsListChanged: true } },
      }),
    });
  try {
    const first = await listen("l-1");
    const firstEvents = events(first.body!);
    await withHangGuard(firstEvents.next(), "the first acknowledgement");
    const second = await listen("l-2");
    deepStrictEqual([second.status, await second.json()], [503, {
      jsonrpc: "2.0",
      id: "l-2",
      error: {
        code: -32603,
        message: "Internal error: the server already holds 1 listen streams open",
      },
    }]);
    // Leaving the stream is cancelling the listen: its place is free again.
    await firstEvents.return(undefined);
    let third: Response | undefined;
    for (let i = 0; i < 200; i++) {
      third = await listen(`l-3-${i}`);
      if (third.status === 200) break;
      await third.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    strictEqual(third!.status, 200);
    await third!.body!.cancel();
  } finally {
    await http.close();
  }
});
