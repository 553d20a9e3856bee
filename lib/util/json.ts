// JSON helpers with no knowledge of MCP.

/** A JSON object as `JSON.parse` returns it. */
export type JsonObject = { [key: string]: unknown };

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The message of a thrown value, whatever was thrown. Never throws itself: a tool may
 * throw an object whose `message` getter or string conversion throws.
 */
export function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return "a thrown value that cannot be shown as text";
  }
}

/** setTimeout's limit (2^31 - 1 ms, about 24.8 days): a longer timer fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** JSON with every object's keys sorted: the same text for values equal as JSON. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? "null";
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
}
