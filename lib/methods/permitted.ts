// Lists as a caller sees them when the server hides what the caller's token may not use
// (`--auth-lists permitted`): the catalog without the primitives whose scopes the token does
// not grant. Filtered catalogs are kept by snapshot and by the token's scopes, so that pages
// and their renderings are made once for each set of scopes, and their cursors agree.
import { catalogOf } from "../primitives/registry.ts";
import type { Catalog } from "../primitives/registry.ts";
import { covers } from "../primitives/scopes.ts";
import type { MethodCall } from "./call.ts";

/** Filtered catalogs one catalog keeps; past it they are made again (the bound on memory). */
const MAX_SCOPE_SETS = 64;

const filtered = new WeakMap<Catalog<unknown>, Map<string, Catalog<unknown>>>();

/**
 * The catalog `call`'s caller is shown, and whether it is theirs alone (a 2026-07-28 list is
 * then `cacheScope: "private"`): all of it unless the server hides and the caller is known.
 */
export function shownTo<P extends { readonly scopes: readonly string[] }>(
  call: MethodCall,
  catalog: Catalog<P>,
): { catalog: Catalog<P>; private: boolean } {
  const { auth } = call;
  if (auth === undefined || call.options.listed !== "permitted") {
    return { catalog, private: false };
  }
  let byScopes = filtered.get(catalog);
  if (byScopes === undefined) filtered.set(catalog, byScopes = new Map());
  const key = [...auth.scopes].sort().join(" ");
  let shown = byScopes.get(key) as Catalog<P> | undefined;
  if (shown === undefined) {
    const kept = catalog.items.filter((item) => covers(auth, item.scopes));
    const keys = new Map(catalog.items.map((item, index) => [item, catalog.keys[index]]));
    shown = kept.length === catalog.items.length
      ? catalog
      : catalogOf(kept, (item) => keys.get(item)!);
    if (byScopes.size >= MAX_SCOPE_SETS) byScopes.clear();
    byScopes.set(key, shown);
  }
  return { catalog: shown, private: true };
}
