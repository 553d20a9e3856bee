// The README's tool example is a real tool: it loads and answers as the README says.
import { deepStrictEqual } from "node:assert/strict";
import { callTool } from "../lib/tool_call.ts";
import { loadTools } from "../lib/tool_loader.ts";

Deno.test("README: the tools/add.ts example loads and adds two numbers", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const example = readme.match(/```ts ignore\n(\/\/ tools\/add\.ts\n[\s\S]*?)```/);
  if (!example) throw new Error("README has no tools/add.ts example");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/add.ts`, example[1]);
    const registry = await loadTools(dir);
    deepStrictEqual(registry.tools.map((tool) => tool.name), ["add"]);
    const result = await callTool(registry.byName.get("add")!, { a: 2, b: 3 }, {
      controller: new AbortController(),
      defaultTimeoutMs: 10_000,
      context: {
        requestId: 1,
        protocolVersion: "2026-07-28",
        clientInfo: undefined,
        clientCapabilities: {},
      },
    });
    deepStrictEqual(result, { content: [{ type: "text", text: "5" }] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
