// Interoperability of resources, prompts, completion, logs and progress with the official
// MCP TypeScript SDK clients, over a real stdio pipe (main.ts as a process) and over HTTP:
// - `@modelcontextprotocol/client` 2.4.0 (v2) speaking 2026-07-28, which rejects results
//   without `resultType` and lists and reads without `ttlMs`/`cacheScope`;
// - `@modelcontextprotocol/sdk` 1.32.2 (v1) speaking 2025-11-25 in a session.
// The server directory is tests/fixtures/server (a tool that reports progress and logs, file
// and module resources, a template, Markdown and module prompts).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport as ModernStdioTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { serveForTest } from "./_http_server.ts";
import { loadServerQuietly } from "./_in_process.ts";
import { recorder } from "./_diagnostics.ts";
import { serverFolders } from "../lib/discovery/server_dir.ts";
import { resolveSettings } from "../lib/settings/rules.ts";

/** The settings a server has when nothing is said. */
const DEFAULTS = resolveSettings({});

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const SERVER_DIR = fileURLToPath(new URL("./fixtures/server/", import.meta.url));
const CLIENT_INFO = { name: "toolshed-interop-test", version: "1.0.0" };

const stdioParams = {
  command: Deno.execPath(),
  args: ["run", "-A", MAIN, "--dir", SERVER_DIR],
  env: Deno.env.toObject(),
  stderr: "pipe" as const,
};

