// tools/deploy.ts: a tool only some callers may call. A token without the scope `deploy` gets
// 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="… deploy"`, and the
// client asks the user to grant it (step-up); the handler never runs for that caller.
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Deploys a version to staging or production (pretends to: nothing is deployed)",
  inputSchema: {
    type: "object",
    properties: {
      version: { type: "string", pattern: "^[0-9]+\\.[0-9]+\\.[0-9]+$" },
      environment: { type: "string", enum: ["staging", "production"] },
    },
    required: ["version", "environment"],
    additionalProperties: false,
  },
  annotations: { destructiveHint: true, idempotentHint: true },
  scopes: ["deploy"],
  handler: ({ version, environment }, ctx) =>
    `Deployed ${version} to ${environment}, as ${ctx.auth?.subject ?? "nobody"}`,
} satisfies ToolDefinition<{ version: string; environment: "staging" | "production" }>;
