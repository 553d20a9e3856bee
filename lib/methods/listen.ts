// `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries the changes a
// client asked for, each tagged with the subscription's id (the listen request's id): the
// lists that changed (with --watch, on a reload) and the subscribed resources that changed.
// The first message acknowledges the filter as honoured; a graceful close (shutdown) answers
// the request; a cancellation ends it without an answer.
import { isObject, type JsonObject } from "../util/json.ts";
import { invalidParams } from "../wire/errors.ts";
import { META_SUBSCRIPTION_ID } from "../wire/protocol.ts";
import { changedLists, updatedResources } from "./change_notices.ts";
import type { MethodCall } from "./call.ts";
import { declaresTasks, missingTasksExtension } from "./tasks.ts";
import { callerOf } from "./caller.ts";

/** Most resources, and most tasks, one listen may subscribe to. */
const MAX_LISTEN_RESOURCES = 1_000;

/**
 * The tasks a listen asks to follow (the tasks extension's `taskIds`), or undefined when it
 * asks none or this server runs no tasks; -32021 from a request without the extension.
 */
function tasksAsked(call: MethodCall, given: unknown): Set<string> | undefined {
  if (given === undefined) return undefined;
  if (!Array.isArray(given) || !given.every((id) => typeof id === "string")) {
    throw invalidParams("Invalid params: taskIds must be a list of task ids");
  }
  if (given.length > MAX_LISTEN_RESOURCES) {
    throw invalidParams(
      `Invalid params: a listen may follow at most ${MAX_LISTEN_RESOURCES} tasks`,
    );
  }
  if (!declaresTasks(call.client.clientCapabilities)) {
    throw missingTasksExtension("taskIds in subscriptions/listen");
  }
  return call.options.tasks === undefined ? undefined : new Set(given as string[]);
}

const LIST_FILTERS = {
  toolsListChanged: "tools",
  promptsListChanged: "prompts",
  resourcesListChanged: "resources",
} as const;

export function listenMethod(call: MethodCall): Promise<JsonObject> {
  const { ctx, capabilities } = call;
  const asked = call.params.notifications ?? {};
  if (!isObject(asked)) throw invalidParams("Invalid params: notifications must be an object");
  const meta = { [META_SUBSCRIPTION_ID]: call.id };
  // What is honoured: list changes of kinds served, and only when lists can change at all.
  const honoured: JsonObject = {};
  const kinds: ("tools" | "prompts" | "resources")[] = [];
  for (const [filter, kind] of Object.entries(LIST_FILTERS)) {
    if (asked[filter] === true && call.options.listChanged && kind in capabilities) {
      honoured[filter] = true;
      kinds.push(kind);
    }
  }
  let uris: string[] = [];
  if (asked.resourceSubscriptions !== undefined) {
    const given = asked.resourceSubscriptions;
    if (!Array.isArray(given) || !given.every((uri) => typeof uri === "string")) {
      throw invalidParams("Invalid params: resourceSubscriptions must be a list of URIs");
    }
    if (given.length > MAX_LISTEN_RESOURCES) {
      throw invalidParams(
        `Invalid params: a listen may subscribe to at most ${MAX_LISTEN_RESOURCES} resources`,
      );
    }
    if ("resources" in capabilities) {
      uris = [...new Set(given as string[])];
      honoured.resourceSubscriptions = uris;
    }
  }
  const taskIds = tasksAsked(call, asked.taskIds);
  if (taskIds !== undefined) honoured.taskIds = [...taskIds];
  const notify = (method: string, params: JsonObject = {}) =>
    ctx.outlet.notify({ jsonrpc: "2.0", method, params: { _meta: meta, ...params } });
  notify("notifications/subscriptions/acknowledged", { notifications: honoured });

  const stop = call.onChange((next, previous) => {
    if (ctx.controller.signal.aborted) return;
    const changed = changedLists(previous, next);
    for (const kind of kinds) if (changed[kind]) notify(`notifications/${kind}/list_changed`);
    for (const uri of updatedResources(previous, next, uris)) {
      notify("notifications/resources/updated", { uri });
    }
  });
  // A task's changes, from whichever instance ran it (tasks.ts announces them on the bus); only
  // the listening caller's own tasks (methods/caller.ts): a task id is not a credential.
  const caller = callerOf(call.ctx.facts?.caller);
  const stopTasks = taskIds === undefined
    ? undefined
    : call.options.tasks?.onChange((task, owner) => {
      if (!ctx.controller.signal.aborted && taskIds.has(task.taskId) && owner === caller) {
        notify("notifications/tasks", { ...task });
      }
    }, taskIds);
  return new Promise((resolve) => {
    const end = () => {
      stop();
      stopTasks?.();
      resolve({ _meta: meta });
    };
    // Cancelled (no answer goes out) or closed by the server (the answer ends it).
    ctx.controller.signal.addEventListener("abort", end, { once: true });
    ctx.closing?.addEventListener("abort", end, { once: true });
    if (ctx.controller.signal.aborted || ctx.closing?.aborted) end();
  });
}
