// What a transport hands the core with each request: how to stop it, where it belongs,
// and where its notifications go. The in-flight entry of a request *is* its context, so
// a request allocates no further object for it.
import type { JsonObject } from "../util/json.ts";
import type { Request, Response } from "../wire/extract.ts";
import type { Call } from "../primitives/types.ts";
import type { Session } from "./session.ts";
import type { FactBag } from "./facts.ts";

export interface RequestContext {
  readonly request: Request;
  /** Aborted by a cancel, a timeout or shutdown: from then on nothing more is sent for it. */
  readonly controller: AbortController;
  /** Long-lived requests only: aborted to ask for the graceful answer that ends them. */
  readonly closing: AbortSignal | undefined;
  /** Undefined for a stateless request. */
  readonly session: Session | undefined;
  readonly outlet: Outlet;
  /** Where it came from; one object shared by every request of a connection. */
  readonly origin: Origin;
  /**
   * What the transport's steps learnt of it (the caller, the view, the address: facts.ts), the
   * bag they wrote, not a copy; undefined when none was set (stdio, a plain HTTP request).
   */
  readonly facts?: FactBag;
  /**
   * A refusal the core decided that a transport answers with a status of its own (HTTP's
   * statuses.ts), written by the step that decides it: at once, or as a promise while the
   * decision takes a round trip (a rate limit kept in Redis), replaced by what it decided
   * (undefined: the request goes on). A transport that commits to a status once an answer is
   * pending (HTTP's 200) waits for the promise.
   */
  outcome?: Outcome | Promise<Outcome | undefined>;
}

/** A refusal of the core's own with a transport status: its row, and what its headers need. */
export type Outcome =
  /** Authorize: the caller's token lacks `required` (HTTP: 403 with the OAuth challenge). */
  | { readonly row: "insufficientScope"; readonly required: readonly string[] }
  /** A rate limit: over it, for whole seconds (HTTP: 429 with Retry-After). */
  | { readonly row: "rateLimited"; readonly retryAfterSeconds: number };

/** How a request arrived, as middleware sees it (`Call.transport`, `Call.sessionId`). */
export interface Origin {
  readonly transport: Call["transport"];
  /** The 2025-era HTTP session's id, when the request belongs to one. */
  readonly sessionId: string | undefined;
}

/** The origin of requests sent in process (`testServer`, the commands, benches). */
export const IN_PROCESS: Origin = Object.freeze({ transport: "in-process", sessionId: undefined });

/** The way back to the client besides the response. */
export interface Outlet {
  /** Writes a notification now. The core calls it only while the request is live. */
  notify(message: JsonObject): void;
  /** Requests to the client, answered by id; undefined where the transport has no way back. */
  readonly outbound: Outbound | undefined;
  /**
   * Ends the stream the answer travels on while keeping what follows for the client to
   * resume (a 2025-era session's event stream over HTTP); true if it did or will, once the
   * stream opens. Absent where there is nothing to resume.
   */
  readonly closeStream?: () => boolean;
}

/** Requests the server sends the client (2025-era sampling, elicitation, roots), answered by id. */
export interface Outbound {
  /**
   * Sends `method` with a fresh id and resolves with the client's result; rejects with its
   * error, on abort (after telling the client with notifications/cancelled) or on close.
   */
  request(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject>;
  /** Hands a client's response to the request it answers; false for an id we did not send. */
  settle(response: Response): boolean;
  /** Rejects everything pending: the connection or session ended. */
  close(reason: string): void;
  /** Requests sent and not yet answered. */
  pending(): number;
}
