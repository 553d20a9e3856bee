// What upstream.ts needs of a transport to an upstream MCP server, whatever it is: a way to
// send one JSON-RPC message, and the messages that come back, each parsed once
// (wire/extract.ts). stdio_link.ts keeps a child process; http_link.ts POSTs each message and
// reads the answer as JSON or as an event stream. Nothing here knows MCP's methods.
import type { extract } from "../wire/extract.ts";
import type { RequestId } from "../wire/types.ts";
import type { JsonObject } from "../util/json.ts";

/** One message from the upstream, as the extractor classified it. */
export type Incoming = ReturnType<typeof extract>;

/** Why a call failed: the upstream's JSON-RPC error, a broken transport, or no upstream now. */
type UpstreamErrorKind = "rpc" | "transport" | "down" | "cancelled";

/**
 * A request to an upstream failed:
 * - "rpc": the upstream answered with a JSON-RPC error (`code`, `data` are its own);
 * - "transport": the message or its answer was lost (the child exited, an HTTP error, a
 *   malformed answer);
 * - "down": the upstream is not connected and will not be tried before a time the message
 *   names (backoff), or it was closed;
 * - "cancelled": the caller's signal aborted the call (the upstream was told).
 */
export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  /** The JSON-RPC error code, when the upstream answered with an error. */
  readonly code?: number;
  readonly data?: unknown;
  /** HTTP: the upstream no longer knows the session (404): initialize again and retry. */
  readonly sessionLost: boolean;

  constructor(
    kind: UpstreamErrorKind,
    message: string,
    details: { code?: number; data?: unknown; sessionLost?: boolean } = {},
  ) {
    super(message);
    this.name = "UpstreamError";
    this.kind = kind;
    if (details.code !== undefined) this.code = details.code;
    if (details.data !== undefined) this.data = details.data;
    this.sessionLost = details.sessionLost ?? false;
  }
}

/** What a link reports to its upstream. */
export interface LinkEvents {
  /**
   * One message from the upstream. `call` is the id of the request whose own answer stream
   * carried it (an HTTP POST's response); undefined where nothing says (stdio, the GET stream).
   */
  message(message: Incoming, call: RequestId | undefined): void;
  /** The link is gone (the child exited): nothing more comes, and every pending call fails. */
  closed(reason: string): void;
}

/** What the handshake learnt, which some transports carry on every message (HTTP headers). */
export interface Negotiated {
  era: "stateless" | "session";
  protocolVersion: string;
}

/** An argument a 2026-07-28 HTTP request mirrors into `Mcp-Param-<header>` (SEP-2243). */
export interface MirroredArgument {
  /** The `x-mcp-header` value. */
  readonly header: string;
  /** Property names from the arguments object down to the argument. */
  readonly path: readonly string[];
}

export interface Link {
  /**
   * Sends one message. For a request over HTTP this also reads the answer stream, each
   * message to `events.message`, and settles once the answer came (rejects with an
   * UpstreamError when the stream ended without it); elsewhere it settles once sent. `signal`
   * bounds it. `mirrored`: a 2026-07-28 `tools/call`'s arguments HTTP sends as headers too.
   */
  send(
    message: JsonObject,
    signal: AbortSignal,
    mirrored?: readonly MirroredArgument[],
  ): Promise<void>;
  /** The handshake is done: `negotiated` holds from now (until `reset`). */
  established(negotiated: Negotiated): void;
  /** The session is gone (HTTP 404): forget it before initializing again. */
  reset(): void;
  /** Ends the link: stops the child and its group, or ends the session. Never throws. */
  close(): Promise<void>;
}
