// What a method handler receives, and what a method table entry says of its method: the
// vocabulary every handler file imports (only table.ts imports the handlers themselves).
import type { ToolView } from "../primitives/toolsets.ts";
import type { MaybePromise } from "../util/maybe.ts";
import type { JsonObject } from "../util/json.ts";
import type { Request } from "../wire/extract.ts";
import type { Era, VersionFeatures } from "../wire/versions.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Registry, Snapshot } from "../primitives/registry.ts";
import type { Call, Channels } from "../primitives/types.ts";
import type { Tasks } from "../tasks/tasks.ts";
import type { RequestContext } from "./context.ts";
import type { CallToolResult } from "../primitives/tool_call.ts";

/** Server capabilities a method can need (the keys of `ServerCapabilities`). */
type Capability = "tools" | "resources" | "prompts" | "completions" | "logging";

/** What the client is, as one request sees it (its envelope, or its 2025-era session). */
export interface ClientView {
  readonly protocolVersion: string;
  readonly clientInfo: JsonObject | undefined;
  readonly clientCapabilities: Readonly<JsonObject>;
}

/**
 * Everything a handler gets for one request: the call middleware sees (`method`, `params`,
 * `id`, the client, `signal`, …), and what the core knows of it besides. Handlers read the
 * call's `params`, not the request's, so that a middleware may hand them others.
 */
export interface MethodCall extends Call {
  /** The request as the extractor decoded it. */
  readonly request: Request;
  /** The table entry being served. */
  readonly entry: MethodEntry;
  readonly ctx: RequestContext;
  /** Read once when the request started: a reload meanwhile does not change it. */
  readonly snapshot: Snapshot;
  readonly features: VersionFeatures;
  readonly client: ClientView;
  /** What this server advertises to this request's era, for this snapshot. */
  readonly capabilities: Readonly<JsonObject>;
  /**
   * progress/log/request for handlers that reach back to the client: set by the built-in
   * middleware of the chain (core/channels.ts, core/rounds.ts) before the handler runs.
   */
  channels: Channels;
  /** Calls `listener` after each swap of the registry's snapshot; returns how to stop. */
  readonly onChange: Registry["onChange"];
  readonly options: MethodOptions;
}

/** The core's settings that handlers read. */
export interface MethodOptions {
  /** How many items one list page holds. */
  readonly pageSize: number;
  /** How long a tool call may run when the tool sets no `timeoutMs`. */
  readonly toolTimeoutMs: number;
  /**
   * How long a call of a tool that may run as a task runs inline for a client without the
   * tasks extension before it answers with a job (adr/0070); 0 or absent: never a job.
   */
  readonly jobAfterMs?: number;
  /** The longest one call of the job tool waits (adr/0070); default JOB_WAIT_MS. */
  readonly jobWaitMs?: number;
  readonly diagnostics: Diagnostics;
  /**
   * The server directory is watched and reloaded (--watch): lists can change while a client
   * is connected, and the server says so (`listChanged`).
   */
  readonly listChanged?: boolean;
  /** Where tasks are kept and run (the tasks extension); the core makes an in-memory one. */
  readonly tasks?: Tasks;
  /**
   * When callers are known (OAuth): whether lists show what a caller's token does not grant
   * ("all", the default: a client must see a tool to step up for it) or hide it
   * ("permitted"; a 2026-07-28 list is then private to the caller).
   */
  readonly listed?: "all" | "permitted";
  /** Present only when telemetry is on (core/telemetry.ts): what handlers trace. */
  readonly telemetry?: MethodTelemetry;
  /**
   * The server's `Implementation` (server.meta.json, adr/0049), in `serverInfo` and every
   * 2026-07-28 result's `_meta`; default: toolshed's own.
   */
  readonly serverInfo?: Readonly<JsonObject>;
  /**
   * The tools served when a connection chooses none (`--toolsets`, `--read-only`, adr/0045);
   * undefined: all of them.
   */
  readonly view?: ToolView;
  /**
   * The core's own `handle`, set by the core: how a tool toolshed made sends a request back
   * into it (code mode's inner calls, adr/0073 §4), through every step a client's goes through.
   */
  readonly reenter?: (ctx: RequestContext) => MaybePromise<JsonObject>;
}

/** What handlers ask of telemetry, when it is on. */
export interface MethodTelemetry {
  /**
   * Runs one tool call in a span of its own (`execute_tool NAME`), current while the handler
   * runs, and ended when the call's result is there.
   */
  tool(name: string, run: () => MaybePromise<CallToolResult>): MaybePromise<CallToolResult>;
}

export interface MethodEntry {
  readonly eras: readonly Era[];
  /** The server capability it belongs to; advertised once some method needs it. */
  readonly capability?: Capability;
  /**
   * Whether the snapshot has anything for the capability (no resources: no `resources`);
   * absent: always. A method whose capability is not advertised is -32601.
   */
  readonly available?: (snapshot: Snapshot) => boolean;
  /**
   * The extension it belongs to: advertised as `capabilities.extensions[<name>]` to clients of
   * its eras when available.
   */
  readonly extension?: string;
  /** Members of the capability object it adds, in its own eras (`{ subscribe: true }`). */
  readonly advertises?: Readonly<JsonObject>;
  /** Modern results carry `ttlMs` and `cacheScope` (lists and discovery). */
  readonly cacheable?: boolean;
  /** The `resultType`s it may answer with besides "complete" (2026-07-28). */
  readonly incomplete?: readonly string[];
  /**
   * Runs until the client cancels it or the server closes it (`ctx.closing`): it holds no
   * concurrency slot and does not hold up shutdown.
   */
  readonly longLived?: boolean;
  /**
   * How it stands to the era pin of a session: "opens" pins it (`initialize`, served even
   * before the checks of a claim-less request); "ignores" answers in any state without
   * pinning (`server/discover`). By default a stateless request pins an open session stateless.
   */
  readonly session?: "opens" | "ignores";
  /**
   * The OAuth scopes a request asks of its caller's token (the scopes of the primitive it
   * names), found at once; checked before any middleware when the caller is known
   * (core/authorize.ts). Absent: none.
   */
  readonly scopes?: (call: MethodCall) => readonly string[];
  /**
   * The result object, era-shaped by the handler except for what the core stamps on every
   * stateless result (`resultType` when absent, cache hints, `_meta` server info). Throwing a
   * ProtocolError answers with that error.
   */
  readonly handler: (call: MethodCall) => MaybePromise<JsonObject>;
}

export type MethodTable = ReadonlyMap<string, MethodEntry>;
