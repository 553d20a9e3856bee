// The lines code mode's sandbox child writes (sandbox_runner.ts has the protocol), read by the
// parent as it reads any untrusted input: one JSON.parse per line, then the shape, and anything
// else is a reason to end the run. Sizes and counts are the parent's to check (sandbox.ts).
import { isObject } from "../util/json.ts";

/** One line of the child, as the parent understood it. */
export type ChildLine =
  | { kind: "log"; text: string }
  | { kind: "cut" }
  | { kind: "call"; id: number; name: string; args: Record<string, unknown> }
  | { kind: "done"; ok: true; value: unknown }
  | { kind: "done"; ok: false; error: string }
  | { kind: "bad"; why: string };

/** Reads one line of the child (without its newline). */
export function parseChildLine(line: string): ChildLine {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: "bad", why: "a line that is not JSON" };
  }
  if (!isObject(message)) return { kind: "bad", why: "a line that is not a JSON object" };
  const keys = Object.keys(message);
  if (keys.length !== 1) return { kind: "bad", why: "a line with other than one key" };
  const [key] = keys;
  const body = message[key];
  switch (key) {
    case "log":
      return typeof body === "string"
        ? { kind: "log", text: body }
        : { kind: "bad", why: `a "log" line whose text is not a string` };
    case "cut":
      return body === true
        ? { kind: "cut" }
        : { kind: "bad", why: `a "cut" line that is not true` };
    case "call": {
      if (
        !isObject(body) || !Number.isSafeInteger(body.id) || (body.id as number) < 1 ||
        typeof body.name !== "string" || !isObject(body.args)
      ) {
        return { kind: "bad", why: `a "call" line without an id, a name and object arguments` };
      }
      return { kind: "call", id: body.id as number, name: body.name, args: body.args };
    }
    case "done": {
      if (!isObject(body)) return { kind: "bad", why: `a "done" line that is not an object` };
      if (body.ok === true) return { kind: "done", ok: true, value: body.value };
      if (body.ok === false && typeof body.error === "string") {
        return { kind: "done", ok: false, error: body.error };
      }
      return { kind: "bad", why: `a "done" line that is neither a value nor an error` };
    }
    default:
      return { kind: "bad", why: `a line of unknown kind "${key.slice(0, 40)}"` };
  }
}
