// The built-in middleware that counts requests (adr/0042), composed only when metrics are on
// (--metrics): each request that reaches its method is counted by method, tool and outcome, and
// its duration observed, as the chain inside answers it. It sits outside authorize and the rate
// limit, so that their refusals are outcomes too. Routing errors (an unknown method, a version
// not served) are answered before any middleware and are not counted here.
import { isObject, type JsonObject } from "../util/json.ts";
import { isThenable } from "../util/maybe.ts";
import type { CounterSeries, HistogramSeries, MetricRegistry } from "../util/metrics.ts";
import { ErrorCode, ProtocolError } from "../wire/errors.ts";
import type { MethodCall } from "../methods/call.ts";
import type { CoreMiddleware } from "./chain.ts";

/** The code of a refusal for a rate limit (wire/errors.ts's RateLimited: HTTP 429). */
const RATE_LIMITED = -32031;

/** How a request ended, as `toolshed_requests_total{outcome}` says it. */
type Outcome =
  | "ok"
  /** A tool's result with `isError: true`. */
  | "tool_error"
  /** An `input_required` answer: the client is asked something, another round follows. */
  | "input_required"
  /** A JSON-RPC error (invalid params, an unknown tool, a fault of the server's). */
  | "error"
  /** -32030: the caller's token lacks a scope. */
  | "forbidden"
  /** -32031: a rate limit refused it. */
  | "rate_limited"
  /** The client cancelled it, or the server stopped it, before it answered. */
  | "cancelled"
  /** It ran out of time (--tool-timeout, or the tool's timeoutMs). */
  | "timeout";

/** Durations, in seconds: from a cached list (sub-millisecond) to a tool that runs minutes. */
const DURATION_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
  300,
] as const;

/**
 * Distinct tool names the `tool` label takes at most over the process's life; more (tools
 * added and removed by many reloads) are counted as `_other`. A name no tool has is `_unknown`,
 * so that a client cannot make series by calling names that do not exist.
 */
export const MAX_TOOL_LABELS = 1000;
const UNKNOWN_TOOL = "_unknown";
/** The label value of what is past a bound. */
const OTHER_LABEL = "_other";
/** Limit names the refusals' `limit` label takes at most; more are counted as `_other`. */
const MAX_LIMIT_LABELS = 32;

/** The series of one kind of request (a method, or `tools/call` of one tool). */
interface Kind {
  readonly method: string;
  readonly tool: string;
  readonly duration: HistogramSeries;
  readonly outcomes: Map<Outcome, CounterSeries>;
}

/** The metrics the middleware keeps: defined in `registry`, counted as requests end. */
export function requestMetrics(registry: MetricRegistry): CoreMiddleware {
  const requests = registry.counter(
    "toolshed_requests_total",
    "Requests that reached their method, by method, tool (tools/call) and outcome",
    ["method", "tool", "outcome"],
  );
  const durations = registry.histogram(
    "toolshed_request_duration_seconds",
    "How long requests took, from the method's middleware to its answer",
    ["method", "tool"],
    DURATION_BUCKETS,
  );
  const refusals = registry.counter(
    "toolshed_rate_limited_total",
    "Requests refused by a rate limit (JSON-RPC error -32031), by the limit that refused them",
    ["limit"],
  );
  /** By method for every method but tools/call; tools/call's by tool label. */
  const methods = new Map<string, Kind>();
  const tools = new Map<string, Kind>();
  /** Tool names with series of their own (MAX_TOOL_LABELS at most). */
  let named = 0;
  const limits = new Set<string>();

  const kindOf = (call: MethodCall): Kind => {
    if (call.method !== "tools/call") {
      let kind = methods.get(call.method);
      if (kind === undefined) methods.set(call.method, kind = makeKind(call.method, ""));
      return kind;
    }
    const name = call.params.name;
    const known = typeof name === "string" && call.snapshot.tools.byKey.has(name);
    let kind = tools.get(known ? name : UNKNOWN_TOOL);
    if (kind !== undefined) return kind;
    const tool = !known ? UNKNOWN_TOOL : named < MAX_TOOL_LABELS ? name : OTHER_LABEL;
    kind = tools.get(tool);
    if (kind === undefined) {
      if (tool === name) named++;
      tools.set(tool, kind = makeKind("tools/call", tool));
    }
    return kind;
  };

  const makeKind = (method: string, tool: string): Kind => ({
    method,
    tool,
    duration: durations.labels(method, tool),
    outcomes: new Map(),
  });

  const end = (kind: Kind, outcome: Outcome, started: number) => {
    kind.duration.observe((performance.now() - started) / 1000);
    let counter = kind.outcomes.get(outcome);
    if (counter === undefined) {
      kind.outcomes.set(outcome, counter = requests.labels(kind.method, kind.tool, outcome));
    }
    counter.inc();
  };

  const refused = (error: unknown, call: MethodCall, kind: Kind, started: number) => {
    const outcome = errorOutcome(error, call);
    if (outcome === "rate_limited") refusals.labels(limitOf(error as ProtocolError)).inc();
    end(kind, outcome, started);
  };

  /** The refusal's limit (`data.limit`), bounded; `unnamed` when it names none. */
  const limitOf = (error: ProtocolError): string => {
    const limit = isObject(error.data) ? error.data.limit : undefined;
    if (typeof limit !== "string") return "unnamed";
    if (limits.has(limit)) return limit;
    if (limits.size >= MAX_LIMIT_LABELS) return OTHER_LABEL;
    limits.add(limit);
    return limit;
  };

  return (next) => (call) => {
    const kind = kindOf(call);
    const started = performance.now();
    let result;
    try {
      result = next(call);
    } catch (error) {
      refused(error, call, kind, started);
      throw error;
    }
    if (!isThenable(result)) {
      end(kind, resultOutcome(result as JsonObject, call), started);
      return result;
    }
    return (result as Promise<JsonObject>).then(
      (ready) => {
        end(kind, resultOutcome(ready, call), started);
        return ready;
      },
      (error) => {
        refused(error, call, kind, started);
        throw error;
      },
    );
  };
}

function resultOutcome(result: JsonObject, call: MethodCall): Outcome {
  const aborted = abortOutcome(call);
  if (aborted !== undefined) return aborted;
  if (result.isError === true) return "tool_error";
  if (result.resultType === "input_required") return "input_required";
  return "ok";
}

function errorOutcome(error: unknown, call: MethodCall): Outcome {
  if (error instanceof ProtocolError) {
    if (error.code === ErrorCode.InsufficientScope) return "forbidden";
    if (error.code === RATE_LIMITED) return "rate_limited";
  }
  return abortOutcome(call) ?? "error";
}

/** `timeout` when the call's time ran out, `cancelled` when anything else aborted it. */
function abortOutcome(call: MethodCall): Outcome | undefined {
  const { signal } = call;
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === "TimeoutError" ? "timeout" : "cancelled";
}
