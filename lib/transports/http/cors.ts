// CORS for browser clients (adr/0039): a page on another origin may call the endpoint when its
// origin is listed (`--cors-origin`), or any page when the list is `*`. The step runs first, so
// that it answers a preflight before the guard and the token (a browser sends no `Authorization`
// with a preflight, and a preflight runs nothing), and so that every answer of the steps after it
// (a 401's challenge, a 405, an event stream) carries the headers that let the page's script read
// it. What an allowed origin is is decided here once (`allowsOrigin`), and the
// DNS-rebinding guard asks the same question: a listed origin passes its Origin check too.
// Without an Origin, or without a list, nothing is added.
import { refused } from "./errors.ts";
import type { HttpStep } from "./exchange.ts";

/** The origins whose pages may call the endpoint from a browser (`--cors-origin`). */
export interface CorsOrigins {
  /** `*`: any page, whatever its Origin (`null` included). */
  readonly any: boolean;
  /** Origins as browsers serialize them in `Origin`: `https://app.example`, lower case. */
  readonly listed: ReadonlySet<string>;
}

/** The request headers a page may send: MCP's own (any `Mcp-*`) and these. */
const CORS_ALLOWED_HEADERS: readonly string[] = [
  "authorization",
  "content-type",
  "last-event-id",
  "mcp-method",
  "mcp-name",
  "mcp-protocol-version",
  "mcp-session-id",
];
/** The methods of the endpoint (a 2026-07-28 client has only POST; 2025-era ones GET, DELETE). */
const CORS_ALLOWED_METHODS = "POST, GET, DELETE";
/** The response headers a page's script may read besides the CORS-safelisted ones. */
const CORS_EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate";
/** How long a browser may reuse a preflight's answer, in seconds (Chromium's cap: 2 hours). */
const CORS_MAX_AGE_S = 7200;

/** An RFC 9110 token: what a header name is. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

import { parseCorsOrigin } from "../../settings/values.ts";
import { refuse } from "./statuses.ts";

/** The origins of a list of `--cors-origin` values; throws, naming the value, on an invalid one. */
export function corsOriginsOf(values: readonly string[]): CorsOrigins {
  const listed = new Set<string>();
  let any = false;
  for (const value of values) {
    const origin = parseCorsOrigin(value);
    if (origin === undefined) {
      throw new Error(
        `Invalid CORS origin ${JSON.stringify(value)}: it is not scheme://host[:port] or "*"`,
      );
    }
    if (origin === "*") any = true;
    else listed.add(origin);
  }
  return { any, listed };
}

/** Whether a page of `origin` (an `Origin` header's value) may call the endpoint. */
export function allowsOrigin(origins: CorsOrigins, origin: string): boolean {
  return origins.any || origins.listed.has(origin);
}

/**
 * The endpoint's first step when CORS is on. A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered here: 204 with what may be sent for an allowed
 * origin, 403 for any other (no CORS header: the browser fails the call). Any other request
 * goes on, and the answer to an allowed origin gets `Access-Control-Allow-Origin` and
 * `Access-Control-Expose-Headers`. A request without Origin goes on untouched.
 */
export function corsStep(origins: CorsOrigins): HttpStep {
  return (next) => (exchange) => {
    const { request } = exchange;
    const origin = request.headers.get("origin");
    if (origin === null || origin === "") return next(exchange);
    const allowed = allowsOrigin(origins, origin);
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      if (!allowed) {
        return refuse(
          "originRefused",
          undefined,
          refused(
            `Forbidden: pages of the origin ${JSON.stringify(origin)} may not call this ` +
              "server (see --cors-origin)",
          ),
        );
      }
      return preflightAnswer(origins, origin, request.headers);
    }
    if (!allowed) return next(exchange);
    const answer = next(exchange);
    return answer instanceof Promise
      ? answer.then((response) => withCors(response, origins, origin))
      : withCors(answer, origins, origin);
  };
}

/** 204 with the methods and headers a page of an allowed `origin` may send. */
function preflightAnswer(origins: CorsOrigins, origin: string, headers: Headers): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origins.any ? "*" : origin,
      "access-control-allow-methods": CORS_ALLOWED_METHODS,
      "access-control-allow-headers": allowedHeaders(
        headers.get("access-control-request-headers"),
      ),
      "access-control-max-age": String(CORS_MAX_AGE_S),
      // The answer names the origin and the `Mcp-*` headers asked for.
      vary: origins.any
        ? "Access-Control-Request-Headers"
        : "Origin, Access-Control-Request-Headers",
    },
  });
}

/**
 * `Access-Control-Allow-Headers`: the headers MCP sends, and every `Mcp-*` header the preflight
 * asks for (a tool's `Mcp-Param-*`), which no wildcard could name (`*` never covers
 * `Authorization`). A header asked for that is neither is left out, and the browser says so.
 */
function allowedHeaders(requested: string | null): string {
  const names = [...CORS_ALLOWED_HEADERS];
  for (const part of requested?.split(",") ?? []) {
    const name = part.trim().toLowerCase();
    if (name.startsWith("mcp-") && TOKEN.test(name) && !names.includes(name)) names.push(name);
  }
  return names.join(", ");
}

/** `response` with the headers that let a page of an allowed `origin` read it. */
function withCors(response: Response, origins: CorsOrigins, origin: string): Response {
  let answer = response;
  try {
    set(answer.headers);
  } catch {
    // Immutable headers (a fetched or redirect Response): the same answer with headers of its own.
    answer = new Response(response.body, response);
    set(answer.headers);
  }
  return answer;

  function set(headers: Headers) {
    headers.set("access-control-allow-origin", origins.any ? "*" : origin);
    headers.set("access-control-expose-headers", CORS_EXPOSED_HEADERS);
    // The answer names the origin: a cache must not give it to another.
    if (!origins.any) headers.append("vary", "Origin");
  }
}
