// Identity across the hop (adr/0071 §5): the token a caller sent toolshed (the front token) never
// goes upstream; a tool toolshed made (a mounted tool, `Tool.forwardsIdentity`) trades it for a
// token of the upstream's own at toolshed's authorization server (RFC 8693, lib/auth/
// token_exchange.ts). The front token reaches such a handler through `frontTokenOf(ctx)` alone:
// lent to the handler's context when tool_call.ts makes it, kept in a WeakMap by that context
// object (never a property of it, so neither `ctx.auth`, JSON.stringify(ctx) nor its keys show
// it), and gone with the context. An ordinary tool's context is never lent one.
import type { ToolContext } from "./types.ts";

/** What one exchange asks for: the caller's token traded for a token of `audience`. */
export interface ExchangeRequest {
  /** The front token (`frontTokenOf(ctx)`): the RFC 8693 `subject_token`. */
  subjectToken: string;
  /** The upstream as the authorization server names it (RFC 8693 `audience`). */
  audience: string;
  /** The upstream's URI (RFC 8707 `resource`), when the authorization server wants one. */
  resource?: string;
  /** The scopes the upstream's token is to carry (RFC 8693 `scope`); none: the server's default. */
  scopes: readonly string[];
  /** toolshed's client at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
}

/** Trades front tokens for upstream tokens (lib/auth/token_exchange.ts makes one). */
export interface TokenExchange {
  /**
   * An access token for the request's upstream, from the cache while it is young, else from the
   * authorization server. Rejects, saying what the server said and what to fix (never with a
   * token in the message), or with the signal's reason when `signal` aborts first.
   */
  tokenFor(request: ExchangeRequest, signal: AbortSignal): Promise<string>;
}

const lent = new WeakMap<ToolContext, string>();

/** Lends `token` to a handler's context (tool_call.ts, for a tool that forwards identity). */
export function lendFrontToken(ctx: ToolContext, token: string): void {
  lent.set(ctx, token);
}

/**
 * The front token of the request a handler serves, when its tool forwards identity (a tool
 * toolshed made) and the request came with an OAuth token; otherwise undefined.
 */
export function frontTokenOf(ctx: ToolContext): string | undefined {
  return lent.get(ctx);
}
