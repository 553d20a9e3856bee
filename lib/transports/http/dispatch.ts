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
import type { Origin } from "../../methods/context.ts";
import { createSession } from "../../methods/session.ts";
import { jsonAnswer } from "./answer.ts";
import type { Endpoint } from "./endpoint.ts";
import { errorMessage, sessionRequired } from "./errors.ts";
import type { HttpHandler } from "./exchange.ts";
import { acceptsEventStream } from "./headers.ts";
import { SESSION_ID_HEADER } from "./sessions.ts";
import type { Connection } from "./listener.ts";

/** Where an `initialize` over HTTP comes from: no session yet. */
const OPENING: Origin = Object.freeze({ transport: "http", sessionId: undefined });

export function createDispatch(endpoint: Endpoint): HttpHandler {
  const { core, sessions } = endpoint;

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
      const session = endpoint.sessionFor(message.id, headers);
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
    const session = endpoint.sessionFor(undefined, headers);
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
