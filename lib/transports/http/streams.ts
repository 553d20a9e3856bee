// A 2025-era session's streams outside any POST (adr/0030, adr/0034): GET opens the
// session's standalone event stream, for what the server sends outside any call (never a response), or, with
// `Last-Event-ID`, resumes the stream that event belongs to; DELETE ends the session.
import { type Endpoint, primes } from "./endpoint.ts";
import { type EventStream, openEventStream, resumeEventStream } from "./answer.ts";
import { cannotResume, notAcceptable, sessionRequired, streamConflict } from "./errors.ts";
import type { Exchange } from "./exchange.ts";
import { acceptsEventStream } from "./headers.ts";
import { callerOf } from "../../methods/caller.ts";
import { type HttpSession, SESSION_ID_HEADER } from "./sessions.ts";
import type { Connection } from "./listener.ts";
import { closingWith } from "./unsent.ts";
import { allocated } from "../../util/collect.ts";
import { refuse } from "./statuses.ts";

/**
 * What opening a GET stream leaves the collector, about (the connection's and the stream's
 * objects, measured: 60,000 streams opened and closed grew RSS by ~90 MB between collections,
 * adr/0058), so that a client that opens and closes them in a loop brings a collection.
 */
const STREAM_GARBAGE_BYTES = 8 * 1024;

export interface SessionStreams {
  /** GET: the session's standalone stream, or a resumed one. */
  open(exchange: Exchange): Response;
  /** DELETE: ends the session its `Mcp-Session-Id` names. */
  end(exchange: Exchange): Response;
}

export function createSessionStreams(endpoint: Endpoint): SessionStreams {
  const { sessions, keepAliveMs, unsent } = endpoint;

  /**
   * One standalone stream per session: a second while it is open gets 409. It lasts until the
   * client closes it or the session ends.
   */
  function open({ request, connection, facts }: Exchange): Response {
    const { headers } = request;
    const accept = headers.get("accept");
    if (accept === null || !acceptsEventStream(accept)) {
      return refuse("notAcceptable", undefined, notAcceptable());
    }
    const session = endpoint.sessionFor(undefined, headers, facts);
    if (session instanceof Response) return session;
    allocated(STREAM_GARBAGE_BYTES);
    const lastEventId = headers.get("last-event-id");
    if (lastEventId !== null) return resume(session, lastEventId, connection);
    if (session.standalone !== undefined) {
      return refuse("streamConflict", undefined, streamConflict());
    }
    const stream = openEventStream(
      () => sessions.unlistened(session, stream),
      closingWith(unsent, connection.close),
      keepAliveMs,
      { [SESSION_ID_HEADER]: session.id },
      (sink) => session.events.open(sink, primes(session.core), true),
    );
    session.standalone = stream;
    return stream.response;
  }

  /**
   * GET with `Last-Event-ID`: replays what the stream of that event sent after it, then
   * carries the rest: a call's stream until its response, the GET stream as the session's
   * standalone stream again (409 while another is open). 400 when the events are not kept.
   */
  function resume(session: HttpSession, lastEventId: string, connection: Connection): Response {
    const target = session.events.streamOf(lastEventId);
    if (target?.standalone && session.standalone !== undefined) {
      return refuse("streamConflict", undefined, streamConflict());
    }
    let standalone: EventStream | undefined;
    const resumed = resumeEventStream(
      (sink) => session.events.resume(lastEventId, sink),
      () => {
        if (standalone !== undefined) sessions.unlistened(session, standalone);
      },
      closingWith(unsent, connection.close),
      keepAliveMs,
      { [SESSION_ID_HEADER]: session.id },
    );
    if (typeof resumed === "string") {
      return refuse("cannotResume", undefined, cannotResume(resumed));
    }
    const { stream, response } = resumed;
    if (stream.standalone && !stream.ended) {
      standalone = { response, send: stream.send, close: stream.close };
      session.standalone = standalone;
    }
    return response;
  }

  function end({ request, facts }: Exchange): Response {
    const sessionId = request.headers.get(SESSION_ID_HEADER);
    if (sessionId === null) return refuse("sessionRequired", undefined, sessionRequired());
    // Only its caller may end it: another's is answered as no session at all.
    const session = sessions.get(sessionId);
    if (session === undefined || session.owner !== callerOf(facts?.caller)) {
      return refuse("sessionNotFound", undefined, endpoint.missing(sessionId));
    }
    sessions.end(sessionId, "the client ended the session");
    return new Response(null, { status: 200 });
  }

  return { open, end };
}
