// The method table: every method the server answers, the eras it exists in, the capability
// it needs and how its results may look. The advertised capabilities are derived from it,
// so serving a new method is one entry here and its handler beside it.
import type { MaybePromise } from "../util/maybe.ts";
import type { JsonObject } from "../util/json.ts";
import type { Request } from "../wire/extract.ts";
import type { Era, VersionFeatures } from "../wire/versions.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Registry, Snapshot } from "../primitives/registry.ts";
import type { Channels } from "../primitives/types.ts";
import type { RequestContext } from "./context.ts";
import { discover, initialize, ping } from "./lifecycle.ts";
import { callToolMethod, listToolsMethod } from "./tool_methods.ts";
import {
  listResourcesMethod,
  listResourceTemplatesMethod,
  readResourceMethod,
  subscribeMethod,
  unsubscribeMethod,
} from "./resource_methods.ts";
import { getPromptMethod, listPromptsMethod } from "./prompt_methods.ts";
import { completeMethod } from "./completion_method.ts";
import { setLevelMethod } from "./logging_method.ts";
import { listenMethod } from "./listen_method.ts";
import { cancelTaskMethod, getTaskMethod, updateTaskMethod } from "./task_methods.ts";
import { type Tasks, TASKS_EXTENSION } from "./tasks.ts";

/** Server capabilities a method can need (the keys of `ServerCapabilities`). */
export type Capability = "tools" | "resources" | "prompts" | "completions" | "logging";

/** What the client is, as one request sees it (its envelope, or its legacy session). */
export interface ClientView {
  readonly protocolVersion: string;
  readonly clientInfo: JsonObject | undefined;
  readonly clientCapabilities: Readonly<JsonObject>;
}

/** Everything a handler gets for one request. */
export interface MethodCall {
  readonly request: Request;
  /** The table entry being served. */
  readonly entry: MethodEntry;
  readonly ctx: RequestContext;
  /** Read once when the request started: a reload meanwhile does not change it. */
  readonly snapshot: Snapshot;
  readonly version: string;
  readonly features: VersionFeatures;
  readonly client: ClientView;
  /** What this server advertises to this request's era, for this snapshot. */
  readonly capabilities: Readonly<JsonObject>;
  /** progress/log/request for handlers that reach back to the client (see handle.ts). */
  readonly channels: Channels;
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
  readonly diagnostics: Diagnostics;
  /**
   * The server directory is watched and reloaded (--watch): lists can change while a client
   * is connected, and the server says so (`listChanged`).
   */
  readonly listChanged?: boolean;
  /** Where tasks are kept and run (the tasks extension); the core makes an in-memory one. */
  readonly tasks?: Tasks;
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
   * pinning (`server/discover`). By default a modern request pins an open session modern.
   */
  readonly session?: "opens" | "ignores";
  /**
   * The result object, era-shaped by the handler except for what the core stamps on every
   * modern result (`resultType` when absent, cache hints, `_meta` server info). Throwing a
   * ProtocolError answers with that error.
   */
  readonly handler: (call: MethodCall) => MaybePromise<JsonObject>;
}

export type MethodTable = ReadonlyMap<string, MethodEntry>;

const hasResources = (snapshot: Snapshot) =>
  snapshot.resources.items.length > 0 || snapshot.templates.items.length > 0;
const hasPrompts = (snapshot: Snapshot) => snapshot.prompts.items.length > 0;
const hasTaskTools = (snapshot: Snapshot) =>
  snapshot.tools.items.some((tool) => tool.task !== undefined);
const taskMethod = (handler: MethodEntry["handler"]): MethodEntry => ({
  eras: ["modern"],
  extension: TASKS_EXTENSION,
  available: hasTaskTools,
  handler,
});
const canComplete = (snapshot: Snapshot) =>
  snapshot.prompts.items.some((prompt) => prompt.completers.size > 0) ||
  snapshot.templates.items.some((template) => template.completers.size > 0);

/** The methods toolshed serves today. */
export const METHODS: MethodTable = new Map<string, MethodEntry>([
  ["initialize", { eras: ["legacy"], session: "opens", handler: initialize }],
  ["ping", { eras: ["legacy"], handler: ping }],
  ["server/discover", { eras: ["modern"], session: "ignores", cacheable: true, handler: discover }],
  ["tools/list", {
    eras: ["modern", "legacy"],
    capability: "tools",
    cacheable: true,
    handler: listToolsMethod,
  }],
  ["tools/call", {
    eras: ["modern", "legacy"],
    capability: "tools",
    incomplete: ["input_required", "task"],
    handler: callToolMethod,
  }],
  ["resources/list", {
    eras: ["modern", "legacy"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    handler: listResourcesMethod,
  }],
  ["resources/templates/list", {
    eras: ["modern", "legacy"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    handler: listResourceTemplatesMethod,
  }],
  ["resources/read", {
    eras: ["modern", "legacy"],
    capability: "resources",
    available: hasResources,
    cacheable: true,
    incomplete: ["input_required"],
    handler: readResourceMethod,
  }],
  ["resources/subscribe", {
    eras: ["legacy"],
    capability: "resources",
    available: hasResources,
    advertises: Object.freeze({ subscribe: true }),
    handler: subscribeMethod,
  }],
  ["resources/unsubscribe", {
    eras: ["legacy"],
    capability: "resources",
    available: hasResources,
    handler: unsubscribeMethod,
  }],
  ["prompts/list", {
    eras: ["modern", "legacy"],
    capability: "prompts",
    available: hasPrompts,
    cacheable: true,
    handler: listPromptsMethod,
  }],
  ["prompts/get", {
    eras: ["modern", "legacy"],
    capability: "prompts",
    available: hasPrompts,
    incomplete: ["input_required"],
    handler: getPromptMethod,
  }],
  ["completion/complete", {
    eras: ["modern", "legacy"],
    capability: "completions",
    available: canComplete,
    handler: completeMethod,
  }],
  ["logging/setLevel", { eras: ["legacy"], capability: "logging", handler: setLevelMethod }],
  ["subscriptions/listen", {
    eras: ["modern"],
    longLived: true,
    handler: listenMethod,
  }],
  ["tasks/get", taskMethod(getTaskMethod)],
  ["tasks/update", taskMethod(updateTaskMethod)],
  ["tasks/cancel", taskMethod(cancelTaskMethod)],
]);

/**
 * The capabilities a table gives the server for one snapshot, as a client of `era` sees
 * them: one key per capability some method needs and the snapshot has something for, in
 * every era (a capability is the server's: `logging` rests on a 2025-era method, yet a
 * 2026-07-28 client uses it through its per-request log level), with the members methods
 * of that era add. Frozen: answers share it.
 */
export function capabilitiesOf(
  table: MethodTable,
  snapshot: Snapshot,
  era: Era,
): Readonly<JsonObject> {
  const capabilities: Record<string, JsonObject> = {};
  for (const entry of table.values()) {
    const { capability, extension } = entry;
    if (extension !== undefined) {
      if (entry.eras.includes(era) && entry.available?.(snapshot) !== false) {
        (capabilities.extensions ??= {})[extension] = {};
      }
      continue;
    }
    if (capability === undefined || entry.available?.(snapshot) === false) continue;
    capabilities[capability] ??= {};
    if (entry.advertises && entry.eras.includes(era)) {
      Object.assign(capabilities[capability], entry.advertises);
    }
  }
  for (const key in capabilities) Object.freeze(capabilities[key]);
  return Object.freeze(capabilities);
}
