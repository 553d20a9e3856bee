// What the steps of the MCP endpoint pass along (adr/0025): the HTTP request, the connection it
// arrived on, and what earlier steps learnt of it. Each step is a wrap of the one after it,
// composed once; the last is the dispatch to the connection engine.
import type { Wrap } from "../../util/compose.ts";
import type {
  Notification,
  Request as RpcRequest,
  Response as RpcResponse,
} from "../../wire/extract.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";
import type { FactBag } from "../../methods/facts.ts";
import type { Connection } from "./listener.ts";

export interface Exchange {
  readonly request: Request;
  /** The connection it arrived on (a stand-in that can close nothing when embedded). */
  readonly connection: Connection;
  /** What the request log learns on the way (`--log-requests`); undefined when not logging. */
  readonly note: RequestNote | undefined;
  /** The body, once the body step has read it (its bytes count until `release`). */
  body?: Body;
  /** What the body is, once the admission step has read it. */
  admission?: Admission;
  /**
   * What the steps learn of the request (methods/facts.ts: the caller by OAuth, the view by the
   * toolsets step, the address when a rate limit may key by it), handed to the core as is;
   * undefined while none is set.
   */
  facts?: FactBag;
  /**
   * With OAuth: the `WWW-Authenticate` of a 403 for this request when its token lacks the scopes
   * `required` (the core's -32030, raised before any handler runs), in the token's scheme.
   */
  scopeChallenge?: (required: readonly string[]) => string;
  /** The toolsets the path names (`/mcp/<set>`), set by the route (adr/0045). */
  toolsetPath?: string;
  /** The path ends in `/code`: code mode's view (adr/0073), set by the route. */
  codePath?: boolean;
}

/** A body read in full; `release` gives its bytes back to the budget (once). */
export interface Body {
  readonly bytes: Uint8Array;
  release(): void;
}

/** What one POSTed body is, once the validation ladder has read it (admission.ts). */
export type Admission =
  | { kind: "dispatch"; request: RpcRequest }
  /** A notification: 202, no body. */
  | { kind: "accepted"; method: string }
  /** 2025-era traffic, for the session its `Mcp-Session-Id` names (or a new one). */
  | { kind: "session"; message: RpcRequest | Notification | RpcResponse }
  /** `id` is undefined when the request's id is unknown (the answer then has none). */
  | { kind: "refused"; row: AdmissionRow; id: RequestId | undefined; error: RpcError };

/** The rows of statuses.ts the admission ladder refuses with (each 400). */
export type AdmissionRow = "badMessage" | "headerMismatch" | "unsupportedVersion";

/** What the request log learns about a request on its way through (`--log-requests`). */
export interface RequestNote {
  /** The JSON-RPC method of the message, once it is read. */
  rpcMethod?: string;
  /** The tool a `tools/call` names. */
  tool?: string;
  /** Who is calling (the token's subject, else its client), once an OAuth token is checked. */
  subject?: string;
}

/** Answers an exchange: a route, or the rest of the endpoint's steps. */
export type HttpHandler = (exchange: Exchange) => Response | Promise<Response>;

/** One step of the endpoint: given the rest, the handler that runs it. */
export type HttpStep = Wrap<Exchange, Response | Promise<Response>>;
