// tools/countdown.ts: a long call whose progress must reach the client through the proxy as it
// is sent (an event stream), not when the call ends.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Counts down from the given number of seconds, reporting each second",
  inputSchema: {
    type: "object",
    properties: { seconds: { type: "integer", minimum: 1, maximum: 3600 } },
    required: ["seconds"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  handler: async ({ seconds }, ctx) => {
    for (let left = seconds; left > 0; left--) {
      ctx.progress(seconds - left, seconds, `${left} s left`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 1000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(ctx.signal.reason);
        }, { once: true });
      });
    }
    return "Lift-off";
  },
} satisfies ToolDefinition<{ seconds: number }>;
