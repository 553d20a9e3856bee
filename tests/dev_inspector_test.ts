// The official MCP Inspector (2.12.0, from .cache/inspector/, which tests/inspector/install.ts
// fills and .ci/run runs) against `toolshed dev`: its CLI lists and calls tools before and after
// an edit with no restart of dev, and `toolshed dev --inspector` starts its web UI, whose backend's
// one connection to dev lives through an edit, and stops it with dev.
import assert from "node:assert/strict";
import { helloCopy, spawnDev } from "./_dev_server.ts";
import { withHangGuard } from "./_server_process.ts";
import { INSPECTOR_COMMAND, inspectorCli, inspectorProblem } from "./_inspector.ts";

/** In CI the Inspector must be there (.ci/run installs it): a missing one fails there. */
const MISSING = await inspectorProblem();
const IN_CI = Deno.env.get("CI") === "true";
const NOTE = MISSING === undefined || IN_CI
  ? ""
  : ` (NOT RUN HERE: the MCP Inspector is missing, ${MISSING})`;

const SHOUT = `export default {
  description: "Shouts",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  handler: ({ text }: { text: string }) => text.toUpperCase(),
};
`;

/** The names tools/list gave, from the Inspector CLI's JSON. */
async function listedNames(endpoint: string, storage: string): Promise<string[]> {
  const { code, stdout, stderr } = await inspectorCli([
    endpoint,
    "--transport",
    "http",
    "--method",
    "tools/list",
  ], storage);
  assert.equal(code, 0, stderr);
  return (JSON.parse(stdout).tools as { name: string }[]).map((tool) => tool.name).sort();
}

/** A tools/call through the Inspector CLI: the result's first text. */
async function calledText(
  endpoint: string,
  name: string,
  args: string[],
  storage: string,
): Promise<string> {
  const { code, stdout, stderr } = await inspectorCli([
    endpoint,
    "--transport",
    "http",
    "--method",
    "tools/call",
    "--tool-name",
    name,
    ...args.flatMap((arg) => ["--tool-arg", arg]),
  ], storage);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout).content[0].text;
}

Deno.test({
  name: `The Inspector CLI lists and calls tools of toolshed dev before and after an edit${NOTE}`,
  ignore: NOTE !== "",
  async fn() {
    assert.equal(MISSING, undefined, MISSING);
    const dir = await helloCopy();
    const storage = await Deno.makeTempDir({ prefix: "toolshed_inspector_" });
    const dev = await spawnDev(dir, ["--no-types"]);
    const endpoint = `${dev.origin}/mcp`;
    try {
      assert.deepEqual(await listedNames(endpoint, storage), ["add"]);
      assert.equal(await calledText(endpoint, "add", ["a=2", "b=3"], storage), "5");
      await Deno.writeTextFile(`${dir}/tools/shout.ts`, SHOUT);
      await withHangGuard(
        (async () => {
          // Bounded by the guard: the reload is a 100 ms debounce away.
          while (!dev.stderr().includes("toolshed dev: reloaded")) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        })(),
        "the reload of the new tool",
      );
      assert.deepEqual(await listedNames(endpoint, storage), ["add", "shout"]);
      assert.equal(await calledText(endpoint, "shout", ["text=hi"], storage), "HI");
      assert.ok(dev.alive(), "dev never restarted");
    } finally {
      const { code } = await dev.stop();
      assert.equal(code, 0);
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(storage, { recursive: true });
    }
  },
});

/** A free loopback port, for the Inspector's web UI (which refuses port 0). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The Inspector's web backend (its remote API), authenticated with its token. */
function inspectorApi(base: string, token: string) {
  const headers = {
    "content-type": "application/json",
    "x-mcp-remote-auth": `Bearer ${token}`,
  };
  return {
    async post(path: string, body: unknown): Promise<Record<string, unknown>> {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      assert.equal(response.status, 200, JSON.stringify(answer));
      return answer;
    },
    /** The messages its connection receives from the server (GET /api/mcp/events). */
    async messages(sessionId: string, stop: AbortSignal) {
      const response = await fetch(`${base}/api/mcp/events?sessionId=${sessionId}`, {
        headers,
        signal: stop,
      });
      assert.equal(response.status, 200);
      return sseData(response.body!);
    },
  };
}

