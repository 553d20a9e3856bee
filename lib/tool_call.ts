// Running one tool call: validate the arguments, run the handler under its abort signal
// and timeout, and turn whatever it returns (or throws) into a CallToolResult. Anything
// that goes wrong inside the tool is an `isError` result the model can read (adr/0003).
import { isObject, messageOf } from "./_json.ts";
import type { Tool } from "./tool_loader.ts";
import { logError } from "./log.ts";
import { checkCallToolResult } from "./mcp_shapes.ts";
import type { JsonObject, ToolContext } from "./types.ts";

/** A CallToolResult before the era-specific fields (resultType, _meta) are stamped on. */
export interface CallToolResult {
  content: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

export interface CallOptions {
  /** Aborted when the request is cancelled or the server stops. */
  signal: AbortSignal;
  /** Used when the tool sets no `timeoutMs` of its own. */
  defaultTimeoutMs: number;
  context: Omit<ToolContext, "signal" | "toolName">;
}

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

export async function callTool(
  tool: Tool,
  args: JsonObject,
  options: CallOptions,
): Promise<CallToolResult> {
  let invalid: string | undefined;
  try {
    for (const [key, value] of tool.argumentDefaults) {
      if (!Object.hasOwn(args, key)) args[key] = structuredClone(value);
    }
    invalid = tool.validateInput(args);
  } catch (error) {
    // e.g. a recursive schema meeting arguments nested deeper than the stack allows
    invalid = `they could not be validated: ${messageOf(error)}`;
  }
  if (invalid !== undefined) {
    return errorResult(`Invalid arguments for tool "${tool.name}": ${invalid}`);
  }

  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) forwardAbort();
  options.signal.addEventListener("abort", forwardAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new ToolTimeout(tool.name, timeoutMs)),
    timeoutMs,
  );
  const ctx: ToolContext = { ...options.context, signal: controller.signal, toolName: tool.name };

  try {
    // The handler may ignore its signal; the race still answers on time (its work goes on
    // in the background, which is all JavaScript allows).
    const value = await Promise.race([
      Promise.resolve().then(() => tool.definition.handler(args, ctx)),
      rejectOnAbort(controller.signal),
    ]);
    return checkOutput(tool, toResult(tool, value));
  } catch (error) {
    if (controller.signal.aborted) {
      const reason = controller.signal.reason;
      return errorResult(
        reason instanceof ToolTimeout
          ? reason.message
          : `Tool "${tool.name}" was cancelled: ${messageOf(reason)}`,
      );
    }
    logError(`Tool "${tool.name}" failed`, error);
    return errorResult(messageOf(error));
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", forwardAbort);
  }
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
  if (isObject(sent) && Array.isArray(sent.content)) {
    const invalid = checkCallToolResult(sent);
    return invalid === undefined
      ? sent as CallToolResult
      : errorResult(`Tool "${tool.name}" returned an invalid CallToolResult: ${invalid}`);
  }
  return { content: [{ type: "text", text }], structuredContent: sent };
}

function checkOutput(tool: Tool, result: CallToolResult): CallToolResult {
  if (!tool.validateOutput || result.isError) return result;
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
