// State that outlives one request: one per stdio connection (and, later, per 2025-era HTTP
// session). A stateless request (a 2026-07-28 HTTP POST) has none.
import type { JsonObject } from "../util/json.ts";
import { LEGACY_VERSIONS } from "../wire/versions.ts";

/** What a legacy session learnt from `initialize`; shared by its calls, so frozen. */
export interface LegacyClient {
  /** The negotiated version. */
  readonly protocolVersion: string;
  readonly clientCapabilities: Readonly<JsonObject>;
  readonly clientInfo: JsonObject | undefined;
}

/**
 * The era a connection is pinned to (adr/0004): "open" until the first 2026-07-28 request
 * (modern) or `initialize` (legacy); `server/discover` answers in any state without pinning.
 */
export type Pin = { era: "open" } | { era: "modern" } | { era: "legacy"; client: LegacyClient };

export interface Session {
  pin: Pin;
  /** Set by a legacy `logging/setLevel`: the least severe level the client wants. */
  logLevel: string | undefined;
  /** URIs the client subscribed to with `resources/subscribe` (2025 era), bounded. */
  readonly subscriptions: Set<string>;
}

export function createSession(): Session {
  return { pin: { era: "open" }, logLevel: undefined, subscriptions: new Set() };
}

/** Serves claim-less requests that arrive before any `initialize` (lenient, unpinned). */
export const UNINITIALIZED: LegacyClient = Object.freeze({
  protocolVersion: LEGACY_VERSIONS[0],
  clientCapabilities: Object.freeze({}),
  clientInfo: undefined,
});
