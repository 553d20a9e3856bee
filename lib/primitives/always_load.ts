// A tool kept loaded in hosts that defer tools (adr/0073 §6): `alwaysLoad: true` on a definition
// becomes `_meta["anthropic/alwaysLoad"]: true`, the key Claude Code 2.1.332 reads to keep an MCP
// tool out of its tool search's deferral.
import { isObject, type JsonObject } from "../util/json.ts";

/** The `_meta` key Claude Code reads (its value must be the boolean true). */
const ALWAYS_LOAD_KEY = "anthropic/alwaysLoad";

/**
 * The `_meta` a definition's `alwaysLoad` gives its tool (the author's own merged in), or the
 * author's unchanged when the field is absent or false; throws when the field is no boolean or
 * the author's `_meta` sets the key to something else.
 */
export function alwaysLoadMeta(
  alwaysLoad: unknown,
  meta: JsonObject | undefined,
): JsonObject | undefined {
  if (alwaysLoad === undefined) return meta;
  if (typeof alwaysLoad !== "boolean") {
    throw new Error(
      `alwaysLoad must be true (hosts that defer tools keep it loaded) or false (the default), ` +
        `not ${JSON.stringify(alwaysLoad) ?? String(alwaysLoad)}`,
    );
  }
  refuseOtherValue(meta, ALWAYS_LOAD_KEY, alwaysLoad, "alwaysLoad");
  return alwaysLoad ? { ...meta, [ALWAYS_LOAD_KEY]: true } : meta;
}

/**
 * Throws when the author's own `_meta` sets `key` to something other than what the definition's
 * `field` says (`value`): one of the two must go.
 */
export function refuseOtherValue(
  meta: JsonObject | undefined,
  key: string,
  value: unknown,
  field: string,
): void {
  const own = isObject(meta) && Object.hasOwn(meta, key) ? meta[key] : undefined;
  if (own !== undefined && own !== value) {
    throw new Error(
      `_meta sets "${key}" to ${JSON.stringify(own)} but ${field} is ${
        JSON.stringify(value)
      }: drop one of them`,
    );
  }
}