/** The `data:` of each event of an SSE body, parsed, as they arrive. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const data = buffer.slice(0, end).split("\n").filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart()).join("\n");
      buffer = buffer.slice(end + 2);
      if (data !== "") yield JSON.parse(data);
    }
  }
}

/** The JSON-RPC messages inside the Inspector's events (it wraps each one it relays). */
function jsonRpcIn(event: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown) => {
    if (value === null || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    if (record.jsonrpc === "2.0") found.push(record);
    else for (const inner of Object.values(record)) visit(inner);
  };
  visit(event);
  return found;
}

Deno.test({
  name:
    `toolshed dev --inspector starts the Inspector, whose connection lives through an edit, and stops it${NOTE}`,
  ignore: NOTE !== "",
  async fn() {
    assert.equal(MISSING, undefined, MISSING);
    const dir = await helloCopy();
    const port = freePort();
    const storage = await Deno.makeTempDir({ prefix: "toolshed_inspector_" });
    const token = crypto.randomUUID().replaceAll("-", "");
    const dev = await spawnDev(dir, ["--no-types", "--inspector"], {
      TOOLSHED_INSPECTOR: INSPECTOR_COMMAND,
      MCP_AUTO_OPEN_ENABLED: "false",
      CLIENT_PORT: String(port),
      MCP_SANDBOX_PORT: "0",
      MCP_INSPECTOR_API_TOKEN: token,
      MCP_INSPECTOR_SECRET_STORE: "memory",
      // What it would keep in ~/.mcp-inspector (a catalog, its state) goes to a scratch folder.
      MCP_STORAGE_DIR: storage,
    });
    const base = `http://127.0.0.1:${port}`;
    const stop = new AbortController();
    try {
      // Its web server answers once it is up (bounded by the guard).
      await withHangGuard(
        (async () => {
          for (;;) {
            const up = await fetch(`${base}/`).then((response) => {
              response.body?.cancel();
              return response.ok;
            }, () => false);
            if (up) return;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        })(),
        "the Inspector's web UI",
        60_000,
      );
      assert.ok(
        dev.stderr().some((line) => line.startsWith("toolshed dev: inspector: ")),
        dev.stderr().join("\n"),
      );

      // The Inspector's backend connects to dev, as its web UI has it do.
      const api = inspectorApi(base, token);
      const { sessionId } = await api.post("/api/mcp/connect", {
        config: { type: "streamable-http", url: `${dev.origin}/mcp` },
      }) as { sessionId: string };
      const messages = await api.messages(sessionId, stop.signal);
      const answerTo = async (id: number) => {
        const found = (async () => {
          for (;;) {
            const next = await messages.next();
            if (next.done) throw new Error(`The Inspector's events ended before answer ${id}`);
            const answer = jsonRpcIn(next.value).find((message) => message.id === id);
            if (answer !== undefined) return answer;
          }
        })();
        return await withHangGuard(found, `the answer to request ${id}`);
      };
      const send = (message: Record<string, unknown>) =>
        api.post("/api/mcp/send", { sessionId, message });
      await send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "toolshed-dev-inspector-test", version: "1.0.0" },
        },
      });
      assert.ok((await answerTo(1)).result !== undefined);
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
      const before = (await answerTo(2)).result as { tools: { name: string }[] };
      assert.deepEqual(before.tools.map((tool) => tool.name), ["add"]);

      await Deno.writeTextFile(`${dir}/tools/shout.ts`, SHOUT);
      await withHangGuard(
        (async () => {
          while (!dev.stderr().includes("toolshed dev: reloaded")) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        })(),
        "the reload of the new tool",
      );
      // The same connection of the Inspector's, never reconnected, sees the new tool.
      await send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });
      const after = (await answerTo(3)).result as { tools: { name: string }[] };
      assert.deepEqual(after.tools.map((tool) => tool.name).sort(), ["add", "shout"]);
      await send({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "shout", arguments: { text: "hi" } },
      });
      const called = (await answerTo(4)).result as { content: { text: string }[] };
      assert.equal(called.content[0].text, "HI");
    } finally {
      stop.abort();
      const { code, stderr } = await dev.stop();
      assert.equal(code, 0, stderr.join("\n"));
      // Stopped with dev: nothing answers on its port any more.
      await assert.rejects(
        Deno.connect({ hostname: "127.0.0.1", port }),
        Deno.errors.ConnectionRefused,
      );
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(storage, { recursive: true });
    }
  },
});
