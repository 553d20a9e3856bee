// Command-line flags, parsed by lib/host/args.ts (node:util costs ~5 ms of start-up, adr/0008).
import { INSTANCE_NAME } from "../util/instance.ts";
import { parseArgs } from "./args.ts";
import { LOG_FORMATS, type LogFormat } from "./log_lines.ts";
import { MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import { ENV_NAME } from "../programs/limits.ts";
import { parseRate } from "../primitives/rate.ts";
import { parseToolsets, TOOLSET_NAME } from "../primitives/toolsets.ts";
import { DEFAULTS, STATE_KEY_ENV } from "../server/defaults.ts";
import {
  BEARER_TOKEN,
  BODY_TIMEOUT_MS,
  IDLE_TIMEOUT_MS,
  MAX_CONNECTIONS,
  MAX_SESSIONS,
  MAX_UNSENT_BYTES,
  parseCorsOrigin,
} from "../settings/values.ts";
import {
  INTROSPECTION_ID_ENV,
  INTROSPECTION_SECRET_ENV,
  type OAuthFlags,
  oauthOf,
} from "./oauth_flags.ts";
import {
  isLoopbackHost,
  type ListenAddress,
  parseAllowedHost,
  parseListenAddress,
} from "../settings/listen_address.ts";

/** The environment variable that turns Deno's OpenTelemetry on, read as the process starts. */
const OTEL_ENV = "OTEL_DENO";

/** The environment variable holding the bearer token HTTP requests must carry. */
export const TOKEN_ENV = "TOOLSHED_HTTP_TOKEN";
/** Keys of a rotation that still open state they sealed, separated by commas. */
const PREVIOUS_STATE_KEYS_ENV = "TOOLSHED_STATE_KEY_PREVIOUS";
/** Shortest secret accepted for it: 32 characters (256 bits of a random hex or base64 string). */
const MIN_STATE_KEY_LENGTH = 32;

export interface Options {
  /** The server directory (--dir), or undefined: the working directory. */
  dir: string | undefined;
  /** Folders named on their own, overriding DIR/tools, DIR/resources, DIR/prompts. */
  tools: string | undefined;
  resources: string | undefined;
  prompts: string | undefined;
  /** Largest contents one `resources/read` may return, in bytes. */
  maxResourceBytes: number;
  maxMessageBytes: number;
  pageSize: number;
  toolTimeoutMs: number;
  shutdownGraceMs: number;
  /** Requests that may run at once; more wait their turn. */
  maxConcurrency: number;
  /** Most bytes an executable tool may print on stdout in one call. */
  maxOutputBytes: number;
  /** Most executable-tool programs alive at once, running or stopping; more calls wait. */
  maxPrograms: number;
  /** Environment variables passed through to every executable tool (when set). */
  passEnv: readonly string[];
  /** Serve executables and sidecars that are symlinks to files outside the tools directory. */
  allowOutsideSymlinks: boolean;
  /** Serve Streamable HTTP at this address instead of stdio; absent: stdio. */
  http?: ListenAddress;
  /** Host names HTTP requests may carry besides the loopback ones (absent: none). */
  allowHosts?: readonly string[];
  /** With --http: origins whose pages may call from a browser, or `*` (--cors-origin). */
  corsOrigins?: readonly string[];
  /** With --http: the token every request must carry (from $TOOLSHED_HTTP_TOKEN). */
  bearerToken?: string;
  /** With --http: serve a non-loopback address without a token (--allow-unauthenticated). */
  allowUnauthenticated?: boolean;
  /** With --http: callers bring OAuth access tokens from this issuer (--auth-issuer …). */
  oauth?: OAuthFlags;
  /** With --http: the endpoint's URL as clients reach it (--public-url), for the server card. */
  publicUrl?: string;
  /** With --http: one line per request on stderr (--log-requests). */
  logRequests?: boolean;
  /** With --http: connections open at once (--max-connections; absent: the default). */
  maxConnections?: number;
  /** With --http: a connection with no request in progress this long closes (--idle-timeout). */
  idleTimeoutMs?: number;
  /** With --http: how long a request body may take to arrive (--body-timeout). */
  bodyTimeoutMs?: number;
  /** With --http: request bytes all requests together may hold (--max-body-bytes). */
  maxBodyBytes?: number;
  /** With --http: answer bytes waiting for clients, all together (--max-unsent-bytes). */
  maxUnsentBytes?: number;
  /** With --http: live 2025-era sessions past which one is ended (--max-sessions). */
  maxSessions?: number;
  /** With --http: the name session ids begin with (--instance); absent: random. */
  instanceName?: string;
  /** The secret that seals `requestState` ($TOOLSHED_STATE_KEY); absent: random per process. */
  stateSecret?: string;
  /** Secrets of a rotation that still open state ($TOOLSHED_STATE_KEY_PREVIOUS). */
  previousStateSecrets?: readonly string[];
  /** Watch the server directory and reload what changes (--watch). */
  watch?: boolean;
  /** Keep what instances share (tasks, the bus) in Redis at this URL (--redis). */
  redis?: string;
  /** Serve Prometheus metrics at http://ADDRESS/metrics (--metrics); absent: none, at no cost. */
  metrics?: ListenAddress;
  /** How stderr's lines are written: for people, or one JSON object each (--log-format). */
  logFormat?: LogFormat;
  /** Every caller's rate limit across its requests, as written (--rate-limit "60/min"). */
  rateLimit?: string;
  /** Serve only these toolsets and the top-level tools (--toolsets a,b; adr/0045). */
  toolsets?: string[];
  /** Serve only tools marked readOnlyHint (--read-only). */
  readOnly?: boolean;
  /** Diagnostics with stacks (--verbose). */
  verbose?: boolean;
  /** Deno's OpenTelemetry is on ($OTEL_DENO=true): traces and metrics of MCP (adr/0041). */
  telemetry?: boolean;
}

export type Command =
  | { kind: "serve"; options: Options }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "usage-error"; message: string }
  /** Flags that parse but must not run together as given: one line, exit 2, no usage. */
  | { kind: "refused"; message: string };

