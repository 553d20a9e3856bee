// Traces and metrics through Deno's own OpenTelemetry (adr/0041), with the semantic conventions
// for MCP: a span per method (`tools/call echo`, kind SERVER) whose parent is the trace context
// the client put in `_meta` (`traceparent`, `tracestate`), else the span current when the request
// came (Deno's span of the HTTP request, which continues a `traceparent` header); a span per tool
// call inside it (`execute_tool echo`), current while the tool's handler runs, so that a tool's
// own `fetch` joins the trace and an executable gets TRACEPARENT; and the histograms
// `mcp.server.operation.duration` and `mcp.server.session.duration`. No SDK: `Deno.telemetry`
// exports what is recorded over OTLP. Imported only when Deno's OpenTelemetry is on
// (OTEL_DENO=true: lib/server/create_server.ts), and composed in only then (core/handle.ts).
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import { ErrorCode, ProtocolError } from "../wire/errors.ts";
import { SERVER_INFO } from "../wire/protocol.ts";
import type { MethodCall, MethodTelemetry } from "../methods/call.ts";
import type { SessionEnd } from "../methods/session.ts";
import type { CallToolResult } from "../primitives/tool_call.ts";
import type { CoreMiddleware } from "./chain.ts";
import type { SpanIds } from "../util/active_span.ts";

/** What the server takes from telemetry: the built-in middleware and its hooks. */
interface Telemetry extends MethodTelemetry {
  /** The outermost built-in middleware: a span per method, and its duration. */
  readonly middleware: CoreMiddleware;
  /**
   * The environment that carries the current trace context to a program (TRACEPARENT, and
   * TRACESTATE when the client sent one); empty outside a span.
   */
  traceEnvironment(): Record<string, string>;
  /** Records a session's duration. */
  sessionEnded(end: SessionEnd): void;
  /** The ids of the span current now, for the lines of a structured log (adr/0044). */
  activeSpanIds(): SpanIds | undefined;
}

// The parts of the OpenTelemetry JS API that Deno.telemetry implements and this file uses.
interface SpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
}
type Attributes = Record<string, string | number | boolean>;
interface Span {
  spanContext(): SpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}
interface SpanOptions {
  kind: number;
  attributes: Attributes;
  links?: { context: SpanContext }[];
}
interface Context {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): Context;
}
interface Otel {
  tracerProvider: {
    getTracer(name: string, version: string): {
      startSpan(name: string, options: SpanOptions, context: Context): Span;
    };
  };
  contextManager: {
    active(): Context;
    with<A extends unknown[], R>(
      context: Context,
      fn: (...args: A) => R,
      thisArg: unknown,
      ...args: A
    ): R;
  };
  meterProvider: {
    getMeter(name: string, version: string): {
      createHistogram(name: string, options: {
        description: string;
        unit: string;
        advice: { explicitBucketBoundaries: number[] };
      }): { record(value: number, attributes: Attributes): void };
    };
  };
}

/** Where the OpenTelemetry API keeps the current span in a context (`trace.setSpan`). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
/** Where this file keeps the `tracestate` a client sent, for a program's TRACESTATE. */
const TRACESTATE_KEY = Symbol("toolshed tracestate");
const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_SERVER = 1;
const SPAN_STATUS_ERROR = 2;
/** The buckets the semantic conventions give both MCP duration histograms, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Longest client-chosen text (a request id, a URI, a subject) kept in an attribute. */
const MAX_ATTRIBUTE_CHARS = 256;
/** `error.type` of a `CallToolResult` with `isError: true` (the semantic conventions'). */
const TOOL_ERROR = "tool_error";

