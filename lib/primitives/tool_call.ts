// Running one tool call: validate the arguments, run the handler under its abort signal
// and timeout, and turn whatever it returns (or throws) into a CallToolResult. Anything
// that goes wrong inside the tool is an `isError` result the model can read (adr/0003).
import { isObject, messageOf } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import type { Tool } from "./tools.ts";
import { checkCallToolResult } from "../schema/mcp_shapes.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { JsonObject } from "../util/json.ts";
import type { Channels, ToolContext } from "./types.ts";
import { InputRequired } from "./input_required.ts";
import { outcomeOf } from "./standard_schema.ts";
import { ProtocolError } from "../wire/errors.ts";
import { lendFrontToken } from "./front_token.ts";
import { type InnerCall, lendInnerCalls } from "./inner_calls.ts";

/** A CallToolResult before the era-specific fields (resultType, _meta) are stamped on. */
export interface CallToolResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

export interface CallOptions {
  /**
   * The request's controller: its signal is the handler's `ctx.signal`, aborted when the
   * request is cancelled or the server stops; the call aborts it itself on timeout.
   */
  controller: AbortController;
  /** Used when the tool sets no `timeoutMs` of its own. */
  defaultTimeoutMs: number;
  context: Omit<ToolContext, "signal" | "toolName" | keyof Channels>;
  /** The ways back to the client a handler may use; each a no-op (or a refusal) when absent. */
  channels?: Channels;
  /** Where a handler's thrown error is reported, beside the isError result. */
  diagnostics: Diagnostics;
  /**
   * The request's front token (its OAuth bearer token), given only for a tool that forwards
   * identity: lent to its handler's context, read by `frontTokenOf(ctx)` and nowhere else.
   */
  frontToken?: string;
  /** The request's way back into the core, given only for a tool that makes inner calls. */
  innerCalls?: InnerCall;
}

/** What a call without channels gets: shared, so a plain call allocates nothing for them. */
export const NO_CHANNELS: Channels = Object.freeze({
  progress() {},
  log() {},
  closeStream: () => false,
  request: (method: string) =>
    Promise.reject(new Error(`Cannot send ${method}: this request has no way back to the client`)),
});

