// Calls from inside a call (adr/0073 §4): the code-mode tool that runs a model's code calls the
// catalog's tools through the request core, as the outer caller, so that middleware, scopes,
// rate limits, audit and validation apply to each one. Like the front token (front_token.ts),
// the way in is lent to the handler's context of a tool toolshed made (`Tool.makesInnerCalls`),
// kept in a WeakMap by that context and gone with it; no author's tool is ever lent one.
import type { ToolContext } from "./types.ts";

/**
 * One inner `tools/call`: the CallToolResult the core answered (an `isError` result for what a
 * tool reports), or a rejection with one sentence for what the core refused (an unknown tool, a
 * missing scope, a rate limit, invalid arguments), or the signal's reason.
 */
export type InnerCall = (name: string, args: unknown, signal: AbortSignal) => Promise<unknown>;

const lent = new WeakMap<ToolContext, InnerCall>();

/** Lends `call` to a handler's context (tool_call.ts, for a tool that makes inner calls). */
export function lendInnerCalls(ctx: ToolContext, call: InnerCall): void {
  lent.set(ctx, call);
}

/** The inner calls of the request a handler serves, when its tool makes them; else undefined. */
export function innerCallsOf(ctx: ToolContext): InnerCall | undefined {
  return lent.get(ctx);
}

/** What the core refused an inner call with: its JSON-RPC error, for the code to catch. */
export class InnerCallRefused extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = "InnerCallRefused";
  }
}
