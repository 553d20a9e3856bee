// examples/embedding: what its README promises. app.ts and the tools type-check; run as a
// process, the app serves its own page at / and toolshed at /mcp, where the official SDK client
// (v2, 2026-07-28) calls `shout`; SIGTERM drains and ends it with 0.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { withHangGuard } from "../_server_process.ts";
import { freePort, ROOT, waitForPort } from "./_example.ts";

Deno.test("examples/embedding: the app serves its page at / and the tools at /mcp, and drains on SIGTERM", async () => {
  const port = freePort();
  const app = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "examples/embedding/app.ts"],
    cwd: ROOT,
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(app.stderr).text();
  try {
    await waitForPort(port, "examples/embedding/app.ts");
    const page = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await page.text(), "The app's own page; MCP is served at /mcp\n");
    const client = new Client({ name: "embedding-example-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["shout"]);
      const result = await client.callTool({ name: "shout", arguments: { text: "hello" } });
      assert.deepEqual(result.content, [{ type: "text", text: "HELLO" }]);
    } finally {
      await client.close();
    }
  } finally {
    app.kill("SIGTERM");
  }
  const status = await withHangGuard(app.status, "the app exiting on SIGTERM");
  assert.equal(status.code, 0, await stderr);
});
