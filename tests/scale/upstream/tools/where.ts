// Scale-test fixture (tests/scale.ts, check l): a tool of the upstream that every instance starts
// over stdio for the mount tests/scale/tools/upstream.mcp.json, served there as `upstream_where`.
// It answers with this upstream's process id and its parent's (the instance that started it), so
// that a call through HAProxy shows that each instance's own upstream answered.
import type { ToolDefinition } from "../../../../mod.ts";

export default {
  description:
    "Answers with the process id of this upstream and of the server that started it, as JSON",
  inputSchema: { type: "object", additionalProperties: false },
  annotations: { readOnlyHint: true },
  handler: () => JSON.stringify({ pid: Deno.pid, ppid: Deno.ppid }),
} satisfies ToolDefinition;
