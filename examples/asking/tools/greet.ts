// tools/greet.ts
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Asks the user's name, then greets them",
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    const answer = await ctx.request("elicitation/create", {
      message: "What is your name?",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      },
    });
    // What the client answered is its own: check it before using it.
    const content = answer.content as { name?: unknown } | undefined;
    return answer.action === "accept" && typeof content?.name === "string"
      ? `Hello, ${content.name}!`
      : "Hello, stranger!";
  },
} satisfies ToolDefinition;
