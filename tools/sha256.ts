// An async tool using a web platform API: no permissions needed.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  title: "SHA-256",
  description: "Returns the SHA-256 digest of a UTF-8 text, as lowercase hexadecimal.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to hash" } },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ text }: { text: string }) => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join(
      "",
    );
  },
} satisfies ToolDefinition<{ text: string }>;
