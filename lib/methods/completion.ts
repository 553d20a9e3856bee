// `completion/complete`: values for a prompt's argument or a resource template's variable,
// from what their author declared (primitives/completion.ts).
import { isObject } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { invalidParams } from "../wire/errors.ts";
import { complete, NO_COMPLETION } from "../primitives/completion.ts";
import { runHandler } from "../primitives/run_handler.ts";
import type { Completer } from "../primitives/types.ts";
import { handlerFailure } from "./handler_context.ts";
import type { MethodCall } from "./call.ts";

/**
 * An unknown prompt or template, or an argument it does not have, is -32602; an argument
 * without a completer gets no values.
 */
export async function completeMethod(call: MethodCall): Promise<JsonObject> {
  const { ref, argument, context } = call.params;
  if (!isObject(ref)) throw invalidParams("Invalid params: ref must be an object");
  if (!isObject(argument) || typeof argument.name !== "string") {
    throw invalidParams("Invalid params: argument must be an object with a string name");
  }
  const value = argument.value ?? "";
  if (typeof value !== "string") {
    throw invalidParams("Invalid params: argument.value must be a string");
  }
  const given = isObject(context) && isObject(context.arguments) ? context.arguments : {};
  const others: Record<string, string> = {};
  for (const [key, item] of Object.entries(given)) {
    if (typeof item === "string") others[key] = item;
  }
  const { completer, what } = completerOf(call, ref, argument.name);
  if (completer === undefined) return { completion: NO_COMPLETION };
  try {
    const completion = await runHandler(
      () =>
        complete(completer, value, {
          arguments: others,
          signal: call.ctx.controller.signal,
          auth: call.auth,
        }),
      { controller: call.ctx.controller, timeoutMs: call.options.toolTimeoutMs, what },
    );
    return { completion: completion as JsonObject };
  } catch (error) {
    throw handlerFailure(call, what, error);
  }
}

/** The completer `ref` and `name` point at (undefined: none), or the -32602 they deserve. */
function completerOf(
  call: MethodCall,
  ref: JsonObject,
  name: string,
): { completer: Completer | undefined; what: string } {
  if (ref.type === "ref/prompt") {
    if (typeof ref.name !== "string") {
      throw invalidParams("Invalid params: ref.name must be a string");
    }
    const prompt = call.snapshot.prompts.byKey.get(ref.name);
    if (prompt === undefined) throw invalidParams(`Unknown prompt: "${ref.name}"`);
    if (!prompt.arguments.some((declared) => declared.name === name)) {
      throw invalidParams(`Invalid params: prompt "${ref.name}" takes no argument "${name}"`);
    }
    return {
      completer: prompt.completers.get(name),
      what: `Completing argument "${name}" of prompt "${ref.name}"`,
    };
  }
  if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") {
      throw invalidParams("Invalid params: ref.uri must be a string");
    }
    const uri = ref.uri;
    const template = call.snapshot.templates.items.find((item) => item.uriTemplate === uri);
    if (template === undefined) {
      // A fixed resource has nothing to complete; a URI nothing serves is an error.
      if (call.snapshot.resources.byKey.has(uri)) return { completer: undefined, what: "" };
      throw invalidParams(`Unknown resource template: "${uri}"`);
    }
    return {
      completer: template.completers.get(name),
      what: `Completing variable "${name}" of resource template "${uri}"`,
    };
  }
  throw invalidParams(
    `Invalid params: ref.type must be "ref/prompt" or "ref/resource", not ${
      JSON.stringify(ref.type)
    }`,
  );
}
