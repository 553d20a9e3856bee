// tools/greet.ts: a tool of the directory's own, served beside the mounted ones.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Greets someone by name",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
  annotations: { readOnlyHint: true },
  handler: ({ name }: { name: string }) => `Hello, ${name}!`,
} satisfies ToolDefinition<{ name: string }>;
