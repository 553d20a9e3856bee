// tools/ask_name.ts: a call in two rounds for 2026-07-28 clients. The second round may reach
// another instance: it opens the first round's requestState with the key they share.
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
    const content = answer.content as { name?: unknown } | undefined;
    return answer.action === "accept" && typeof content?.name === "string"
      ? `Hello, ${content.name}!`
      : "Hello, stranger!";
  },
} satisfies ToolDefinition;
