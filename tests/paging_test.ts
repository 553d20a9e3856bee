import { deepStrictEqual, throws } from "node:assert/strict";
import { page } from "../lib/primitives/paging.ts";
import { type Catalog, catalogOf } from "../lib/primitives/registry.ts";

/** A catalog of plain named items: paging knows nothing of tools. */
function catalog(keys: string[]): Catalog<{ name: string }> {
  return catalogOf(keys.map((name) => ({ name })), (item) => item.name);
}

const describe = (item: { name: string }) => ({ name: item.name });
const names = (result: { items: Record<string, unknown>[] }) =>
  result.items.map((item) => item.name);

/** The pager of one catalog, as a list method uses it. */
const lister = (keys: string[], size: number) => {
  const items = catalog(keys);
  return (cursor: unknown) => page(items, cursor, size, describe, "k");
};

/** The cursor a page ending at `key` gives (a page of one, from a catalog of two). */
const cursorAfter = (key: string): string => lister([key, `${key}~`], 1)(undefined).nextCursor!;

Deno.test("page() pages through every tool exactly once", () => {
  const list = lister(["a", "b", "c", "d", "e"], 2);
  const first = list(undefined);
  deepStrictEqual(names(first), ["a", "b"]);
  const second = list(first.nextCursor);
  deepStrictEqual(names(second), ["c", "d"]);
  const last = list(second.nextCursor);
  deepStrictEqual(last, { items: [{ name: "e" }] });
});

Deno.test("page() starts at the beginning for an empty-string cursor", () => {
  deepStrictEqual(names(lister(["a"], 5)("")), ["a"]);
});

Deno.test("page() continues after the named tool even if it no longer exists", () => {
  const list = lister(["a", "c", "e"], 5);
  deepStrictEqual(names(list(cursorAfter("b"))), ["c", "e"]);
  deepStrictEqual(names(list(cursorAfter("z"))), []);
});

Deno.test("page() rejects a cursor it did not issue with -32602", () => {
  const list = lister(["a"], 5);
  for (const cursor of ["%%%", btoa("before:a"), 3, null, {}]) {
    throws(() => list(cursor), { code: -32602, message: "Invalid cursor" });
  }
});

Deno.test("page() sorts a catalog by key and renders each rendering once per catalog", () => {
  let renders = 0;
  const items = catalog(["b", "B", "a"]);
  const render = (item: { name: string }) => (renders++, { name: item.name });
  deepStrictEqual(names(page(items, undefined, 10, render, "once")), ["B", "a", "b"]);
  page(items, undefined, 10, render, "once");
  deepStrictEqual(renders, 3);
  // A new catalog (a reload's snapshot) renders anew.
  page(catalog(["a"]), undefined, 10, render, "once");
  deepStrictEqual(renders, 4);
});

Deno.test("page() pages past keys outside Latin-1, each exactly once", () => {
  const keys = ["memo://a/日記", "memo://b/😀", "memo://c/plain", "memo://d/é"];
  const list = lister(keys, 1);
  const seen: unknown[] = [];
  let cursor: string | undefined = undefined;
  do {
    const result: { items: Record<string, unknown>[]; nextCursor?: string } = list(cursor);
    seen.push(...names(result));
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  deepStrictEqual(seen, keys);
});

Deno.test("page() still reads the cursors issued before they were UTF-8 (btoa of the key)", () => {
  const list = lister(["a", "b", "café", "d"], 5);
  // What a page wrote for ASCII and Latin-1 keys when its cursor was btoa("after:" + key).
  deepStrictEqual(cursorAfter("a"), btoa("after:a"));
  deepStrictEqual(names(list(btoa("after:a"))), ["b", "café", "d"]);
  deepStrictEqual(names(list(btoa("after:café"))), ["d"]);
});
