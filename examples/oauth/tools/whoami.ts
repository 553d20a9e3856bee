// tools/whoami.ts: who is calling, as the access token said it. ctx.auth holds the token's
// subject, client, scopes and claims, never the token itself; it is there only when the server
// runs with --auth-issuer (over stdio there is nobody to name).
import type { ToolDefinition } from "@toolshed/toolshed";

export default {
  description: "Says who is signed in: the user, the client they signed in with, their scopes",
  inputSchema: { type: "object", additionalProperties: false },
  annotations: { readOnlyHint: true },
  handler: (_args, ctx) => {
    if (ctx.auth === undefined) return "Nobody is signed in: this server runs without OAuth";
    const { subject, clientId, scopes } = ctx.auth;
    return `You are ${subject}, signed in with the client ${clientId}, ` +
      `with the scopes: ${scopes.join(" ") || "(none)"}`;
  },
} satisfies ToolDefinition<Record<string, never>>;
