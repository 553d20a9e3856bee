// One page of a list of primitives that carry their own wire listing (resources, resource
// templates, prompts), shaped for the request's version.
import type { JsonObject } from "../util/json.ts";
import { page } from "../primitives/paging.ts";
import type { Catalog } from "../primitives/registry.ts";
import type { MethodCall } from "./call.ts";
import { listingFor } from "./results.ts";
import { shownTo } from "./permitted.ts";

/** `{ [field]: items, nextCursor? }` for the page the request's cursor names. */
export function listPage<
  P extends { readonly listing: Readonly<JsonObject>; readonly scopes: readonly string[] },
>(
  call: MethodCall,
  all: Catalog<P>,
  field: string,
): JsonObject {
  const shown = shownTo(call, all);
  const { items, nextCursor } = page(
    shown.catalog,
    call.params.cursor,
    call.options.pageSize,
    (item) => listingFor(item.listing, call.features),
    call.protocolVersion,
  );
  return listResult(call, field, items, nextCursor, shown.private);
}

/** A list's result; one shown to its caller alone says so to a 2026-07-28 client. */
export function listResult(
  call: MethodCall,
  field: string,
  items: JsonObject[],
  nextCursor: string | undefined,
  personal: boolean,
): JsonObject {
  const result: JsonObject = { [field]: items };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  if (personal && call.features.era === "stateless") result.cacheScope = "private";
  return result;
}
