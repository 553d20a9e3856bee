// One page of a list of primitives that carry their own wire listing (resources, resource
// templates, prompts), shaped for the request's version.
import type { JsonObject } from "../util/json.ts";
import { page } from "../primitives/paging.ts";
import type { Catalog } from "../primitives/registry.ts";
import type { MethodCall } from "./call.ts";
import { listingFor } from "./results.ts";

/** `{ [field]: items, nextCursor? }` for the page the request's cursor names. */
export function listPage<P extends { readonly listing: Readonly<JsonObject> }>(
  call: MethodCall,
  catalog: Catalog<P>,
  field: string,
): JsonObject {
  const { items, nextCursor } = page(
    catalog,
    call.params.cursor,
    call.options.pageSize,
    (item) => listingFor(item.listing, call.features),
    call.protocolVersion,
  );
  return nextCursor === undefined ? { [field]: items } : { [field]: items, nextCursor };
}