/** The help of toolshed and of serve; `commands` lists the subcommands (lib/commands/). */
export function usage(commands: string): string {
  return `Usage: toolshed [serve] [options]
       toolshed COMMAND [options]     (toolshed COMMAND --help for its options)

Serves the tools, resources and prompts of a server directory to MCP clients over stdio
(newline-delimited JSON-RPC), or over Streamable HTTP with --http.

Commands:
${commands}

Options of serve:
  --dir DIR                  The server directory, holding tools/, resources/ and
                             prompts/, each optional (default: the working directory;
                             in a compiled binary, the folders embedded at compile time)
  --tools DIR                The tools folder, instead of DIR/tools
  --resources DIR            The resources folder, instead of DIR/resources
  --prompts DIR              The prompts folder, instead of DIR/prompts
  --max-message-bytes N      Longest accepted input line (with --http: request body), in
                             bytes (default: ${DEFAULTS.maxMessageBytes})
  --page-size N              Items per page of tools/list, resources/list,
                             resources/templates/list and prompts/list (default: ${DEFAULTS.pageSize})
  --tool-timeout MS          Time a tool call (a resource read, a prompt, a completion)
                             may run unless it sets timeoutMs (default: ${DEFAULTS.toolTimeoutMs})
  --shutdown-grace MS        Time in-flight requests may finish after input ends or on
                             SIGTERM/SIGINT (default: ${DEFAULTS.shutdownGraceMs})
  --max-concurrency N        Requests that may run at once; more wait their turn
                             (default: ${DEFAULTS.maxConcurrency})
  --max-output-bytes N       Most bytes an executable tool may print on stdout in one
                             call (default: ${DEFAULTS.maxOutputBytes})
  --max-resource-bytes N     Largest contents one resources/read may return, in bytes
                             (default: ${DEFAULTS.maxResourceBytes})
  --max-programs N           Executable-tool programs alive at once (running, or stopping
                             after a cancel or timeout); more calls wait their turn
                             (default: ${DEFAULTS.maxPrograms})
  --pass-env NAME            Pass this environment variable on to executable tools
                             (repeatable; PATH, HOME, LANG, LC_ALL, TZ, TMPDIR always are)
  --allow-outside-symlinks   Serve executables and sidecars that are symlinks to files
                             outside the tools directory
  --toolsets SET,SET         Serve only these toolsets (folders of tools/) and the
                             top-level tools; over HTTP a client may narrow it with
                             /mcp/SET or the Mcp-Toolsets header (default: every set;
                             docs/authoring/tools.md#toolsets)
  --read-only                Serve only tools marked readOnlyHint: true
  --watch                    Watch the server directory: reload what changes and tell
                             connected clients (deno task start turns it on)
  --http ADDRESS             Serve Streamable HTTP (protocol version 2026-07-28) on
                             http://ADDRESS/mcp instead of stdio. ADDRESS is HOST:PORT,
                             [IPV6]:PORT, :PORT or PORT (host 127.0.0.1); port 0 picks
                             a free one
  --allow-host NAME          With --http or --metrics: a host name requests may carry in
                             Host and Origin besides localhost, 127.0.0.1 and [::1]
                             (repeatable)
  --cors-origin ORIGIN       With --http: pages of ORIGIN (scheme://host[:port]) may call
                             the server from a browser (CORS), and pass the Origin check;
                             * lets any page, and needs ${TOKEN_ENV} (repeatable)
  --allow-unauthenticated    With --http: serve an address that is not loopback although
                             ${TOKEN_ENV} is not set (behind an authenticating proxy)
  --auth-issuer URL          With --http: callers sign in with OAuth; access tokens come
                             from this authorization server (its issuer URL), are checked
                             for this server as their audience, and scopes on tools,
                             resources and prompts are enforced (docs/operating/oauth.md)
  --public-url URL           With --http: the endpoint's URL as clients reach it
                             (https://mcp.example.com/mcp), which OAuth tokens and the
                             server card name; default: the address served (OAuth), the
                             URL each request was sent to (the card)
  --auth-scope SCOPE         With --auth-issuer: a scope every request needs (repeatable)
  --auth-lists all|permitted With --auth-issuer: whether lists show a caller what its
                             token does not grant (default: all, so it can step up)
  --log-requests             With --http: one line per request on stderr (method, path,
                             status, JSON-RPC method, duration)
  --log-format text|json     How stderr's lines are written: for people (text, the
                             default), or one JSON object each (time, level, message,
                             and the request's method, tool, subject, trace, duration)
  --max-connections N        With --http: connections open at once; one more gets 503
                             and is closed (default: ${MAX_CONNECTIONS}, at most half the
                             open-file limit)
  --idle-timeout MS          With --http or --metrics: a connection with no request in
                             progress (silent, or still sending its headers) closes after
                             this long (default: ${IDLE_TIMEOUT_MS})
  --body-timeout MS          With --http: a request body not arrived this long after its
                             headers gets 408, or over 64 KiB, its connection closed
                             (default: ${BODY_TIMEOUT_MS})
  --max-body-bytes N         With --http: request bytes all requests together may hold,
                             from their first byte to their answer; past it a request
                             gets 503 (default: twice --max-message-bytes)
  --max-unsent-bytes N       With --http: answer bytes waiting for clients that do not
                             read, all together; past it the stalest answers are dropped
                             and their connections closed (default: ${MAX_UNSENT_BYTES})
  --max-sessions N           With --http: live 2025-era sessions; past it the least
                             recently used idle one is ended (default: ${MAX_SESSIONS})
  --instance NAME            With --http: the name this instance's session ids begin
                             with, for routing sessions by prefix (default: random)
  --metrics ADDRESS          Count requests and serve Prometheus metrics on
                             http://ADDRESS/metrics, a listener of their own (stdio or
                             HTTP); ADDRESS as --http's (host 127.0.0.1). Unauthenticated:
                             bind it where only your Prometheus reaches
  --redis URL                Keep tasks in Redis (redis://HOST:PORT) and pass task
                             answers and cancellations between instances through it, so
                             that any instance behind a load balancer serves any task
  --rate-limit RATE          Every caller's limit across its requests (all but ping):
                             "60/min", "5/s", "1000/h", "60/min burst 10"; over it a
                             request is refused (HTTP 429 with Retry-After). The caller
                             is the OAuth subject, else the 2025-era session, else the
                             client address; shared through --redis when it is given
                             (docs/operating/rate-limits.md)
  -v, --verbose              Diagnostics with stacks: a tool that throws is one line on
                             stderr per call without it
  -h, --help                 Show this help
  -V, --version              Show the version

Environment:
  ${TOKEN_ENV}        With --http: the bearer token every request must carry
  ${INTROSPECTION_ID_ENV}, ${INTROSPECTION_SECRET_ENV}
                             With --auth-issuer: the client that introspects opaque
                             (non-JWT) access tokens at the issuer (RFC 7662)
  ${STATE_KEY_ENV}         The secret (32 characters or more) that seals the
                             requestState of input_required answers; the same on every
                             instance (default: with --redis a key shared through it,
                             else a random key per process)
  ${PREVIOUS_STATE_KEYS_ENV} Keys that sealed state before a rotation, separated
                             by commas: they still open it (for its 15 minutes)`;
}

