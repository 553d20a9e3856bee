// The endpoint's last step (adr/0025): an admitted message goes to its connection engine. A
// 2026-07-28 request goes to the stateless engine. 2025-era traffic belongs to the session its
// `Mcp-Session-Id` names (400 without one, 404 for one unknown or ended, 400 for another
// version than the session's): a request to the session's engine, a notification
// (notifications/cancelled) and a client's response to it too; a claim-less `initialize`
// without a session id opens a session.
import { shuttingDown } from "../../wire/errors.ts";
import type {
  Notification,
  Request as RpcRequest,
  Response as RpcResponse,
} from "../../wire/extract.ts";
import type { RequestId } from "../../wire/types.ts";
import type { Origin } from "../../methods/context.ts";
import { createSession } from "../../methods/session.ts";
import { jsonAnswer } from "./answer.ts";
import { type Endpoint, negotiatedVersion } from "./endpoint.ts";
import { errorMessage, sessionRequired, sessionVersionMismatch } from "./errors.ts";
import type { HttpHandler } from "./exchange.ts";
import { acceptsEventStream, PROTOCOL_VERSION_HEADER } from "./headers.ts";
import { type HttpSession, SESSION_ID_HEADER } from "./sessions.ts";
import type { Connection } from "./listener.ts";

/** Where an `initialize` over HTTP comes from: no session yet. */
const OPENING: Origin = Object.freeze({ transport: "http", sessionId: undefined });

export function createDispatch(endpoint: Endpoint): HttpHandler {
  const { core, sessions } = endpoint;

  /**
   * The session a 2025-era message's `Mcp-Session-Id` names, or the answer saying why there
   * is none to serve it: 503 while draining (404 would ask for a new session), 400 without
   * an id or with another version than the session's, 404 for one unknown or ended.
   */
  function sessionFor(id: RequestId | undefined, headers: Headers): HttpSession | Response {
    if (endpoint.draining) return jsonAnswer(errorMessage(id, shuttingDown()), 503);
    const sessionId = headers.get(SESSION_ID_HEADER);
    if (sessionId === null) return jsonAnswer(errorMessage(id, sessionRequired()), 400);
    const session = sessions.get(sessionId);
    if (session === undefined) {
      return jsonAnswer(errorMessage(id, endpoint.missing(sessionId)), 404);
    }
    const negotiated = negotiatedVersion(session.core);
    const claimed = headers.get(PROTOCOL_VERSION_HEADER);
    if (claimed !== null && negotiated !== undefined && claimed !== negotiated) {
      return jsonAnswer(errorMessage(id, sessionVersionMismatch(claimed, negotiated)), 400);
    }
    return session;
  }

  /** Runs a claim-less `initialize` on a fresh core session; keeps the session if it pins. */
  async function openSession(request: RpcRequest): Promise<Response> {
    if (endpoint.draining) return jsonAnswer(errorMessage(request.id, shuttingDown()), 503);
    const session = createSession();
    const response = await core.handle({
      request,
      controller: new AbortController(),
      closing: undefined,
      session,
      outlet: { notify() {}, outbound: undefined },
      origin: OPENING,
    });
    if (session.pin.era !== "session") return jsonAnswer(response, 400);
    const opened = sessions.open(session);
    return jsonAnswer(response, 200, { [SESSION_ID_HEADER]: opened.id });
  }

  function inSession(
    message: RpcRequest | Notification | RpcResponse,
    headers: Headers,
    release: () => void,
    connection: Connection,
  ): Response | Promise<Response> {
    if (message.kind === "request" && headers.get(SESSION_ID_HEADER) !== null) {
      const session = sessionFor(message.id, headers);
      if (session instanceof Response) {
        release();
        return session;
      }
      const canStream = acceptsEventStream(headers.get("accept"));
      return endpoint.run(message, canStream, release, connection, session);
    }
    release();
    if (message.kind === "request") {
      if (endpoint.draining) return jsonAnswer(errorMessage(message.id, shuttingDown()), 503);
      if (message.method === "initialize") return openSession(message);
      return jsonAnswer(errorMessage(message.id, sessionRequired()), 400);
    }
    const session = sessionFor(undefined, headers);
    if (session instanceof Response) return session;
    // An answer to a request the session sent (one that nothing awaits is dropped), or
    // notifications/cancelled for one of its requests.
    if (message.kind === "response") session.connection.response(message);
    else session.connection.notification(message);
    return new Response(null, { status: 202 });
  }

  return (exchange) => {
    const { request, connection } = exchange;
    const admission = exchange.admission!;
    const { release } = exchange.body!;
    if (admission.kind === "dispatch") {
      const canStream = acceptsEventStream(request.headers.get("accept"));
      return endpoint.run(admission.request, canStream, release, connection);
    }
    if (admission.kind !== "session") throw new Error(`Cannot dispatch "${admission.kind}"`);
    return inSession(admission.message, request.headers, release, connection);
  };
}
