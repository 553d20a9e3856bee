// testServer serves a directory's mounted servers (adr/0071) as `toolshed serve` does, and its
// close() (or `await using`) stops their processes.
import assert from "node:assert/strict";
import { testServer } from "../mod.ts";
import { eventually, processesWith, serverDir, toolshedEntry } from "./_mounts.ts";

Deno.test("testServer calls a mounted tool, and `await using` stops its upstream", async () => {
  // The upstream serves a folder of this test's own, so its command line is this test's alone.
  const upstream = await serverDir({
    "tools/echo.ts": `export default {
  description: "Says what it was given",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  handler: (args: { text?: string }) => args.text ?? "",
};
`,
  });
  const dir = await serverDir({ "tools/shed.mcp.json": toolshedEntry(`${upstream}/tools`) });
  {
    await using server = await testServer({ dir });
    const result = await server.call("shed_echo", { text: "through the mount" });
    assert.equal(result.content[0].text, "through the mount");
    assert.deepEqual((await server.list()).map((tool) => tool.name), ["shed_echo"]);
    assert.equal((await processesWith(upstream)).length, 1, "the upstream runs");
  }
  await eventually(async () => (await processesWith(upstream)).length === 0, "the upstream gone");
});
