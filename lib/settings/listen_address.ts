// The value of --http: where to listen. The host defaults to 127.0.0.1, so that a server
// is reachable from other machines only when the operator names an address that is.
import { hostNameOf } from "./values.ts";

export interface ListenAddress {
  /** An IP address or a name to resolve; an IPv6 address without brackets. */
  hostname: string;
  /** 0 asks the system for a free port. */
  port: number;
}

const DEFAULT_HTTP_HOSTNAME = "127.0.0.1";

const PORT = /^\d{1,5}$/;

/**
 * Reads `HOST:PORT`, `[IPV6]:PORT`, `:PORT` or `PORT` (the last two on 127.0.0.1);
 * undefined for anything else, a port above 65535 included.
 */
export function parseListenAddress(value: string): ListenAddress | undefined {
  const colon = value.lastIndexOf(":");
  const hostPart = colon === -1 ? "" : value.slice(0, colon);
  const portPart = value.slice(colon + 1);
  if (!PORT.test(portPart) || Number(portPart) > 65535) return undefined;
  const port = Number(portPart);
  if (hostPart === "") return { hostname: DEFAULT_HTTP_HOSTNAME, port };
  // A bare IPv6 address needs its brackets: "::1:8080" could end in a port or not.
  if (hostPart.includes(":") && !hostPart.startsWith("[")) return undefined;
  const hostname = hostNameOf(hostPart);
  if (hostname === undefined) return undefined;
  return { hostname: hostname.startsWith("[") ? hostname.slice(1, -1) : hostname, port };
}

/** An --allow-host name as Host headers carry it (lower case, no port); undefined if it is none. */
export function parseAllowedHost(value: string): string | undefined {
  if (value.includes(":") && !value.startsWith("[")) return undefined; // a port, or bare IPv6
  if (value.startsWith("[") && !value.endsWith("]")) return undefined; // [v6]:port
  return hostNameOf(value);
}

/**
 * Whether a --http host reaches this machine only: `localhost`, 127.0.0.0/8 or `::1`. A
 * wildcard (`0.0.0.0`, `::`) and any other name or address are not.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