/** What both SDK clients offer for these primitives (their own types differ in detail). */
interface PrimitiveClient {
  listResources(): Promise<{ resources: { uri: string; name: string; mimeType?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>;
  listPrompts(): Promise<{ prompts: { name: string; description?: string }[] }>;
  getPrompt(
    params: { name: string; arguments?: Record<string, string> },
  ): Promise<{ messages: { role: string; content: Record<string, unknown> }[] }>;
  complete(params: {
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

/** Lists, reads, gets and completes everything the fixture serves, asserting real values. */
async function exercisePrimitives(client: PrimitiveClient): Promise<void> {
  const { resources } = await client.listResources();
  const uris = resources.map((resource) => resource.uri);
  assert.ok(uris.includes("toolshed:///readme.txt"), JSON.stringify(uris));
  assert.ok(uris.includes("toolshed:///docs/Getting%20Started.md"), JSON.stringify(uris));
  assert.ok(!uris.some((uri) => uri.includes("_hidden")), "files starting with _ are not served");
  const pixel = resources.find((resource) => resource.uri === "toolshed:///pixel.png");
  assert.equal(pixel?.mimeType, "image/png");

  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), ["notes://{topic}"]);

  const text = await client.readResource({ uri: "toolshed:///readme.txt" });
  assert.equal(text.contents.length, 1);
  assert.equal(text.contents[0].text, "Plain text, read afresh at every resources/read.\n");
  const binary = await client.readResource({ uri: "toolshed:///pixel.png" });
  const bytes = await Deno.readFile(`${SERVER_DIR}resources/pixel.png`);
  assert.equal(binary.contents[0].blob, btoa(String.fromCharCode(...bytes)));
  const note = await client.readResource({ uri: "notes://mcp" });
  assert.equal(note.contents[0].text, "MCP connects models to tools, resources and prompts.");
  await assert.rejects(() => client.readResource({ uri: "notes://cobol" }), /not found/i);

  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((prompt) => prompt.name), ["broken", "greet", "review"]);
  const greeting = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
  assert.deepEqual(greeting.messages, [{
    role: "user",
    content: { type: "text", text: "Greet Ada in a  tone. Keep {{braces}} as they are." },
  }]);
  const review = await client.getPrompt({ name: "review", arguments: { change: "+ x" } });
  assert.deepEqual(review.messages.map((message) => message.role), ["user", "assistant"]);
  await assert.rejects(() => client.getPrompt({ name: "greet", arguments: {} }), /name/);

  const tones = await client.complete({
    ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "tone", value: "c" },
  });
  assert.deepEqual(tones.completion.values, ["cheerful", "calm", "Curious"]);
  const topics = await client.complete({
    ref: { type: "ref/resource", uri: "notes://{topic}" },
    argument: { name: "topic", value: "den" },
  });
  assert.deepEqual(topics.completion.values, ["deno", "denormalize"]);
}

interface Reported {
  progress: number[];
  logs: { level: string; data: unknown }[];
}

/**
 * Calls the fixture's `report` tool with a progress callback (the v2 client takes its options
 * second, the v1 client third, after a result schema); the log handler is the caller's.
 */
async function callReport(
  client: { callTool(...args: unknown[]): Promise<unknown> },
  sdk: "v1" | "v2",
  reported: Reported,
  meta?: Record<string, unknown>,
): Promise<void> {
  const params = {
    name: "report",
    arguments: { steps: 2, pauseMs: 30 },
    ...(meta ? { _meta: meta } : {}),
  };
  const options = {
    onprogress: ({ progress }: { progress: number }) => reported.progress.push(progress),
  };
  const result =
    await (sdk === "v2"
      ? client.callTool(params, options)
      : client.callTool(params, undefined, options)) as { content: { text?: string }[] };
  assert.equal(result.content[0].text, "Reported 2 step(s)");
}

async function withClient<
  C extends { connect(transport: never): Promise<void>; close(): Promise<void> },
>(client: C, transport: unknown, body: (client: C) => Promise<void>): Promise<void> {
  await client.connect(transport as never);
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

/** Drives the v2 client: every primitive, then `report` with a log level in its `_meta`. */
async function exerciseModern(client: ModernClient, reported: Reported): Promise<void> {
  await exercisePrimitives(client as unknown as PrimitiveClient);
  client.setNotificationHandler("notifications/message", (notification) => {
    const params = notification.params as { level: string; data: unknown };
    reported.logs.push({ level: params.level, data: params.data });
  });
  await callReport(client as never, "v2", reported, {
    "io.modelcontextprotocol/logLevel": "error",
  });
}

/** Drives the v1 client: every primitive, `logging/setLevel` warning, then `report`. */
async function exerciseLegacy(client: LegacyClient, reported: Reported): Promise<void> {
  await exercisePrimitives(client as unknown as PrimitiveClient);
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    ({ params }: { params: { level: string; data: unknown } }) => {
      reported.logs.push({ level: params.level, data: params.data });
    },
  );
  await client.setLoggingLevel("warning");
  await callReport(client as never, "v1", reported);
}

const MODERN_LOGS = [{ level: "error", data: "a error message" }];
const LEGACY_LOGS = [
  { level: "warning", data: "a warning message" },
  { level: "error", data: "a error message" },
];

Deno.test("interop: the 2026-07-28 SDK client reads, gets, completes and receives logs and progress over stdio", async () => {
  const reported: Reported = { progress: [], logs: [] };
  await withClient(
    new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
    new ModernStdioTransport(stdioParams),
    (client) => exerciseModern(client, reported),
  );
  assert.deepEqual(reported.logs, MODERN_LOGS);
  assert.deepEqual(reported.progress, [1, 2]);
});

Deno.test("interop: the 2025-11-25 SDK client reads, gets, completes and receives logs and progress over stdio", async () => {
  const reported: Reported = { progress: [], logs: [] };
  await withClient(
    new LegacyClient(CLIENT_INFO),
    new LegacyStdioTransport(stdioParams),
    (client) => exerciseLegacy(client, reported),
  );
  assert.deepEqual(reported.logs, LEGACY_LOGS);
  assert.deepEqual(reported.progress, [1, 2]);
});

/** An HTTP server in this process serving the fixture server directory. */
async function serveFixtureOverHttp() {
  const diagnostics = recorder();
  const loaded = await loadServerQuietly(serverFolders({ dir: SERVER_DIR }), {
    ...DEFAULTS,
    skipExecutables: false,
    diagnostics,
  });
  return serveForTest(loaded.tools.tools, {}, { ...loaded, middleware: [] });
}

Deno.test("interop: the 2026-07-28 SDK client reads, gets, completes and receives logs and progress over HTTP", async () => {
  const http = await serveFixtureOverHttp();
  const reported: Reported = { progress: [], logs: [] };
  try {
    await withClient(
      new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
      new ModernHttpTransport(new URL(http.url)),
      (client) => exerciseModern(client, reported),
    );
  } finally {
    await http.close();
  }
  assert.deepEqual(reported.logs, MODERN_LOGS);
  assert.deepEqual(reported.progress, [1, 2]);
});

Deno.test("interop: the 2025-11-25 SDK client reads, gets, completes and receives logs and progress in an HTTP session", async () => {
  const http = await serveFixtureOverHttp();
  const reported: Reported = { progress: [], logs: [] };
  try {
    await withClient(
      new LegacyClient(CLIENT_INFO),
      new LegacyHttpTransport(new URL(http.url)),
      (client) => exerciseLegacy(client, reported),
    );
  } finally {
    await http.close();
  }
  assert.deepEqual(reported.logs, LEGACY_LOGS);
  assert.deepEqual(reported.progress, [1, 2]);
});
