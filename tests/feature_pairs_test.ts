// Features that meet: each test here pairs two features that have tests of their own, for the
// defects found where they meet (issue 22): an argument default with input_required rounds,
// the session cap with busy sessions, paging with keys outside Latin-1, and `server/discover`
// before `initialize` on one connection. Over stdio in this process (the real core), and
// over a real `main.ts --http` process where HTTP is part of the pair.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import { spawnHttpServer } from "./_server_process.ts";

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

Deno.test("a tool whose argument has a default completes its input_required rounds over a main.ts --http process", async () => {
  const server = await spawnHttpServer(["--dir", PAIRS]);
  const ask: Ask = async (method, params) => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        "mcp-name": String(params.name),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return await response.json();
  };
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
