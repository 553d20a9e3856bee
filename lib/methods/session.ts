// State that outlives one request: one per stdio connection and per 2025-era HTTP session.
// A stateless request (a 2026-07-28 HTTP POST) has none.
import { isObject, type JsonObject } from "../util/json.ts";
import { SESSION_VERSIONS } from "../wire/versions.ts";
import type { FactBag } from "./facts.ts";

/** What a 2025-era session learnt from `initialize`; shared by its calls, so frozen. */
interface SessionClient {
  /** The negotiated version. */
  readonly protocolVersion: string;
  readonly clientCapabilities: Readonly<JsonObject>;
  readonly clientInfo: JsonObject | undefined;
  /** About how many bytes of memory the two above hold (what a session table counts). */
  readonly keptBytes: number;
}

/**
 * The era a connection is pinned to (adr/0004): "open" until the first 2026-07-28 request
 * (stateless) or `initialize` (session); `server/discover` answers in any state without pinning.
 */
type Pin = { era: "open" } | { era: "stateless" } | {
  era: "session";
  client: SessionClient;
};

export interface Session {
  pin: Pin;
  /** Set by a 2025-era `logging/setLevel`: the least severe level the client wants. */
  logLevel: string | undefined;
  /** URIs the client subscribed to with `resources/subscribe` (2025 era), bounded. */
  readonly subscriptions: Set<string>;
  /**
   * The facts of the request that opened it (a 2025-era HTTP session), kept for what lasts: the
   * tools it was opened with (adr/0045), the caller it is bound to; undefined: none.
   */
  facts?: FactBag;
}

/**
 * What a transport tells, when asked, of a session at its end (a stdio connection, a 2025-era
 * HTTP session): telemetry's `mcp.server.session.duration`.
 */
export interface SessionEnd {
  readonly transport: "stdio" | "http";
  /** The version its `initialize` agreed, when it had one. */
  readonly protocolVersion: string | undefined;
  readonly seconds: number;
}

/** The version a session's `initialize` agreed, if it has had one. */
export function agreedVersion(session: Session): string | undefined {
  return session.pin.era === "session" ? session.pin.client.protocolVersion : undefined;
}

export function createSession(): Session {
  return { pin: { era: "open" }, logLevel: undefined, subscriptions: new Set() };
}

/** Serves claim-less requests that arrive before any `initialize` (lenient, unpinned). */
export const UNINITIALIZED: SessionClient = Object.freeze({
  protocolVersion: SESSION_VERSIONS[0],
  clientCapabilities: Object.freeze({}),
  clientInfo: undefined,
  keptBytes: 0,
});

/**
 * What a session keeps of a client's capabilities, and of its `clientInfo`, at most (in
 * bytes of memory, as keptCopy() reckons them). Real clients declare a few hundred bytes; a
 * parsed object can hold ~28 times its JSON (an array of `{}` costs 3 characters and ~80
 * bytes each), so a session keeping all of a 4 MiB `initialize` held 100 MiB.
 */
export const MAX_KEPT_CAPABILITIES_BYTES = 16 * 1024;
export const MAX_KEPT_CLIENT_INFO_BYTES = 4 * 1024;

/** What V8 spends, about, on an object or array, a property, an element, a string, a number. */
const CONTAINER_BYTES = 56;
const PROPERTY_BYTES = 32;
const ELEMENT_BYTES = 8;
const STRING_BYTES = 16;
const NUMBER_BYTES = 16;

/**
 * A frozen copy of `value` that holds at most `budget` bytes (as reckoned here): breadth
 * first, so that the facts near the top (which capabilities are declared, `extensions` and
 * their names, the `elicitation` modes) are kept, and what is deepest is what is left out once
 * the budget is spent. Within it, the copy is the value, item for item.
 */
export function keptCopy(value: JsonObject, budget: number): { copy: JsonObject; bytes: number } {
  const copy: JsonObject = {};
  let bytes = CONTAINER_BYTES;
  const queue: [JsonObject | unknown[], JsonObject | unknown[]][] = [[value, copy]];
  copying: for (let i = 0; i < queue.length; i++) {
    const [from, to] = queue[i];
    const array = Array.isArray(from);
    const keys = array ? undefined : Object.keys(from);
    const length = keys === undefined ? (from as unknown[]).length : keys.length;
    for (let index = 0; index < length; index++) {
      const key = keys === undefined ? index : keys[index];
      const item = (from as Record<string | number, unknown>)[key];
      const slot = array ? ELEMENT_BYTES : PROPERTY_BYTES + STRING_BYTES + String(key).length;
      const cost = slot + costOf(item);
      if (bytes + cost > budget) break copying;
      bytes += cost;
      let kept = item;
      if (Array.isArray(item)) kept = [];
      else if (isObject(item)) kept = {};
      if (kept !== item) queue.push([item as JsonObject | unknown[], kept as JsonObject]);
      (to as Record<string | number, unknown>)[key] = kept;
    }
  }
  for (const [, to] of queue) Object.freeze(to);
  return { copy, bytes };
}

/** A value's own cost, without what it contains. */
function costOf(value: unknown): number {
  if (typeof value === "string") return STRING_BYTES + value.length * 2;
  if (typeof value === "number") return NUMBER_BYTES;
  if (typeof value === "object" && value !== null) return CONTAINER_BYTES;
  return 0;
}
