// Mounted servers (adr/0071) end to end: mount files in a server directory, real upstreams
// (the reference server over stdio, toolshed itself), the front served as toolshed serves.
import assert from "node:assert/strict";
import { composeForTest } from "./_in_process.ts";
import { recorder } from "./_diagnostics.ts";
import { cacheEverything, everythingEntry, serverDir, toolshedEntry } from "./_mounts.ts";
import type { JsonObject } from "../lib/util/json.ts";

const HELLO = `export default {
  description: "Says hello",
  inputSchema: { type: "object" },
  handler: () => "hello",
};
`;

function namesOf(response: JsonObject): string[] {
  const result = response.result as { tools: { name: string }[] };
  return result.tools.map((tool) => tool.name);
}

function textOf(response: JsonObject): string {
  const result = response.result as { content: { text?: string }[]; isError?: boolean };
  return result.content.map((block) => block.text ?? "").join("\n");
}

Deno.test("a mounted server's tools join the directory's under its stem, pinned at first use", async () => {
  await cacheEverything();
  const dir = await serverDir({
    "tools/hello.ts": HELLO,
    "tools/shed.mcp.json": toolshedEntry(),
    "tools/everything.mcp.json": everythingEntry(),
  });
  const diagnostics = recorder();
  const server = await composeForTest({ dir, diagnostics });
  try {
    const names = namesOf(await server.request("tools/list"));
    assert.ok(names.includes("hello"), names.join());
    assert.ok(names.includes("shed_echo"), names.join());
    assert.ok(names.includes("shed_wait_for_cancel"), names.join());
    assert.ok(names.includes("everything_echo"), names.join());
    const shed = server.registry.current().tools.byKey.get("shed_echo")!;
    assert.equal(shed.toolset, "shed");
    assert.match(shed.file, /tools\/shed\.mcp\.json$/);

    const echoed = await server.request("tools/call", {
      name: "shed_echo",
      arguments: { text: "hi" },
    });
    assert.equal(textOf(echoed), "hi");
    const everything = await server.request("tools/call", {
      name: "everything_echo",
      arguments: { message: "over the hop" },
    });
    assert.match(textOf(everything), /over the hop/);

    const pins = JSON.parse(await Deno.readTextFile(`${dir}/tools/shed.pins.json`));
    assert.deepEqual(Object.keys(pins.tools).sort(), ["echo", "wait_for_cancel"]);
    assert.match(diagnostics.text(), /"[^"]*shed\.mcp\.json" had no pins: wrote 2 tool definition/);
  } finally {
    await server.close();
  }
});
