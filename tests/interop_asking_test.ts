// Tools that ask back, subscriptions and hot reload, with the official MCP TypeScript SDK
// clients on the other end of a real main.ts process, over stdio and over HTTP:
// - `@modelcontextprotocol/client` 2.4.0 (v2) speaking 2026-07-28: its multi-round driver
//   answers `input_required` through the client's own elicitation, sampling and roots
//   handlers and retries with `inputResponses` and the echoed `requestState`; its manual mode
//   (`allowInputRequired`) lets a test tamper with the state or leave an answer out; its
//   `listen()` opens `subscriptions/listen`.
// - `@modelcontextprotocol/sdk` 1.32.2 (v1) speaking 2025-11-25 in a session: the same tools
//   send it real `elicitation/create`, `sampling/createMessage` and `roots/list` requests,
//   and `--watch` edits reach it as unsolicited `list_changed` and `resources/updated`.
// The asking tools are the conformance fixture's (tests/conformance/fixture/tools/).
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
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./conformance/fixture/", import.meta.url));
const CLIENT_INFO = { name: "toolshed-asking-test", version: "1.0.0" };
const PINNED = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
const ASKING_CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };

const stdioParams = (args: string[]) => ({
  command: Deno.execPath(),
  args: ["run", "-A", MAIN, ...args],
  env: Deno.env.toObject(),
  stderr: "pipe" as const,
});

/** What the clients' handlers were asked, in order. */
type Asked = string[];

/** The answers a person and a model would give the fixture's questions. */
function elicitationAnswer(asked: Asked, params: { message: string; requestedSchema?: unknown }) {
  asked.push(`elicitation: ${params.message}`);
  const properties = Object.keys(
    (params.requestedSchema as { properties?: object } | undefined)?.properties ?? {},
  );
  const content: Record<string, string> = properties.includes("color")
    ? { color: "green" }
    : { name: "Alice" };
  return { action: "accept" as const, content };
}
function samplingAnswer(asked: Asked) {
  asked.push("sampling");
  return { role: "assistant" as const, content: { type: "text" as const, text: "42" }, model: "m" };
}
function rootsAnswer(asked: Asked) {
  asked.push("roots");
  return { roots: [{ uri: "file:///work/project", name: "project" }] };
}

/** The fixture's asking tools and what each says once it has its answers. */
const ASKING_CALLS: [tool: string, text: string][] = [
  ["test_input_required_result_multi_round", "Alice likes green"],
  ["test_input_required_result_sampling", "The model says: 42"],
  ["test_input_required_result_list_roots", "Roots: file:///work/project"],
];
const EXPECTED_ASKED = [
  "elicitation: What is your name?",
  "elicitation: Hello Alice, what is your favourite colour?",
  "sampling",
  "roots",
];

interface TextResult {
  content: { type: string; text?: string }[];
}
const textOf = (result: unknown) => (result as TextResult).content.map((c) => c.text).join("");

function modernAskingClient(asked: Asked): ModernClient {
  const client = new ModernClient(CLIENT_INFO, {
    ...PINNED,
    capabilities: ASKING_CAPABILITIES,
  });
  client.setRequestHandler(
    "elicitation/create",
    (request) =>
      elicitationAnswer(asked, request.params as { message: string; requestedSchema?: unknown }),
  );
  client.setRequestHandler("sampling/createMessage", () => samplingAnswer(asked));
  client.setRequestHandler("roots/list", () => rootsAnswer(asked));
  return client;
}

function legacyAskingClient(asked: Asked): LegacyClient {
  const client = new LegacyClient(CLIENT_INFO, { capabilities: ASKING_CAPABILITIES });
  client.setRequestHandler(
    ElicitRequestSchema,
    (request: { params: { message: string; requestedSchema?: unknown } }) =>
      elicitationAnswer(asked, request.params),
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => samplingAnswer(asked));
  client.setRequestHandler(ListRootsRequestSchema, () => rootsAnswer(asked));
  return client;
}

/** Calls every asking tool; each must finish with its answers, each question asked once. */
async function callAskingTools(
  client: { callTool(params: { name: string; arguments?: object }): Promise<unknown> },
  asked: Asked,
): Promise<void> {
  for (const [tool, text] of ASKING_CALLS) {
    assert.equal(textOf(await client.callTool({ name: tool, arguments: {} })), text, tool);
  }
  assert.deepEqual(asked, EXPECTED_ASKED);
}

Deno.test("interop: the 2026-07-28 SDK client answers multi-round elicitation, sampling and roots through its handlers over stdio", async () => {
  const asked: Asked = [];
  const client = modernAskingClient(asked);
  await client.connect(new ModernStdioTransport(stdioParams(["--dir", FIXTURE])));
  try {
    await callAskingTools(client, asked);
  } finally {
    await client.close();
  }
});

