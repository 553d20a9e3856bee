// Command-line flags, parsed by lib/host/args.ts (node:util costs ~5 ms of start-up, adr/0008)
// from the rows of lib/settings/table.ts, checked by lib/settings/rules.ts.
import { type FlagSpec, parseArgs } from "./args.ts";
import { LOG_FORMATS, type LogFormat } from "./log_lines.ts";
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import { DEFAULTS } from "../server/defaults.ts";
import { type ListenAddress, MAX_FLAG_VALUE, MIN_STATE_KEY_LENGTH } from "../settings/values.ts";
import {
  OTEL_ENV,
  PREVIOUS_STATE_KEYS_ENV,
  type Row,
  ROWS,
  type SettingKey,
  type Settings,
  STATE_KEY_ENV,
  TOKEN_ENV,
} from "../settings/table.ts";
import { brokenRule, needsMet } from "../settings/rules.ts";
import type { OAuthFlags } from "./oauth_flags.ts";

export { MAX_FLAG_VALUE, MIN_STATE_KEY_LENGTH, OTEL_ENV, PREVIOUS_STATE_KEYS_ENV, TOKEN_ENV };

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

export { DEFAULTS, STATE_KEY_ENV };

/** The help of toolshed and of serve; `commands` lists the subcommands (lib/commands/). */
export function usage(commands: string): string {
  return `Usage: toolshed [serve] [options]
       toolshed COMMAND [options]     (toolshed COMMAND --help for its options)

Serves the tools, resources and prompts of a server directory to MCP clients over stdio
(newline-delimited JSON-RPC), or over Streamable HTTP with --http.

Commands:
${commands}

Options of serve:
${helpOf(ROWS.filter((row) => row.flag !== undefined))}
  -h, --help                 Show this help
  -V, --version              Show the version

Environment:
${helpOf(ROWS.filter((row) => row.flag === undefined))}`;
}

/** Where help text begins on each line (after the flag or the variable). */
const HELP_COLUMN = 29;
/** How wide the help's lines are. */
const HELP_WIDTH = 92;

/** What the help names a row by: `--flag VALUE`, `-v, --verbose`, or its variable. */
export function labelOf(row: Row<unknown>): string {
  if (row.label !== undefined) return row.label;
  if (row.flag === undefined) return row.env!;
  return `${row.short === undefined ? "" : `-${row.short}, `}--${row.flag}${
    row.value === undefined ? "" : ` ${row.value}`
  }`;
}

/**
 * The help of these rows, each its label and its lines in a column; a label too long for the
 * column is followed by one space, or, if its first line would then not fit, by a line break.
 */
export function helpOf(
  rows: readonly Row<unknown>[],
  linesOf: (row: Row<unknown>) => readonly string[] = (row) => row.help,
): string {
  const out: string[] = [];
  for (const row of rows) {
    const lines = linesOf(row).map((line) => line.replace("{default}", String(row.default)));
    if (lines.length === 0) continue;
    const head = `  ${labelOf(row)}`;
    const indent = " ".repeat(HELP_COLUMN);
    if (head.length < HELP_COLUMN) out.push(head.padEnd(HELP_COLUMN) + lines[0]);
    else if (head.length + 1 + lines[0].length <= HELP_WIDTH) out.push(`${head} ${lines[0]}`);
    else out.push(head, indent + lines[0]);
    for (const line of lines.slice(1)) out.push(indent + line);
  }
  return out.join("\n");
}

/** How parseArgs reads a row's flag. */
export function flagSpecOf(row: Row<unknown>): FlagSpec {
  return {
    type: row.type.takes === "switch" ? "boolean" : "string",
    ...(row.short === undefined ? {} : { short: row.short }),
    ...(row.type.takes === "many" ? { multiple: true } : {}),
  };
}

/** The flags parseArgs knows, by their names without the dashes: a row's each, -h and -V. */
export const FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...Object.fromEntries(
    ROWS.flatMap((row) => row.flag === undefined ? [] : [[row.flag, flagSpecOf(row)]]),
  ),
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
};

/** Settings that are not the options' own: they make `oauth`. */
const OAUTH_KEYS = new Set(ROWS.filter((row) => row.group === "oauth").map((row) => row.key));

/**
 * Reads the command line; `env` reads the environment ($TOOLSHED_STATE_KEY, $OTEL_DENO, and
 * $TOOLSHED_HTTP_TOKEN only with --http): every row's value, then the rules between them.
 */
export function parseCommand(
  args: string[],
  env: (name: string) => string | undefined = () => undefined,
): Command {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args, options: FLAGS }));
  } catch (error) {
    return { kind: "usage-error", message: withSuggestion(messageOf(error)) };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const given: Record<string, unknown> = {};
  for (const row of ROWS) {
    let raw: readonly string[] | undefined;
    if (row.flag !== undefined) {
      const value = values[row.flag];
      raw = value === undefined ? undefined : typeof value === "boolean" ? [] : [value].flat();
    } else if (needsMet(row.needs, given as Settings)) {
      const value = env(row.env!);
      raw = value === undefined ? undefined : [value];
    }
    if (raw === undefined) continue;
    const parsed = row.type.parse(raw, row.flag === undefined ? row.env! : `--${row.flag}`);
    if ("problem" in parsed) {
      // A flag's mistake is a usage error; the environment's, a refusal to start.
      return { kind: row.flag === undefined ? "refused" : "usage-error", message: parsed.problem };
    }
    // A switch that is off (OTEL_DENO=false) is not given.
    if (parsed.value !== false) given[row.key] = parsed.value;
  }
  const settings = given as Settings;
  const refusal = brokenRule(settings, (flag) => {
    const value = values[flag];
    return typeof value === "string" ? value : undefined;
  });
  if (refusal !== undefined) return refusal;
  return { kind: "serve", options: optionsOf(settings) };
}

/** The options the settings make: the defaults, the settings, `oauth` made of its rows. */
function optionsOf(settings: Settings): Options {
  const options: Record<string, unknown> = {
    dir: settings.dir,
    tools: settings.tools,
    resources: settings.resources,
    prompts: settings.prompts,
    ...DEFAULTS,
  };
  for (const [key, value] of Object.entries(settings)) {
    if (!OAUTH_KEYS.has(key as SettingKey)) options[key] = value;
  }
  if (settings.issuer !== undefined) options.oauth = oauthOf(settings);
  return options as unknown as Options;
}

/** What the OAuth rows make (ServerConfig.oauth), given --auth-issuer. */
function oauthOf(settings: Settings): OAuthFlags {
  const { publicUrl, scopes, lists, introspectionClientId, introspectionClientSecret } = settings;
  return {
    issuer: settings.issuer!,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(lists === undefined ? {} : { lists }),
    ...(introspectionClientId === undefined ? {} : {
      introspection: { clientId: introspectionClientId, clientSecret: introspectionClientSecret! },
    }),
  };
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
