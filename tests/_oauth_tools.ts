// Test helper: the tools the OAuth tests serve: `whoami` answers the caller's subject and the key
// its token is bound to (DPoP's `cnf.jkt`), `deploy` needs the scope "deploy" (step-up), `ask`
// asks the user before it answers, `job` works as a task until cancelled; and a caller as the
// OAuth step hands one over.
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { AuthInfo, ToolContext } from "../lib/primitives/types.ts";
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

/** A tool that asks the user (an elicitation keyed "go") and answers with what they did. */
export const ASK_TOOL: Tool = checkDefinition(
  {
    description: "Asks the user, then answers",
    inputSchema: { type: "object" },
    handler: async (_args: unknown, ctx: ToolContext) => {
      const answer = await ctx.request("elicitation/create", {
        mode: "form",
        message: "Go?",
        requestedSchema: { type: "object", properties: { go: { type: "boolean" } } },
      }, { key: "go" });
      return `answered ${answer.action}`;
    },
  },
  "ask",
  "tools/ask.ts",
);

/** The `ask` call that answers every request of `result` (ask's first answer) with go. */
export function askAnswered(result: unknown): JsonObject {
  const { requestState, inputRequests } = result as {
    requestState: string;
    inputRequests: JsonObject;
  };
  return {
    name: "ask",
    arguments: {},
    requestState,
    inputResponses: Object.fromEntries(
      Object.keys(inputRequests).map((key) => [key, { action: "accept", content: { go: true } }]),
    ),
  };
}

/** A tool that works, as a task when asked, until it is cancelled. */
export const JOB_TOOL: Tool = checkDefinition(
  {
    description: "Works until cancelled, as a task",
    inputSchema: { type: "object" },
    task: "optional",
    handler: (_args: unknown, ctx: ToolContext) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true })
      ),
  },
  "job",
  "tools/job.ts",
);

/** The caller `subject` of client "app" holding `scopes`, as a verified token makes it. */
export function callerNamed(subject: string, scopes: string[] = []): AuthInfo {
  return {
    subject,
    clientId: "app",
    scopes,
    issuer: "https://issuer.example",
    expiresAt: undefined,
    claims: { sub: subject },
  };
}
