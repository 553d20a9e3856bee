// Scale-test fixture (tests/scale.ts, checks i.d and k; a copy of
// tests/fixtures/jobs/tools/long_report.ts): a call that takes `ms` milliseconds, saying how far
// it got every `stepMs`; with `mark`, it writes "aborted: <reason>" to that file when its signal
// fires (a cancel, a timeout), so that the test, another process, sees that the tool was stopped
// on the instance running it.
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description: "Builds a report slowly, step by step",
  inputSchema: {
    type: "object",
    properties: {
      ms: { type: "integer", minimum: 0 },
      stepMs: { type: "integer", minimum: 1, default: 50 },
      mark: { type: "string" },
      fail: { type: "boolean" },
    },
    required: ["ms"],
  },
  outputSchema: {
    type: "object",
    properties: { steps: { type: "integer" } },
    required: ["steps"],
  },
  annotations: { readOnlyHint: true },
  task: "optional",
  timeoutMs: 120_000,
  handler: async ({ ms, stepMs, mark, fail }, ctx) => {
    const { signal } = ctx;
    if (mark !== undefined) {
      signal.addEventListener("abort", () => {
        Deno.writeTextFileSync(mark, `aborted: ${String(signal.reason)}`);
      }, { once: true });
    }
    let steps = 0;
    for (let spent = 0; spent < ms; spent += stepMs) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, stepMs);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        }, { once: true });
      });
      steps++;
      ctx.progress(spent + stepMs, ms, `step ${steps}`);
    }
    if (fail) throw new Error(`the report broke after ${steps} steps`);
    return { steps };
  },
} satisfies ToolDefinition<{ ms: number; stepMs: number; mark?: string; fail?: boolean }>;
