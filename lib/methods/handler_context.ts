// The context an author's handler receives, from the request being served: what every
// handler (a resource's read, a prompt's get, a completer) shares with a tool's.
import type { Channels, HandlerContext } from "../primitives/types.ts";
import type { Tool } from "../primitives/tools.ts";
import type { MethodCall } from "./call.ts";

/** What every handler is told of the request it serves, besides its signal and channels. */
type RequestSeen = Omit<HandlerContext, "signal" | keyof Channels>;

/**
 * What `call` tells its handler of the request, made here alone so that a fact an author reads
 * (the caller from the request's facts, the client) is added in one place for every handler.
 */
export function requestSeenOf(call: MethodCall): RequestSeen {
  const { client } = call;
  return {
    requestId: call.id,
    protocolVersion: client.protocolVersion,
    clientInfo: client.clientInfo,
    clientCapabilities: client.clientCapabilities,
    auth: call.auth,
  };
}

/**
 * The request's front token for a tool toolshed made to forward identity (adr/0071 §5), else
 * undefined: the one door from the `frontToken` fact to a handler (tool_call.ts lends it to the
 * handler's context, never to `ctx.auth`).
 */
export function frontTokenFor(call: MethodCall, tool: Tool): string | undefined {
  return tool.forwardsIdentity === true ? call.ctx.facts?.frontToken : undefined;
}

export function handlerContextOf(call: MethodCall): HandlerContext {
  const { channels } = call;
  return {
    ...requestSeenOf(call),
    signal: call.ctx.controller.signal,
    progress: channels.progress,
    log: channels.log,
    request: channels.request,
    closeStream: channels.closeStream,
  };
}

/**
 * The error a failed handler answers with: -32603 naming what failed and why (its stack goes
 * to stderr); a timeout or a cancellation says so without a stack.
 */
export function handlerFailure(call: MethodCall, what: string, error: unknown): Error {
  const signal = call.ctx.controller.signal;
  if (signal.aborted) {
    const reason = signal.reason;
    return new Error(reason instanceof Error ? reason.message : `${what} was cancelled`);
  }
  call.options.diagnostics.error(`${what} failed`, error);
  return new Error(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);
}
