// A mounted tool's handler (adr/0071 §6): its call goes upstream as a `tools/call` of the
// upstream's own name, and what comes back is the tool's result. Everything upstream-specific
// ends here, so a mounted tool is an ordinary `Tool` to the core: scopes, rate limits,
// middleware, spans, tasks and jobs apply to it as to a local one.
//
// Rounds, one way for both eras of the front client: an upstream that asks (a 2026-07-28
// `input_required` result, or a 2025-era server request during the call) is answered through
// the handler's own `ctx.request`, which asks the front client in its era. A 2026-07-28 front
// request is stateless, so when the front client has not answered yet the handler stops, and
// runs again from the start on the client's retry: the upstream is called again, asks again,
// and this time `ctx.request` resolves at once with the front client's answer, which goes
// upstream with the upstream's own `requestState` of that call.
//
// Tasks (the 2026-07-28 extension): toolshed declares it to an upstream that offers it, and
// follows a task the upstream answers with inside the handler (`tasks/get` at the upstream's
// interval, questions through `ctx.request` and `tasks/update`, `tasks/cancel` when the call
// stops first), so the front sees a plain result, and a mounted tool marked `"task"` in its
// mount is a task or job of the front's own like a local tool.
//
// The tool's inputSchema is the one served (the pinned one: a tool whose upstream schema moved
// is withheld), so its `x-mcp-header` arguments are known here and handed to the link, which
// sends them as `Mcp-Param-*` headers to a 2026-07-28 HTTP upstream (it refuses a call without).
import { isObject, type JsonObject } from "../util/json.ts";
import type { ClientRequestMethod, ToolContext } from "../primitives/types.ts";
import { type Upstream, UpstreamError } from "./upstream.ts";
import { delay } from "./delay.ts";
import type { MirroredArgument } from "./link.ts";

/** How many times one call may answer the upstream's questions before it is given up. */
const MAX_UPSTREAM_ROUNDS = 16;

/** `_meta` keys the protocol owns: made for each hop, never copied across it. */
const PROTOCOL_META = "io.modelcontextprotocol/";

/** What a relay needs of its mount. */
interface RelayTarget {
  /** The mount file, as messages name it (`tools/github.mcp.json`). */
  readonly file: string;
  /** The tool's name upstream. */
  readonly upstreamName: string;
  /** The connection this call goes through (shared, or the caller's own with token exchange). */
  upstreamFor(ctx: ToolContext): Upstream | Promise<Upstream>;
  /** With telemetry: the call's trace context (`TRACEPARENT`, `TRACESTATE`). */
  traceEnvironment?: () => Record<string, string>;
  /** The tool's inputSchema as served: its `x-mcp-header` arguments go in HTTP headers too. */
  inputSchema?: JsonObject;
}

/** The handler of a mounted tool. */
export function relayHandler(
  target: RelayTarget,
): (args: Record<string, unknown>, ctx: ToolContext) => Promise<JsonObject> {
  const mirrored = mirroredOf(target.inputSchema);
  return async (args, ctx) => {
    try {
      const upstream = await target.upstreamFor(ctx);
      const server = await upstream.connect(ctx.signal);
      const meta = traceMeta(target.traceEnvironment?.());
      // Toolshed follows an upstream's tasks itself, so it declares the extension to one that
      // has it, whatever the front client follows.
      const clientCapabilities = server.era === "stateless" && offersTasks(server.capabilities)
        ? withTasks(ctx.clientCapabilities)
        : ctx.clientCapabilities;
      let params: JsonObject = { name: target.upstreamName, arguments: args };
      const ask = askedByMethod(ctx);
      for (let round = 0;; round++) {
        let result = await upstream.request("tools/call", params, {
          signal: ctx.signal,
          progress: ctx.progress,
          request: ask,
          meta,
          clientCapabilities,
          mirrored,
        });
        if (result.resultType === "task") {
          result = await followTask(upstream, result, ctx, clientCapabilities);
        }
        if (result.resultType !== "input_required") return resultOf(result, target);
        if (round + 1 >= MAX_UPSTREAM_ROUNDS) {
          return failure(
            target,
            `the upstream asked for input ${MAX_UPSTREAM_ROUNDS} times in one call; given up`,
          );
        }
        params = {
          name: target.upstreamName,
          arguments: args,
          inputResponses: await answersOf(result, ctx),
          ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
        };
      }
    } catch (error) {
      // The front's cancel or timeout is the core's to answer; the stop is not the upstream's.
      if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
      if (error instanceof UpstreamError) return failure(target, error.message);
      throw error;
    }
  };
}

