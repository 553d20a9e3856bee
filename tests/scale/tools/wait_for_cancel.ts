// Scale-test fixture (tests/scale.ts): a task that waits until it is cancelled (ctx.signal), for
// at most 60 s, then says which happened. A client declaring the tasks extension gets a task.
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description: "Waits until cancelled (at most 60 s)",
  inputSchema: { type: "object", properties: {} },
  task: "optional",
  timeoutMs: 90_000,
  handler: async (_args, ctx) => {
    const cancelled = await new Promise<boolean>((resolve) => {
      if (ctx.signal.aborted) return resolve(true);
      const timer = setTimeout(() => resolve(false), 60_000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(true);
      }, { once: true });
    });
    return cancelled ? "cancelled" : "waited 60 s";
  },
} satisfies ToolDefinition;
