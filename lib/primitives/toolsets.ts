// Toolsets and read-only mode (adr/0045): what one connection is served of the tools. A view
// names the sets it keeps (top-level tools are in every view) and whether only tools marked
// `readOnlyHint: true` are kept. The core serves a request the snapshot as its view shows it,
// so that listing, calling, scopes and limits all read the same tools; a viewed snapshot is
// made once per snapshot and view, so its pages and their cursors agree across requests.
import { catalogOf, type Snapshot } from "./registry.ts";
import type { Tool } from "./tools.ts";

/** A toolset's name, as a folder, an HTTP path segment and an item of `--toolsets` carry it. */
export const TOOLSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The server card's route under the endpoint, `<endpoint>/server-card` (adr/0050). */
export const SERVER_CARD_ROUTE = "server-card";

/** Code mode's route under the endpoint and under a set's, `<endpoint>[/<set>]/code` (adr/0073). */
export const CODE_ROUTE = "code";

/**
 * The routes HTTP serves under its endpoint, where a toolset's path `<endpoint>/<set>` would be,
 * and what each serves: no toolset may take one of these names, or its path would reach the
 * route instead. The transport builds those paths from these names (transports/http/card_paths.ts),
 * so that the two cannot drift apart.
 */
export const ENDPOINT_ROUTES: ReadonlyMap<string, string> = new Map([
  [SERVER_CARD_ROUTE, "the server card"],
  [CODE_ROUTE, "code mode"],
]);

/**
 * How a view shows its tools (adr/0073): "tools", the catalog itself; "code", code mode's few
 * tools over that catalog (made by the core, code/code_view.ts); "inner", the catalog as the
 * code of a code-mode run reaches it (only what code may call, `callableFromCode`).
 */
type ViewMode = "tools" | "code" | "inner";

/** What a connection is served of the tools; undefined everywhere means all of them. */
export interface ToolView {
  /** The toolsets kept, sorted; undefined: every set. */
  readonly sets: readonly string[] | undefined;
  /** Only tools with `annotations.readOnlyHint: true`. */
  readonly readOnly: boolean;
  readonly mode: ViewMode;
  /** In "inner": code may call destructive tools that opt in (`--code-writes destructive`). */
  readonly destructive: boolean;
  /** Names the view among others (its sets and modes), for the viewed snapshots kept. */
  readonly key: string;
}

/** A view of `sets` (undefined: all), read-only or not, as `mode` shows it. */
export function toolView(
  sets: readonly string[] | undefined,
  readOnly: boolean,
  mode: ViewMode = "tools",
  destructive = false,
): ToolView {
  const sorted = sets && [...new Set(sets)].sort();
  return Object.freeze({
    sets: sorted && Object.freeze(sorted),
    readOnly,
    mode,
    destructive,
    key: `${readOnly ? "ro" : "rw"}:${sorted?.join(",") ?? "*"}:${mode}${destructive ? "+d" : ""}`,
  });
}

/** `view`'s sets and read-only mode, shown as `mode` shows them. */
export function asMode(view: ToolView, mode: ViewMode, destructive = view.destructive): ToolView {
  return toolView(view.sets, view.readOnly, mode, destructive);
}

/**
 * Whether code in code mode may call `tool` (adr/0073 §5): a tool whose annotations say it only
 * reads; one that opts in with `code: true` and says it destroys nothing; a destructive one that
 * opts in only when the operator allows destructive calls from code.
 */
export function callableFromCode(tool: Tool, destructive: boolean): boolean {
  const hints = tool.definition.annotations;
  if (hints?.readOnlyHint === true) return true;
  if (!tool.code) return false;
  return hints?.destructiveHint === false || destructive;
}

/** Whether `view` serves `tool`. */
function serves(view: ToolView, tool: Tool): boolean {
  if (view.readOnly && tool.definition.annotations?.readOnlyHint !== true) return false;
  if (view.mode === "inner" && !callableFromCode(tool, view.destructive)) return false;
  return tool.toolset === undefined || view.sets === undefined || view.sets.includes(tool.toolset);
}

/** Viewed snapshots a snapshot keeps; past it they are made again (the bound on memory). */
const MAX_VIEWS = 64;
const viewed = new WeakMap<Snapshot, Map<string, Snapshot>>();

/** `snapshot` as `view` shows it: the same object when the view keeps every tool. */
export function viewOf(snapshot: Snapshot, view: ToolView): Snapshot {
  let byView = viewed.get(snapshot);
  if (byView === undefined) viewed.set(snapshot, byView = new Map());
  let shown = byView.get(view.key);
  if (shown === undefined) {
    const kept = snapshot.tools.items.filter((tool) => serves(view, tool));
    shown = kept.length === snapshot.tools.items.length
      ? snapshot
      : Object.freeze({ ...snapshot, tools: catalogOf(kept, (tool) => tool.name) });
    if (byView.size >= MAX_VIEWS) byView.clear();
    byView.set(view.key, shown);
  }
  return shown;
}

const setsOf = new WeakMap<Snapshot, readonly string[]>();

/** The toolsets `snapshot` holds (folders with at least one tool), sorted. */
export function toolsetsOf(snapshot: Snapshot): readonly string[] {
  let sets = setsOf.get(snapshot);
  if (sets === undefined) {
    const found = new Set<string>();
    for (const tool of snapshot.tools.items) {
      if (tool.toolset !== undefined) found.add(tool.toolset);
    }
    sets = Object.freeze([...found].sort());
    setsOf.set(snapshot, sets);
  }
  return sets;
}

/** A server asked to serve a toolset its directory does not hold (start-up, `toolshed list`). */
export class UnknownToolsetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnknownToolsetError";
  }
}

/** `a,b` as a list of set names (spaces around each ignored, empty items dropped). */
export function parseToolsets(text: string): string[] {
  return text.split(",").map((name) => name.trim()).filter((name) => name !== "");
}

/**
 * Of `named`, the first that `known` lacks, as a sentence naming what there is; undefined
 * when all are known.
 */
export function unknownToolset(
  named: readonly string[],
  known: readonly string[],
): string | undefined {
  const missing = named.find((name) => !known.includes(name));
  if (missing === undefined) return undefined;
  return `No toolset "${missing}": ${
    known.length === 0
      ? "this server has none"
      : `this server has ${known.map((set) => `"${set}"`).join(", ")}`
  }`;
}
