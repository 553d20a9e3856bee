// The pins of a mount (adr/0071 §3): a lock file, `tools/<stem>.pins.json`, of what a model sees
// of each upstream tool and prompt, with its SHA-256, so that an upstream that changes a
// description after a person approved it is caught. The file holds the definitions, not only
// their digests, so that a pull request shows which description changed, and so that the catalog
// can be listed before the upstream answers.
//
// What a model sees of a tool: name, title, description, inputSchema, outputSchema, annotations.
// Not pinned: `icons` (shown to a person, never to the model), `_meta` (protocol and vendor
// data, e.g. an app's URI), `execution` (how a call runs, not what it says). Of a prompt: name,
// title, description and each argument's name, title, description and `required`.
//
// The digest is "sha256-<hex>" of the canonical JSON (util/json.ts) of that, so reordering an
// object's keys is no change; the order of an array's items (a schema's "required", an enum) is.
// The file is written stable (keys sorted at every depth, 2 spaces, a trailing newline) and
// atomically (a temporary file beside it, renamed over it).
import type { createHash as CreateHash } from "node:crypto";
import { canonicalJson, isObject, type JsonObject } from "../util/json.ts";

/** What a model sees of an upstream tool. */
export interface Seen {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
}

/** What a model sees of an upstream prompt. */
export interface SeenPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: JsonObject[];
}

/** One pinned definition and its digest. */
interface Pinned<T> {
  digest: string;
  seen: T;
}

/** The pins of one mount, by upstream name. */
export interface Pins {
  tools: Record<string, Pinned<Seen>>;
  prompts: Record<string, Pinned<SeenPrompt>>;
}

/** One upstream tool or prompt not served, and why. */
interface Withheld {
  name: string;
  /** changed: its digest moved; new: the pins do not hold it; gone: the upstream dropped it. */
  why: "changed" | "new" | "gone";
  /** Readable lines: each field or schema path that differs, with both versions. */
  diff: string;
}

/** What the upstream's list holds against the pins. */
interface Comparison {
  /** Upstream names served as pinned, sorted. */
  kept: string[];
  /** Sorted by name. */
  withheld: Withheld[];
}

/** Only the fields of an upstream tool a model sees, or throws naming what is malformed. */
export function seenOfTool(upstreamTool: JsonObject): Seen {
  const name = nameOf(upstreamTool, "tool");
  const seen: Seen = { name, inputSchema: {} };
  copyTexts(upstreamTool, seen, "tool");
  for (const field of ["inputSchema", "outputSchema", "annotations"] as const) {
    const value = upstreamTool[field];
    if (value === undefined && field !== "inputSchema") continue;
    if (!isObject(value)) throw new Error(`the tool "${name}" has ${field} that is not an object`);
    seen[field] = structuredClone(value);
  }
  return seen;
}

/** Only the fields of an upstream prompt a model sees, or throws naming what is malformed. */
export function seenOfPrompt(upstreamPrompt: JsonObject): SeenPrompt {
  const name = nameOf(upstreamPrompt, "prompt");
  const seen: SeenPrompt = { name };
  copyTexts(upstreamPrompt, seen, "prompt");
  const args = upstreamPrompt.arguments;
  if (args === undefined) return seen;
  if (!Array.isArray(args)) {
    throw new Error(`the prompt "${name}" has arguments that are not a list`);
  }
  seen.arguments = args.map((argument, i) => {
    if (!isObject(argument) || typeof argument.name !== "string") {
      throw new Error(`the prompt "${name}" has arguments[${i}] without a name`);
    }
    const kept: JsonObject = {};
    for (const field of ["name", "title", "description", "required"]) {
      if (argument[field] !== undefined) kept[field] = argument[field];
    }
    return kept;
  });
  return seen;
}

let createHash: typeof CreateHash | undefined;

/** "sha256-<hex>" of the canonical JSON of what a model sees. */
function digestOf(seen: Seen | SeenPrompt): string {
  // node:crypto is taken at the first digest: a static `node:` import would load Deno's Node
  // layer at every start (see auth/token_key.ts); WebCrypto's digest is asynchronous.
  createHash ??= process.getBuiltinModule("node:crypto").createHash;
  const text = canonicalJson(withoutUndefined(seen as unknown as JsonObject));
  return `sha256-${createHash("sha256").update(text).digest("hex")}`;
}

