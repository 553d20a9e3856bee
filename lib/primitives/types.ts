// What tool authors write and receive, re-exported by mod.ts.
import type { JsonObject } from "../util/json.ts";
import type { RequestId } from "../wire/types.ts";

export type { JsonObject, RequestId };

/** Behaviour hints a client may show; they are hints, not guarantees. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** An icon a client may show for a tool (an `https:` or `data:` URI). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/** What a handler receives besides its arguments: everything that belongs to one call. */
export interface ToolContext {
  /** Aborted when the client cancels the request, the tool times out or the server stops. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the `tools/call` request. */
  readonly requestId: RequestId;
  /** The name the tool is served under. */
  readonly toolName: string;
  /** The protocol version of this request (modern) or of the session (legacy). */
  readonly protocolVersion: string;
  /** The client's `Implementation` object, when it sent one. For display and logs only. */
  readonly clientInfo: JsonObject | undefined;
  /** The capabilities the client declared (`{}` when none). */
  readonly clientCapabilities: JsonObject;
  /**
   * Tells the client how far the call has got, when it asked to be told (a progress token);
   * otherwise does nothing. `progress` must grow from one report to the next (a report
   * that does not is dropped); nothing is sent once the call is answered or cancelled.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client, when it asked for messages at this level or a more
   * severe one and the server offers logging; otherwise does nothing. For the server's own
   * diagnostics use stderr.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client something during the call (a 2025-era session whose client declared
   * the capability): `sampling/createMessage`, `elicitation/create` or `roots/list`.
   * Rejects, saying why, where that is not possible (2026-07-28 asks back by returning an
   * `input_required` result instead).
   */
  request(method: ClientRequestMethod, params: JsonObject): Promise<JsonObject>;
}

/** Log severities, least severe first (RFC 5424, as MCP uses them). */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** What a server may ask a 2025-era client. */
export type ClientRequestMethod = "sampling/createMessage" | "elicitation/create" | "roots/list";

/**
 * A tool as a file in the tools directory default-exports it: a plain object.
 *
 * The handler may return a string (one text block), an object with a `content` array
 * (a `CallToolResult` taken as is), or any other JSON value (sent as `structuredContent`
 * plus its JSON as a text block). A thrown error becomes a result with `isError: true`.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  /** The tool's name; defaults to the file name without its extension. */
  name?: string;
  title?: string;
  description: string;
  /** A JSON Schema (2020-12 unless `$schema` says otherwise) whose root has `type: "object"`. */
  inputSchema: JsonObject;
  /** A JSON Schema that `structuredContent` must match. */
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  /** How long one call may run before it is aborted; overrides the `--tool-timeout` flag. */
  timeoutMs?: number;
  /**
   * Client capabilities a call needs, e.g. `{ sampling: {} }`: a client that did not declare
   * each of these keys is refused before the handler runs (2026-07-28: JSON-RPC error
   * -32021 with `data.requiredCapabilities`; a 2025 session: an `isError` result).
   */
  requiredClientCapabilities?: JsonObject;
  handler: (args: Args, ctx: ToolContext) => unknown;
}
