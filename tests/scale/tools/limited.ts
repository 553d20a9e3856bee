// Scale-test fixture (tests/scale.ts, check j): a tool each caller may call 3 times a minute
// (`rateLimit`, adr/0043), its buckets shared by the instances through Redis. It answers with the
// process id of the instance that ran it.
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description:
    "Answers with the process id of the instance; each caller may call it 3 times a minute",
  inputSchema: { type: "object" },
  // It only reads (a pid), so code in code mode may call it (check j.b).
  annotations: { readOnlyHint: true },
  rateLimit: "3/min",
  handler: () => String(Deno.pid),
} satisfies ToolDefinition;