/** Numeric flags are timers or sizes; setTimeout's limit bounds them all. */
export const MAX_FLAG_VALUE = MAX_TIMER_MS;

const NUMERIC_FLAGS = {
  "max-message-bytes": "maxMessageBytes",
  "page-size": "pageSize",
  "tool-timeout": "toolTimeoutMs",
  "shutdown-grace": "shutdownGraceMs",
  "max-concurrency": "maxConcurrency",
  "max-output-bytes": "maxOutputBytes",
  "max-programs": "maxPrograms",
  "max-resource-bytes": "maxResourceBytes",
  "max-connections": "maxConnections",
  "idle-timeout": "idleTimeoutMs",
  "body-timeout": "bodyTimeoutMs",
  "max-body-bytes": "maxBodyBytes",
  "max-unsent-bytes": "maxUnsentBytes",
  "max-sessions": "maxSessions",
} as const;

/** The numeric flags that only --http reads. */
const HTTP_NUMERIC_FLAGS = [
  "max-connections",
  "body-timeout",
  "max-body-bytes",
  "max-unsent-bytes",
  "max-sessions",
] as const;

/** The flags parseArgs knows, by their names without the dashes. */
const FLAGS = {
  tools: { type: "string" },
  resources: { type: "string" },
  prompts: { type: "string" },
  dir: { type: "string" },
  "max-message-bytes": { type: "string" },
  "page-size": { type: "string" },
  "tool-timeout": { type: "string" },
  "shutdown-grace": { type: "string" },
  "max-concurrency": { type: "string" },
  "max-output-bytes": { type: "string" },
  "max-programs": { type: "string" },
  "max-resource-bytes": { type: "string" },
  "max-connections": { type: "string" },
  "idle-timeout": { type: "string" },
  "body-timeout": { type: "string" },
  "max-body-bytes": { type: "string" },
  "max-unsent-bytes": { type: "string" },
  "max-sessions": { type: "string" },
  "pass-env": { type: "string", multiple: true },
  "allow-outside-symlinks": { type: "boolean" },
  watch: { type: "boolean" },
  toolsets: { type: "string" },
  "read-only": { type: "boolean" },
  http: { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "cors-origin": { type: "string", multiple: true },
  "allow-unauthenticated": { type: "boolean" },
  "auth-issuer": { type: "string" },
  "public-url": { type: "string" },
  "auth-scope": { type: "string", multiple: true },
  "auth-lists": { type: "string" },
  "log-requests": { type: "boolean" },
  "log-format": { type: "string" },
  redis: { type: "string" },
  metrics: { type: "string" },
  "rate-limit": { type: "string" },
  instance: { type: "string" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

/**
 * Reads the command line; `env` reads the environment ($TOOLSHED_STATE_KEY, $OTEL_DENO, and
 * $TOOLSHED_HTTP_TOKEN only with --http).
 */
export function parseCommand(
  args: string[],
  env: (name: string) => string | undefined = () => undefined,
): Command {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: FLAGS,
    }));
  } catch (error) {
    return { kind: "usage-error", message: withSuggestion(messageOf(error)) };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  for (const flag of ["dir", "tools", "resources", "prompts"] as const) {
    if (values[flag] === "") return { kind: "usage-error", message: `--${flag} needs a directory` };
  }
  const options: Options = {
    dir: values.dir,
    tools: values.tools,
    resources: values.resources,
    prompts: values.prompts,
    ...DEFAULTS,
  };
  for (const [flag, key] of Object.entries(NUMERIC_FLAGS)) {
    const raw = values[flag as keyof typeof NUMERIC_FLAGS];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < 1 || value > MAX_FLAG_VALUE) {
      return {
        kind: "usage-error",
        message:
          `Invalid value for --${flag}: "${raw}" is not an integer from 1 to ${MAX_FLAG_VALUE}`,
      };
    }
    options[key] = value;
  }
  const httpOnly = HTTP_NUMERIC_FLAGS.find((flag) => values[flag] !== undefined);
  if (httpOnly !== undefined && values.http === undefined) {
    return { kind: "usage-error", message: `--${httpOnly} needs --http` };
  }
  // The metrics listener closes idle connections too (adr/0056).
  if (values["idle-timeout"] !== undefined && values.http === undefined && !values.metrics) {
    return { kind: "usage-error", message: "--idle-timeout needs --http or --metrics" };
  }
  if (options.maxBodyBytes !== undefined && options.maxBodyBytes < options.maxMessageBytes) {
    return {
      kind: "usage-error",
      message: `Invalid value for --max-body-bytes: "${options.maxBodyBytes}" is less than ` +
        `--max-message-bytes (${options.maxMessageBytes}), so the longest message could never ` +
        "be read",
    };
  }
  const passEnv = values["pass-env"] ?? [];
  const badName = passEnv.find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) {
    return {
      kind: "usage-error",
      message: `Invalid value for --pass-env: "${badName}" is not an environment variable name`,
    };
  }
  if (passEnv.length > 0) options.passEnv = passEnv;
  if (values["allow-outside-symlinks"]) options.allowOutsideSymlinks = true;
  if (values.watch) options.watch = true;
  if (values.verbose) options.verbose = true;
  if (values["log-format"] !== undefined) {
    const format = logFormatNamed(values["log-format"]);
    if (format === undefined) {
      return { kind: "usage-error", message: badLogFormat(values["log-format"]) };
    }
    options.logFormat = format;
  }
  // Deno's OpenTelemetry is on for this process (it reads OTEL_DENO as it starts, "true" in
  // any case): toolshed adds its spans and metrics (adr/0041).
  if (env(OTEL_ENV)?.toLowerCase() === "true") options.telemetry = true;
  if (values.redis !== undefined) {
    if (!/^rediss?:\/\/[^\s]+$/.test(values.redis)) {
      return {
        kind: "usage-error",
        message: `Invalid value for --redis: "${values.redis}" is not a redis:// or rediss:// URL`,
      };
    }
    options.redis = values.redis;
  }
  if (values.metrics !== undefined) {
    const address = parseListenAddress(values.metrics);
    if (address === undefined) {
      return {
        kind: "usage-error",
        message: `Invalid value for --metrics: "${values.metrics}" is not HOST:PORT, ` +
          "[IPV6]:PORT, :PORT or PORT with a port from 0 to 65535",
      };
    }
    const http = values.http === undefined ? undefined : parseListenAddress(values.http);
    if (address.port !== 0 && http?.port === address.port && http.hostname === address.hostname) {
      return {
        kind: "usage-error",
        message: `Invalid value for --metrics: "${values.metrics}" is --http's address; ` +
          "metrics are served on a listener of their own",
      };
    }
    options.metrics = address;
  }
  if (values.toolsets !== undefined) {
    const sets = parseToolsets(values.toolsets);
    const bad = sets.find((set) => !TOOLSET_NAME.test(set));
    if (sets.length === 0 || bad !== undefined) {
      return {
        kind: "usage-error",
        message: `Invalid value for --toolsets: ${
          bad === undefined ? "name at least one toolset" : `"${bad}" is not a toolset's name`
        } (folders of tools/, comma-separated: --toolsets issues,repos)`,
      };
    }
    options.toolsets = sets;
  }
  if (values["read-only"]) options.readOnly = true;
  if (values["rate-limit"] !== undefined) {
    try {
      parseRate(values["rate-limit"]);
    } catch (error) {
      return {
        kind: "usage-error",
        message: `Invalid value for --rate-limit: ${messageOf(error)}`,
      };
    }
    options.rateLimit = values["rate-limit"];
  }
  const secret = env(STATE_KEY_ENV);
  if (secret !== undefined) {
    if (secret.length < MIN_STATE_KEY_LENGTH) {
      return {
        kind: "refused",
        message: `Cannot start: ${STATE_KEY_ENV} must be at least ${MIN_STATE_KEY_LENGTH} ` +
          `characters (it has ${secret.length}): use a random string, for example ` +
          "`openssl rand -hex 32`",
      };
    }
    options.stateSecret = secret;
  }
  const previous = env(PREVIOUS_STATE_KEYS_ENV);
  if (previous !== undefined) {
    const secrets = previous.split(",").map((part) => part.trim()).filter((part) => part !== "");
    if (secret === undefined) {
      return {
        kind: "refused",
        message: `Cannot start: ${PREVIOUS_STATE_KEYS_ENV} is set but ${STATE_KEY_ENV} is not: ` +
          "set the new key there, and keep the old ones in the previous list",
      };
    }
    const short = secrets.findIndex((part) => part.length < MIN_STATE_KEY_LENGTH);
    if (short !== -1) {
      return {
        kind: "refused",
        message: `Cannot start: key ${short + 1} of ${PREVIOUS_STATE_KEYS_ENV} has fewer than ` +
          `${MIN_STATE_KEY_LENGTH} characters`,
      };
    }
    options.previousStateSecrets = secrets;
  }
  const command = withHttp(options, values.http, values["allow-host"]);
  if (command.kind !== "serve") return command;
  const oauth = oauthOf(
    {
      issuer: values["auth-issuer"],
      publicUrl: values["public-url"],
      scopes: values["auth-scope"],
      lists: values["auth-lists"],
    },
    options.http,
    env,
  );
  if ("problem" in oauth) return { kind: "usage-error", message: oauth.problem };
  if (oauth.oauth !== undefined) options.oauth = oauth.oauth;
  if (values["public-url"] !== undefined) options.publicUrl = values["public-url"];
  const secured = withHttpSecurity(command.options, {
    allowUnauthenticated: values["allow-unauthenticated"] === true,
    logRequests: values["log-requests"] === true,
    token: env(TOKEN_ENV),
    instance: values.instance,
  });
  if (secured.kind !== "serve") return secured;
  return withCors(secured.options, values["cors-origin"]);
}

/**
 * Adds --cors-origin (adr/0039), or says what is wrong with it: each value is an origin or `*`,
 * `*` alone, and `*` only where every caller needs a token (or something in front
 * authenticates, --allow-unauthenticated): it lets any page the user opens call the tools.
 */
function withCors(options: Options, values: string[] | undefined): Command {
  if (values === undefined) return { kind: "serve", options };
  if (options.http === undefined) {
    return { kind: "usage-error", message: "--cors-origin needs --http" };
  }
  const origins: string[] = [];
  for (const value of values) {
    const origin = parseCorsOrigin(value);
    if (origin === undefined) {
      return {
        kind: "usage-error",
        message: `Invalid value for --cors-origin: "${value}" is not an origin, ` +
          'scheme://host[:port] with no path, or "*"',
      };
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  if (origins.includes("*") && origins.length > 1) {
    return {
      kind: "usage-error",
      message: 'Invalid value for --cors-origin: "*" lets every origin, so list no other with it',
    };
  }
  const authenticated = options.bearerToken !== undefined || options.oauth !== undefined;
  if (origins[0] === "*" && !authenticated && !options.allowUnauthenticated) {
    return {
      kind: "refused",
      message: `Refusing --cors-origin "*" without a token: any web page the user opens could ` +
        `call this server's tools: set ${TOKEN_ENV}, list the origins that may call, or pass ` +
        "--allow-unauthenticated if something in front of toolshed authenticates its clients",
    };
  }
  options.corsOrigins = origins;
  return { kind: "serve", options };
}

