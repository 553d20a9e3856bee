// A request's facts (adr/0061 §2): what the steps of a transport learn about one request, each
// declared once, here. The step that learns a fact writes it (`setFact`); the core keeps the
// same bag on the request's context (`RequestContext.facts`) and its steps read it there; the
// faces authors read (`ctx.auth`, `Call.auth`) are filled from it once per request. The bag is
// made only when a fact is set: a stdio request, or an HTTP one that no such step touched,
// carries `undefined`. A new fact is a line here, its writer and its readers.
import type { AuthInfo } from "../primitives/types.ts";
import type { ToolView } from "../primitives/toolsets.ts";

export interface Facts {
  /** Who is calling, as the OAuth step verified it (transports/http/oauth.ts). */
  caller: AuthInfo;
  /**
   * The tools the request chose (`/mcp/<set>`, `Mcp-Toolsets`, adr/0045), by the toolsets step
   * (transports/http/toolsets.ts); a 2025-era session keeps its opening request's.
   */
  view: ToolView;
  /**
   * The client's network address (the listener's remote address: behind a proxy, the proxy's),
   * written only when a rate limit may key callers by it (adr/0043).
   */
  address: string;
  /**
   * The caller's access token as it came (the OAuth step), for the token exchange of a tool
   * toolshed made (adr/0071 §5) alone: never copied into `ctx.auth` or a session's bag, never
   * logged; handler_context.ts's `frontTokenFor` is its one reader.
   */
  frontToken: string;
}

/** The facts a request carries: those set so far. */
export type FactBag = Partial<Facts>;

/** What carries a bag: an HTTP exchange, a session. */
interface FactHolder {
  facts?: FactBag;
}

/** Sets one fact, making the bag with the first. */
export function setFact<K extends keyof Facts>(
  holder: FactHolder,
  key: K,
  value: Facts[K],
): void {
  (holder.facts ??= {})[key] = value;
}

/**
 * The facts a 2025-era session keeps from the request that opened it, for as long as it lasts:
 * all but the front token, which is each request's own (a later request brings its own token).
 */
export function lastingFacts(bag: FactBag): FactBag {
  if (bag.frontToken === undefined) return bag;
  const { frontToken: _request, ...lasting } = bag;
  return lasting;
}
