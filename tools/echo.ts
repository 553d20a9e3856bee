// A plain-text tool: whatever string the handler returns becomes one text block.
// It needs no import from toolshed: `import type` from "@toolshed/toolshed" (mapped in
// deno.json, so it resolves wherever a tools directory lives) is erased at run time.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  title: "Echo",
  description: "Returns the given text unchanged. Useful to check that the server answers.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to send back" } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ text }: { text: string }) => text,
} satisfies ToolDefinition<{ text: string }>;