Deno.test("interop: a 2026-07-28 retry with tampered requestState is -32602, and one missing its answer is asked again", async () => {
  const client = new ModernClient(CLIENT_INFO, { ...PINNED, capabilities: ASKING_CAPABILITIES });
  await client.connect(new ModernStdioTransport(stdioParams(["--dir", FIXTURE])));
  const tool = "test_input_required_result_tampered_state";
  const manual = { allowInputRequired: true };
  try {
    const first = await client.callTool({ name: tool, arguments: {} }, manual) as {
      resultType?: string;
      inputRequests?: Record<string, { method: string }>;
      requestState?: string;
    };
    assert.equal(first.resultType, "input_required");
    assert.equal(first.inputRequests?.confirm?.method, "elicitation/create");
    assert.equal(typeof first.requestState, "string");
    const confirmed = { confirm: { action: "accept", content: { ok: true } } };

    // One character of the state changed: refused before the tool runs again.
    // A character inside the payload (the last one of a base64url string may carry only
    // padding bits, which would change nothing).
    const state = first.requestState!;
    const tampered = state.slice(0, 4) + (state[4] === "A" ? "B" : "A") + state.slice(5);
    await assert.rejects(
      client.callTool(
        { name: tool, arguments: {}, requestState: tampered, inputResponses: confirmed } as never,
        manual,
      ),
      (error: { code?: number; message?: string }) => {
        assert.equal(error.code, -32602, String(error.message));
        assert.match(String(error.message), /requestState/);
        return true;
      },
    );

    // The state alone, without the answer it asked for: the same question again.
    const again = await client.callTool(
      { name: tool, arguments: {}, requestState: first.requestState } as never,
      manual,
    ) as { resultType?: string; inputRequests?: object };
    assert.equal(again.resultType, "input_required");
    assert.deepEqual(Object.keys(again.inputRequests ?? {}), ["confirm"]);

    // And with it: done.
    const done = await client.callTool(
      {
        name: tool,
        arguments: {},
        requestState: first.requestState,
        inputResponses: confirmed,
      } as never,
      manual,
    );
    assert.equal(textOf(done), 'Confirmed: {"ok":true}');
  } finally {
    await client.close();
  }
});

Deno.test("interop: the same tools in a 2025-11-25 session send the SDK client real requests over stdio", async () => {
  const asked: Asked = [];
  const client = legacyAskingClient(asked);
  await client.connect(new LegacyStdioTransport(stdioParams(["--dir", FIXTURE])));
  try {
    await callAskingTools(client, asked);
  } finally {
    await client.close();
  }
});

Deno.test("interop: both SDK clients are asked over HTTP: input_required rounds, and real requests on the session's stream", async () => {
  const http = await spawnHttpServer(["--dir", FIXTURE]);
  try {
    const modernAsked: Asked = [];
    const modern = modernAskingClient(modernAsked);
    await modern.connect(new ModernHttpTransport(new URL(http.url)));
    try {
      await callAskingTools(modern, modernAsked);
    } finally {
      await modern.close();
    }
    const legacyAsked: Asked = [];
    const legacy = legacyAskingClient(legacyAsked);
    await legacy.connect(new LegacyHttpTransport(new URL(http.url)));
    try {
      await callAskingTools(legacy, legacyAsked);
    } finally {
      await legacy.close();
    }
  } finally {
    await http.stop();
  }
});

// ---------------------------------------------------------------- listen and hot reload

const TOOL = (text: string) =>
  `export default { description: "Says ${text}", inputSchema: { type: "object" }, ` +
  `handler: () => "${text}" };\n`;
const NOTES_URI = "toolshed:///notes.txt";

/** A server directory with one tool, one resource and one prompt, for a test to edit. */
async function scratchDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_asking_" });
  for (const folder of ["tools", "resources", "prompts"]) await Deno.mkdir(`${dir}/${folder}`);
  await Deno.writeTextFile(`${dir}/tools/hello.ts`, TOOL("hello"));
  await Deno.writeTextFile(`${dir}/resources/notes.txt`, "first\n");
  await Deno.writeTextFile(`${dir}/prompts/greet.md`, "---\ndescription: Greets\n---\nHello\n");
  return dir;
}

