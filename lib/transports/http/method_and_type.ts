// The endpoint's step for the HTTP method and the media type (adr/0025): POST carries a
// message and goes on, as JSON (415 otherwise); GET opens or resumes a 2025-era session's
// stream and DELETE ends a session (streams.ts); a 2026-07-28 client has only POST, so any
// other method of its is 405 `Allow: POST`; any other method at all is 405 with the methods
// there are.
import { refused } from "./errors.ts";
import type { HttpStep } from "./exchange.ts";
import { hasStatelessHeader } from "./admission.ts";
import { isJsonContentType } from "./headers.ts";
import type { SessionStreams } from "./streams.ts";
import { refuse } from "./statuses.ts";

/** The methods the endpoint takes, and those a 2026-07-28 client has. */
const ALLOW = "GET, POST, DELETE";
const ALLOW_STATELESS = "POST";

export function methodAndTypeStep(streams: SessionStreams): HttpStep {
  return (next) => (exchange) => {
    const { request } = exchange;
    if (request.method !== "POST" && hasStatelessHeader(request.headers)) {
      // A 2026-07-28 client has no session to GET a stream of, or to DELETE: only POST.
      const why = request.method === "GET"
        ? "2026-07-28 has no GET stream; POST each message"
        : request.method === "DELETE"
        ? "2026-07-28 has no session to end; POST each message"
        : "2026-07-28 takes only POST";
      return refuse(
        "methodNotAllowed",
        undefined,
        refused(`Method not allowed: ${request.method} (${why})`),
        ALLOW_STATELESS,
      );
    }
    if (request.method === "DELETE") return streams.end(exchange);
    if (request.method === "GET") return streams.open(exchange);
    if (request.method !== "POST") {
      return refuse(
        "methodNotAllowed",
        undefined,
        refused(`Method not allowed: ${request.method} (this endpoint takes GET, POST and DELETE)`),
        ALLOW,
      );
    }
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return refuse(
        "unsupportedMediaType",
        undefined,
        refused("Unsupported Media Type: Content-Type must be application/json"),
      );
    }
    return next(exchange);
  };
}
