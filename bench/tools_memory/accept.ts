// Fixture for bench/memory.ts: takes any value as `items` and answers with a short string,
// so that what the bench measures is the request, not the answer.
import type { ToolDefinition } from "../../mod.ts";

export default {
  description: "Accepts any value as items and says how big it is",
  inputSchema: {
    type: "object",
    properties: { items: {} },
    required: ["items"],
  },
  // Counting an object's keys would allocate an array of them, so objects are only named.
  handler: ({ items }: { items: unknown }) =>
    Array.isArray(items)
      ? `array of length ${items.length}`
      : typeof items === "string"
      ? `string of length ${items.length}`
      : typeof items,
} satisfies ToolDefinition<{ items: unknown }>;