export function createTelemetry(otel: Otel = Deno.telemetry as Otel): Telemetry {
  const { contextManager } = otel;
  const tracer = otel.tracerProvider.getTracer(SERVER_INFO.name, SERVER_INFO.version);
  const meter = otel.meterProvider.getMeter(SERVER_INFO.name, SERVER_INFO.version);
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  const operations = meter.createHistogram("mcp.server.operation.duration", {
    description: "The duration of an MCP request as observed on the server, until its answer",
    unit: "s",
    advice,
  });
  const sessions = meter.createHistogram("mcp.server.session.duration", {
    description: "The duration of an MCP session as observed on the server",
    unit: "s",
    advice,
  });

  const middleware: CoreMiddleware = (next) => (call) => {
    const started = performance.now();
    const ambient = contextManager.active();
    const remote = remoteParentOf(call.params._meta);
    let parent = ambient;
    let links: { context: SpanContext }[] | undefined;
    if (remote !== undefined) {
      // The client's context is the parent (the MCP convention); the transport's span, when
      // there is one, is linked: one HTTP request may carry the calls of several traces.
      const current = ambient.getValue(SPAN_KEY) as Span | undefined;
      if (current !== undefined) links = [{ context: current.spanContext() }];
      parent = ambient.setValue(SPAN_KEY, remote.parent);
      if (remote.traceState !== undefined) {
        parent = parent.setValue(TRACESTATE_KEY, remote.traceState);
      }
    }
    const { span: attributes, metric } = attributesOf(call);
    const target = attributes["gen_ai.tool.name"] ?? attributes["gen_ai.prompt.name"];
    const name = target === undefined ? call.method : `${call.method} ${target}`;
    const span = tracer.startSpan(name, { kind: SPAN_KIND_SERVER, attributes, links }, parent);
    const ended = (outcome: Outcome) => {
      endSpan(span, outcome);
      if (outcome.errorType !== undefined) metric["error.type"] = outcome.errorType;
      if (outcome.code !== undefined) metric["rpc.response.status_code"] = outcome.code;
      operations.record((performance.now() - started) / 1000, metric);
    };
    let result: MaybePromise<JsonObject>;
    try {
      result = contextManager.with(parent.setValue(SPAN_KEY, span), next, undefined, call);
    } catch (error) {
      ended(thrown(error));
      throw error;
    }
    if (!isThenable(result)) {
      ended(answered(result));
      return result;
    }
    return (result as Promise<JsonObject>).then((ready) => {
      ended(answered(ready));
      return ready;
    }, (error) => {
      ended(thrown(error));
      throw error;
    });
  };

  return {
    middleware,
    tool(name, run) {
      const parent = contextManager.active();
      const span = tracer.startSpan(`execute_tool ${name}`, {
        kind: SPAN_KIND_INTERNAL,
        attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name },
      }, parent);
      let result: MaybePromise<CallToolResult>;
      try {
        result = contextManager.with(parent.setValue(SPAN_KEY, span), run, undefined);
      } catch (error) {
        endSpan(span, thrown(error));
        throw error;
      }
      if (!isThenable(result)) {
        endSpan(span, answered(result));
        return result;
      }
      return (result as Promise<CallToolResult>).then((ready) => {
        endSpan(span, answered(ready));
        return ready;
      }, (error) => {
        endSpan(span, thrown(error));
        throw error;
      });
    },
    traceEnvironment() {
      const context = contextManager.active();
      const span = context.getValue(SPAN_KEY) as Span | undefined;
      const env: Record<string, string> = {};
      const traceparent = span === undefined ? undefined : formatTraceparent(span.spanContext());
      if (traceparent === undefined) return env;
      env.TRACEPARENT = traceparent;
      const traceState = context.getValue(TRACESTATE_KEY);
      if (typeof traceState === "string") env.TRACESTATE = traceState;
      return env;
    },
    activeSpanIds() {
      const span = contextManager.active().getValue(SPAN_KEY) as Span | undefined;
      if (span === undefined) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    sessionEnded({ transport, protocolVersion, seconds }) {
      const attributes: Attributes = transportAttributes(transport);
      if (protocolVersion !== undefined) attributes["mcp.protocol.version"] = protocolVersion;
      sessions.record(seconds, attributes);
    },
  };
}

/** How a method (or a tool) ended, as the semantic conventions record it. */
interface Outcome {
  /** `error.type`: the JSON-RPC error code, or `tool_error`; undefined when it succeeded. */
  readonly errorType?: string;
  /** `rpc.response.status_code`: the JSON-RPC error code, when there was one. */
  readonly code?: string;
  readonly message?: string;
}

const SUCCEEDED: Outcome = Object.freeze({});

