// List pages for any catalog: a deterministic order (by key), opaque cursors, and each
// rendering of a catalog (one per protocol version) built once and reused.
import { invalidParams } from "../wire/errors.ts";
import type { JsonObject } from "../util/json.ts";
import type { Catalog } from "./registry.ts";

interface Page {
  items: JsonObject[];
  nextCursor?: string;
}

const CURSOR_PREFIX = "after:";
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A cursor names the last key of the previous page, so it stays meaningful after a reload
 * or a restart in which primitives were added or removed: the key's UTF-8, in base64 (the
 * standard alphabet, padded), so any key can end a page. For an ASCII key it is the cursor
 * the earlier `btoa` wrote, character for character.
 */
function encodeCursor(lastKey: string): string {
  return utf8.encode(CURSOR_PREFIX + lastKey).toBase64();
}

function decodeCursor(cursor: unknown): string {
  let decoded: string | undefined;
  if (typeof cursor === "string") {
    try {
      decoded = textOf(Uint8Array.fromBase64(cursor));
    } catch { /* reported below */ }
  }
  if (decoded === undefined || !decoded.startsWith(CURSOR_PREFIX)) {
    throw invalidParams("Invalid cursor");
  }
  return decoded.slice(CURSOR_PREFIX.length);
}

/**
 * UTF-8, or else one character per byte: a cursor `btoa` wrote for a Latin-1 key (before
 * cursors were UTF-8) is not UTF-8, and names its key that way.
 */
function textOf(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    let text = "";
    for (const byte of bytes) text += String.fromCharCode(byte);
    return text;
  }
}

/** Renderings per catalog: a swapped-out snapshot's go with it. */
const renderings = new WeakMap<Catalog<unknown>, Map<string, JsonObject[]>>();

/**
 * The page of `catalog` after `cursor`, each item as `render` makes it; `renderKey` names
 * that rendering (the same key must always mean the same function).
 */
export function page<P>(
  catalog: Catalog<P>,
  cursor: unknown,
  size: number,
  render: (item: P) => JsonObject,
  renderKey: string,
): Page {
  let byKey = renderings.get(catalog);
  if (!byKey) renderings.set(catalog, byKey = new Map());
  let all = byKey.get(renderKey);
  if (!all) byKey.set(renderKey, all = catalog.items.map(render));
  // No cursor, or the empty string, starts at the beginning.
  const start = cursor === undefined || cursor === ""
    ? 0
    : firstAfter(catalog.keys, decodeCursor(cursor));
  const end = Math.min(start + size, all.length);
  const result: Page = { items: all.slice(start, end) };
  if (end < all.length) result.nextCursor = encodeCursor(catalog.keys[end - 1]);
  return result;
}

/** The index of the first key greater than `after` (keys are sorted). */
function firstAfter(keys: readonly string[], after: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle] <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
