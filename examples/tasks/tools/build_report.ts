// tools/build_report.ts: a call that may run for long. With task: "optional", a client that
// declares the tasks extension gets a task at once and follows it; any other gets a plain call.
import type { ToolDefinition } from "@toolshed/toolshed";

/** Waits `ms`, or rejects as soon as `signal` aborts (tasks/cancel, the timeout, shutdown). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

export default {
  description: "Builds a report in a number of steps, saying how far it got",
  inputSchema: {
    type: "object",
    properties: {
      steps: { type: "integer", minimum: 1, maximum: 20 },
      stepMs: { type: "integer", minimum: 0, maximum: 10_000, default: 500 },
    },
    required: ["steps"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  task: "optional",
  handler: async ({ steps, stepMs }, ctx) => {
    for (let step = 1; step <= steps; step++) {
      await pause(stepMs, ctx.signal);
      // In a task, the message becomes the task's statusMessage.
      ctx.progress(step, steps, `Step ${step} of ${steps}`);
    }
    return `Report ready: ${steps} steps`;
  },
} satisfies ToolDefinition<{ steps: number; stepMs: number }>;
