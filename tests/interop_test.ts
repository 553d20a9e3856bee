// Interoperability with the official MCP TypeScript SDK clients, over a real stdio pipe.
//
// Each test spawns the server (`deno run -A main.ts --tools tools`) through the SDK's own
// StdioClientTransport, so every byte on the wire is written and checked by the SDK:
// - `@modelcontextprotocol/client` 2.4.0 (the v2 SDK) speaking 2026-07-28: it first probes
//   with `server/discover` on a short-lived sibling process, then sends `tools/list` and
//   `tools/call` carrying the `_meta` envelope, and rejects results without `resultType`,
//   or a `tools/list` result without `ttlMs`/`cacheScope`.
// - `@modelcontextprotocol/sdk` 1.32.2 (the v1 SDK) speaking 2025-11-25: `initialize`,
//   `notifications/initialized`, then `tools/list` and `tools/call`; it checks
//   `structuredContent` against the tool's `outputSchema`.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client as ModernClient } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport as ModernStdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { EXAMPLE_TOOLS, exampleTools } from "./_examples.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** The example tools of tools/, without whatever else a user has put there. */
const TOOLS = await exampleTools();
const CLIENT_INFO = { name: "toolshed-interop-test", version: "1.0.0" };
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** How the SDKs are told to spawn the server; stderr is collected for failure messages. */
const serverParams = {
  command: Deno.execPath(),
  // The examples' programs are symlinks into tools/.
  args: ["run", "-A", MAIN, "--tools", TOOLS, "--allow-outside-symlinks"],
  // The SDK transports pass only HOME, PATH and a few others by default; Deno may need more
  // (DENO_DIR, proxies), so the child gets the test's environment.
  env: Deno.env.toObject(),
  stderr: "pipe" as const,
};

/** The part of either SDK's Client that these tests drive. */
interface ToolClient {
  listTools(): Promise<{ tools: unknown[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** A stdio transport of either SDK: both expose the child's stderr once piped. */
interface StderrSource {
  readonly stderr: { on(event: "data", listener: (chunk: Uint8Array) => void): unknown } | null;
}

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  assert.ok(
    typeof value === "object" && value !== null && !Array.isArray(value),
    `${what} is not an object: ${JSON.stringify(value)}`,
  );
  return value as Record<string, unknown>;
}

function asToolResult(value: unknown, what: string): ToolResult {
  const result = asRecord(value, what);
  assert.ok(
    Array.isArray(result.content),
    `${what} has no content array: ${JSON.stringify(value)}`,
  );
  return result as unknown as ToolResult;
}

/** The text of a result that must be exactly one text block. */
function onlyText(result: ToolResult, what: string): string {
  assert.equal(result.content.length, 1, `${what}: ${JSON.stringify(result)}`);
  const [block] = result.content;
  assert.equal(block.type, "text", `${what}: ${JSON.stringify(result)}`);
  assert.equal(typeof block.text, "string", `${what}: ${JSON.stringify(result)}`);
  return block.text as string;
}

async function call(
  client: ToolClient,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return asToolResult(await client.callTool({ name, arguments: args }), `${name} result`);
}

/** Whether a program is on the PATH (json_query answers with an error result without jq). */
async function onPath(program: string): Promise<boolean> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      if ((await Deno.stat(`${dir}/${program}`)).isFile) return true;
    } catch {
      // Not in this directory.
    }
  }
  return false;
}

