// Definition fields that go on the wire as the author wrote them: checked at load to survive
// JSON unchanged (a BigInt, a cycle, a Date, NaN or a Map would not), then copied and frozen.
// Tools, resources and prompts share it.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";

/** The names of tools, prompts and resource templates: 1–128 of `A-Z a-z 0-9 _ - .` (MCP). */
export const PRIMITIVE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Why `value` (the field `field`) cannot be sent as JSON unchanged, one sentence, or undefined
 * when it can. A key whose value is undefined vanishes, as a missing key would, and is fine.
 */
export function jsonProblem(field: string, value: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // V8 explains a cycle over several lines; the first one is the sentence.
    return `${field} cannot be sent as JSON: ${messageOf(error).split("\n")[0]}`;
  }
  const change = text === undefined
    ? `${kindOf(value)} would be dropped`
    : firstChange(value, JSON.parse(text), "");
  return change === undefined ? undefined : `${field} cannot be sent as JSON unchanged: ${change}`;
}

/** A JSON copy of `value`, frozen all the way down (for a value jsonProblem() accepted). */
export function frozenJson<T>(value: T): T {
  return deepFreeze(JSON.parse(JSON.stringify(value)));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Where `arrived` (what JSON made of `sent`) first differs from `sent`, if anywhere. */
function firstChange(sent: unknown, arrived: unknown, pointer: string): string | undefined {
  if (isPlainObject(sent) && isObject(arrived)) {
    for (const key of Object.keys(sent)) {
      if (sent[key] === undefined) continue;
      const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      const change = Object.hasOwn(arrived, key)
        ? firstChange(sent[key], arrived[key], at)
        : `at "${at}": ${kindOf(sent[key])} would be dropped`;
      if (change !== undefined) return change;
    }
    return undefined;
  }
  if (Array.isArray(sent) && Array.isArray(arrived) && sent.length === arrived.length) {
    for (let i = 0; i < sent.length; i++) {
      const change = firstChange(sent[i], arrived[i], `${pointer}/${i}`);
      if (change !== undefined) return change;
    }
    return undefined;
  }
  if (sent === arrived) return undefined;
  return `at "${pointer}": ${kindOf(sent)} would arrive as ${kindOf(arrived)}`;
}

/** An object JSON writes as it is: no class of its own (a Date, a Map) to lose. */
function isPlainObject(value: unknown): value is JsonObject {
  if (!isObject(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A value's kind as a message shows it: "a string", "NaN", "a Date", "undefined". */
export function kindOf(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && !isPlainObject(value)) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && name !== "") {
      return `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}`;
    }
  }
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