/** One edit of each kind: a tool and a prompt added, the resource's text changed. */
async function editEverything(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/tools/bye.ts`, TOOL("bye"));
  await Deno.writeTextFile(`${dir}/prompts/part.md`, "---\ndescription: Parts\n---\nBye\n");
  await Deno.writeTextFile(`${dir}/resources/notes.txt`, "second\n");
}

/** Notifications as they arrive, and a way to wait until some have. */
function arrivals<T>() {
  const seen: T[] = [];
  let wake = () => {};
  return {
    seen,
    add(item: T) {
      seen.push(item);
      wake();
    },
    /** Resolves once `enough(seen)` holds; the hang guard fails the test otherwise. */
    until(enough: (seen: T[]) => boolean, what: string): Promise<void> {
      const waiting = new Promise<void>((resolve) => {
        const check = () => enough(seen) ? resolve() : wake = check;
        check();
      });
      return withHangGuard(waiting, what);
    },
  };
}

type Kind =
  | "notifications/tools/list_changed"
  | "notifications/prompts/list_changed"
  | "notifications/resources/list_changed"
  | "notifications/resources/updated";
/** Each kind of change, and the one listen filter that asks for it. */
const FILTERS: Record<Kind, Record<string, boolean | string[]>> = {
  "notifications/tools/list_changed": { toolsListChanged: true },
  "notifications/prompts/list_changed": { promptsListChanged: true },
  "notifications/resources/list_changed": { resourcesListChanged: true },
  "notifications/resources/updated": { resourceSubscriptions: [NOTES_URI] },
};

/**
 * One listen per filter on one v2 client; an edit of each kind. Each kind of change must
 * arrive, tagged with the subscription whose filter asked for it, and no subscription may
 * carry a kind its filter did not ask for. Then the tool the edit added is served.
 */
async function listenToEachFilter(client: ModernClient, dir: string): Promise<void> {
  const notes = arrivals<{ kind: Kind; subscription: unknown; uri?: unknown }>();
  for (const kind of Object.keys(FILTERS) as Kind[]) {
    client.setNotificationHandler(kind, (notification) => {
      const params = notification.params as Record<string, unknown> | undefined;
      const meta = params?._meta as Record<string, unknown> | undefined;
      notes.add({
        kind,
        subscription: meta?.["io.modelcontextprotocol/subscriptionId"],
        uri: params?.uri,
      });
    });
  }
  const subscriptions = [];
  for (const filter of Object.values(FILTERS)) {
    const subscription = await client.listen(filter);
    assert.deepEqual(subscription.honoredFilter, filter, "the whole filter is honoured");
    subscriptions.push(subscription);
  }
  await editEverything(dir);
  await notes.until(
    (seen) => Object.keys(FILTERS).every((kind) => seen.some((note) => note.kind === kind)),
    "a notification of each kind",
  );
  const kindsBySubscription = new Map<unknown, Set<Kind>>();
  for (const note of notes.seen) {
    assert.notEqual(note.subscription, undefined, `${note.kind} is tagged with its subscription`);
    const kinds = kindsBySubscription.get(note.subscription) ?? new Set();
    kindsBySubscription.set(note.subscription, kinds.add(note.kind));
    if (note.kind === "notifications/resources/updated") assert.equal(note.uri, NOTES_URI);
  }
  assert.equal(kindsBySubscription.size, 4, JSON.stringify(notes.seen));
  for (const kinds of kindsBySubscription.values()) {
    assert.equal(kinds.size, 1, `one subscription carried ${[...kinds].join(" and ")}`);
  }

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ["bye", "hello"]);
  assert.equal(textOf(await client.callTool({ name: "bye", arguments: {} })), "bye");

  // Closing one subscription is the client's cancellation; the others end when it goes.
  await subscriptions[0].close();
  assert.equal(await subscriptions[0].closed, "local");
}

Deno.test("interop: the 2026-07-28 SDK client listens with each filter over stdio and sees --watch edits", async () => {
  const dir = await scratchDir();
  const client = new ModernClient(CLIENT_INFO, PINNED);
  await client.connect(new ModernStdioTransport(stdioParams(["--dir", dir, "--watch"])));
  try {
    await listenToEachFilter(client, dir);
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("interop: the 2026-07-28 SDK client listens with each filter over HTTP and sees --watch edits", async () => {
  const dir = await scratchDir();
  const http = await spawnHttpServer(["--dir", dir, "--watch"]);
  const client = new ModernClient(CLIENT_INFO, PINNED);
  try {
    await client.connect(new ModernHttpTransport(new URL(http.url)));
    await listenToEachFilter(client, dir);
  } finally {
    await client.close();
    await http.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("interop: a 2025-11-25 SDK client in a session is told of a --watch edit and calls the new tool", async () => {
  const dir = await scratchDir();
  const client = new LegacyClient(CLIENT_INFO);
  const notes = arrivals<string>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => notes.add("tools"));
  client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    ({ params }: { params: { uri: string } }) => notes.add(`updated ${params.uri}`),
  );
  await client.connect(new LegacyStdioTransport(stdioParams(["--dir", dir, "--watch"])));
  try {
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    await client.subscribeResource({ uri: NOTES_URI });
    await editEverything(dir);
    await notes.until(
      (seen) => seen.includes("tools") && seen.includes(`updated ${NOTES_URI}`),
      "tools/list_changed and resources/updated",
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name).sort(), ["bye", "hello"]);
    assert.equal(textOf(await client.callTool({ name: "bye", arguments: {} })), "bye");
    const { contents } = await client.readResource({ uri: NOTES_URI });
    assert.equal((contents[0] as { text?: string }).text, "second\n");
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
});
