// Features that meet: each test here pairs two features that have tests of their own, for the
// defects found where they meet (issue 22): an argument default with input_required rounds,
// the session cap with busy sessions, paging with keys outside Latin-1, and `server/discover`
// before `initialize` on one connection. Over stdio in this process (the real core), and
// over a real `main.ts --http` process where HTTP is part of the pair.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { startInProcess } from "./_in_process.ts";
import { readLines, spawnHttpServer, withHangGuard } from "./_server_process.ts";

type Message = Record<string, unknown> & {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const PAIRS = new URL("./fixtures/pairs", import.meta.url).pathname;
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const meta = (clientCapabilities: Record<string, unknown> = { elicitation: {} }) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
});

/** A client of one stdio connection in this process: each request answered in turn. */
async function stdioClient(flags: string[] = []) {
  const server = await startInProcess(["--dir", PAIRS, ...flags]);
  let id = 0;
  return {
    async request(method: string, params: Record<string, unknown>): Promise<Message> {
      server.send(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
      const line = await server.nextLine();
      ok(line !== null, `the server answers ${method}`);
      return JSON.parse(line);
    },
    notify(method: string) {
      server.send(JSON.stringify({ jsonrpc: "2.0", method }));
    },
    end: () => server.end(),
  };
}

type Ask = (method: string, params: Record<string, unknown>) => Promise<Message>;

/** Calls greet_by_default through its two rounds: asked for the name, then answered. */
async function greetInRounds(ask: Ask, args: Record<string, unknown>): Promise<Message[]> {
  const first = await ask("tools/call", {
    name: "greet_by_default",
    arguments: args,
    _meta: meta(),
  });
  const second = await ask("tools/call", {
    name: "greet_by_default",
    arguments: args,
    inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
    requestState: first.result?.requestState,
    _meta: meta(),
  });
  return [first, second];
}

function assertGreeted([first, second]: Message[], text: string): void {
  strictEqual(first.result?.resultType, "input_required", JSON.stringify(first));
  strictEqual(typeof first.result?.requestState, "string");
  deepStrictEqual(second.error, undefined, JSON.stringify(second));
  deepStrictEqual(second.result?.content, [{ type: "text", text }]);
}

// ---------------------------------------------------------------------------------------
// An argument's default × input_required rounds

Deno.test("a tool whose argument has a default completes its input_required rounds over stdio", async () => {
  const client = await stdioClient();
  assertGreeted(await greetInRounds(client.request, {}), "Hello, Ada!");
  assertGreeted(await greetInRounds(client.request, { greeting: "Hi" }), "Hi, Ada!");
  await client.end();
});

/** 2026-07-28 requests over HTTP, one POST each, answered as JSON. */
function httpAsk(url: string): Ask {
  return async (method, params) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return await response.json();
  };
}

Deno.test("a tool whose argument has a default completes its input_required rounds over a main.ts --http process", async () => {
  const server = await spawnHttpServer(["--dir", PAIRS]);
  const ask = httpAsk(server.url);
  try {
    assertGreeted(await greetInRounds(ask, {}), "Hello, Ada!");
  } finally {
    strictEqual((await server.stop()).code, 0);
  }
});

// ---------------------------------------------------------------------------------------
// Paging × keys outside Latin-1

/** Every page of resources/list, following nextCursor; the URIs in order. */
async function allResourceUris(
  ask: Ask,
  params: Record<string, unknown> = {},
): Promise<string[]> {
  const uris: string[] = [];
  let cursor: unknown = undefined;
  for (let pages = 0; pages < 10; pages++) {
    const answer = await ask(
      "resources/list",
      cursor === undefined ? params : { ...params, cursor },
    );
    deepStrictEqual(answer.error, undefined, JSON.stringify(answer));
    const resources = answer.result!.resources as { uri: string }[];
    uris.push(...resources.map((resource) => resource.uri));
    cursor = answer.result!.nextCursor;
    if (cursor === undefined) return uris;
  }
  throw new Error(`resources/list never ended: ${uris.join(", ")}`);
}

Deno.test("resources/list pages past a page that ends on memo://a/日記, in both eras", async () => {
  const modern = await stdioClient(["--page-size", "1"]);
  deepStrictEqual(await allResourceUris(modern.request, { _meta: meta({}) }), [
    "memo://a/日記",
    "memo://b/later",
  ]);
  await modern.end();

  const legacy = await stdioClient(["--page-size", "1"]);
  const initialized = await legacy.request("initialize", {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: "pairs", version: "1" },
  });
  strictEqual(initialized.result?.protocolVersion, LEGACY);
  legacy.notify("notifications/initialized");
  deepStrictEqual(await allResourceUris(legacy.request), ["memo://a/日記", "memo://b/later"]);
  await legacy.end();
});

Deno.test("resources/list pages past memo://a/日記 over a main.ts --http process", async () => {
  const server = await spawnHttpServer(["--dir", PAIRS, "--page-size", "1"]);
  try {
    deepStrictEqual(await allResourceUris(httpAsk(server.url), { _meta: meta({}) }), [
      "memo://a/日記",
      "memo://b/later",
    ]);
  } finally {
    strictEqual((await server.stop()).code, 0);
  }
});

// ---------------------------------------------------------------------------------------
// The session cap × sessions that are all busy (a 2025-era client keeps a GET stream open)

const ACCEPT_BOTH = "application/json, text/event-stream";

