import { deepStrictEqual, throws } from "node:assert/strict";
import { createToolLister, encodeCursor } from "../lib/primitives/tool_list.ts";
import { checkDefinition, type Registry } from "../lib/primitives/tools.ts";

function registryOf(names: string[]): Registry {
  const tools = names.map((name) =>
    checkDefinition(
      { description: name, inputSchema: { type: "object" }, handler: () => "" },
      name,
      name,
    )
  );
  return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])) };
}

const describe = (tool: { name: string }) => ({ name: tool.name });
const names = (page: { tools: Record<string, unknown>[] }) => page.tools.map((tool) => tool.name);

Deno.test("createToolLister() pages through every tool exactly once", () => {
  const list = createToolLister(registryOf(["a", "b", "c", "d", "e"]), 2);
  const first = list(undefined, "k", describe);
  deepStrictEqual(names(first), ["a", "b"]);
  const second = list(first.nextCursor, "k", describe);
  deepStrictEqual(names(second), ["c", "d"]);
  const last = list(second.nextCursor, "k", describe);
  deepStrictEqual(last, { tools: [{ name: "e" }] });
});

Deno.test("createToolLister() starts at the beginning for an empty-string cursor", () => {
  deepStrictEqual(names(createToolLister(registryOf(["a"]), 5)("", "k", describe)), ["a"]);
});

Deno.test("createToolLister() continues after the named tool even if it no longer exists", () => {
  const list = createToolLister(registryOf(["a", "c", "e"]), 5);
  deepStrictEqual(names(list(encodeCursor("b"), "k", describe)), ["c", "e"]);
  deepStrictEqual(names(list(encodeCursor("z"), "k", describe)), []);
});

Deno.test("createToolLister() rejects a cursor it did not issue with -32602", () => {
  const list = createToolLister(registryOf(["a"]), 5);
  for (const cursor of ["%%%", btoa("before:a"), 3, null, {}]) {
    throws(() => list(cursor, "k", describe), { code: -32602, message: "Invalid cursor" });
  }
});