function answered(result: JsonObject | CallToolResult): Outcome {
  if (result.isError !== true) return SUCCEEDED;
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  const text = isObject(first) && typeof first.text === "string" ? first.text : undefined;
  return { errorType: TOOL_ERROR, message: text?.slice(0, MAX_ATTRIBUTE_CHARS) };
}

/** A refusal or failure thrown: the core answers it with its code, or -32603 (handle.ts). */
function thrown(error: unknown): Outcome {
  const code = String(error instanceof ProtocolError ? error.code : ErrorCode.InternalError);
  return { errorType: code, code, message: messageOf(error) };
}

function endSpan(span: Span, outcome: Outcome): void {
  if (outcome.errorType !== undefined) {
    span.setAttribute("error.type", outcome.errorType);
    if (outcome.code !== undefined) span.setAttribute("rpc.response.status_code", outcome.code);
    span.setStatus({ code: SPAN_STATUS_ERROR, message: outcome.message });
  }
  span.end();
}

/**
 * The attributes of a method's span, and the few of them the duration histogram keeps (no
 * request ids, sessions, subjects or URIs: each would make a series of its own). A tool or
 * prompt is named only when this server has it: the names a client sends are its own to
 * choose, and the histogram's series must stay few.
 */
function attributesOf(call: MethodCall): { span: Attributes; metric: Attributes } {
  const { method, params } = call;
  const metric: Attributes = {
    "mcp.method.name": method,
    "mcp.protocol.version": call.protocolVersion,
    ...transportAttributes(call.transport),
  };
  if (method === "tools/call") {
    const name = params.name;
    metric["gen_ai.operation.name"] = "execute_tool";
    if (typeof name === "string" && call.snapshot.tools.byKey.has(name)) {
      metric["gen_ai.tool.name"] = name;
    }
  } else if (method === "prompts/get") {
    const name = params.name;
    if (typeof name === "string" && call.snapshot.prompts.byKey.has(name)) {
      metric["gen_ai.prompt.name"] = name;
    }
  }
  const span: Attributes = { ...metric };
  if (call.id !== null && call.id !== undefined) {
    span["jsonrpc.request.id"] = bounded(String(call.id));
  }
  if (call.sessionId !== undefined) span["mcp.session.id"] = call.sessionId;
  const uri = params.uri;
  if (typeof uri === "string" && method.startsWith("resources/")) {
    span["mcp.resource.uri"] = bounded(uri);
  }
  const subject = call.auth?.subject;
  if (subject !== undefined) span["enduser.id"] = bounded(subject);
  return { span, metric };
}

/** What the semantic conventions say of each transport (in process: nothing). */
function transportAttributes(transport: MethodCall["transport"]): Attributes {
  switch (transport) {
    case "stdio":
      return { "network.transport": "pipe" };
    case "http":
      return { "network.transport": "tcp", "network.protocol.name": "http" };
    default:
      return {};
  }
}

function bounded(text: string): string {
  return text.length <= MAX_ATTRIBUTE_CHARS ? text : text.slice(0, MAX_ATTRIBUTE_CHARS);
}

/** A client's trace context, as a parent span that is not ours (Deno calls it foreign). */
interface RemoteParent {
  readonly parent: { spanContext(): SpanContext };
  readonly traceState: string | undefined;
}

/** The parent a request's `_meta` names (`traceparent`, `tracestate`), if a valid one. */
function remoteParentOf(meta: unknown): RemoteParent | undefined {
  if (!isObject(meta)) return undefined;
  const context = parseTraceparent(meta.traceparent);
  if (context === undefined) return undefined;
  const traceState = typeof meta.tracestate === "string" && meta.tracestate.length <= 512
    ? meta.tracestate
    : undefined;
  return { parent: { spanContext: () => context }, traceState };
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);

/**
 * A W3C `traceparent` (Trace Context, level 1): `version-traceid-parentid-flags`, lowercase
 * hex; version `ff` and all-zero ids are invalid; a version after `00` may add fields after
 * the four (read as `00`), version `00` may not. Undefined for anything else.
 */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string" || value.length > 256) return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
}

/** The `traceparent` of a span, or undefined for the invalid context of a span not recorded. */
export function formatTraceparent(context: SpanContext): string | undefined {
  const { traceId, spanId, traceFlags } = context;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}
