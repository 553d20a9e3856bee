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
import type { Origin, RequestContext } from "../../methods/context.ts";
import { createSession } from "../../methods/session.ts";
import { jsonAnswer } from "./answer.ts";
import type { Endpoint } from "./endpoint.ts";
import { coreAnswer, coreRefusal, refuse } from "./statuses.ts";
import { sessionRequired } from "./errors.ts";
import type { Exchange, HttpHandler } from "./exchange.ts";
import { type FactBag, lastingFacts } from "../../methods/facts.ts";
import { acceptsEventStream } from "./headers.ts";
import { SESSION_ID_HEADER } from "./sessions.ts";

/** Where an `initialize` over HTTP comes from: no session yet. */
const OPENING: Origin = Object.freeze({ transport: "http", sessionId: undefined });

export function createDispatch(endpoint: Endpoint): HttpHandler {
  const { core, sessions } = endpoint;

  /**
   * Runs a claim-less `initialize` on a fresh core session; keeps the session if it pins, for
   * its caller alone (only the same subject's tokens reach it later).
   */
  async function openSession(request: RpcRequest, facts: FactBag | undefined): Promise<Response> {
    if (endpoint.draining) return refuse("shuttingDown", request.id, shuttingDown());
    const session = createSession();
    // What the opening request's steps learnt is the session's from now on: the tools its path
    // or header chose (adr/0045), the caller it is bound to; not its token (each request brings
    // its own, lastingFacts).
    if (facts !== undefined) session.facts = lastingFacts(facts);
    const ctx: RequestContext = {
      request,
      controller: new AbortController(),
      closing: undefined,
      session,
      outlet: { notify() {}, outbound: undefined },
      origin: OPENING,
      facts,
    };
    const response = await core.handle(ctx);
    if (session.pin.era !== "session") {
      // Refused: over a rate limit (429 with Retry-After), else 400.
      const refusal = coreRefusal(response, ctx.outcome, true, true, undefined);
      return coreAnswer(response, refusal ?? { row: "initializeRefused", headers: undefined });
    }
    const opened = sessions.open(session);
    return jsonAnswer(response, 200, { [SESSION_ID_HEADER]: opened.id });
  }

  function inSession(
    message: RpcRequest | Notification | RpcResponse,
    exchange: Exchange,
  ): Response | Promise<Response> {
    const { request: { headers }, connection, facts, scopeChallenge } = exchange;
    const release = exchange.body!.release;
    // A claim-less initialize keeps its body counted until it is answered: what it costs
    // parsed is held that long (eight at once took 540 MB where two fit the budget, adr/0058).
    if (message.kind === "request" && message.method === "initialize" && !endpoint.draining) {
      if (headers.get(SESSION_ID_HEADER) === null) {
        return openSession(message, facts).finally(release);
      }
    }
    if (message.kind === "request" && headers.get(SESSION_ID_HEADER) !== null) {
      const session = endpoint.sessionFor(message.id, headers, facts);
      if (session instanceof Response) {
        release();
        return session;
      }
      const canStream = acceptsEventStream(headers.get("accept"));
      return endpoint.run(message, {
        canStream,
        releaseBody: release,
        connection,
        session,
        facts,
        scopeChallenge,
      });
    }
    release();
    if (message.kind === "request") {
      if (endpoint.draining) return refuse("shuttingDown", message.id, shuttingDown());
      if (message.method === "initialize") {
        return openSession(message, facts);
      }
      return refuse("sessionRequired", message.id, sessionRequired());
    }
    const session = endpoint.sessionFor(undefined, headers, facts);
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
      return endpoint.run(admission.request, {
        canStream,
        releaseBody: release,
        connection,
        facts: exchange.facts,
        scopeChallenge: exchange.scopeChallenge,
      });
    }
    if (admission.kind !== "session") throw new Error(`Cannot dispatch "${admission.kind}"`);
    return inSession(admission.message, exchange);
  };
}
