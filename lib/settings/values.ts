// What the HTTP flags take, and the checks of their values, apart from the transport: host/cli.ts
// reads these on every start, stdio included, while the transport itself loads only for a
// server that serves HTTP (adr/0051). The transport's modules re-export them where they belong.
import { INSTANCE_NAME } from "../util/instance.ts";
import { MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { parseRate } from "../primitives/rate.ts";
import { isScopeName } from "../primitives/scopes.ts";
import { parseToolsets, TOOLSET_NAME } from "../primitives/toolsets.ts";
import { MAX_RESULT_CHARS, MIN_RESULT_CHARS } from "../primitives/result_size.ts";

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

// The value types of the settings table (table.ts): each reads what a flag or an environment
// variable was given and says, in one line, what is wrong with it.

/** What a value type makes of what was given, or the line that says what is wrong. */
type Parsed<T> = { readonly value: T } | { readonly problem: string };

/**
 * A setting's type: how its flag is given (a switch; one value, the last one given winning; or a
 * repeatable flag's every value) and how the given strings become its value. `name` is the flag
 * (`--page-size`) or the environment variable, for the message.
 */
export interface ValueType<T> {
  readonly takes: "switch" | "one" | "many";
  readonly parse: (given: readonly string[], name: string) => Parsed<T>;
}

/** Numeric flags are timers or sizes; setTimeout's limit bounds them all. */
export const MAX_FLAG_VALUE = MAX_TIMER_MS;

/** What an environment variable's name may be (for sidecars' `env` and --pass-env). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Shortest secret accepted as a state key: 32 characters (256 bits of a random hex string). */
const MIN_STATE_KEY_LENGTH = 32;

function one<T>(parse: (raw: string, name: string) => Parsed<T>): ValueType<T> {
  return { takes: "one", parse: (given, name) => parse(given[given.length - 1], name) };
}

function invalid(name: string, raw: string, why: string): { problem: string } {
  return { problem: `Invalid value for ${name}: "${raw}" ${why}` };
}

/** An integer from 1 to MAX_FLAG_VALUE. */
const integer: ValueType<number> = one<number>((raw, name) =>
  /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_FLAG_VALUE
    ? { value: Number(raw) }
    : invalid(name, raw, `is not an integer from 1 to ${MAX_FLAG_VALUE}`)
);
/** How many of something. */
export const count = integer;
/** A time in milliseconds where 0 means "never" (`--job-after 0`). */
export const millisecondsOrNever: ValueType<number> = one<number>((raw, name) =>
  /^\d+$/.test(raw) && Number(raw) <= MAX_FLAG_VALUE
    ? { value: Number(raw) }
    : invalid(name, raw, `is not an integer from 0 to ${MAX_FLAG_VALUE}`)
);
/** A count where 0 means "none" (`--code-pool 0`). */
export const countFromZero: ValueType<number> = millisecondsOrNever;
/** A time in milliseconds. */
export const milliseconds = integer;
/** A size in bytes. */
export const bytes = integer;

/** Characters of text in one result (a tool's `maxResultChars`). */
export const resultChars: ValueType<number> = one<number>((raw, name) =>
  /^\d+$/.test(raw) && Number(raw) >= MIN_RESULT_CHARS && Number(raw) <= MAX_RESULT_CHARS
    ? { value: Number(raw) }
    : invalid(name, raw, `is not an integer from ${MIN_RESULT_CHARS} to ${MAX_RESULT_CHARS}`)
);

/** A switch: on when given. */
export const flag: ValueType<boolean> = { takes: "switch", parse: () => ({ value: true }) };

/** Any text (an environment variable's). */
export const text: ValueType<string> = one<string>((raw) => ({ value: raw }));

/** A directory, which must be named. */
export const directory: ValueType<string> = one<string>((raw, name) =>
  raw === "" ? { problem: `${name} needs a directory` } : { value: raw }
);

/** Environment variables' names, repeatable. */
export const envNames: ValueType<readonly string[]> = {
  takes: "many",
  parse: (given, name) => {
    const bad = given.find((each) => !ENV_NAME.test(each));
    return bad === undefined
      ? { value: given }
      : invalid(name, bad, "is not an environment variable name");
  },
};

// The value of --http: where to listen. The host defaults to 127.0.0.1, so that a server
// is reachable from other machines only when the operator names an address that is.

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
function parseListenAddress(value: string): ListenAddress | undefined {
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
function parseAllowedHost(value: string): string | undefined {
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

/** A listening address (--http, --metrics). */
export const address: ValueType<ListenAddress> = one<ListenAddress>((raw, name) => {
  const value = parseListenAddress(raw);
  return value !== undefined ? { value } : invalid(
    name,
    raw,
    "is not HOST:PORT, [IPV6]:PORT, :PORT or PORT with a port from 0 to 65535",
  );
});

/** Host names requests may carry (--allow-host), repeatable. */
export const hostNames: ValueType<readonly string[]> = {
  takes: "many",
  parse: (given, name) => {
    const names: string[] = [];
    for (const each of given) {
      const parsed = parseAllowedHost(each);
      if (parsed === undefined) {
        return invalid(name, each, "is not a host name or an IP address (without a port)");
      }
      names.push(parsed);
    }
    return { value: names };
  },
};

/** Origins, or `*` alone (--cors-origin), repeatable; each once. */
export const origins: ValueType<readonly string[]> = {
  takes: "many",
  parse: (given, name) => {
    const found: string[] = [];
    for (const each of given) {
      const origin = parseCorsOrigin(each);
      if (origin === undefined) {
        return invalid(name, each, 'is not an origin, scheme://host[:port] with no path, or "*"');
      }
      if (!found.includes(origin)) found.push(origin);
    }
    if (found.includes("*") && found.length > 1) {
      return {
        problem: `Invalid value for ${name}: "*" lets every origin, so list no other with it`,
      };
    }
    return { value: found };
  },
};

/** Toolsets' names, comma-separated (--toolsets issues,repos). */
export const toolsets: ValueType<readonly string[]> = one<readonly string[]>((raw, name) => {
  const sets = parseToolsets(raw);
  const bad = sets.find((set) => !TOOLSET_NAME.test(set));
  if (sets.length > 0 && bad === undefined) return { value: sets };
  return {
    problem: `Invalid value for ${name}: ${
      bad === undefined ? "name at least one toolset" : `"${bad}" is not a toolset's name`
    } (folders of tools/, comma-separated: ${name} issues,repos)`,
  };
});

/** A rate ("60/min burst 10"), kept as written. */
export const rate: ValueType<string> = one<string>((raw, name) => {
  try {
    parseRate(raw);
  } catch (error) {
    return { problem: `Invalid value for ${name}: ${messageOf(error)}` };
  }
  return { value: raw };
});

/** A redis:// or rediss:// URL. */
export const redisUrl: ValueType<string> = one<string>((raw, name) =>
  /^rediss?:\/\/[^\s]+$/.test(raw)
    ? { value: raw }
    : invalid(name, raw, "is not a redis:// or rediss:// URL")
);

/**
 * An absolute https URL (http only on a loopback host, for development), without credentials,
 * query or fragment.
 */
export const url: ValueType<string> = one<string>((raw, name) => {
  const parsed = URL.parse(raw);
  if (parsed === null || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    return invalid(name, raw, "is not an http(s) URL");
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (parsed.protocol === "http:" && !isLoopbackHost(host) && host !== "localhost") {
    return invalid(name, raw, "must be https (http only on a loopback host, for development)");
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return invalid(name, raw, "has credentials in it");
  }
  if (parsed.search !== "" || parsed.hash !== "") {
    return invalid(name, raw, "has a query or a fragment");
  }
  return { value: raw };
});

/** OAuth scope names, repeatable; each once. */
export const scopes: ValueType<readonly string[]> = {
  takes: "many",
  parse: (given, name) => {
    const unique = [...new Set(given)];
    const bad = unique.find((scope) => !isScopeName(scope));
    return bad === undefined ? { value: unique } : invalid(
      name,
      bad,
      "is not an OAuth scope name " +
        '(printable ASCII without spaces, quotes or backslashes; never "offline_access")',
    );
  },
};

/** Whether lists show what a token does not grant. */
export const lists: ValueType<"all" | "permitted"> = one<"all" | "permitted">((raw, name) =>
  raw === "all" || raw === "permitted"
    ? { value: raw }
    : invalid(name, raw, 'is not "all" or "permitted"')
);

/** How stderr's lines are written (host/log_lines.ts's LOG_FORMATS). */
export const logFormat: ValueType<"text" | "json"> = one<"text" | "json">((raw, name) =>
  raw === "text" || raw === "json"
    ? { value: raw }
    : { problem: `Invalid value for ${name}: "${raw}" (use text or json)` }
);

/** The name session ids begin with. */
export const instanceName: ValueType<string> = one<string>((raw, name) =>
  INSTANCE_NAME.test(raw)
    ? { value: raw }
    : invalid(name, raw, 'is not 1 to 63 letters, digits, "-" or "_"')
);

/** A bearer token as it travels in `Authorization` (from the environment). */
export const token: ValueType<string> = one<string>((raw, name) =>
  BEARER_TOKEN.test(raw) ? { value: raw } : {
    problem: `Cannot serve --http: ${name} is ${raw === "" ? "empty" : "not a bearer token"}: ` +
      'use letters, digits and "-._~+/", optionally ending in "="',
  }
);

/** A secret of MIN_STATE_KEY_LENGTH characters or more (from the environment). */
export const stateKey: ValueType<string> = one<string>((raw, name) =>
  raw.length >= MIN_STATE_KEY_LENGTH ? { value: raw } : {
    problem: `Cannot start: ${name} must be at least ${MIN_STATE_KEY_LENGTH} ` +
      `characters (it has ${raw.length}): use a random string, for example ` +
      "`openssl rand -hex 32`",
  }
);

/** Secrets separated by commas, each of MIN_STATE_KEY_LENGTH characters or more. */
export const stateKeys: ValueType<readonly string[]> = one<readonly string[]>((raw, name) => {
  const secrets = raw.split(",").map((part) => part.trim()).filter((part) => part !== "");
  const short = secrets.findIndex((part) => part.length < MIN_STATE_KEY_LENGTH);
  return short === -1 ? { value: secrets } : {
    problem: `Cannot start: key ${short + 1} of ${name} has fewer than ` +
      `${MIN_STATE_KEY_LENGTH} characters`,
  };
});

/** "true" in any case is on; anything else, off (as Deno reads OTEL_DENO). */
export const on: ValueType<boolean> = one<boolean>((raw) => ({
  value: raw.toLowerCase() === "true",
}));