/**
 * Adds the bearer token, --allow-unauthenticated and --log-requests; refuses a token that
 * cannot travel in a header, and an address beyond loopback with no token unless the
 * operator said so.
 */
function withHttpSecurity(
  options: Options,
  given: {
    allowUnauthenticated: boolean;
    logRequests: boolean;
    token: string | undefined;
    instance: string | undefined;
  },
): Command {
  const { http } = options;
  if (given.instance !== undefined) {
    if (http === undefined) return { kind: "usage-error", message: "--instance needs --http" };
    if (!INSTANCE_NAME.test(given.instance)) {
      return {
        kind: "usage-error",
        message: `Invalid value for --instance: "${given.instance}" is not 1 to 63 letters, ` +
          'digits, "-" or "_"',
      };
    }
    options.instanceName = given.instance;
  }
  if (http === undefined) {
    if (given.allowUnauthenticated) {
      return { kind: "usage-error", message: "--allow-unauthenticated needs --http" };
    }
    if (given.logRequests) return { kind: "usage-error", message: "--log-requests needs --http" };
    return { kind: "serve", options };
  }
  if (given.token !== undefined && options.oauth !== undefined) {
    return {
      kind: "refused",
      message: `Refusing --auth-issuer with ${TOKEN_ENV} set: callers are known by OAuth or by ` +
        "one shared token, not both; unset one",
    };
  }
  if (given.token !== undefined) {
    if (!BEARER_TOKEN.test(given.token)) {
      return {
        kind: "refused",
        message: `Cannot serve --http: ${TOKEN_ENV} is ${
          given.token === "" ? "empty" : "not a bearer token"
        }: use letters, digits and "-._~+/", optionally ending in "="`,
      };
    }
    options.bearerToken = given.token;
  } else if (
    !isLoopbackHost(http.hostname) && !given.allowUnauthenticated && options.oauth === undefined
  ) {
    return {
      kind: "refused",
      message: `Refusing to serve --http on "${http.hostname}", which is not a loopback ` +
        `address, without a token: set ${TOKEN_ENV}, or pass --allow-unauthenticated if ` +
        "something in front of toolshed authenticates its clients",
    };
  }
  if (given.allowUnauthenticated) options.allowUnauthenticated = true;
  if (given.logRequests) options.logRequests = true;
  return { kind: "serve", options };
}

