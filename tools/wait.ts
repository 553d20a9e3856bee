// A long-running tool that honours cancellation: it waits on `ctx.signal`, so a
// `notifications/cancelled` (or the server's timeout or shutdown) stops it at once.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  title: "Wait",
  description:
    "Waits the given number of milliseconds (at most 50 seconds), then says how long it waited.",
  inputSchema: {
    type: "object",
    properties: {
      ms: { type: "integer", minimum: 0, maximum: 50_000, description: "How long to wait" },
    },
    required: ["ms"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async ({ ms }: { ms: number }, ctx) => {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      }, { once: true });
    });
    return `Waited ${Math.round(performance.now() - started)} ms`;
  },
} satisfies ToolDefinition<{ ms: number }>;