/** The pins of these definitions (what is written the first time, or by --update-pins). */
export function pinsOf(tools: readonly Seen[], prompts: readonly SeenPrompt[] = []): Pins {
  return { tools: pinnedBy(tools, "tool"), prompts: pinnedBy(prompts, "prompt") };
}

/** Reads a pins file's text, or throws one sentence; a digest its definition does not match is refused. */
export function parsePins(text: string): Pins {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the pins are not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new Error('the pins must be an object with "tools" and "prompts"');
  for (const key of Object.keys(value)) {
    if (key !== "tools" && key !== "prompts") {
      throw new Error(`the pins have "${key}", which is not "tools" or "prompts"`);
    }
  }
  return {
    tools: pinnedOf(value.tools, "tool", seenOfTool),
    prompts: pinnedOf(value.prompts, "prompt", seenOfPrompt),
  };
}

/** The pins as a file: keys sorted at every depth, 2-space JSON, a trailing newline. */
export function pinsText(pins: Pins): string {
  return `${JSON.stringify(sorted(pins), null, 2)}\n`;
}

/** The upstream's tools against the pins: kept, and withheld with why and a diff. */
export function compareTools(pins: Pins, upstream: readonly Seen[]): Comparison {
  return compare(pins.tools, upstream);
}

/** The upstream's prompts against the pins, as compareTools. */
export function comparePrompts(pins: Pins, upstream: readonly SeenPrompt[]): Comparison {
  return compare(pins.prompts, upstream);
}

/** The pins at `url`, or undefined when there is no such file. */
export async function readPins(url: URL): Promise<Pins | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return parsePins(text);
}