/** Lists the example tools and calls each one, asserting the real results. */
async function exerciseEveryExampleTool(client: ToolClient): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => {
    const record = asRecord(tool, "tool");
    return [String(record.name), record];
  }));
  assert.deepEqual(
    [...byName.keys()].sort(),
    [...EXAMPLE_TOOLS],
    // The v2 client answers an empty list, without asking, when the server's capabilities lack `tools`.
    "tools/list names every example tool",
  );
  for (const [name, tool] of byName) {
    assert.equal(typeof tool.description, "string", `${name} has a description`);
    assert.notEqual(tool.description, "", `${name} has a non-empty description`);
    assert.equal(asRecord(tool.inputSchema, `${name} inputSchema`).type, "object");
  }
  assert.equal(
    asRecord(byName.get("word_stats")?.outputSchema, "word_stats outputSchema").type,
    "object",
  );

  const echo = await call(client, "echo", { text: "hello, stdio" });
  assert.notEqual(echo.isError, true, JSON.stringify(echo));
  assert.equal(onlyText(echo, "echo"), "hello, stdio");

  const stats = await call(client, "word_stats", { text: "The quick brown fox\njumps over it" });
  assert.notEqual(stats.isError, true, JSON.stringify(stats));
  const expected = { characters: 33, words: 7, lines: 2, longestWord: "quick" };
  assert.deepEqual(stats.structuredContent, expected);
  assert.deepEqual(JSON.parse(onlyText(stats, "word_stats")), expected);

  const quotient = await call(client, "divide", { dividend: 7, divisor: 2 });
  assert.notEqual(quotient.isError, true, JSON.stringify(quotient));
  assert.equal(onlyText(quotient, "divide"), "3.5");

  const byZero = await call(client, "divide", { dividend: 7, divisor: 0 });
  assert.equal(byZero.isError, true, JSON.stringify(byZero));
  assert.match(onlyText(byZero, "divide by zero"), /Cannot divide "7" by zero/);

  const waited = await call(client, "wait", { ms: 10 });
  assert.notEqual(waited.isError, true, JSON.stringify(waited));
  assert.match(onlyText(waited, "wait"), /^Waited \d+ ms$/);

  const digest = await call(client, "sha256", { text: "abc" });
  assert.notEqual(digest.isError, true, JSON.stringify(digest));
  assert.equal(
    onlyText(digest, "sha256"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );

  // Executable tools (a shell script and a Python program, each with a JSON sidecar).
  const query = await call(client, "json_query", {
    filter: "[.items[] | select(.price > 2) | .name]",
    json: { items: [{ name: "tea", price: 3 }, { name: "bun", price: 1.5 }] },
  });
  if (await onPath("jq")) {
    assert.notEqual(query.isError, true, JSON.stringify(query));
    assert.equal(onlyText(query, "json_query"), '["tea"]');
  } else {
    assert.equal(query.isError, true, JSON.stringify(query));
    assert.match(onlyText(query, "json_query without jq"), /json_query needs jq/);
  }

  const table = await call(client, "csv_to_json", { csv: 'name,note\nAda,"first, of all"\n' });
  assert.notEqual(table.isError, true, JSON.stringify(table));
  const rows = {
    columns: ["name", "note"],
    rows: [{ name: "Ada", note: "first, of all" }],
    rowCount: 1,
  };
  assert.deepEqual(table.structuredContent, rows);
  assert.deepEqual(JSON.parse(onlyText(table, "csv_to_json")), rows);

  const ragged = await call(client, "csv_to_json", { csv: "a,b\n1\n" });
  assert.equal(ragged.isError, true, JSON.stringify(ragged));
  assert.equal(
    onlyText(ragged, "csv_to_json ragged"),
    "Line 2 has 1 field(s), but the header has 2",
  );

  const invalid = await call(client, "divide", { dividend: 7 });
  assert.equal(invalid.isError, true, JSON.stringify(invalid));
  assert.match(
    invalid.content.map((block) => block.text ?? "").join("\n"),
    /divisor/,
    "the invalid-arguments error names the missing field",
  );
}

/**
 * Runs `body` with a connected client and always closes it (which ends the server process);
 * a failure carries the server's stderr.
 */
async function withConnected<
  T extends StderrSource,
  C extends { connect(transport: T): Promise<void>; close(): Promise<void> },
>(client: C, transport: T, body: (client: C) => Promise<void>): Promise<void> {
  const decoder = new TextDecoder();
  let stderr = "";
  transport.stderr?.on("data", (chunk) => stderr += decoder.decode(chunk));
  try {
    await client.connect(transport);
    await body(client);
  } catch (error) {
    if (error instanceof Error && stderr !== "") {
      error.message += `\n--- server stderr ---\n${stderr}`;
    }
    throw error;
  } finally {
    await client.close();
  }
}

function modernClient(mode: "auto" | { pin: string }) {
  return new ModernClient(CLIENT_INFO, { versionNegotiation: { mode } });
}

Deno.test("interop: the 2026-07-28 SDK client lists and calls every example tool", async () => {
  await withConnected(
    modernClient({ pin: MODERN }),
    new ModernStdioClientTransport(serverParams),
    async (client) => {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      await exerciseEveryExampleTool(client);
    },
  );
});

Deno.test("interop: the 2026-07-28 SDK client in auto mode negotiates 2026-07-28 through server/discover", async () => {
  await withConnected(
    modernClient("auto"),
    new ModernStdioClientTransport(serverParams),
    (client) => {
      // 'auto' silently falls back to `initialize` when the discover result is not
      // recognized, so the era proves that the server/discover answer was accepted.
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(client.getProtocolEra(), "modern");
      const discover = client.getDiscoverResult();
      assert.ok(discover?.supportedVersions.includes(MODERN), JSON.stringify(discover));
      assert.ok(
        client.getServerCapabilities()?.tools,
        "the server advertises the tools capability",
      );
      return Promise.resolve();
    },
  );
});

Deno.test("interop: the 2025-11-25 SDK client lists and calls every example tool", async () => {
  await withConnected(
    new LegacyClient(CLIENT_INFO),
    new LegacyStdioClientTransport(serverParams),
    (client) => exerciseEveryExampleTool(client),
  );
});

Deno.test("interop: the 2025-11-25 SDK client negotiates protocol version 2025-11-25", async () => {
  const transport = new LegacyStdioClientTransport(serverParams);
  // The v1 client has no getter for the negotiated version; it hands the `initialize`
  // result's protocolVersion to the transport's optional setProtocolVersion hook.
  const negotiated: string[] = [];
  Object.assign(transport, { setProtocolVersion: (version: string) => negotiated.push(version) });
  await withConnected(
    new LegacyClient(CLIENT_INFO),
    transport,
    (client) => {
      assert.deepEqual(negotiated, [LEGACY]);
      assert.ok(client.getServerVersion()?.name, "the server names itself in serverInfo");
      assert.ok(
        client.getServerCapabilities()?.tools,
        "the server advertises the tools capability",
      );
      return Promise.resolve();
    },
  );
});
