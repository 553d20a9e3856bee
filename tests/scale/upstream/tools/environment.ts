// Scale-test fixture (tests/scale.ts, check l.c): a tool of the mounted upstream that the mount
// file gives a scope (`scopes` in its "toolshed" block). It names the environment variables of
// the upstream process, never their values: a stdio upstream is one process for every caller, so
// no caller's identity (TOOLSHED_AUTH_*) is among them.
import type { ToolDefinition } from "../../../../mod.ts";

export default {
  description:
    "Names the environment variables of this upstream process, one a line, never their values",
  inputSchema: { type: "object", additionalProperties: false },
  annotations: { readOnlyHint: true },
  handler: () => Object.keys(Deno.env.toObject()).sort().join("\n"),
} satisfies ToolDefinition;