/** Adds --http and --allow-host to the options, or says what is wrong with them. */
function withHttp(
  options: Options,
  http: string | undefined,
  allowHosts: string[] | undefined,
): Command {
  if (http !== undefined) {
    const address = parseListenAddress(http);
    if (address === undefined) {
      return {
        kind: "usage-error",
        message: `Invalid value for --http: "${http}" is not HOST:PORT, [IPV6]:PORT, :PORT or ` +
          "PORT with a port from 0 to 65535",
      };
    }
    options.http = address;
  }
  if (allowHosts === undefined) return { kind: "serve", options };
  if (http === undefined && options.metrics === undefined) {
    return { kind: "usage-error", message: "--allow-host needs --http or --metrics" };
  }
  const names: string[] = [];
  for (const name of allowHosts) {
    const parsed = parseAllowedHost(name);
    if (parsed === undefined) {
      return {
        kind: "usage-error",
        message: `Invalid value for --allow-host: "${name}" is not a host name or an IP address ` +
          "(without a port)",
      };
    }
    names.push(parsed);
  }
  options.allowHosts = names;
  return { kind: "serve", options };
}

/** parseArgs's message, with the flag meant when an unknown one is a typo of it. */
function withSuggestion(message: string): string {
  const unknown = /^Unknown option ['"]--?([^'"]+)['"]/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const meant = closest(unknown, Object.keys(FLAGS));
  return meant === undefined ? message : `${message}; did you mean --${meant}?`;
}

/**
 * The --log-format the arguments ask for, read before anything else so that even a mistake in
 * them is said in that format: "text" when none, undefined when the value is not a format (the
 * parse says so). The last one given wins, as in the parse.
 */
export function requestedLogFormat(args: readonly string[]): LogFormat | undefined {
  let named: string | undefined = "text";
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if (args[i] === "--log-format") named = args[++i];
    else if (args[i].startsWith("--log-format=")) named = args[i].slice("--log-format=".length);
  }
  return named === undefined ? undefined : logFormatNamed(named);
}

function logFormatNamed(name: string): LogFormat | undefined {
  return (LOG_FORMATS as readonly string[]).includes(name) ? name as LogFormat : undefined;
}

function badLogFormat(value: string): string {
  return `Invalid value for --log-format: "${value}" (use ${LOG_FORMATS.join(" or ")})`;
}