/** Writes the pins at `url` atomically: a temporary file beside it, renamed over it. */
export async function writePins(url: URL, pins: Pins): Promise<void> {
  const base = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  const temporary = new URL(`.${base}.${crypto.randomUUID()}.tmp`, url);
  try {
    await Deno.writeTextFile(temporary, pinsText(pins), { createNew: true, mode: 0o644 });
    await Deno.rename(temporary, url);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

// ---- reading definitions ----

function nameOf(definition: JsonObject, kind: string): string {
  const name = definition.name;
  if (typeof name !== "string" || name === "") {
    throw new Error(`a ${kind} has no name (${JSON.stringify(name) ?? "undefined"})`);
  }
  return name;
}

function copyTexts(from: JsonObject, to: Seen | SeenPrompt, kind: string): void {
  for (const field of ["title", "description"] as const) {
    const value = from[field];
    if (value === undefined) continue;
    if (typeof value !== "string") {
      throw new Error(`the ${kind} "${to.name}" has a ${field} that is not a string`);
    }
    to[field] = value;
  }
}

function withoutUndefined(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

function pinnedBy<T extends Seen | SeenPrompt>(definitions: readonly T[], kind: string) {
  const pinned: Record<string, Pinned<T>> = {};
  for (const seen of definitions) {
    if (Object.hasOwn(pinned, seen.name)) {
      throw new Error(`the upstream lists the ${kind} "${seen.name}" twice`);
    }
    pinned[seen.name] = { digest: digestOf(seen), seen };
  }
  return pinned;
}

const DIGEST = /^sha256-[0-9a-f]{64}$/;

function pinnedOf<T extends Seen | SeenPrompt>(
  value: unknown,
  kind: string,
  seenOf: (definition: JsonObject) => T,
): Record<string, Pinned<T>> {
  const field = `${kind}s`;
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error(`the pins' "${field}" must be an object by name`);
  const pinned: Record<string, Pinned<T>> = {};
  for (const [name, entry] of Object.entries(value)) {
    const where = `the pin of the ${kind} "${name}"`;
    if (!isObject(entry) || typeof entry.digest !== "string" || !isObject(entry.seen)) {
      throw new Error(`${where} must be {"digest": "sha256-…", "seen": {…}}`);
    }
    for (const key of Object.keys(entry)) {
      if (key !== "digest" && key !== "seen") {
        throw new Error(`${where} has "${key}", which pins do not hold`);
      }
    }
    if (!DIGEST.test(entry.digest)) {
      throw new Error(
        `${where} has the digest "${entry.digest}", which is not "sha256-" and 64 hex digits`,
      );
    }
    let seen: T;
    try {
      seen = seenOf(entry.seen);
    } catch (error) {
      throw new Error(`${where} is malformed: ${(error as Error).message}`);
    }
    const extra = Object.keys(entry.seen).find((key) => !Object.hasOwn(seen, key));
    if (extra !== undefined) {
      throw new Error(`${where} has "${extra}", which is not what a model sees of a ${kind}`);
    }
    if (canonicalJson(seen) !== canonicalJson(entry.seen)) {
      throw new Error(`${where} has fields that are not what a model sees of a ${kind}`);
    }
    if (seen.name !== name) {
      throw new Error(`${where} holds the ${kind} "${seen.name}": the key and the name must agree`);
    }
    if (digestOf(seen) !== entry.digest) {
      throw new Error(
        `${where} does not match its digest: the file was edited by hand; review the upstream's ` +
          "definitions and rewrite the pins with toolshed check --update-pins",
      );
    }
    pinned[name] = { digest: entry.digest, seen };
  }
  return pinned;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value).sort().filter((key) => value[key] !== undefined).map((
      key,
    ) => [key, sorted(value[key])]),
  );
}

// ---- comparing ----

function compare<T extends Seen | SeenPrompt>(
  pinned: Record<string, Pinned<T>>,
  upstream: readonly T[],
): Comparison {
  const kept: string[] = [];
  const withheld: Withheld[] = [];
  const counts = new Map<string, number>();
  for (const seen of upstream) counts.set(seen.name, (counts.get(seen.name) ?? 0) + 1);
  for (const [name, count] of counts) {
    const pin = Object.hasOwn(pinned, name) ? pinned[name] : undefined;
    const seen = upstream.find((definition) => definition.name === name)!;
    if (count > 1) {
      withheld.push({
        name,
        why: pin === undefined ? "new" : "changed",
        diff: `the upstream lists "${name}" ${count} times: which one it would run is unknown`,
      });
    } else if (pin === undefined) {
      withheld.push({ name, why: "new", diff: diffOf({}, seen as unknown as JsonObject) });
    } else if (digestOf(seen) !== pin.digest) {
      withheld.push({
        name,
        why: "changed",
        diff: diffOf(pin.seen as unknown as JsonObject, seen as unknown as JsonObject),
      });
    } else {
      kept.push(name);
    }
  }
  for (const [name, pin] of Object.entries(pinned)) {
    if (!counts.has(name)) {
      withheld.push({ name, why: "gone", diff: diffOf(pin.seen as unknown as JsonObject, {}) });
    }
  }
  kept.sort();
  withheld.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { kept, withheld };
}

/**
 * One entry per path that differs: "path: - <old> / + <new>" on three lines, a path only one
 * side has with its one line. Values are shown as JSON with invisible characters escaped (a
 * zero-width or bidirectional character must show in the diff, not hide in it).
 */
function diffOf(before: JsonObject, after: JsonObject): string {
  const lines: string[] = [];
  walk(before, after, "", lines);
  return lines.join("\n");
}

function walk(before: unknown, after: unknown, path: string, lines: string[]): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  const bothObjects = isObject(before) && isObject(after);
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  if (bothObjects || bothArrays) {
    const keys = bothArrays
      ? Array.from({ length: Math.max(before.length, after.length) }, (_, i) => String(i))
      : [...new Set([...Object.keys(before as JsonObject), ...Object.keys(after as JsonObject)])]
        .sort();
    for (const key of keys) {
      const child = bothArrays ? `${path}[${key}]` : childPath(path, key);
      const from = (before as Record<string, unknown>)[key];
      const to = (after as Record<string, unknown>)[key];
      if (from === undefined) lines.push(`${child}: + ${shown(to)}`);
      else if (to === undefined) lines.push(`${child}: - ${shown(from)}`);
      else walk(from, to, child, lines);
    }
    return;
  }
  lines.push(`${path}:`, `  - ${shown(before)}`, `  + ${shown(after)}`);
}

function childPath(path: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Format characters (zero-width, bidirectional controls, …) and the separators JSON lets by. */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/gu;

function shown(value: unknown): string {
  return canonicalJson(value).replace(
    INVISIBLE,
    (c) => {
      const code = c.codePointAt(0)!;
      return code > 0xffff
        ? `\\u{${code.toString(16)}}`
        : `\\u${code.toString(16).padStart(4, "0")}`;
    },
  );
}
