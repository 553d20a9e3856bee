// tools/slow_job.ts: runs as a task for clients that declare the tasks extension. With --redis on
// every instance, any instance answers tasks/get, tasks/update and tasks/cancel for it.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Works for the given number of seconds, then says it is done",
  inputSchema: {
    type: "object",
    properties: { seconds: { type: "number", minimum: 0, maximum: 3600 } },
    required: ["seconds"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  task: "optional",
  handler: async ({ seconds }, ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, seconds * 1000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      }, { once: true });
    });
    return `Done after ${seconds} s`;
  },
} satisfies ToolDefinition<{ seconds: number }>;