/** The reason a call's signal carries when its time is up. */
class ToolTimeout extends Error {
  constructor(toolName: string, ms: number) {
    super(`Tool "${toolName}" timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * Runs one call. The result is synchronous when the handler is (and the inputSchema's own
 * validator, when it is a library's schema): a synchronous handler has finished when it
 * returns, so it needs no timer, no race and no promise (the per-call timer alone cost
 * ~1 µs, bench/pipeline_bench.ts). An asynchronous validator (an async refinement) runs
 * under the call's timeout and signal, as the handler does. Throws or rejects only with a
 * ProtocolError the handler threw (McpError): the JSON-RPC error it means to answer with.
 */
export function callTool(
  tool: Tool,
  args: JsonObject,
  options: CallOptions,
): MaybePromise<CallToolResult> {
  let invalid: string | undefined;
  try {
    args = withDefaults(tool, args);
    invalid = tool.validateInput(args);
  } catch (error) {
    // e.g. a recursive schema meeting arguments nested deeper than the stack allows
    invalid = `they could not be validated: ${messageOf(error)}`;
  }
  if (invalid !== undefined) return invalidArguments(tool, invalid);

  const parse = tool.parseArguments;
  if (parse === undefined) return run(tool, args, options, false);
  let parsed: unknown;
  try {
    parsed = parse(args);
  } catch (error) {
    return unvalidated(tool, options, error);
  }
  if (!isThenable(parsed)) return runParsed(tool, parsed, options, false);

  const { signal } = options.controller;
  const stop = startTimer(tool, options);
  return Promise.race([parsed, rejectOnAbort(signal)]).then(
    (ready) => runParsed(tool, ready, options, true),
    (error) => signal.aborted ? failure(tool, options, error) : unvalidated(tool, options, error),
  ).finally(stop);
}

function invalidArguments(tool: Tool, problem: string): CallToolResult {
  return errorResult(`Invalid arguments for tool "${tool.name}": ${problem}`);
}

/** A library's validator that threw: the call's arguments could not be validated. */
function unvalidated(tool: Tool, options: CallOptions, error: unknown): CallToolResult {
  options.diagnostics.error(`Tool "${tool.name}" could not validate its arguments`, error, {
    tool: tool.name,
  });
  return invalidArguments(tool, `they could not be validated: ${messageOf(error)}`);
}

/** Runs the handler on what the library's validator gave, or answers with its issues. */
function runParsed(
  tool: Tool,
  result: unknown,
  options: CallOptions,
  timed: boolean,
): MaybePromise<CallToolResult> {
  const outcome = outcomeOf(result);
  if ("problem" in outcome) return invalidArguments(tool, outcome.problem);
  return run(tool, outcome.value, options, timed);
}

/**
 * Runs the handler on its (checked) arguments. `timed` says the call's timer is running
 * already (started for an asynchronous validator); otherwise an asynchronous handler
 * starts it.
 */
function run(
  tool: Tool,
  args: unknown,
  options: CallOptions,
  timed: boolean,
): MaybePromise<CallToolResult> {
  const { controller } = options;
  const channels = options.channels ?? NO_CHANNELS;
  const ctx: ToolContext = {
    ...options.context,
    toolName: tool.name,
    signal: controller.signal,
    progress: channels.progress,
    log: channels.log,
    request: channels.request,
    closeStream: channels.closeStream,
  };
  if (options.frontToken !== undefined && tool.forwardsIdentity === true) {
    lendFrontToken(ctx, options.frontToken);
  }
  if (options.innerCalls !== undefined && tool.makesInnerCalls === true) {
    lendInnerCalls(ctx, options.innerCalls);
  }
  let value: unknown;
  try {
    value = tool.definition.handler(args as JsonObject, ctx);
  } catch (error) {
    return failure(tool, options, error);
  }
  if (!isThenable(value)) return settle(tool, value);

  const stop = timed ? undefined : startTimer(tool, options);
  // The handler may ignore its signal; the race still answers on time (its work goes on
  // in the background, which is all JavaScript allows).
  const raced = Promise.race([value, rejectOnAbort(controller.signal)]).then(
    (ready) => settle(tool, ready),
    (error) => failure(tool, options, error),
  );
  return stop === undefined ? raced : raced.finally(stop);
}

/** Aborts the call's controller when its time is up; returns what stops the timer. */
function startTimer(tool: Tool, options: CallOptions): () => void {
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const timer = setTimeout(
    () => options.controller.abort(new ToolTimeout(tool.name, timeoutMs)),
    timeoutMs,
  );
  return () => clearTimeout(timer);
}

/**
 * The arguments with the tool's top-level defaults filled in, in a copy when any is missing:
 * the request's own `arguments` stay as the client sent them, since a 2026-07-28
 * `requestState` is bound to them and the next round sends them again without the defaults.
 */
function withDefaults(tool: Tool, args: JsonObject): JsonObject {
  let filled = args;
  for (const [key, value] of tool.argumentDefaults) {
    if (Object.hasOwn(args, key)) continue;
    if (filled === args) filled = { ...args };
    filled[key] = structuredClone(value);
  }
  return filled;
}

/** Turns a handler's value into the result on the wire, checked. Never throws. */
function settle(tool: Tool, value: unknown): CallToolResult {
  try {
    return checkOutput(tool, toResult(tool, value));
  } catch (error) {
    // e.g. an outputSchema check that overflows the stack on deeply nested output
    return errorResult(
      `Tool "${tool.name}" returned a result that could not be checked: ${messageOf(error)}`,
    );
  }
}

/** What a thrown error, a timeout or a cancellation tells the model. */
function failure(tool: Tool, options: CallOptions, error: unknown): CallToolResult {
  const signal = options.controller.signal;
  if (signal.aborted) {
    const reason = signal.reason;
    // Stopped to ask the client first (2026-07-28): answered input_required, not an error.
    if (reason instanceof InputRequired) return reason.result() as CallToolResult;
    return errorResult(
      reason instanceof ToolTimeout
        ? reason.message
        : `Tool "${tool.name}" was cancelled: ${messageOf(reason)}`,
    );
  }
  // A JSON-RPC error the tool means to answer with (McpError in mod.ts), not a tool error.
  if (error instanceof ProtocolError) throw error;
  options.diagnostics.error(`Tool "${tool.name}" failed`, error, { tool: tool.name });
  return errorResult(messageOf(error));
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * Turns what a handler returned into the result that goes on the wire. Values other than
 * strings pass through JSON once here, so that what is checked (content shapes,
 * outputSchema) is what the client will receive: NaN becomes null, a Date its string.
 */
function toResult(tool: Tool, value: unknown): CallToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (value === undefined) return { content: [] };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return errorResult(
      `Tool "${tool.name}" returned a value that is not JSON: ${messageOf(error)}`,
    );
  }
  if (text === undefined) {
    return errorResult(`Tool "${tool.name}" returned a value that is not JSON: ${typeof value}`);
  }
  const sent: unknown = JSON.parse(text);
  // A result that is not complete (a 2026-07-28 tool asking back with `input_required`)
  // has no content; whether the method and the era allow it is the core's to decide.
  if (isObject(sent) && typeof sent.resultType === "string" && sent.resultType !== "complete") {
    return sent as CallToolResult;
  }
  if (isObject(sent) && Array.isArray(sent.content)) {
    const invalid = checkCallToolResult(sent);
    return invalid === undefined
      ? sent as CallToolResult
      : errorResult(`Tool "${tool.name}" returned an invalid CallToolResult: ${invalid}`);
  }
  return { content: [{ type: "text", text }], structuredContent: sent };
}

function checkOutput(tool: Tool, result: CallToolResult): CallToolResult {
  if (!tool.validateOutput || result.isError || isIncomplete(result)) return result;
  if (!("structuredContent" in result)) {
    return errorResult(
      `Tool "${tool.name}" declares an outputSchema but returned no structured content`,
    );
  }
  const invalid = tool.validateOutput(result.structuredContent);
  if (invalid === undefined) return result;
  return errorResult(
    `Tool "${tool.name}" returned structured content that does not match its outputSchema: ${invalid}`,
  );
}

/** True for a result whose `resultType` says it is not the call's final answer. */
export function isIncomplete(result: CallToolResult): boolean {
  return result.resultType !== undefined && result.resultType !== "complete";
}