/** The tasks extension (2026-07-28), whose tasks an upstream may answer a call with. */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The shortest and longest wait between two polls of an upstream task, and the default. */
const POLL_MIN_MS = 50;
const POLL_MAX_MS = 5_000;
const POLL_DEFAULT_MS = 500;

/** How long telling the upstream to cancel an abandoned task may take. */
const TASK_CANCEL_MS = 5_000;

function offersTasks(capabilities: JsonObject): boolean {
  const extensions = capabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

function withTasks(capabilities: JsonObject): JsonObject {
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/**
 * Follows the upstream task `created` to its end with `tasks/get`, at the upstream's poll
 * interval (bounded to 50 ms – 5 s) and for as long as the call's signal allows: its result
 * when it completes; its questions (status `input_required`) asked of the front client and
 * answered with `tasks/update`. A task this call leaves unfinished (the front cancelled, the
 * timeout, a 2026-07-28 front's question pending) is cancelled upstream.
 */
async function followTask(
  upstream: Upstream,
  created: JsonObject,
  ctx: ToolContext,
  clientCapabilities: JsonObject,
): Promise<JsonObject> {
  const { taskId } = created;
  if (typeof taskId !== "string") {
    throw new UpstreamError("rpc", "the upstream answered with a task without a taskId");
  }
  const hooks = { signal: ctx.signal, clientCapabilities };
  const answered = new Set<string>();
  let task = created;
  try {
    for (let round = 0;;) {
      switch (task.status) {
        case "completed":
          if (!isObject(task.result)) {
            throw new UpstreamError(
              "rpc",
              `the upstream's task "${taskId}" completed without a result`,
            );
          }
          return task.result;
        case "failed": {
          const error = isObject(task.error) ? task.error : {};
          const message = typeof error.message === "string" ? error.message : "no message";
          throw new UpstreamError("rpc", `the upstream's task "${taskId}" failed: ${message}`);
        }
        case "cancelled":
          throw new UpstreamError("rpc", `the upstream cancelled its task "${taskId}"`);
        case "input_required": {
          const asked = isObject(task.inputRequests) ? task.inputRequests : {};
          const open = Object.fromEntries(
            Object.entries(asked).filter(([key]) => !answered.has(key)),
          );
          if (Object.keys(open).length === 0) break;
          if (++round >= MAX_UPSTREAM_ROUNDS) {
            throw new UpstreamError(
              "rpc",
              `the upstream's task asked for input ${MAX_UPSTREAM_ROUNDS} times; given up`,
            );
          }
          const inputResponses = await answersOf({ inputRequests: open }, ctx);
          await upstream.request("tasks/update", { taskId, inputResponses }, hooks);
          for (const key of Object.keys(open)) answered.add(key);
          break;
        }
      }
      const interval = typeof task.pollIntervalMs === "number"
        ? Math.min(Math.max(task.pollIntervalMs, POLL_MIN_MS), POLL_MAX_MS)
        : POLL_DEFAULT_MS;
      await delay(interval, ctx.signal);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      task = await upstream.request("tasks/get", { taskId }, hooks);
    }
  } catch (error) {
    if (!isFinal(task.status)) {
      upstream.request("tasks/cancel", { taskId }, {
        signal: AbortSignal.timeout(TASK_CANCEL_MS),
        clientCapabilities,
      }).catch(() => {});
    }
    throw error;
  }
}

function isFinal(status: unknown): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** The front client's answers to what an `input_required` result asks, by the upstream's keys. */
async function answersOf(result: JsonObject, ctx: ToolContext): Promise<JsonObject> {
  const asked = isObject(result.inputRequests) ? result.inputRequests : {};
  const entries = Object.entries(asked).filter(([, request]) =>
    isObject(request) && typeof request.method === "string"
  ) as [string, { method: string; params?: unknown }][];
  const answers = await Promise.all(
    entries.map(([key, request]) =>
      ctx.request(
        clientMethod(request.method),
        isObject(request.params) ? request.params : {},
        { key },
      )
    ),
  );
  return Object.fromEntries(entries.map(([key], index) => [key, answers[index]]));
}

/**
 * How a 2025-era upstream's questions during the call are asked of the front client: each
 * named by its method and its place among that method's questions (`elicitation/create#1`),
 * so that a question the upstream asks in one run and not the next (server-everything asks
 * `roots/list` 350 ms after its handshake, whichever call is in flight) leaves the other
 * questions their names, and the answers a 2026-07-28 client gave are found on its retry.
 */
function askedByMethod(
  ctx: ToolContext,
): (method: string, params: JsonObject) => Promise<JsonObject> {
  const asked = new Map<string, number>();
  return (method, params) => {
    const question = clientMethod(method);
    const place = (asked.get(question) ?? 0) + 1;
    asked.set(question, place);
    return ctx.request(question, params, { key: `${question}#${place}` });
  };
}

/** The methods a server may ask its client, which the front client is asked in turn. */
const CLIENT_METHODS: ReadonlySet<string> = new Set<ClientRequestMethod>([
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
]);

/** `method` as one the front client serves; another is the upstream's mistake. */
function clientMethod(method: string): ClientRequestMethod {
  if (!CLIENT_METHODS.has(method)) {
    throw new UpstreamError(
      "rpc",
      `the upstream asked the client for "${method}", which no client serves`,
    );
  }
  return method as ClientRequestMethod;
}

/**
 * The upstream's result as this tool's: its `resultType` is stamped again by the core, and the
 * protocol's own `_meta` keys stay on their hop.
 */
function resultOf(result: JsonObject, target: RelayTarget): JsonObject {
  if (!Array.isArray(result.content)) {
    return failure(target, "the upstream answered tools/call without a content array");
  }
  const { resultType: _, _meta, ...rest } = result;
  if (!isObject(_meta)) return rest;
  const kept = Object.entries(_meta).filter(([key]) => !key.startsWith(PROTOCOL_META));
  return kept.length === 0 ? rest : { ...rest, _meta: Object.fromEntries(kept) };
}

/** A result the model can read: the call did not reach an answer upstream. */
function failure(target: RelayTarget, message: string): JsonObject {
  return {
    content: [{ type: "text", text: `The upstream server of "${target.file}" failed: ${message}` }],
    isError: true,
  };
}

/**
 * The arguments `schema` marks with `x-mcp-header`, each reached through `properties` alone
 * (checkDefinition has refused a tool whose marks break the rules before it is served).
 */
function mirroredOf(schema: unknown, path: readonly string[] = []): MirroredArgument[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    const at = [...path, name];
    const header = isObject(property) ? property["x-mcp-header"] : undefined;
    const own = typeof header === "string" ? [{ header, path: at }] : [];
    return [...own, ...mirroredOf(property, at)];
  });
}

/** W3C trace context for the upstream request's `_meta`, from the call's trace environment. */
function traceMeta(env: Record<string, string> | undefined): JsonObject | undefined {
  if (env?.TRACEPARENT === undefined) return undefined;
  return env.TRACESTATE === undefined
    ? { traceparent: env.TRACEPARENT }
    : { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE };
}
