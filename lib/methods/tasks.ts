// `tasks/get`, `tasks/update` and `tasks/cancel` (the tasks extension of 2026-07-28,
// SEP-2663; adr/0016), in the order the extension checks: a request that does not declare
// the extension is -32021 whatever it asks; then a task id that names no task is -32602, and
// so is another caller's task (methods/caller.ts): its id is not a credential.
// `tasks/result` and `tasks/list` (the 2025 experiment's) are not served: -32601.
import { isObject, type JsonObject } from "../util/json.ts";
import { ErrorCode, invalidParams, ProtocolError } from "../wire/errors.ts";
import type { MethodCall } from "./call.ts";
import { type Tasks, TASKS_EXTENSION } from "../tasks/tasks.ts";
import { callerOf } from "./caller.ts";

/** Whether the request's own client capabilities declare the tasks extension. */
export function declaresTasks(clientCapabilities: Readonly<JsonObject>): boolean {
  const extensions = clientCapabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 for `what`, which needs a client that declares the tasks extension. */
export function missingTasksExtension(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingClientCapability,
    `Missing required client capability: ${what} needs the extension "${TASKS_EXTENSION}"`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** The tasks of the call's server and the task id asked for, once the gate is passed. */
function taskCall(call: MethodCall): { tasks: Tasks; taskId: string } {
  const { method, params } = call;
  if (!declaresTasks(call.client.clientCapabilities)) throw missingTasksExtension(method);
  const tasks = call.options.tasks;
  if (tasks === undefined) throw invalidParams(`Unknown task: this server runs no tasks`);
  if (typeof params.taskId !== "string") {
    throw invalidParams("Invalid params: taskId must be a string");
  }
  return { tasks, taskId: params.taskId };
}

/**
 * -32602 for a task this instance cannot find: it never existed or has expired, or (when
 * tasks live in this process's memory) another instance runs it, which is said once on stderr.
 */
function unknownTask(call: MethodCall, tasks: Tasks, taskId: string): ProtocolError {
  const elsewhere = tasks.elsewhere(taskId);
  if (elsewhere === undefined) {
    return invalidParams(`Unknown task: "${taskId}" (it never existed, or it has expired)`, {
      taskId,
    });
  }
  const owner = elsewhere.instance;
  if (elsewhere.first) {
    call.options.diagnostics.error(
      `A request for a task of instance "${owner}" reached this instance, which keeps its ` +
        "tasks in memory: give every instance behind a load balancer --redis URL",
    );
  }
  return invalidParams(
    `Unknown task: "${taskId}" is run by instance "${owner}", and this instance keeps its ` +
      "tasks in memory (the server's instances need --redis to share tasks)",
    { taskId },
  );
}

export async function getTaskMethod(call: MethodCall): Promise<JsonObject> {
  const { tasks, taskId } = taskCall(call);
  const task = await tasks.get(taskId, callerOf(call.ctx.facts?.caller));
  if (task === undefined) throw unknownTask(call, tasks, taskId);
  return { ...task };
}

export async function updateTaskMethod(call: MethodCall): Promise<JsonObject> {
  const { tasks, taskId } = taskCall(call);
  const responses = call.params.inputResponses;
  if (!isObject(responses)) throw invalidParams("Invalid params: inputResponses must be an object");
  if (!await tasks.update(taskId, responses, callerOf(call.ctx.facts?.caller))) {
    throw unknownTask(call, tasks, taskId);
  }
  return {};
}

export async function cancelTaskMethod(call: MethodCall): Promise<JsonObject> {
  const { tasks, taskId } = taskCall(call);
  if (!await tasks.cancel(taskId, callerOf(call.ctx.facts?.caller))) {
    throw unknownTask(call, tasks, taskId);
  }
  return {};
}
