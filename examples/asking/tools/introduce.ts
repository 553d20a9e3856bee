// tools/introduce.ts: two questions asked together are one round; each has a key of its own.
import type { ToolContext, ToolDefinition } from "@toolshed/toolshed";

/** Asks the user for one line of text; undefined when they decline, cancel or answer none. */
async function askText(ctx: ToolContext, key: string, message: string) {
  const answer = await ctx.request("elicitation/create", {
    message,
    requestedSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
  }, { key });
  const content = answer.content as { text?: unknown } | undefined;
  return answer.action === "accept" && typeof content?.text === "string" ? content.text : undefined;
}

export default {
  description: "Asks the user's name and city in one round, then introduces them",
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
  handler: async (_args, ctx) => {
    const [name, city] = await Promise.all([
      askText(ctx, "name", "What is your name?"),
      askText(ctx, "city", "Where do you live?"),
    ]);
    return `This is ${name ?? "someone"} from ${city ?? "somewhere"}.`;
  },
} satisfies ToolDefinition;
