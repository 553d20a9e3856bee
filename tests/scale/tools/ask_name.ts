// Scale-test fixture (tests/scale.ts): asks the client for a name (key "name"), then greets it.
// Over 2026-07-28 the first round answers input_required with a sealed requestState; the second
// round, with the answer, may land on any instance sharing the key ring (--redis).
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description: "Asks for a name, then greets it",
  inputSchema: { type: "object", properties: {} },
  handler: async (_args, ctx) => {
    const answer = await ctx.request("elicitation/create", {
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, { key: "name" });
    const content = answer.content as { name?: unknown } | undefined;
    return `Hello, ${typeof content?.name === "string" ? content.name : "stranger"}!`;
  },
} satisfies ToolDefinition;
