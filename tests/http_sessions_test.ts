// 2025-era clients over Streamable HTTP (adr/0030), in process over
// real loopback sockets with real fetch: `initialize` opening a session, the session id on
// every later message (400 without, 404 unknown), the version it negotiated, DELETE, the
// cap and the idle TTL (on a clock the test drives), a tool's sampling request on its
// call's event stream answered by a POSTed response, notifications/cancelled, drain, the
// session's GET stream, the DNS-rebinding guard before all of it; then the official SDK v1
// client. Nothing here
// measures time: waits are events.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { createOutbound } from "../lib/connection/outbound.ts";
import { createConnection } from "../lib/connection/connection.ts";
import { createSlots } from "../lib/util/slots.ts";
import type { Core } from "../lib/core/handle.ts";
import type { Origin } from "../lib/methods/context.ts";
import {
  createSession,
  MAX_KEPT_CAPABILITIES_BYTES,
  type Session,
} from "../lib/methods/session.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { HttpOptions } from "../lib/transports/http/server.ts";
import { createEventBudget } from "../lib/transports/http/events.ts";
import {
  createSessionTable,
  type HttpSession,
  MAX_SESSION_BYTES,
  SESSION_BYTES,
} from "../lib/transports/http/sessions.ts";
import type { EventStream } from "../lib/transports/http/answer.ts";
import { contentsOf } from "../lib/primitives/registry.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { serveForTest, type TestHttpServer } from "./_http_server.ts";
import { events, readLines, withHangGuard } from "./_server_process.ts";

const LEGACY = "2025-11-25";
const SAMPLING_PARAMS = {
  messages: [{ role: "user", content: { type: "text", text: "a haiku, please" } }],
  maxTokens: 20,
};

// ---------------------------------------------------------------------------------------
// Tools: echo; ask (samples the client, answers with what it got or why it could not);
// held (answers when released, or with its abort reason).

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => resolve = done);
  return { promise, resolve };
}

interface Probe {
  /** Resolves when the held call has started. */
  readonly started: Promise<void>;
  /** Resolves with the held call's abort reason. */
  readonly aborted: Promise<unknown>;
}

/** A tool named and described `name` that takes any object. */
const define = (name: string, handler: (args: unknown, ctx: ToolContext) => unknown) =>
  checkDefinition({ description: name, inputSchema: { type: "object" }, handler }, name, name);

function tools(): { tools: Tool[]; probe: Probe } {
  const started = deferred();
  const aborted = deferred<unknown>();
  return {
    tools: [
      define("echo", (args) => (args as { text: string }).text),
      define("ask", async (_args, ctx) => {
        try {
          return `sampled: ${
            JSON.stringify(await ctx.request("sampling/createMessage", SAMPLING_PARAMS))
          }`;
        } catch (error) {
          return `not sampled: ${(error as Error).message}`;
        }
      }),
      define("held", (_args, ctx) => {
        started.resolve();
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        });
      }),
    ],
    probe: { started: started.promise, aborted: aborted.promise },
  };
}

interface Started extends TestHttpServer {
  probe: Probe;
}

async function start(options: Partial<HttpOptions> = {}): Promise<Started> {
  const { tools: all, probe } = tools();
  return { ...await serveForTest(all, options), probe };
}

// ---------------------------------------------------------------------------------------
// A 2025-era client in raw fetch.

const ACCEPT_BOTH = "application/json, text/event-stream";

interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

/** A POST as a 2025-era client sends it: the response as it comes (its body unread). */
function postRaw(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * A POST and its answer: the JSON body, or the last message of an event stream (a pending
 * answer of a 2025-era session is one: its client is sent log messages, adr/0024).
 */
async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const response = await postRaw(url, body, headers);
  const text = await response.text();
  const streamed = response.headers.get("content-type") === "text/event-stream";
  const data = streamed
    ? text.split("\n").filter((line) => line.startsWith("data: {")).at(-1)?.slice(6) ?? ""
    : text;
  return {
    status: response.status,
    headers: response.headers,
    json: data === "" ? undefined : JSON.parse(data),
  };
}

function initializeBody(capabilities: JsonObject = {}, protocolVersion = LEGACY) {
  return {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "1" } },
  };
}

/** Initializes, sends notifications/initialized, and gives the session's headers. */
async function open(
  url: string,
  capabilities: JsonObject = {},
  protocolVersion = LEGACY,
): Promise<Record<string, string>> {
  const answer = await post(url, initializeBody(capabilities, protocolVersion), {});
  strictEqual(answer.status, 200, JSON.stringify(answer.json));
  const id = answer.headers.get("mcp-session-id");
  ok(id, "a session id");
  const headers = { "mcp-session-id": id, "mcp-protocol-version": protocolVersion };
  const initialized = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    headers,
  );
  deepStrictEqual([initialized.status, initialized.json], [202, undefined]);
  return headers;
}

const callBody = (id: number, name: string, args: JsonObject = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

const textResult = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text }] },
});

// ---------------------------------------------------------------------------------------
// The session's life.

