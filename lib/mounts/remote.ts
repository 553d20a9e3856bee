// What toolshed sends to a server elsewhere, as a file in the directory writes it (a mount's
// "url" and "headers", an API sidecar's "baseUrl" and "headers"): the URL http(s) with plain
// http only to this machine and never a user name or password; header names valid, each once,
// secret-named values from the environment, no line break or NUL once expanded.
import { isObject } from "../util/json.ts";
import {
  type Env,
  expand,
  refuseLiteralSecret,
  refuseLiteralSecretQuery,
  SECRET_NAME,
} from "./env_values.ts";

/**
 * The URL `field` gives, `${…}` expanded: http: or https:, plain http: only to this machine
 * (`crossing` says what would cross the network readable otherwise), no userinfo, no secret-named
 * query parameter written literally. Throws one sentence naming `field`.
 */
export function remoteUrl(raw: string, field: string, env: Env, crossing: string): URL {
  refuseLiteralSecretQuery(raw, field);
  const parsed = URL.parse(expand(raw, field, env).text);
  if (parsed === null) throw new Error(`${field} "${raw}" is not a URL`);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new Error(
      `${field} "${raw}" has the scheme "${parsed.protocol.slice(0, -1)}": use https`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new Error(
      `${field} "${raw}" carries a user name or password: send a credential in "headers" with ` +
        `"\${NAME}" instead (a URL is logged and shown)`,
    );
  }
  if (parsed.protocol === "http:" && !isLoopback(parsed.hostname)) {
    throw new Error(
      `${field} "${raw}" is plain HTTP to "${parsed.hostname}", which is not this machine: use ` +
        `https (${crossing} would cross the network readable and changeable by anyone on the way)`,
    );
  }
  return parsed;
}

/** Whether a URL's hostname is this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The static headers an object of strings gives, `${…}` expanded. `owned` answers, for a lower-case
 * name toolshed sets itself, why it cannot be given ("is set by …: remove it"), else undefined.
 */
export function staticHeaders(
  raw: unknown,
  env: Env,
  owned: (lower: string) => string | undefined,
): Record<string, string> {
  if (!isObject(raw)) {
    throw new Error(
      'headers must be an object of strings, e.g. {"Authorization": "Bearer ${TOKEN}"}',
    );
  }
  const headers: Record<string, string> = {};
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(raw)) {
    const where = `header "${name}"`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      throw new Error(`headers has "${name}", which is not a header name`);
    }
    const why = owned(lower);
    if (why !== undefined) throw new Error(`${where} ${why}`);
    const twin = seen.get(lower);
    if (twin !== undefined) throw new Error(`headers has both "${twin}" and "${name}": keep one`);
    seen.set(lower, name);
    if (typeof value !== "string") throw new Error(`${where} must be a string`);
    const expanded = expand(value, where, env);
    if (SECRET_NAME.test(name)) refuseLiteralSecret(expanded, value, where, name);
    if (/[\r\n\0]/.test(expanded.text)) {
      throw new Error(
        `${where} holds a line break or NUL once expanded, which a header cannot carry`,
      );
    }
    headers[name] = expanded.text;
  }
  return headers;
}