/** A raw 2025-era session: initialized, with its GET stream open and primed. */
async function listeningSession(url: string) {
  const initialized = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
  strictEqual(initialized.status, 200);
  await initialized.body?.cancel();
  const headers = {
    "mcp-session-id": initialized.headers.get("mcp-session-id")!,
    "mcp-protocol-version": LEGACY,
  };
  const stream = await fetch(url, { headers: { ...headers, accept: "text/event-stream" } });
  strictEqual(stream.status, 200);
  const lines = readLines(stream.body!);
  strictEqual((await withHangGuard(lines.next(), "the priming event")).value, "id: s1_0");
  const ping = async () => {
    const answer = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: ACCEPT_BOTH },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await answer.body?.cancel();
    return answer.status;
  };
  /** Resolves when the GET stream has ended (the server closed it). */
  const ended = (async () => {
    for await (const _ of lines) { /* priming and keep-alives */ }
  })();
  return { ping, ended };
}

Deno.test("main.ts --http past --max-sessions with every older session listening serves the new client, evicting the least recently used", async () => {
  const server = await spawnHttpServer(["--dir", PAIRS, "--max-sessions", "2"]);
  const client = new Client({ name: "pairs", version: "1" });
  try {
    const oldest = await listeningSession(server.url);
    const older = await listeningSession(server.url);
    await withHangGuard(
      client.connect(new StreamableHTTPClientTransport(new URL(server.url))),
      "the SDK client's initialize",
    );
    const listed = await withHangGuard(client.listTools(), "the new session's first request");
    const { tools } = listed as { tools: { name: string }[] };
    deepStrictEqual(tools.map((tool) => tool.name), ["greet_by_default"]);
    await withHangGuard(oldest.ended, "the evicted session's GET stream ending");
    deepStrictEqual([await oldest.ping(), await older.ping()], [404, 200]);
  } finally {
    await client.close();
    strictEqual((await server.stop()).code, 0);
  }
});

// ---------------------------------------------------------------------------------------
// server/discover × initialize on one connection (a client that probes for 2026-07-28, then
// speaks 2025)

const INITIALIZE = {
  protocolVersion: LEGACY,
  capabilities: {},
  clientInfo: { name: "pairs", version: "1" },
};

function assertDiscoveredThenInitialized(discovered: Message, initialized: Message): void {
  deepStrictEqual(discovered.result?.supportedVersions, [MODERN], JSON.stringify(discovered));
  strictEqual(initialized.result?.protocolVersion, LEGACY, JSON.stringify(initialized));
}

Deno.test("server/discover then initialize on one stdio connection: a 2025-era session follows", async () => {
  const client = await stdioClient();
  const discovered = await client.request("server/discover", { _meta: meta({}) });
  const initialized = await client.request("initialize", INITIALIZE);
  assertDiscoveredThenInitialized(discovered, initialized);
  client.notify("notifications/initialized");
  const listed = await client.request("tools/list", {});
  deepStrictEqual((listed.result?.tools as { name: string }[]).map((tool) => tool.name), [
    "greet_by_default",
  ]);
  // The session is 2025-era now: a 2026-07-28 call on it is refused, discover still answered.
  const modern = await client.request("tools/list", { _meta: meta({}) });
  strictEqual(modern.error?.code, -32022, JSON.stringify(modern));
  const again = await client.request("server/discover", { _meta: meta({}) });
  deepStrictEqual(again.result?.supportedVersions, [MODERN]);
  await client.end();
});

Deno.test("server/discover then initialize over a main.ts --http process: the session serves its calls", async () => {
  const server = await spawnHttpServer(["--dir", PAIRS]);
  const post = async (body: unknown, headers: Record<string, string>) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { response, message: (text === "" ? undefined : JSON.parse(text)) as Message };
  };
  try {
    const discovered = await post(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta({}) } },
      { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
    );
    const initialized = await post(
      { jsonrpc: "2.0", id: 2, method: "initialize", params: INITIALIZE },
      {},
    );
    assertDiscoveredThenInitialized(discovered.message, initialized.message);
    const session = initialized.response.headers.get("mcp-session-id");
    ok(session, "initialize opens a session");
    const headers = { "mcp-session-id": session, "mcp-protocol-version": LEGACY };
    const notified = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    strictEqual(notified.response.status, 202);
    const listed = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
    deepStrictEqual(
      (listed.message.result?.tools as { name: string }[]).map((tool) => tool.name),
      ["greet_by_default"],
    );
  } finally {
    strictEqual((await server.stop()).code, 0);
  }
});

// ---------------------------------------------------------------------------------------
// A 2025-era session × a client that never sets a log level (adr/0024)

const SERVER_DIR = new URL("./fixtures/server", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Calls `report` with the official SDK v1 client, which never sends logging/setLevel. */
async function levelsLoggedTo(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: "pairs", version: "1" });
  const levels: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification: unknown) => {
    levels.push((notification as { params: { level: string } }).params.level);
  });
  try {
    await withHangGuard(client.connect(transport), "the SDK client's initialize");
    const result = await withHangGuard(
      client.callTool({ name: "report", arguments: { steps: 0 } }),
      "the report call",
    );
    deepStrictEqual((result as { content: unknown }).content, [
      { type: "text", text: "Reported 0 step(s)" },
    ]);
  } finally {
    await client.close();
  }
  return levels;
}

Deno.test("a 2025-era client that never sets a level is sent info and above, over a stdio process", async () => {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "--dir", SERVER_DIR],
    stderr: "ignore",
  });
  deepStrictEqual(await levelsLoggedTo(transport), ["info", "notice", "warning", "error"]);
});

Deno.test("a 2025-era client that never sets a level is sent info and above, over a main.ts --http process", async () => {
  const server = await spawnHttpServer(["--dir", SERVER_DIR]);
  try {
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    deepStrictEqual(await levelsLoggedTo(transport), ["info", "notice", "warning", "error"]);
  } finally {
    strictEqual((await server.stop()).code, 0);
  }
});