Deno.test("serveHttp() opens a 2025-era session on initialize and serves its calls by Mcp-Session-Id", async () => {
  const http = await start();
  try {
    const answer = await post(http.url, initializeBody(), {});
    strictEqual(answer.status, 200);
    strictEqual(answer.headers.get("content-type"), "application/json");
    const id = answer.headers.get("mcp-session-id")!;
    match(id, /^[\x21-\x7e]{32,}$/);
    const result = (answer.json as { result: { protocolVersion: string; capabilities: unknown } })
      .result;
    deepStrictEqual([result.protocolVersion, result.capabilities], [
      LEGACY,
      { tools: {}, logging: {} },
    ]);
    // Another initialize opens another session, with another id.
    const other = await post(http.url, initializeBody(), {});
    ok(other.headers.get("mcp-session-id") !== id);

    // Without MCP-Protocol-Version (a 2025-03-26 client sends none): the negotiated one.
    const headers = { "mcp-session-id": id };
    const initialized = await post(http.url, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, headers);
    deepStrictEqual([initialized.status, initialized.json], [202, undefined]);
    const list = await post(http.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    strictEqual(list.status, 200);
    deepStrictEqual(
      (list.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
      ["ask", "echo", "held"],
    );
    // Mcp-Method and Mcp-Name are not looked at in 2025-era traffic.
    const call = await post(http.url, callBody(2, "echo", { text: "hi" }), {
      ...headers,
      "mcp-protocol-version": LEGACY,
      "mcp-method": "something/else",
      "mcp-name": "other",
    });
    deepStrictEqual([call.status, call.json], [200, textResult(2, "hi")]);
    // In-band, as over stdio: a 404 would tell the client its session is gone.
    const unknown = await post(http.url, { jsonrpc: "2.0", id: 3, method: "nope" }, headers);
    deepStrictEqual([unknown.status, (unknown.json as { error: { code: number } }).error.code], [
      200,
      -32601,
    ]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers 2025-era traffic without a session id with 400, and an unknown one with 404 -32001", async () => {
  const http = await start();
  try {
    const noSession = await post(http.url, { jsonrpc: "2.0", id: 7, method: "tools/list" }, {});
    deepStrictEqual([noSession.status, noSession.json], [400, {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
    }]);
    const response = await post(http.url, { jsonrpc: "2.0", id: "toolshed-1", result: {} }, {});
    deepStrictEqual([response.status, response.json], [400, {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
    }]);
    const unknown = { "mcp-session-id": "no-such-session" };
    const notFound = { code: -32001, message: "Session not found" };
    const request = await post(http.url, { jsonrpc: "2.0", id: 8, method: "ping" }, unknown);
    deepStrictEqual([request.status, request.json], [404, {
      jsonrpc: "2.0",
      id: 8,
      error: notFound,
    }]);
    const notification = await post(http.url, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, unknown);
    deepStrictEqual([notification.status, notification.json], [404, {
      jsonrpc: "2.0",
      error: notFound,
    }]);
    const answer = await post(http.url, { jsonrpc: "2.0", id: "toolshed-1", result: {} }, unknown);
    strictEqual(answer.status, 404);
    // An initialize that names a session is that session's: unknown, 404.
    strictEqual((await post(http.url, initializeBody(), unknown)).status, 404);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() refuses a 2025-era MCP-Protocol-Version other than the session's with 400", async () => {
  const http = await start();
  try {
    const headers = await open(http.url, {}, "2025-06-18");
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    deepStrictEqual((await post(http.url, ping, headers)).json, {
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    const other = await post(http.url, ping, { ...headers, "mcp-protocol-version": LEGACY });
    deepStrictEqual([other.status, other.json], [400, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message: 'Bad Request: Unsupported protocol version: MCP-Protocol-Version "2025-11-25" ' +
          'is not "2025-06-18", the version this session negotiated',
      },
    }]);
    // A 2026-07-28 header on a claim-less request: its _meta is missing, session or not.
    const modern = await post(http.url, ping, {
      ...headers,
      "mcp-protocol-version": "2026-07-28",
    });
    deepStrictEqual([modern.status, (modern.json as { error: { code: number } }).error.code], [
      400,
      -32602,
    ]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers a refused initialize with 400 and the core's error, and opens no session", async () => {
  const http = await start();
  try {
    const headers = await open(http.url);
    const again = await post(http.url, { ...initializeBody(), id: 5 }, headers);
    deepStrictEqual([again.status, again.json], [400, {
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32600,
        message: 'Invalid request: the connection is already initialized for "2025-11-25"',
      },
    }]);
    const bad = await post(http.url, {
      jsonrpc: "2.0",
      id: 6,
      method: "initialize",
      params: { protocolVersion: 2025 },
    }, {});
    deepStrictEqual([bad.status, bad.json], [400, {
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32602, message: "Invalid params: protocolVersion must be a string" },
    }]);
    strictEqual(bad.headers.get("mcp-session-id"), null);
    // An unknown version is answered with the newest 2025-era one, as over stdio.
    const offered = await post(http.url, initializeBody({}, "2024-01-01"), {});
    strictEqual(
      (offered.json as { result: { protocolVersion: string } }).result.protocolVersion,
      LEGACY,
    );
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() ends a session on DELETE (200) and answers it with 404 from then on", async () => {
  const http = await start();
  try {
    const headers = await open(http.url);
    // A call in flight when the session ends is aborted.
    const held = post(http.url, callBody(1, "held"), headers);
    await withHangGuard(http.probe.started, "the held call");
    const deleted = await fetch(http.url, { method: "DELETE", headers });
    deepStrictEqual([deleted.status, await deleted.text()], [200, ""]);
    strictEqual(
      await withHangGuard(http.probe.aborted, "the held call's abort"),
      "the client ended the session",
    );
    strictEqual((await withHangGuard(held, "the held call's answer")).status, 200);
    const after = await post(http.url, { jsonrpc: "2.0", id: 2, method: "ping" }, headers);
    strictEqual(after.status, 404);
    const again = await fetch(http.url, { method: "DELETE", headers });
    deepStrictEqual([again.status, await again.json()], [404, {
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found" },
    }]);
    const without = await fetch(http.url, { method: "DELETE" });
    deepStrictEqual([without.status, (await without.json()).error.code], [400, -32000]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() ends the least recently used session past maxSessions", async () => {
  const http = await start({ maxSessions: 2 });
  try {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const first = await open(http.url);
    const second = await open(http.url);
    strictEqual((await post(http.url, ping, first)).status, 200); // now second is the oldest
    const third = await open(http.url);
    deepStrictEqual(
      await Promise.all(
        [first, second, third].map(async (h) => (await post(http.url, ping, h)).status),
      ),
      [200, 404, 200],
    );
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() names its sessions after its instance; another instance's session is 404 saying whose it is, and stderr says why once", async () => {
  const alpha = await start({ instanceName: "alpha" });
  const beta = await start({ instanceName: "beta" });
  try {
    const headers = await open(alpha.url);
    match(headers["mcp-session-id"], /^alpha\.[0-9a-f-]{36}$/);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    strictEqual((await post(alpha.url, ping, headers)).status, 200);
    for (let i = 0; i < 2; i++) {
      const stray = await post(beta.url, ping, headers);
      deepStrictEqual([stray.status, (stray.json as { error: unknown }).error], [404, {
        code: -32001,
        message: 'Session not found: instance "alpha" opened it, and a session lives on the ' +
          "instance that opened it (route requests by Mcp-Session-Id to it, or initialize again)",
      }]);
    }
    const said = beta.diagnostics.text().split("\n").filter((line) => line.includes('"alpha"'));
    strictEqual(said.length, 1, beta.diagnostics.text());
    const unknown = await post(alpha.url, ping, { ...headers, "mcp-session-id": "alpha.nope" });
    deepStrictEqual((unknown.json as { error: unknown }).error, {
      code: -32001,
      message: "Session not found",
    });
  } finally {
    await alpha.close();
    await beta.close();
  }
});

Deno.test("serveHttp() forgets a session idle for the TTL, on a clock the test drives", async () => {
  let clock = 1_000_000;
  const http = await start({ sessionTtlMs: 60_000, now: () => clock });
  try {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const headers = await open(http.url);
    clock += 59_999;
    strictEqual((await post(http.url, ping, headers)).status, 200); // a use restarts the TTL
    clock += 59_999;
    strictEqual((await post(http.url, ping, headers)).status, 200);
    clock += 60_000;
    strictEqual((await post(http.url, ping, headers)).status, 404);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() keeps what a 2025-era session counts of its client's capabilities: a small object whole, the top of a huge one", async () => {
  const http = await serveForTest(
    [define("capabilities", (_args, ctx) => JSON.stringify(ctx.clientCapabilities))],
    { maxMessageBytes: 4 * 1024 * 1024 },
  );
  try {
    const declared = async (capabilities: JsonObject) => {
      const headers = await open(http.url, capabilities);
      const answer = await post(http.url, callBody(1, "capabilities"), headers);
      const text = (answer.json as { result: { content: { text: string }[] } }).result.content[0]
        .text;
      return JSON.parse(text) as JsonObject;
    };
    const small = {
      sampling: { tools: {} },
      elicitation: { form: { applyDefaults: true }, url: {} },
      roots: { listChanged: true },
      extensions: { "io.modelcontextprotocol/tasks": {} },
    };
    deepStrictEqual(await declared(small), small);
    // ~1 MiB of JSON that would hold ~28 MiB parsed: what is near the top is kept.
    const huge = await declared({
      ...small,
      experimental: { padding: Array.from({ length: 350_000 }, () => ({})) },
    });
    deepStrictEqual(Object.keys(huge), [...Object.keys(small), "experimental"]);
    deepStrictEqual(huge.extensions, small.extensions);
    const kept = JSON.stringify(huge).length;
    ok(kept < MAX_KEPT_CAPABILITIES_BYTES, `${kept} characters of capabilities kept`);
  } finally {
    await http.close();
  }
});

/** A 2025-era core session whose `initialize` left it holding `keptBytes`. */
/** A core whose requests run until aborted: a session with one started has a call in flight. */
const HANGING: Core = {
  handle: (ctx) =>
    new Promise((resolve) =>
      ctx.controller.signal.addEventListener("abort", () => {
        resolve({ jsonrpc: "2.0", id: ctx.request.id, result: {} });
      })
    ),
  method: () => undefined,
  changeNotices: () => [],
  builtins: () => [],
};

/** The session table's engines in these tests: HANGING's. */
const CONNECT = (session: Session, origin: Origin, send: (message: JsonObject) => void) =>
  createConnection({ core: HANGING, session, origin, send, slots: createSlots(8) });

/** Starts a call in `session` that runs until aborted; its controller. */
function startCall(session: HttpSession): AbortController {
  const request = {
    kind: "request" as const,
    id: 1,
    method: "tools/call",
    params: {},
    envelope: undefined,
    progressToken: undefined,
  };
  return session.connection.request(request, { reply() {} }).controller;
}

function keeping(keptBytes: number): Session {
  const session = createSession();
  session.pin = {
    era: "session",
    client: { protocolVersion: LEGACY, clientCapabilities: {}, clientInfo: undefined, keptBytes },
  };
  return session;
}

Deno.test("createSessionTable() sweeps idle sessions in order of use, never one with a request in flight", async () => {
  let clock = 0;
  const table = createSessionTable({
    instance: "t",
    ttlMs: 100,
    maxSessions: 10,
    maxBytes: 10 * SESSION_BYTES + 1000,
    events: createEventBudget(),
    now: () => clock,
    connect: CONNECT,
  });
  try {
    const idle = table.open(createSession());
    const busy = table.open(createSession());
    const controller = startCall(busy);
    clock = 50;
    const recent = table.open(createSession());
    clock = 120;
    table.sweep();
    deepStrictEqual([table.get(idle.id), table.get(busy.id)?.id, table.size], [
      undefined,
      busy.id,
      2,
    ]);
    strictEqual(controller.signal.aborted, false);
    controller.abort("done");
    await new Promise((resolve) => setTimeout(resolve, 0)); // its answer, a turn later
    table.finished(busy);
    clock = 300;
    table.sweep();
    strictEqual(table.size, 0);
    strictEqual(table.get(recent.id), undefined);
    // Past the byte cap (what sessions keep), the least recently used goes, as past the count.
    const heavy = table.open(keeping(10 * SESSION_BYTES - 1_000));
    const light = table.open(keeping(300));
    table.open(keeping(300));
    deepStrictEqual([table.get(heavy.id), table.get(light.id)?.id, table.size], [
      undefined,
      light.id,
      2,
    ]);
  } finally {
    table.close("the test is over");
  }
});

Deno.test("createSessionTable() past the cap with every older session busy evicts one of them, never the new session", () => {
  const table = createSessionTable({
    instance: "t",
    ttlMs: 100_000,
    maxSessions: 2,
    maxBytes: MAX_SESSION_BYTES,
    events: createEventBudget(),
    connect: CONNECT,
  });
  const listening = (session: HttpSession) => {
    session.standalone = { send() {}, close() {} } as unknown as EventStream;
  };
  const calling = startCall;
  try {
    // Both older sessions hold a GET stream (what an idle 2025-era client does): the least
    // recently used of them goes, and the new one is served.
    const first = table.open(createSession());
    const second = table.open(createSession());
    listening(first);
    listening(second);
    const third = table.open(createSession());
    deepStrictEqual([table.get(first.id), table.get(second.id)?.id, table.get(third.id)?.id], [
      undefined,
      second.id,
      third.id,
    ]);
    strictEqual(first.standalone, undefined, "the evicted session's stream is closed");
    // A call in flight weighs more than a stream: the session with only a stream goes first,
    // even when it was used more recently.
    const inFlight = calling(second);
    listening(third);
    table.get(third.id);
    const fourth = table.open(createSession());
    deepStrictEqual([table.get(second.id)?.id, table.get(third.id), table.get(fourth.id)?.id], [
      second.id,
      undefined,
      fourth.id,
    ]);
    strictEqual(inFlight.signal.aborted, false);
    // With a call in flight in every older one, the least recently used is ended all the same.
    const alsoInFlight = calling(fourth);
    const fifth = table.open(createSession());
    deepStrictEqual([table.get(second.id), table.get(fourth.id)?.id, table.get(fifth.id)?.id], [
      undefined,
      fourth.id,
      fifth.id,
    ]);
    deepStrictEqual([inFlight.signal.aborted, alsoInFlight.signal.aborted], [true, false]);
  } finally {
    table.close("the test is over");
  }
});

// ---------------------------------------------------------------------------------------
// Requests to the client, cancellation, drain.

Deno.test("serveHttp() sends a tool's sampling request on its call's event stream and resolves it with the POSTed response", async () => {
  const http = await start();
  try {
    const headers = await open(http.url, { sampling: {} });
    const response = await postRaw(http.url, callBody(1, "ask"), headers);
    strictEqual(response.status, 200);
    strictEqual(response.headers.get("content-type"), "text/event-stream");
    const stream = events(response.body!);
    const asked = (await withHangGuard(stream.next(), "the sampling request")).value;
    deepStrictEqual(asked, {
      jsonrpc: "2.0",
      id: "toolshed-1",
      method: "sampling/createMessage",
      params: SAMPLING_PARAMS,
    });
    const sampled = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
    const answered = await post(
      http.url,
      { jsonrpc: "2.0", id: "toolshed-1", result: sampled },
      headers,
    );
    deepStrictEqual([answered.status, answered.json], [202, undefined]);
    deepStrictEqual(
      (await withHangGuard(stream.next(), "the result")).value,
      textResult(1, `sampled: ${JSON.stringify(sampled)}`),
    );
    strictEqual((await stream.next()).done, true);
    // A response nothing awaits is accepted and dropped.
    const stray = await post(http.url, { jsonrpc: "2.0", id: "toolshed-9", result: {} }, headers);
    strictEqual(stray.status, 202);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() refuses a tool's sampling request the client cannot receive", async () => {
  const http = await start();
  try {
    const undeclared = await open(http.url);
    deepStrictEqual(
      (await post(http.url, callBody(1, "ask"), undeclared)).json,
      textResult(
        1,
        'not sampled: Cannot send sampling/createMessage: the client did not declare the "sampling" capability',
      ),
    );
    const declared = await open(http.url, { sampling: {} });
    const jsonOnly = await post(http.url, callBody(2, "ask"), {
      ...declared,
      accept: "application/json",
    });
    deepStrictEqual(
      jsonOnly.json,
      textResult(
        2,
        "not sampled: Cannot send sampling/createMessage: the client's request does not accept " +
          "text/event-stream, the only way a request can reach it",
      ),
    );
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() aborts a 2025-era call on notifications/cancelled from its session", async () => {
  const http = await start();
  try {
    const headers = await open(http.url);
    const held = post(http.url, callBody(4, "held"), headers);
    await withHangGuard(http.probe.started, "the held call");
    const cancelled = await post(http.url, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 4, reason: "enough" },
    }, headers);
    strictEqual(cancelled.status, 202);
    strictEqual(await withHangGuard(http.probe.aborted, "the abort"), "enough");
    strictEqual((await withHangGuard(held, "the held call's answer")).status, 200);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() drain rejects requests sent to clients and ends every session", async () => {
  const http = await start();
  const headers = await open(http.url, { sampling: {} });
  const response = await postRaw(http.url, callBody(1, "ask"), headers);
  const stream = events(response.body!);
  await withHangGuard(stream.next(), "the sampling request");
  // A call that only ends when aborted keeps the drain open meanwhile.
  const held = post(http.url, callBody(2, "held"), { ...headers, accept: "application/json" });
  await withHangGuard(http.probe.started, "the held call");
  const stopped = http.server.shutdown("the test drains it");
  deepStrictEqual(
    (await withHangGuard(stream.next(), "the result")).value,
    textResult(1, "not sampled: the server is shutting down"),
  );
  const refused = await post(http.url, { jsonrpc: "2.0", id: 3, method: "ping" }, headers);
  deepStrictEqual([refused.status, refused.json], [503, {
    jsonrpc: "2.0",
    id: 3,
    error: {
      code: -32603,
      message: "Internal error: the server shut down before this request could start",
    },
  }]);
  await http.server.shutdown("the test is in a hurry"); // aborts the held call at once
  strictEqual(
    await withHangGuard(http.probe.aborted, "the held call's abort"),
    "the server is shutting down",
  );
  strictEqual((await withHangGuard(held, "the held call's answer")).status, 200);
  await withHangGuard(stopped, "the drain");
  await withHangGuard(http.server.done, "the server closing");
});

// ---------------------------------------------------------------------------------------
// The GET stream.

/** A GET on the endpoint with these headers. */
function get(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { headers });
}

Deno.test("serveHttp() opens a 2025-era session's GET stream once: 406, 400, 404 and 409 otherwise", async () => {
  const http = await start({ keepAliveMs: 1 });
  try {
    const headers = await open(http.url);
    const sse = { accept: "text/event-stream" };
    const refusal = async (response: Response) => [response.status, await response.json()];
    deepStrictEqual(
      await refusal(await get(http.url, { ...headers, accept: "application/json" })),
      [
        406,
        {
          jsonrpc: "2.0",
          error: { code: -32000, message: "Not Acceptable: Client must accept text/event-stream" },
        },
      ],
    );
    deepStrictEqual(await refusal(await get(http.url, sse)), [400, {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
    }]);
    deepStrictEqual(await refusal(await get(http.url, { ...sse, "mcp-session-id": "nope" })), [
      404,
      { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" } },
    ]);
    const wrongVersion = await get(http.url, {
      ...sse,
      "mcp-session-id": headers["mcp-session-id"],
      "mcp-protocol-version": "2025-06-18",
    });
    strictEqual(wrongVersion.status, 400);
    await wrongVersion.body?.cancel();

    const stream = await get(http.url, { ...headers, ...sse });
    strictEqual(stream.status, 200);
    deepStrictEqual(
      ["content-type", "cache-control", "x-accel-buffering", "mcp-session-id"].map((name) =>
        stream.headers.get(name)
      ),
      ["text/event-stream", "no-cache, no-transform", "no", headers["mcp-session-id"]],
    );
    // It opens with a priming event (an id to resume from, and retry), then, idle, carries
    // keep-alive comments (and nothing else here).
    const lines = readLines(stream.body!);
    for (const expected of ["id: s1_0", "retry: 1000", "data: ", ""]) {
      strictEqual((await withHangGuard(lines.next(), "the priming event")).value, expected);
    }
    strictEqual((await withHangGuard(lines.next(), "a keep-alive comment")).value, ": keep-alive");
    deepStrictEqual(await refusal(await get(http.url, { ...headers, ...sse })), [409, {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Conflict: Only one SSE stream is allowed per session" },
    }]);
    // The session still serves POSTs meanwhile.
    const ping = await post(http.url, { jsonrpc: "2.0", id: 1, method: "ping" }, headers);
    deepStrictEqual(ping.json, { jsonrpc: "2.0", id: 1, result: {} });

    // Closed by the client, it may be opened again (once the server has seen it go).
    await lines.return(undefined);
    let again: Response | undefined;
    for (let i = 0; i < 100 && again?.status !== 200; i++) {
      await again?.body?.cancel();
      again = await get(http.url, { ...headers, ...sse });
    }
    strictEqual(again?.status, 200);

    // DELETE ends the session, and the stream with it.
    const rest = readLines(again!.body!);
    strictEqual((await fetch(http.url, { method: "DELETE", headers })).status, 200);
    let ended = false;
    for (let i = 0; i < 10_000 && !ended; i++) {
      const next = await withHangGuard(rest.next(), "the stream's end");
      ended = next.done === true;
      // Its priming event (a fresh stream, s2), keep-alive comments, nothing else.
      if (!ended) {
        ok(/^(: keep-alive|id: s2_0|retry: 1000|data: |)$/.test(next.value!), next.value);
      }
    }
    ok(ended, "the GET stream ended with its session");
  } finally {
    await http.close();
  }
});

/** The events of an SSE body as `[id, message]` (the priming event's message is undefined). */
async function* identified(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<[string | undefined, unknown]> {
  let id: string | undefined;
  let data: string | undefined;
  for await (const line of readLines(body)) {
    if (line.startsWith("id: ")) id = line.slice("id: ".length);
    else if (line.startsWith("data: ")) data = line.slice("data: ".length);
    else if (line === "" && (id !== undefined || data !== undefined)) {
      yield [id, data === "" || data === undefined ? undefined : JSON.parse(data)];
      id = data = undefined;
    }
  }
}

/** A GET resuming a session's stream after the event `lastEventId`. */
function resumeFrom(
  url: string,
  headers: Record<string, string>,
  lastEventId: string,
): Promise<Response> {
  return get(url, { ...headers, accept: "text/event-stream", "last-event-id": lastEventId });
}

/** The text of a tools/call response's first content block. */
function textOf(response: unknown): string {
  return (response as { result: { content: { text: string }[] } }).result.content[0].text;
}

async function collect<T>(events: AsyncGenerator<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

Deno.test("serveHttp() keeps a 2025-era call going when its client drops the stream, and replays the rest on a GET with Last-Event-ID", async () => {
  const http = await start();
  try {
    const headers = await open(http.url, { sampling: {} });
    const response = await postRaw(http.url, callBody(1, "ask"), headers);
    const call = identified(response.body!);
    deepStrictEqual((await withHangGuard(call.next(), "the priming event")).value, [
      "s1_0",
      undefined,
    ]);
    const [askedAt, asked] = (await withHangGuard(call.next(), "the sampling request")).value!;
    deepStrictEqual([askedAt, (asked as { id: string }).id], ["s1_1", "toolshed-1"]);
    // The client drops the stream: the call goes on, waiting for its sampling answer.
    await call.return(undefined);
    const answered = await post(http.url, {
      jsonrpc: "2.0",
      id: "toolshed-1",
      result: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" },
    }, headers);
    strictEqual(answered.status, 202);
    // A GET with the last event it saw replays what followed: the call's result, which ends it.
    const resumed = await resumeFrom(http.url, headers, "s1_1");
    strictEqual(resumed.status, 200);
    const replayed = await withHangGuard(collect(identified(resumed.body!)), "the replay");
    deepStrictEqual(replayed.map(([id]) => id), ["s1_2"]);
    match(textOf(replayed[0][1]), /^sampled: .*"text":"hi"/);
    // From the priming event on, everything again.
    const again = await resumeFrom(http.url, headers, "s1_0");
    const all = await withHangGuard(collect(identified(again.body!)), "the whole replay");
    deepStrictEqual(all.map(([id]) => id), ["s1_1", "s1_2"]);
    // An id of no stream of this session is refused.
    for (const unknown of ["s9_0", "nonsense"]) {
      const refused = await resumeFrom(http.url, headers, unknown);
      strictEqual(refused.status, 400);
      match((await refused.json()).error.message, /^Bad Request: cannot resume: /);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() resumes a 2025-era call's stream while the call runs: replay, then the rest live", async () => {
  const http = await start();
  try {
    const headers = await open(http.url, { sampling: {} });
    const response = await postRaw(http.url, callBody(1, "ask"), headers);
    const call = identified(response.body!);
    await withHangGuard(call.next(), "the priming event");
    await withHangGuard(call.next(), "the sampling request");
    await call.return(undefined);
    // Resumed from the priming event while the tool still waits: the request again, live.
    const resumed = await resumeFrom(http.url, headers, "s1_0");
    const events = identified(resumed.body!);
    const [id, asked] = (await withHangGuard(events.next(), "the replayed request")).value!;
    deepStrictEqual([id, (asked as { method: string }).method], ["s1_1", "sampling/createMessage"]);
    await post(http.url, {
      jsonrpc: "2.0",
      id: "toolshed-1",
      result: { role: "assistant", content: { type: "text", text: "live" }, model: "m" },
    }, headers);
    const [resultId, result] = (await withHangGuard(events.next(), "the live result")).value!;
    strictEqual(resultId, "s1_2");
    match(textOf(result), /^sampled: .*"text":"live"/);
    strictEqual((await withHangGuard(events.next(), "the end")).done, true);
  } finally {
    await http.close();
  }
});

/**
 * A server with one tool, `polled`, that closes its call's event stream at once (SEP-1699
 * polling), says whether it could, and answers once released.
 */
async function pollingServer() {
  const closed: boolean[] = [];
  let release = deferred();
  const polled = define("polled", async (_args, ctx) => {
    closed.push(ctx.closeStream());
    await release.promise;
    return "answered after the stream closed";
  });
  // Closes its stream, and once released closes the stream it is read on then (a
  // resumption's), and once released again answers.
  const resumedOnce = deferred();
  const polledTwice = define("polled_twice", async (_args, ctx) => {
    closed.push(ctx.closeStream());
    await release.promise;
    await resumedOnce.promise;
    closed.push(ctx.closeStream());
    await release.promise;
    return "answered after two closes";
  });
  const http = await serveForTest([polled, polledTwice]);
  return {
    http,
    closed,
    resumed: () => resumedOnce.resolve(),
    release: () => {
      release.resolve();
      release = deferred();
    },
  };
}

Deno.test("serveHttp() closes a 2025-era call's stream when its tool asks (SEP-1699 polling); a GET with Last-Event-ID receives the answer", async () => {
  const { http, closed, release } = await pollingServer();
  try {
    const headers = await open(http.url, { sampling: {} });
    const response = await postRaw(http.url, callBody(1, "polled"), headers);
    strictEqual(response.headers.get("content-type"), "text/event-stream");
    // The priming event (an id and `retry`), then the server ends the stream: the call goes on.
    const sent = await withHangGuard(collect(identified(response.body!)), "the closed stream");
    deepStrictEqual(sent, [["s1_0", undefined]]);
    deepStrictEqual(closed, [true]);
    release();
    const resumed = await resumeFrom(http.url, headers, "s1_0");
    strictEqual(resumed.status, 200);
    const replayed = await withHangGuard(collect(identified(resumed.body!)), "the answer");
    deepStrictEqual(replayed, [["s1_1", textResult(1, "answered after the stream closed")]]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() closes whichever stream a call is read on: the POST's, then a resumption's", async () => {
  const { http, closed, release, resumed } = await pollingServer();
  try {
    const headers = await open(http.url, { sampling: {} });
    const response = await postRaw(http.url, callBody(1, "polled_twice"), headers);
    const first = await withHangGuard(collect(identified(response.body!)), "the POST's stream");
    deepStrictEqual(first, [["s1_0", undefined]]);
    // Resumed, then closed again by the tool: the GET's stream ends with nothing new.
    const again = await resumeFrom(http.url, headers, "s1_0");
    strictEqual(again.status, 200);
    release();
    resumed();
    const second = await withHangGuard(collect(identified(again.body!)), "the resumed stream");
    deepStrictEqual(second, []);
    deepStrictEqual(closed, [true, true]);
    release();
    const last = await resumeFrom(http.url, headers, "s1_0");
    const answer = await withHangGuard(collect(identified(last.body!)), "the answer");
    deepStrictEqual(answer, [["s1_1", textResult(1, "answered after two closes")]]);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() keeps a stream open when it cannot be resumed: ctx.closeStream() is false for JSON answers, sessions before 2025-11-25 and 2026-07-28", async () => {
  const { http, closed, release } = await pollingServer();
  /** A POST's status and whole body (JSON, or an event stream that ends with the answer). */
  const send = async (body: unknown, headers: Record<string, string>) => {
    const response = await postRaw(http.url, body, headers);
    return { status: response.status, text: await response.text() };
  };
  try {
    // A request that accepts only JSON: its answer is JSON.
    const plain = await open(http.url);
    const json = send(callBody(1, "polled"), { ...plain, accept: "application/json" });
    // A 2025-06-18 session: its streams have no priming event to resume from.
    const older = await open(http.url, { sampling: {} }, "2025-06-18");
    const unprimed = send(callBody(2, "polled"), older);
    // 2026-07-28: no resumption at all (closing the stream cancels the request).
    const modern = send({
      ...callBody(3, "polled"),
      params: {
        name: "polled",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }, {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "polled",
    });
    for (let i = 0; i < 200 && closed.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    deepStrictEqual(closed, [false, false, false]);
    release();
    // Each answer arrives on the request's own connection.
    const answers = await withHangGuard(Promise.all([json, unprimed, modern]), "answers");
    for (const answer of answers) {
      strictEqual(answer.status, 200);
      match(answer.text, /answered after the stream closed/);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() primes no event stream of a session older than 2025-11-25", async () => {
  const http = await start({ keepAliveMs: 1 });
  try {
    const headers = await open(http.url, {}, "2025-06-18");
    const stream = await get(http.url, { ...headers, accept: "text/event-stream" });
    strictEqual(stream.status, 200);
    const lines = readLines(stream.body!);
    // Idle, the first line is a keep-alive comment: no priming event came before it.
    strictEqual((await withHangGuard(lines.next(), "a keep-alive comment")).value, ": keep-alive");
    await lines.return(undefined);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() tells a 2025-era session's GET stream that the tools changed, on a reload", async () => {
  const { tools: all } = tools();
  const http = await serveForTest(all, {}, {}, { listChanged: true });
  try {
    const headers = await open(http.url);
    const listening = await get(http.url, { ...headers, accept: "text/event-stream" });
    const stream = identified(listening.body!);
    await withHangGuard(stream.next(), "the priming event");
    http.registry.swap(contentsOf(all.slice(1)));
    const [, notice] = (await withHangGuard(stream.next(), "the list_changed notice")).value!;
    deepStrictEqual(notice, { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await stream.return(undefined);
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() ends a session's GET stream when the server drains", async () => {
  const http = await start();
  const headers = await open(http.url);
  const listening = await get(http.url, { ...headers, accept: "text/event-stream" });
  strictEqual(listening.status, 200);
  // A call that only ends when aborted keeps the drain (and the listener) open meanwhile.
  const held = post(http.url, callBody(1, "held"), { ...headers, accept: "application/json" });
  await withHangGuard(http.probe.started, "the held call");
  const stopped = http.server.shutdown("the test drains it");
  strictEqual(
    await withHangGuard(listening.text(), "the stream's end"),
    "id: s1_0\nretry: 1000\ndata: \n\n",
  );
  const late = await get(http.url, { ...headers, accept: "text/event-stream" });
  deepStrictEqual([late.status, (await late.json()).error.code], [503, -32603]);
  await http.server.shutdown("the test is in a hurry");
  strictEqual((await withHangGuard(held, "the held call's answer")).status, 200);
  await withHangGuard(stopped, "the drain");
  await withHangGuard(http.server.done, "the server closing");
});

// ---------------------------------------------------------------------------------------
// The guard first, and the official SDK v1 client.

Deno.test("serveHttp() refuses the 2025-era DNS-rebinding probe with 403 before anything else", async () => {
  const http = await start();
  try {
    const body = JSON.stringify(initializeBody());
    const raw = async (host: string, origin: string) => {
      const bytes = new TextEncoder().encode(body);
      const head = Object.entries({
        host,
        origin,
        "content-type": "application/json",
        accept: ACCEPT_BOTH,
        "mcp-protocol-version": LEGACY,
        "mcp-method": "initialize",
        "content-length": String(bytes.length),
        connection: "close",
      }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
      const connection = await Deno.connect({ hostname: "127.0.0.1", port: http.port });
      await connection.write(new TextEncoder().encode(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`));
      const text = await new Response(connection.readable).text();
      return text;
    };
    const evil = await raw("evil.example.com", "http://evil.example.com");
    match(evil, /^HTTP\/1\.1 403 /);
    ok(!/mcp-session-id/i.test(evil), "no session for a refused request");
    const local = await raw(`localhost:${http.port}`, `http://localhost:${http.port}`);
    match(local, /^HTTP\/1\.1 200 /);
    match(local, /mcp-session-id: [\x21-\x7e]+\r\n/i);
  } finally {
    await http.close();
  }
});

Deno.test("createOutbound() sends each message with the signal of the request it is for", () => {
  const sent: [unknown, AbortSignal][] = [];
  const outbound = createOutbound((message, signal) => sent.push([message, signal]));
  const first = new AbortController();
  const second = new AbortController();
  outbound.request("roots/list", {}, first.signal).catch(() => {});
  outbound.request("roots/list", {}, second.signal).catch(() => {});
  first.abort("enough");
  deepStrictEqual(sent.map(([message, signal]) => [message, signal === first.signal]), [
    [{ jsonrpc: "2.0", id: "toolshed-1", method: "roots/list", params: {} }, true],
    [{ jsonrpc: "2.0", id: "toolshed-2", method: "roots/list", params: {} }, false],
    [{
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "toolshed-1", reason: "enough" },
    }, true],
  ]);
  outbound.close("the test is over");
});

Deno.test("interop: the 2025-11-25 SDK v1 client initializes, lists, calls and is sampled over Streamable HTTP", async () => {
  const http = await start();
  const client = new Client({ name: "toolshed-http-legacy-test", version: "1.0.0" }, {
    capabilities: { sampling: {} },
  });
  const sampled = {
    role: "assistant" as const,
    content: { type: "text" as const, text: "from the SDK" },
    model: "m",
  };
  client.setRequestHandler(CreateMessageRequestSchema, () => sampled);
  const transport = new StreamableHTTPClientTransport(new URL(http.url));
  try {
    await client.connect(transport);
    strictEqual(transport.protocolVersion, LEGACY);
    ok(transport.sessionId, "a session id");
    const { tools } = await client.listTools();
    deepStrictEqual(tools.map((tool: { name: string }) => tool.name), ["ask", "echo", "held"]);
    const echoed = await client.callTool({ name: "echo", arguments: { text: "hello, 2025" } });
    deepStrictEqual(echoed.content, [{ type: "text", text: "hello, 2025" }]);
    const asked = await client.callTool({ name: "ask", arguments: {} });
    const [text] = asked.content as { type: string; text: string }[];
    ok(text.text.startsWith("sampled: "), text.text);
    deepStrictEqual(JSON.parse(text.text.slice("sampled: ".length)), sampled);
    await transport.terminateSession();
    strictEqual(transport.sessionId, undefined);
  } finally {
    await client.close();
    await http.close();
  }
});

Deno.test("interop: the SDK v1 client follows a stream toolshed closes mid-call (SEP-1699) and gets the answer", async () => {
  const { http, closed, release } = await pollingServer();
  // A client that declares sampling: its calls' answers are event streams, so resumable.
  const client = new Client({ name: "toolshed-polling-test", version: "1.0.0" }, {
    capabilities: { sampling: {} },
  });
  const transport = new StreamableHTTPClientTransport(new URL(http.url));
  try {
    await client.connect(transport);
    const answer = client.callTool({ name: "polled", arguments: {} });
    // The tool has closed its stream; it answers only now, while the client is away or back.
    for (let i = 0; i < 500 && closed.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    deepStrictEqual(closed, [true]);
    release();
    const result = await withHangGuard(answer, "the answer after the reconnection") as {
      content: unknown;
    };
    deepStrictEqual(result.content, [{ type: "text", text: "answered after the stream closed" }]);
  } finally {
    await client.close();
    await http.close();
  }
});
