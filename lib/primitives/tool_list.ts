// `tools/list` pages: a deterministic order (by name), opaque cursors, and the Tool
// objects of each era built once and reused.
import { invalidParams } from "../wire/errors.ts";
import type { Registry, Tool } from "./tools.ts";
import type { JsonObject } from "../util/json.ts";

export type ToolPage = {
  tools: JsonObject[];
  nextCursor?: string;
};

/** Lists pages of Tool objects as `describe` renders them; `key` names that rendering. */
export type ToolLister = (
  cursor: unknown,
  key: string,
  describe: (tool: Tool) => JsonObject,
) => ToolPage;

const CURSOR_PREFIX = "after:";

/**
 * A cursor names the last tool of the previous page, so it stays meaningful even for a
 * client that kept it across a restart in which tools were added or removed.
 */
export function encodeCursor(lastName: string): string {
  return btoa(CURSOR_PREFIX + lastName);
}

function decodeCursor(cursor: unknown): string {
  let decoded: string | undefined;
  if (typeof cursor === "string") {
    try {
      decoded = atob(cursor);
    } catch { /* reported below */ }
  }
  if (decoded === undefined || !decoded.startsWith(CURSOR_PREFIX)) {
    throw invalidParams("Invalid cursor");
  }
  return decoded.slice(CURSOR_PREFIX.length);
}

export function createToolLister(registry: Registry, pageSize: number): ToolLister {
  const rendered = new Map<string, JsonObject[]>();
  const names = registry.tools.map((tool) => tool.name);

  return (cursor, key, describe) => {
    let all = rendered.get(key);
    if (!all) {
      all = registry.tools.map(describe);
      rendered.set(key, all);
    }
    // No cursor, or the empty string, starts at the beginning.
    const start = cursor === undefined || cursor === ""
      ? 0
      : firstAfter(names, decodeCursor(cursor));
    const end = Math.min(start + pageSize, all.length);
    const page: ToolPage = { tools: all.slice(start, end) };
    if (end < all.length) page.nextCursor = encodeCursor(names[end - 1]);
    return page;
  };
}

/** The index of the first name greater than `after` (names are sorted). */
function firstAfter(names: readonly string[], after: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle] <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
