// The outermost built-in middleware (adr/0025): what every 2026-07-28 result carries
// (`resultType`, cache hints, the server's info in `_meta`), stamped once the chain inside has
// answered; a `resultType` the method cannot have is a fault of the server's (-32603). 2025-era
// results pass as they are.
import type { JsonObject } from "../util/json.ts";
import { isThenable } from "../util/maybe.ts";
import type { MethodEntry } from "../methods/call.ts";
import { serverMetaOf, statelessResult } from "../methods/results.ts";
import type { CoreMiddleware } from "./chain.ts";

export function stamp(
  listTtlMs: number | undefined,
  serverInfo: Readonly<JsonObject> | undefined,
): CoreMiddleware {
  const serverMeta = serverMetaOf(serverInfo);
  const stamped = (result: JsonObject, entry: MethodEntry): JsonObject => {
    const type = result.resultType;
    if (type !== undefined && type !== "complete" && !entry.incomplete?.includes(type as string)) {
      throw new Error(`the handler answered with resultType ${JSON.stringify(type)}`);
    }
    return statelessResult(result, entry.cacheable === true, listTtlMs, serverMeta);
  };
  return (next) => (call) => {
    if (call.features.era !== "stateless") return next(call);
    const { entry } = call;
    const result = next(call);
    return isThenable(result)
      ? (result as Promise<JsonObject>).then((ready) => stamped(ready, entry))
      : stamped(result, entry);
  };
}
