// Scale-test fixture (tests/scale.ts, check l.b): a tool of the mounted upstream that the mount
// file limits to 3 calls a minute per caller (`rateLimit` in its "toolshed" block).
import type { ToolDefinition } from "../../../../mod.ts";

export default {
  description: "Says what it was given",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", maxLength: 200 } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  handler: ({ text }) => text,
} satisfies ToolDefinition;
