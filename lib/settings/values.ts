// What the HTTP flags take, and the checks of their values, apart from the transport: host/cli.ts
// reads these on every start, stdio included, while the transport itself loads only for a
// server that serves HTTP (adr/0051). The transport's modules re-export them where they belong.

/** Connections held open at once unless the open-file limit calls for fewer. */
export const MAX_CONNECTIONS = 1_000;
/** A connection with no request in progress for this long is closed. */
export const IDLE_TIMEOUT_MS = 30_000;
/**
 * A request body not in full this long after its headers: 408 for a large one, the connection
 * closed for one of at most 64 KiB (the price of a 408 there is a race per request).
 */
export const BODY_TIMEOUT_MS = 30_000;
/** Unsent answer bytes all connections together may hold before the stalled are dropped. */
export const MAX_UNSENT_BYTES = 64 * 1024 * 1024;
/** Live 2025-era sessions at once. */
export const MAX_SESSIONS = 10_000;
/** An RFC 6750 `b64token`, what a token must look like to travel in `Authorization`. */
export const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * `scheme://host[:port]`, an optional `/` and nothing else: no path, query, fragment or user, and
 * no wildcard (`https://*.example.com` is no origin a browser sends).
 */
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@*\s\\]+)\/?$/i;

/**
 * A `--cors-origin` value as browsers write it in `Origin` (scheme and host in lower case, the
 * scheme's default port left out, a trailing `/` dropped), `*` as it is; undefined when it is
 * not `scheme://host[:port]` or `*`.
 */
export function parseCorsOrigin(value: string): string | undefined {
  if (value === "*") return value;
  if (!ORIGIN.test(value) || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.host === "") return undefined;
  // http(s) origins serialize themselves; another scheme's (a browser extension's) is opaque to
  // URL, and its browser writes it as scheme://host.
  return url.origin !== "null" ? url.origin : `${url.protocol}//${url.host.toLowerCase()}`;
}

/**
 * The host part of a Host header (`name`, `name:port`, `[v6]:port`), lower case, as
 * `URL.hostname` writes it; undefined when the value is not just a host and a port.
 */
export function hostNameOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  // "evil.example@localhost" or "localhost/x" parse, but are not what a client sends.
  if (url.username !== "" || url.password !== "" || url.pathname !== "/") return undefined;
  if (url.search !== "" || url.hash !== "" || value.includes("@")) return undefined;
  return url.hostname === "" ? undefined : url.hostname;
}
