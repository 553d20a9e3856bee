// Toolsets through a real main.ts and the official SDK client (@modelcontextprotocol/client
// 2.4.0, speaking 2026-07-28): connected to `/mcp/<set>`, with the `Mcp-Toolsets` header, to a
// server started with `--read-only`, and over stdio with `--toolsets`, it sees exactly what it
// chose (adr/0045), and a tool outside it is unknown. The server is examples/toolsets.
import { deepStrictEqual, match, ok } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const DIR = fileURLToPath(new URL("../examples/toolsets", import.meta.url));
const CLIENT_INFO = { name: "toolshed-toolsets-test", version: "1.0.0" };

/** main.ts --http on a free port serving examples/toolsets with `flags`, until closed. */
async function startHttp(flags: string[] = []) {
  const server = await spawnHttpServer(["--dir", DIR, ...flags], {
    npm_lifecycle_event: "",
    npm_config_user_agent: "",
    INIT_CWD: "",
  });
  return { url: server.url, close: () => server.stop() };
}

/** What the client sees: the names listed, and what calling a tool outside them answers. */
async function seen(client: Client, outside: string): Promise<string[]> {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name).sort();
  const refused = await client.callTool({ name: outside, arguments: {} }).then(
    (result) => JSON.stringify(result),
    (error: Error) => error.message,
  );
  match(refused, new RegExp(`Unknown tool: "${outside}"`));
  return names;
}

async function withClient(
  transport: StreamableHTTPClientTransport | StdioClientTransport,
  use: (client: Client) => Promise<void>,
): Promise<void> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
  try {
    await withHangGuard(client.connect(transport), "the connection");
    await use(client);
  } finally {
    await client.close();
  }
}

Deno.test("interop: the SDK client connected to /mcp/<set> sees exactly that set and the top-level tools", async () => {
  const http = await startHttp();
  try {
    await withClient(
      new StreamableHTTPClientTransport(new URL(`${http.url}/issues`)),
      async (client) => {
        ok(client.getNegotiatedProtocolVersion() === "2026-07-28");
        deepStrictEqual(await seen(client, "list_repos"), ["close_issue", "list_issues", "whoami"]);
        const result = await client.callTool({ name: "list_issues", arguments: {} });
        deepStrictEqual(result.content, [
          { type: "text", text: "#1 Crash on empty input\n#2 Docs typo" },
        ]);
      },
    );
    // The plain endpoint still serves every set.
    await withClient(new StreamableHTTPClientTransport(new URL(http.url)), async (client) => {
      const { tools } = await client.listTools();
      deepStrictEqual(tools.map((tool) => tool.name).sort(), [
        "close_issue",
        "create_repo",
        "list_issues",
        "list_repos",
        "whoami",
      ]);
    });
  } finally {
    await http.close();
  }
});

Deno.test("interop: the SDK client sending Mcp-Toolsets sees that set", async () => {
  const http = await startHttp();
  try {
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { "Mcp-Toolsets": "repos" } },
    });
    await withClient(transport, async (client) => {
      deepStrictEqual(await seen(client, "list_issues"), ["create_repo", "list_repos", "whoami"]);
    });
  } finally {
    await http.close();
  }
});

Deno.test("interop: the SDK client of a server started with --read-only sees only readOnlyHint tools", async () => {
  const http = await startHttp(["--read-only"]);
  try {
    await withClient(new StreamableHTTPClientTransport(new URL(http.url)), async (client) => {
      deepStrictEqual(await seen(client, "create_repo"), ["list_issues", "list_repos", "whoami"]);
    });
  } finally {
    await http.close();
  }
});

Deno.test("interop: the SDK client over stdio of main.ts --toolsets repos sees that set", async () => {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "--dir", DIR, "--toolsets", "repos"],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  await withClient(transport, async (client) => {
    deepStrictEqual(await seen(client, "close_issue"), ["create_repo", "list_repos", "whoami"]);
  });
});
