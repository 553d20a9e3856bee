// `toolshed_job` (adr/0070): follows a job for a client without the tasks extension. It waits
// for the job's end (its change through the tasks' bus, and a look at the store now and then,
// which is how an instance that stopped is found out) up to the wait bound, and answers with
// the tool's own result, a failure, or the job's status so that the model calls again. With
// `cancel`, it cancels first. Another caller's job is answered exactly as an unknown one.
import type { JsonObject } from "../util/json.ts";
import { type CallToolResult, errorResult } from "../primitives/tool_call.ts";
import { isTerminal, type TaskRecord } from "../tasks/task_store.ts";
import type { Tasks } from "../tasks/tasks.ts";
import type { MethodCall } from "./call.ts";
import { callerOf } from "./caller.ts";
import { JOB_WAIT_MS, jobState, jobTool, seconds } from "./jobs.ts";
import { JOB_TOOL } from "../primitives/tools.ts";
import { quotedClientText } from "../util/client_text.ts";

/** How often a waiting call looks at the store besides the bus: a third of a task's lease. */
const LOOK_EVERY_MS = 5_000;

/** Answers one call of the job tool: its result, era-neutral (the caller shapes it). */
export async function followJob(call: MethodCall, args: JsonObject): Promise<CallToolResult> {
  const tool = jobTool();
  const invalid = tool.validateInput(args);
  if (invalid !== undefined) {
    return errorResult(`Invalid arguments for tool "${tool.name}": ${invalid}`);
  }
  const tasks = call.options.tasks!;
  const id = args.id as string;
  const caller = callerOf(call.ctx.facts?.caller);
  if (args.cancel === true && !await tasks.cancel(id, caller)) return unknownJob(id);
  let record = await tasks.get(id, caller);
  if (record === undefined) return unknownJob(id);
  if (args.cancel === true && record.status === "cancelled") {
    return { content: [{ type: "text", text: `The job "${id}" is cancelled` }] };
  }
  const waitMs = call.options.jobWaitMs ?? JOB_WAIT_MS;
  if (!isTerminal(record.status)) record = await untilEnd(call, tasks, record, caller, waitMs);
  return answerFor(record, waitMs, typeof args.attempt === "number" ? args.attempt : 1);
}

/**
 * The job once it has ended, or as it stands when the wait bound passes or the request ends.
 * Its status messages reach a client that reads progress meanwhile (an idle timer reset).
 */
async function untilEnd(
  call: MethodCall,
  tasks: Tasks,
  first: TaskRecord,
  caller: string | undefined,
  waitMs: number,
): Promise<TaskRecord> {
  const signal = call.ctx.controller.signal;
  let latest = first;
  let told = 0;
  const tell = (record: TaskRecord) => {
    if (record.statusMessage === undefined || record.statusMessage === latest.statusMessage) return;
    call.channels.progress(++told, undefined, record.statusMessage);
  };
  return await new Promise<TaskRecord>((resolve) => {
    let done = false;
    const finish = (record: TaskRecord) => {
      if (done) return;
      done = true;
      stop();
      clearTimeout(bound);
      clearInterval(look);
      signal.removeEventListener("abort", ended);
      resolve(record);
    };
    const seen = (record: TaskRecord) => {
      tell(record);
      latest = record;
      if (isTerminal(record.status)) finish(record);
    };
    const stop = tasks.onChange((record) => seen(record), new Set([first.taskId]));
    const ended = () => finish(latest);
    // At the bound, one more look: a job whose instance stopped since the last is said so now.
    const bound = setTimeout(() => {
      tasks.get(first.taskId, caller).then((record) => finish(record ?? latest), ended);
    }, waitMs);
    // The bus tells of every change but one: an instance that stopped running the job, which
    // only the store's lease shows.
    const look = setInterval(() => {
      tasks.get(first.taskId, caller).then(
        (record) => record === undefined ? ended() : seen(record),
        () => {},
      );
    }, LOOK_EVERY_MS);
    signal.addEventListener("abort", ended, { once: true });
    // A change between the first look and the subscription would otherwise be missed.
    tasks.get(first.taskId, caller).then((record) => record && seen(record), () => {});
  });
}

/** What the job tool answers for a job as it stands. */
/**
 * `attempt`: which wait this call was. The next call's arguments count it up, so no two calls
 * of a follow are the same: a host that stops a tool called five times alike (Gemini CLI's
 * loop detection) would stop the follow of any job longer than five waits.
 */
function answerFor(record: TaskRecord, waitMs: number, attempt: number): CallToolResult {
  const id = record.taskId;
  switch (record.status) {
    case "completed":
      // The tool's own result, verbatim (a tool error too).
      return record.result as CallToolResult;
    case "failed":
      return errorResult(
        `The job "${id}" failed: ${
          typeof record.error?.message === "string" ? record.error.message : "no reason given"
        }`,
      );
    case "cancelled":
      return errorResult(`The job "${id}" was cancelled`);
    default: {
      const status = record.statusMessage === undefined
        ? ""
        : ` Its last status: ${quotedClientText(record.statusMessage)}.`;
      const next = { id, attempt: attempt + 1 };
      return {
        content: [{
          type: "text",
          text: `The job "${id}" is still running.${status} Call the tool ` +
            `"${JOB_TOOL.name}" with ${JSON.stringify(next)} to go on ` +
            `waiting (each call waits up to ${seconds(waitMs)}).`,
        }],
        structuredContent: jobState(record, record.statusMessage, next),
      };
    }
  }
}

/** An id that names no job of this caller's: never existed, expired, or another caller's. */
function unknownJob(id: string): CallToolResult {
  return errorResult(
    `No job ${quotedClientText(id)} is known here: it never existed, or it has expired`,
  );
}
