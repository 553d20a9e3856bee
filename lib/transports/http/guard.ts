// The DNS-rebinding guard. A web page whose host name an attacker re-points at 127.0.0.1
// reaches a local server from the user's browser, carrying the attacker's name in Host
// and Origin; the Streamable HTTP transport says servers MUST validate Origin and answer
// 403 when it is invalid (2026-07-28 `basic/transports`, "Security Warning"). So both
// headers must name this server: a loopback name, the address it is bound to, or a name
// the operator allowed (--allow-host). Ports are not compared: a name is what a rebinding
// attack cannot forge. An Origin whose pages may call the server from a browser (CORS,
// --cors-origin: cors.ts decides) passes too, so that the guard and CORS agree on what an
// allowed origin is (adr/0039); the Host check, what stops a rebinding, stays whatever the
// Origin.
import { allowsOrigin, type CorsOrigins } from "./cors.ts";
import type { HttpStep } from "./exchange.ts";
import { refused } from "./errors.ts";

/** The names of this machine's loopback, as `URL.hostname` writes them. */
const LOOPBACK_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Checks one request's headers; returns why it is refused, or undefined to let it pass. */
export type HostGuard = (headers: Headers) => string | undefined;

import { hostNameOf } from "../../settings/values.ts";
import { refuse } from "./statuses.ts";

/** How a bound address appears in a Host header: an IPv6 one in brackets. */
export function hostLiteral(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** The bound address as a Host header names it; none for a wildcard bind. */
export function boundHostNames(hostname: string): string[] {
  if (hostname === "0.0.0.0" || hostname === "::") return [];
  const name = hostNameOf(hostLiteral(hostname));
  return name === undefined ? [] : [name];
}

/**
 * What a listener's guard lets through in Host (and Origin): the loopback names, the names of
 * the address it is bound to (`boundHostNames`), and the names the operator allowed
 * (--allow-host). The MCP endpoint's rule, and the metrics listener's (adr/0056).
 */
export function allowedHostNames(
  bound: readonly string[],
  allowedHosts: readonly string[],
): string[] {
  return [...LOOPBACK_NAMES, ...bound, ...allowedHosts.map((name) => hostNameOf(name) ?? name)];
}

/** An IPv4 or IPv6 address as `URL.hostname` writes it: no name a DNS rebinding can forge. */
function isAddressLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

/** Host and Origin values whose verdict is remembered; past it the memory starts over. */
const REMEMBERED_VALUES = 64;

/**
 * The guard of `allowed` names; `cors`, when set, lets the Origins whose pages may call the
 * server from a browser through as well. With `checkOrigin` false only Host is checked: for a
 * document any page may read (the server card, CORS `*`), an Origin check would refuse nothing
 * a script cannot read anyway. With `addresses`, a Host that is an IP address passes too: a
 * browser sends one only to the origin of that address, where nothing of an attacker's runs (for
 * the metrics listener, which Prometheus scrapes by pod IP; adr/0056). Origin is never let
 * through for being an address: an attacker's page may be served from one.
 */
export function createHostGuard(
  allowed: Iterable<string>,
  cors?: CorsOrigins,
  checkOrigin = true,
  addresses = false,
): HostGuard {
  const names = new Set(allowed);
  const named = (name: string | undefined) => names.has(name ?? "");
  const hostPasses = addresses
    ? (name: string | undefined) => named(name) || (name !== undefined && isAddressLiteral(name))
    : named;
  // Clients send the same few values on every request, and parsing them as URLs was ~10% of
  // a call (bench:http's profile): each value's verdict is kept, in a bounded map, since a
  // client can send any number of different ones.
  // One map per header, keyed by the value itself: a key built per request (a prefix and the
  // value) would be a new string to hash every time.
  const hostVerdicts = new Map<string, boolean>();
  const originVerdicts = new Map<string, boolean>();
  const allowedName = (
    verdicts: Map<string, boolean>,
    value: string,
    nameOf: (value: string) => string | undefined,
    passes: (name: string | undefined) => boolean,
  ) => {
    let verdict = verdicts.get(value);
    if (verdict === undefined) {
      if (verdicts.size >= REMEMBERED_VALUES) verdicts.clear();
      verdict = passes(nameOf(value));
      verdicts.set(value, verdict);
    }
    return verdict;
  };
  return (headers) => {
    const host = headers.get("host");
    if (host === null || host === "") return "Forbidden: the request has no Host header";
    if (!allowedName(hostVerdicts, host, hostNameOf, hostPasses)) {
      return `Forbidden: the Host header ${JSON.stringify(host)} names no allowed host ` +
        `(see --allow-host)`;
    }
    if (!checkOrigin) return undefined;
    // Clients that are not browsers send no Origin; a browser always does, and "null"
    // (a sandboxed or file: page) is refused as any unparseable origin is.
    const origin = headers.get("origin");
    if (origin === null || origin === "") return undefined;
    if (allowedName(originVerdicts, origin, originHostName, named)) return undefined;
    if (cors === undefined) {
      return `Forbidden: the Origin header ${JSON.stringify(origin)} names no allowed host ` +
        `(see --allow-host)`;
    }
    if (allowsOrigin(cors, origin)) return undefined;
    return `Forbidden: the Origin header ${JSON.stringify(origin)} names no allowed host ` +
      `(see --allow-host) and is not an allowed origin (see --cors-origin)`;
  };
}

function originHostName(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The endpoint's first step (after CORS's, when on): a request whose Host names none of
 * `allowed`, or whose Origin names none and is not one of `cors`, is 403 before anything else
 * reads it (DNS rebinding, HTTP.md §9).
 */
export function guardStep(allowed: Iterable<string>, cors?: CorsOrigins): HttpStep {
  const guard = createHostGuard(allowed, cors);
  return (next) => (exchange) => {
    const forbidden = guard(exchange.request.headers);
    if (forbidden) return refuse("hostRefused", undefined, refused(forbidden));
    return next(exchange);
  };
}
