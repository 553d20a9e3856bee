// A `tools/call` that may become a task (adr/0016): the handler starts as any call does,
// inside its request. What it does in its first turn of the event loop belongs to the
// request: an answer then is the call's plain answer, and questions asked then are
// input_required rounds (so a task is created only once its questions are answered, as
// SEP-2663 asks). If it is still running after that turn, the task is stored and the call
// answers with it; the handler runs on as the task, beyond the request, and what it asks from
// then on makes the task `input_required` until `tasks/update` brings the answers.
//
// The same path makes a job for a client without the tasks extension (adr/0070): the task is
// created only after `afterMs` (the job bound), and the call answers with a handle instead.
//
// A call refused before its handler starts (as many tasks as may run are running, or the store
// is unreachable: adr/0022) is -32603 at once; a task whose creation fails stops its handler and
// answers the call with the store's error, holding nothing.
import type { JsonObject } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import { internalError, ProtocolError } from "../wire/errors.ts";
import { type CallOptions, callTool, type CallToolResult } from "../primitives/tool_call.ts";
import type { Tool } from "../primitives/tools.ts";
import type { Channels } from "../primitives/types.ts";
import { CLIENT_CAPABILITY, refusal } from "../rounds/input_rounds.ts";
import type { MethodCall } from "./call.ts";
import { frontTokenFor, requestSeenOf } from "./handler_context.ts";
import { innerCallsFor } from "./inner_calls.ts";
import type { LiveTask, Tasks } from "../tasks/tasks.ts";
import { callerOf } from "./caller.ts";

/** How a call that may become a task becomes one, and what it answers with then. */
export interface TaskRoute {
  /** How long the handler runs inside its request before the task is created (0: one turn). */
  readonly afterMs: number;
  /**
   * The call's answer once the task exists; `status` is the last progress the handler
   * reported inside the request, which the task's status message starts from.
   */
  readonly created: (live: LiveTask, status: string | undefined) => JsonObject;
  /** What the task keeps as its result (default: the call's answer). */
  readonly stored?: (result: CallToolResult) => JsonObject;
  /**
   * Whether the client can answer what the task asks (through `tasks/get` and
   * `tasks/update`); a job's client cannot, so a question then fails in the handler.
   */
  readonly canAsk: boolean;
}

/** A task for a client that declared the tasks extension: created after one turn. */
const TASK_ROUTE: TaskRoute = {
  afterMs: 0,
  created: (live) => ({ resultType: "task", ...live.created }),
  canAsk: true,
};

export function callAsTask(
  call: MethodCall,
  tasks: Tasks,
  tool: Tool,
  args: JsonObject,
  answer: (result: CallToolResult) => JsonObject,
  route: TaskRoute = TASK_ROUTE,
): MaybePromise<JsonObject> {
  const refused = tasks.refusal();
  if (refused !== undefined) {
    const { code, message } = internalError(refused);
    throw new ProtocolError(code, message);
  }
  const request = call.ctx.controller.signal;
  const controller = new AbortController();
  /** Until the task exists, the request's end (a cancel, a question) ends the handler. */
  const follow = () => controller.abort(request.reason);
  request.addEventListener("abort", follow, { once: true });
  let task: LiveTask | undefined;
  /** Questions asked as rounds and not answered yet: the request is about to ask them. */
  let open = 0;
  /** The last progress reported inside the request, as a status message. */
  let status: string | undefined;
  const declared = call.client.clientCapabilities;
  const channels: Channels = {
    progress: (progress, total, message) => {
      const said = message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`);
      if (task !== undefined) return task.progress(said);
      status = said;
      call.channels.progress(progress, total, message);
    },
    log: (level, data, logger) => {
      if (task === undefined) call.channels.log(level, data, logger);
    },
    request: (method, params, options) => {
      if (task === undefined) {
        open++;
        return call.channels.request(method, params, options).finally(() => open--);
      }
      if (!route.canAsk) {
        return Promise.reject(
          new Error(
            `Cannot send ${method}: the call became a job, and its client cannot answer a ` +
              "job's questions (it does not declare the tasks extension)",
          ),
        );
      }
      if (!(CLIENT_CAPABILITY[method] in declared)) {
        return Promise.reject(new Error(refusal(method)));
      }
      return task.ask(method, params, options?.key);
    },
    // A task's request has answered already: no stream of its own is left to close.
    closeStream: () => task === undefined && call.channels.closeStream(),
  };
  const runMs = tool.timeoutMs ?? call.options.toolTimeoutMs;
  const options: CallOptions = {
    controller,
    defaultTimeoutMs: call.options.toolTimeoutMs,
    diagnostics: call.options.diagnostics,
    channels,
    context: requestSeenOf(call),
    frontToken: frontTokenFor(call, tool),
    innerCalls: innerCallsFor(call, tool),
  };
  // Traced, the tool's span lasts as long as its handler runs: past the request, as a task.
  const { telemetry } = call.options;
  const result = telemetry === undefined
    ? callTool(tool, args, options)
    : telemetry.tool(tool.name, () => callTool(tool, args, options));
  if (!isThenable(result)) {
    request.removeEventListener("abort", follow);
    return answer(result);
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    let created: Promise<LiveTask> | undefined;
    // The tool's result, a tool error too, completes the task; a JSON-RPC error it throws
    // (McpError) fails it. Before there is a task, either is the call's answer.
    // A task that could not be created has nothing to complete (its call answered the error).
    const ignore = () => {};
    const timer = setTimeout(() => {
      // Finished in its first turn (or a job's bound), or asking the client first: the
      // request answers.
      if (settled || open > 0 || request.aborted) return;
      request.removeEventListener("abort", follow);
      const caller = callerOf(call.ctx.facts?.caller);
      const making = tasks.create(runMs, caller);
      created = making;
      // The task's handle is the call's answer, and a cancelled request's answer is dropped
      // (stdio's notifications/cancelled; an HTTP client that left): cancelled before the
      // answer went out, the task is one no one can learn of, so it is cancelled too. A
      // connection aborts no request it has answered.
      request.addEventListener(
        "abort",
        () => making.then((live) => tasks.cancel(live.taskId, caller)).catch(ignore),
        { once: true },
      );
      making.then((live) => {
        task = live;
        // tasks/cancel aborts the task's controller; the handler's signal follows it.
        const cancel = () => controller.abort(live.controller.signal.reason);
        if (live.controller.signal.aborted) cancel();
        else live.controller.signal.addEventListener("abort", cancel, { once: true });
        resolve(route.created(live, status));
      }, (error) => {
        controller.abort("the task could not be stored");
        reject(error);
      });
    }, route.afterMs);
    (result as Promise<CallToolResult>).then((ready) => {
      settled = true;
      clearTimeout(timer);
      if (created === undefined) {
        request.removeEventListener("abort", follow);
        return resolve(answer(ready));
      }
      created.then((live) => live.complete((route.stored ?? answer)(ready)), ignore);
    }, (error) => {
      settled = true;
      clearTimeout(timer);
      if (created === undefined) {
        request.removeEventListener("abort", follow);
        return reject(error);
      }
      const failure = error instanceof ProtocolError
        ? error.toRpcError()
        : internalError(String(error));
      created.then((live) => live.fail(failure), ignore);
    });
  });
}
