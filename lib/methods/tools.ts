// `tools/list` and `tools/call`, for both eras: the primitives layer lists and runs tools;
// this shapes what it gives for the request's protocol version.
import { isObject } from "../util/json.ts";
import { didYouMean } from "../util/suggest.ts";
import type { JsonObject } from "../util/json.ts";
import { then } from "../util/maybe.ts";
import type { MaybePromise } from "../util/maybe.ts";
import { invalidParams, missingClientCapability } from "../wire/errors.ts";
import { page } from "../primitives/paging.ts";
import { callTool, errorResult, isIncomplete } from "../primitives/tool_call.ts";
import { boundedResult } from "../primitives/result_size.ts";
import type { CallOptions, CallToolResult } from "../primitives/tool_call.ts";
import type { MethodCall } from "./call.ts";
import { frontTokenFor, requestSeenOf } from "./handler_context.ts";
import { innerCallsFor } from "./inner_calls.ts";
import { sessionCallResult, sessionTool, statelessTool } from "./results.ts";
import { listResult } from "./list_page.ts";
import { shownTo } from "./permitted.ts";
import { declaresTasks, missingTasksExtension } from "./tasks.ts";
import { callAsTask } from "./tool_tasks.ts";
import { becomesJob, callAsJob, jobCatalog, jobsServed, jobTool, listedForJobs } from "./jobs.ts";
import { followJob } from "./job_tool.ts";
import { JOB_TOOL, type Tool } from "../primitives/tools.ts";

export function listToolsMethod(call: MethodCall): JsonObject {
  const { features, protocolVersion } = call;
  const { era } = features;
  const shown = shownTo(call, call.snapshot.tools);
  let render: (tool: Tool) => JsonObject = era === "stateless"
    ? statelessTool
    : (tool) => sessionTool(tool, features);
  let renderKey = era === "stateless" ? "stateless" : protocolVersion;
  let catalog = shown.catalog;
  // A client that gets jobs sees the job tool, and no outputSchema a handle would break.
  if (jobsServed(call)) {
    catalog = jobCatalog(catalog, era);
    const plain = render;
    render = (tool) => listedForJobs(plain(tool), tool, era);
    renderKey += "+jobs";
  }
  const { items, nextCursor } = page(
    catalog,
    call.params.cursor,
    call.options.pageSize,
    render,
    renderKey,
  );
  return listResult(call, "tools", items, nextCursor, shown.private);
}

/** Starts a `tools/call`, or throws the -32602 its params deserve. */
export function callToolMethod(call: MethodCall): MaybePromise<JsonObject> {
  const { client, features } = call;
  const { name, arguments: given } = call.params;
  const args = given === undefined ? {} : given;
  if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
  if (!isObject(args)) throw invalidParams("Invalid params: arguments must be an object");
  const tool = call.snapshot.tools.byKey.get(name);
  if (!tool) {
    if (name === JOB_TOOL.name && jobsServed(call)) {
      return followJob(call, args).then((ready) => shapedFor(call, ready, jobTool()));
    }
    throw invalidParams(`Unknown tool: "${name}"${knownTools(call, name)}`);
  }
  const missing = missingCapabilities(tool.requiredClientCapabilities, client.clientCapabilities);
  if (missing !== undefined) {
    // Refused before the handler runs: 2026-07-28 has an error for it; 2025 a tool error.
    if (features.era === "stateless") throw missingClientCapability(missing, `tool "${name}"`);
    return errorResult(
      `Tool "${name}" needs the client capabilities ${Object.keys(missing).join(", ")}, ` +
        `which this client did not declare`,
    );
  }
  if (features.era === "stateless" && tool.task !== undefined) {
    const allowed = (call.entry.incomplete ?? []).filter((type) => type !== "task");
    if (call.options.tasks && declaresTasks(client.clientCapabilities)) {
      return callAsTask(
        call,
        call.options.tasks,
        tool,
        args,
        (ready) => statelessCallResult(boundedFor(call, ready, tool), name, allowed),
      );
    }
    if (tool.task === "required") throw missingTasksExtension(`tool "${name}"`);
  }
  // A client without tasks: a long call becomes a job (adr/0070), unless no task may start now,
  // when it runs inline as it always did.
  const tasks = call.options.tasks;
  if (
    tool.task !== undefined && tasks !== undefined && becomesJob(tool, features.era) &&
    jobsServed(call) && tasks.refusal() === undefined
  ) {
    return callAsJob(
      call,
      tasks,
      tool,
      args,
      (ready) => shapedFor(call, ready, tool),
      (handle) => shapedFor(call, handle, jobTool()),
    );
  }
  const options: CallOptions = {
    controller: call.ctx.controller,
    defaultTimeoutMs: call.options.toolTimeoutMs,
    diagnostics: call.options.diagnostics,
    channels: call.channels,
    context: requestSeenOf(call),
    frontToken: frontTokenFor(call, tool),
    innerCalls: innerCallsFor(call, tool),
  };
  const { telemetry } = call.options;
  const result = telemetry === undefined
    ? callTool(tool, args, options)
    : telemetry.tool(tool.name, () => callTool(tool, args, options));
  return then(result, (ready) => shapedFor(call, ready, tool));
}

