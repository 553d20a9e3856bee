// `prompts/list` and `prompts/get`, for both eras: the primitives layer lists prompts and
// makes their messages; this finds them, checks the arguments and shapes the answer.
import type { JsonObject } from "../util/json.ts";
import { invalidParams } from "../wire/errors.ts";
import { argumentProblem } from "../primitives/prompts.ts";
import { runHandler } from "../primitives/run_handler.ts";
import { InputRequired } from "../primitives/input_required.ts";
import type { GetPromptResult } from "../primitives/prompts.ts";
import { handlerContextOf, handlerFailure } from "./handler_context.ts";
import type { MethodCall } from "./call.ts";
import { listPage } from "./list_page.ts";

export function listPromptsMethod(call: MethodCall): JsonObject {
  return listPage(call, call.snapshot.prompts, "prompts");
}

/** An unknown prompt or arguments that do not suit it are -32602, naming what is wrong. */
export async function getPromptMethod(call: MethodCall): Promise<JsonObject> {
  const { name, arguments: given } = call.params;
  if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
  const prompt = call.snapshot.prompts.byKey.get(name);
  if (prompt === undefined) throw invalidParams(`Unknown prompt: "${name}"`);
  const problem = argumentProblem(prompt, given);
  if (problem !== undefined) throw invalidParams(`Invalid params: ${problem}`);
  const args = (given ?? {}) as Record<string, string>;
  const what = `Prompt "${name}"`;
  let result: GetPromptResult;
  try {
    result = await runHandler(
      () => prompt.get(args, { ...handlerContextOf(call), promptName: name }),
      {
        controller: call.ctx.controller,
        timeoutMs: prompt.timeoutMs ?? call.options.toolTimeoutMs,
        what,
      },
    ) as GetPromptResult;
  } catch (error) {
    // Stopped to ask the client first (2026-07-28): answered input_required.
    if (error instanceof InputRequired) return error.result();
    throw handlerFailure(call, what, error);
  }
  return result.description === undefined
    ? { messages: result.messages }
    : { description: result.description, messages: result.messages };
}
