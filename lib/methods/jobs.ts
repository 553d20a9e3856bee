// Jobs (adr/0070): long calls for clients without the tasks extension. A call of a tool that
// may run as a task, from such a client, runs inline up to the job bound; past it, the task
// the call becomes runs on and the call answers with a handle, an ordinary result naming the
// next call: the built-in tool `toolshed_job` (job_tool.ts), which waits for the job's end.
// This file decides who gets jobs, words the handle, and shapes the listing they see.
import { canonicalJson, type JsonObject } from "../util/json.ts";
import type { MaybePromise } from "../util/maybe.ts";
import type { Catalog } from "../primitives/registry.ts";
import { catalogOf } from "../primitives/registry.ts";
import { checkDefinition, JOB_TOOL, type Tool } from "../primitives/tools.ts";
import type { CallToolResult } from "../primitives/tool_call.ts";
import { isTerminal, type TaskRecord } from "../tasks/task_store.ts";
import type { Tasks } from "../tasks/tasks.ts";
import { TABLE } from "../settings/table.ts";
import type { Era } from "../wire/versions.ts";
import type { MethodCall } from "./call.ts";
import { declaresTasks } from "./tasks.ts";
import { callAsTask, type TaskRoute } from "./tool_tasks.ts";
import { callerOf } from "./caller.ts";

let jobToolMade: Tool | undefined;

/**
 * The built-in tool that follows a job, as the listing shows it and its arguments are checked;
 * made (its schema compiled) the first time a client gets jobs, not at every start.
 */
export function jobTool(): Tool {
  return jobToolMade ??= checkDefinition(
    {
      title: "Wait for a job",
      description: "Waits for a job to end and returns its result. A tool that runs for long " +
        'answers with a job id instead of its result; call this tool with {"id": "<that id>"}. ' +
        "Each call waits until the job ends and returns the tool's own result, or, after a " +
        "while, says the job is still running and gives the arguments of the next call: " +
        'make that call. {"id": "<id>", "cancel": true} stops the job.',
      inputSchema: {
        type: "object",
        properties: {
          id: { type: "string", minLength: 1, maxLength: 256, description: "The job's id" },
          cancel: {
            type: "boolean",
            default: false,
            description: "Stop the job instead of waiting for it",
          },
          attempt: {
            type: "integer",
            minimum: 1,
            description: "Which wait this is, as the last answer gives it",
          },
        },
        required: ["id"],
        // Other keys are let through, not refused: hosts add their own to every tool they
        // declare and send them on (Gemini CLI's `wait_for_previous`, tests/jobs_host_test.ts).
      },
      // Waiting changes nothing; cancelling stops only the caller's own job (adr/0070), so a host
      // that asks before a tool with side effects does not ask at every wait.
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      handler: () => {
        throw new Error(`${JOB_TOOL.name} is answered by the core, never called as a handler`);
      },
    },
    JOB_TOOL.name,
    JOB_TOOL.file,
  );
}

/** The most one call of the job tool waits, unless the server says otherwise. */
export const JOB_WAIT_MS = TABLE.jobWaitMs.default;

/** Whether calls of this request's client may become jobs: jobs on, and no tasks for it. */
export function jobsServed(call: MethodCall): boolean {
  if (call.options.tasks === undefined || !((call.options.jobAfterMs ?? 0) > 0)) return false;
  return !(call.features.era === "stateless" && declaresTasks(call.client.clientCapabilities));
}

/**
 * Whether `tool` becomes a job for a client that gets jobs, in `era`. A 2026-07-28 client can
 * declare the extension, so a required task stays the spec's error for it; a 2025-era client
 * cannot, so a required task is a job at once.
 */
export function becomesJob(tool: Tool, era: Era): boolean {
  return tool.task === "optional" || (tool.task === "required" && era !== "stateless");
}

/**
 * Runs a call of `tool` that may become a job: inline up to its bound, then as a task answered
 * with a handle (shaped for the request's era by `shapeHandle`; a finished call's result by
 * `shapeResult`). With the tool's reuse window, the same caller's same call while its job runs
 * (or soon after it ended) gets that job instead of a second run.
 */
