// The context an author's handler receives, from the request being served: what every
// handler (a resource's read, a prompt's get, a completer) shares with a tool's.
import type { HandlerContext } from "../primitives/types.ts";
import type { MethodCall } from "./call.ts";

export function handlerContextOf(call: MethodCall): HandlerContext {
  const { client, channels } = call;
  return {
    signal: call.ctx.controller.signal,
    requestId: call.id,
    protocolVersion: client.protocolVersion,
    clientInfo: client.clientInfo,
    clientCapabilities: client.clientCapabilities,
    auth: call.auth,
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
