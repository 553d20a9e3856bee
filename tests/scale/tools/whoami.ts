// Scale-test fixture (tests/scale.ts): answers with the process id of the instance that ran the
// call, so that the test can tell instances apart besides HAProxy's X-Served-By; after `delayMs`
// (so that calls are in flight when an instance is stopped).
import type { ToolDefinition } from "../../../mod.ts";

export default {
  description: "Answers with the process id of the server instance that ran the call",
  inputSchema: {
    type: "object",
    properties: { delayMs: { type: "integer", minimum: 0, maximum: 2000 } },
  },
  handler: async ({ delayMs }) => {
    if (typeof delayMs === "number" && delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return String(Deno.pid);
  },
} satisfies ToolDefinition;
