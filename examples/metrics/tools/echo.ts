// tools/echo.ts
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Returns the given text unchanged",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  handler: ({ text }) => text,
} satisfies ToolDefinition<{ text: string }>;
