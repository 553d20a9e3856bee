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
}

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
  handler: (args: Args, ctx: ToolContext) => unknown;
}