export function callAsJob(
  call: MethodCall,
  tasks: Tasks,
  tool: Tool,
  args: JsonObject,
  shapeResult: (result: CallToolResult) => JsonObject,
  shapeHandle: (result: CallToolResult) => JsonObject,
): MaybePromise<JsonObject> {
  const waitMs = call.options.jobWaitMs ?? JOB_WAIT_MS;
  const route = (key: string | undefined): TaskRoute => ({
    afterMs: tool.jobAfterMs ?? (tool.task === "required" ? 0 : call.options.jobAfterMs ?? 0),
    created: (live, status) => {
      // What the handler said inside the request is where the job's status starts.
      if (status !== undefined) live.progress(status);
      // Named for the window; a store that cannot is only a retry run twice.
      if (key !== undefined) tasks.name(key, live.taskId, tool.jobReuseMs!).catch(() => {});
      return shapeHandle(jobHandle(tool.name, live.created, status, waitMs));
    },
    // The follower shapes the result for its own era (job_tool.ts): stored as the tool made it.
    stored: (result) => result,
    canAsk: false,
  });
  if (tool.jobReuseMs === undefined) {
    return callAsTask(call, tasks, tool, args, shapeResult, route(undefined));
  }
  const caller = callerOf(call.ctx.facts?.caller);
  return reuseKey(caller, tool.name, args).then(async (key) => {
    const taskId = await tasks.named(key).catch(() => undefined);
    const job = taskId === undefined ? undefined : await tasks.get(taskId, caller);
    if (job?.status === "completed") return shapeHandle(job.result as CallToolResult);
    if (job !== undefined && !isTerminal(job.status)) {
      return shapeHandle(jobHandle(tool.name, job, job.statusMessage, waitMs));
    }
    return await callAsTask(call, tasks, tool, args, shapeResult, route(key));
  });
}

/** A reuse window's key: the SHA-256 of the caller, the tool and the arguments as JSON. */
async function reuseKey(caller: string | undefined, tool: string, args: JsonObject) {
  const text = JSON.stringify([caller ?? null, tool]) + canonicalJson(args);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The handle a call answers with once it is a job: a text for the model in toolshed's own
 * words (never the tool's: its status message is only in the structured part), naming the next
 * call exactly, and the same for programs.
 */
function jobHandle(
  toolName: string,
  record: TaskRecord,
  status: string | undefined,
  waitMs: number,
): CallToolResult {
  const id = record.taskId;
  const next = { id };
  return {
    content: [{
      type: "text",
      text: `The tool "${toolName}" is still running, as job "${id}". Call the tool ` +
        `"${JOB_TOOL.name}" with ${JSON.stringify(next)} to wait for its result: ` +
        `each call returns as soon as the job ends, or after ${seconds(waitMs)} with its status.`,
    }],
    structuredContent: jobState(record, status, next),
  };
}

/**
 * A job's structured content, for programs and for hosts that give their model structured
 * content in place of the text (Claude Code): its state, and the next call, exactly.
 */
export function jobState(
  record: TaskRecord,
  status: string | undefined,
  next: JsonObject,
): JsonObject {
  return {
    job: {
      id: record.taskId,
      status: record.status,
      ...status === undefined ? {} : { statusMessage: status },
      pollAfterMs: 0,
      next: { tool: JOB_TOOL.name, arguments: next },
    },
  };
}

/** `ms` for people: "45 s". */
export function seconds(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}

/** Catalogs with the job tool, by the catalog they add it to, for each kind of era. */
const withJobTool: Record<Era, WeakMap<Catalog<Tool>, Catalog<Tool>>> = {
  stateless: new WeakMap(),
  session: new WeakMap(),
};

/**
 * The catalog a client that gets jobs is shown in `era`: with the job tool when some tool of
 * it becomes a job (made once per catalog and era).
 */
export function jobCatalog(
  catalog: Catalog<Tool>,
  era: Era,
): Catalog<Tool> {
  if (!catalog.items.some((tool) => becomesJob(tool, era))) return catalog;
  const made = withJobTool[era];
  let shown = made.get(catalog);
  if (shown === undefined) {
    shown = catalogOf([...catalog.items, jobTool()], (tool) => tool.name);
    made.set(catalog, shown);
  }
  return shown;
}

/**
 * A tool as a client that gets jobs sees it: without its outputSchema when it may answer
 * with a handle, which cannot conform to it (structured content MUST match a declared
 * outputSchema, and clients refuse a result that does not).
 */
export function listedForJobs(
  rendered: JsonObject,
  tool: Tool,
  era: Era,
): JsonObject {
  if (!becomesJob(tool, era) || rendered.outputSchema === undefined) return rendered;
  const { outputSchema: _withheld, ...rest } = rendered;
  return rest;
}