/**
 * A finished call's result as the request's era shows it (a task is the core's to create,
 * tool_tasks.ts, never a handler's to claim).
 */
function shapedFor(call: MethodCall, result: CallToolResult, tool: Tool): JsonObject {
  const name = tool.name;
  const ready = boundedFor(call, result, tool);
  if (call.features.era === "stateless") {
    const allowed = (call.entry.incomplete ?? []).filter((type) => type !== "task");
    return statelessCallResult(ready, name, allowed);
  }
  return isIncomplete(ready)
    ? errorResult(
      `Tool "${name}" asks the client for input (resultType "${ready.resultType}"), ` +
        `which needs a client of protocol version 2026-07-28`,
    )
    : sessionCallResult(ready, tool, call.features);
}

/**
 * A finished call's result cut to the tool's `maxResultChars` for a host; code in code mode (an
 * inner call) gets it whole.
 */
function boundedFor(call: MethodCall, result: CallToolResult, tool: Tool): CallToolResult {
  if (isIncomplete(result) || call.ctx.facts?.view?.mode === "inner") return result;
  return boundedResult(result, tool.maxResultChars, tool.definition.outputSchema !== undefined);
}

function statelessCallResult(
  result: CallToolResult,
  name: string,
  allowed: readonly string[],
): CallToolResult {
  if (!isIncomplete(result)) return result;
  const type = result.resultType as string;
  if (!allowed.includes(type)) {
    return errorResult(
      `Tool "${name}" returned resultType ${JSON.stringify(type)}, which tools/call cannot ` +
        `answer with (${["complete", ...allowed].join(", ")})`,
    );
  }
  if (
    type === "input_required" && !isObject(result.inputRequests) &&
    typeof result.requestState !== "string"
  ) {
    return errorResult(
      `Tool "${name}" returned an input_required result with neither inputRequests nor requestState`,
    );
  }
  return result;
}

/** The required capabilities the client did not declare, or undefined when it has them all. */
function missingCapabilities(
  required: Readonly<JsonObject> | undefined,
  declared: Readonly<JsonObject>,
): JsonObject | undefined {
  if (required === undefined) return undefined;
  let missing: JsonObject | undefined;
  for (const key in required) {
    if (!(key in declared)) (missing ??= {})[key] = required[key];
  }
  return missing;
}

/** What to say after an unknown tool's name: the one meant, or the names there are. */
function knownTools(call: MethodCall, name: string): string {
  const names = call.snapshot.tools.keys;
  const meant = didYouMean(name, names);
  if (meant !== "" || names.length === 0) return meant;
  const shown = names.slice(0, 10).map((known) => `"${known}"`).join(", ");
  return ` (this server has ${shown}${names.length > 10 ? `, and ${names.length - 10} more` : ""})`;
}
