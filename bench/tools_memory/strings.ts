// Fixture for bench/memory.ts: `items` must be an array of strings, so an array of anything
// else fails on every item (the "error flood" shape).
import type { ToolDefinition } from "../../mod.ts";

export default {
  description: "Accepts an array of strings as items and says how many there are",
  inputSchema: {
    type: "object",
    properties: { items: { type: "array", items: { type: "string" } } },
    required: ["items"],
  },
  handler: ({ items }: { items: string[] }) => `${items.length} strings`,
} satisfies ToolDefinition<{ items: string[] }>;
