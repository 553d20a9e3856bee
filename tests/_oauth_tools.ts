// Test helper: the tools the OAuth tests serve: `whoami` answers the caller's subject and the key
// its token is bound to (DPoP's `cnf.jkt`), `deploy` needs the scope "deploy" (step-up).
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { JsonObject } from "../lib/util/json.ts";

/** A tool that needs the scope "deploy", to make a client step up. */
export const DEPLOY_TOOL: Tool = checkDefinition(
  {
    description: "Deploys",
    inputSchema: { type: "object" },
    scopes: ["deploy"],
    handler: () => "deployed",
  },
  "deploy",
  "tools/deploy.ts",
);

export const OAUTH_TOOLS: Tool[] = [
  checkDefinition(
    {
      description: "Says who is calling, and the key the token is bound to (DPoP)",
      inputSchema: { type: "object" },
      handler: (_args: unknown, ctx: ToolContext) => ({
        subject: ctx.auth?.subject ?? null,
        jkt: (ctx.auth?.claims.cnf as JsonObject | undefined)?.jkt ?? null,
      }),
    },
    "whoami",
    "tools/whoami.ts",
  ),
  DEPLOY_TOOL,
];
