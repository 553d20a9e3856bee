// Scale fixture (bench/scale.ts): a call that becomes a task and finishes 5 ms later.
// Still running after its first turn, it is stored as a task (with --redis: one EVAL and one
// PUBLISH), answered with it, then completed (another EVAL and PUBLISH): the cost of a
// task-creating call.
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description: "Becomes a task and completes 5 ms later",
  inputSchema: { type: "object", properties: {} },
  task: "optional",
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return "done";
  },
} satisfies ToolDefinition;
