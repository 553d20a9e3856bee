// The settings table (adr/0061 §1): one row per setting, the flag or the environment variable
// that gives it, its type, its default, its help as `toolshed --help` prints it and its cells in
// docs/operating/flags.md. From the rows come the parser (host/cli.ts), the help (usage()), the
// subcommands' directory flags (commands/open_server.ts) and flags.md's Flags table
// (_tools/flags_doc.ts); rules.ts holds the rules between settings. Each value's type is
// declared once, in SettingValues, which the rows are held to by the compiler and the
// configuration (ServerConfig) and the components' options (Slice) are made of: types read off
// the rows themselves would be JSR's slow types wherever mod.ts reaches them.
import {
  address,
  BODY_TIMEOUT_MS,
  bytes,
  count,
  countFromZero,
  directory,
  envNames,
  flag,
  hostNames,
  IDLE_TIMEOUT_MS,
  instanceName,
  type ListenAddress,
  lists,
  logFormat,
  MAX_CONNECTIONS,
  MAX_SESSIONS,
  MAX_UNSENT_BYTES,
  milliseconds,
  millisecondsOrNever,
  on,
  origins,
  rate,
  redisUrl,
  resultChars,
  scopes,
  stateKey,
  stateKeys,
  text,
  token,
  toolsets,
  url,
  type ValueType,
} from "./values.ts";

/** What reads a setting. */
type Component =
  | "serve"
  | "stdio"
  | "http"
  | "core"
  | "programs"
  | "discovery"
  | "metrics"
  | "oauth"
  | "redis"
  | "embedded-http";

/** One setting. */
export interface Row<T> {
  /** Its flag, without the dashes; absent: it comes from the environment only. */
  readonly flag?: string;
  /** A one-letter alias (`-v`). */
  readonly short?: string;
  /** The environment variable that gives it (read only where `needs` allows). */
  readonly env?: string;
  /** The name of its value in the help (`N`, `DIR`); absent for a switch. */
  readonly value?: string;
  readonly type: ValueType<T>;
  readonly default?: T;
  /** The components that read it. */
  readonly for: readonly Component[];
  /** The flags one of which must be given with it (an environment variable is ignored without). */
  readonly needs?: readonly string[];
  /** Rows of a group make one field of the configuration (`oauth`, `stateKeys`). */
  readonly group?: "oauth" | "stateKeys";
  /** The subcommands (list, call, check) take its flag too. */
  readonly commands?: true;
  /** Its help, as printed, line by line; `{default}` stands for the default. Empty: not shown. */
  readonly help: readonly string[];
  /** Its help in a subcommand's, where that reads otherwise. */
  readonly commandHelp?: readonly string[];
  /** What the help names it by, where that is not its flag or variable. */
  readonly label?: string;
  /** Its cells in docs/operating/flags.md (its flag's cell comes from the flag). */
  readonly doc?: { readonly default?: string; readonly meaning: string };
}

/**
 * A row, typed by its type; its readers, its group and whether it has a default stay in its type
 * (Settings, Slice and Defaults are made of them).
 */
function row<
  T,
  const F extends readonly Component[],
  const G extends Row<T>["group"] = undefined,
  const D extends T | undefined = undefined,
>(
  setting: Row<T> & { readonly for: F; readonly group?: G; readonly default?: D },
): Row<T> & { readonly for: F; readonly group: NoInfer<G>; readonly default: NoInfer<D> } {
  return setting as Row<T> & { readonly for: F; readonly group: G; readonly default: D };
}

/** The environment variable that turns Deno's OpenTelemetry on, read as the process starts. */
const OTEL_ENV = "OTEL_DENO";
/** The environment variable holding the bearer token HTTP requests must carry. */
export const TOKEN_ENV = "TOOLSHED_HTTP_TOKEN";
/** Client credentials for RFC 7662 introspection of opaque tokens (both or neither). */
export const INTROSPECTION_ID_ENV = "TOOLSHED_INTROSPECTION_CLIENT_ID";
export const INTROSPECTION_SECRET_ENV = "TOOLSHED_INTROSPECTION_CLIENT_SECRET";
/** The environment variable holding the secret that seals `requestState` (all instances). */
export const STATE_KEY_ENV = "TOOLSHED_STATE_KEY";
/** Keys of a rotation that still open state they sealed, separated by commas. */
export const PREVIOUS_STATE_KEYS_ENV = "TOOLSHED_STATE_KEY_PREVIOUS";

/**
 * Every setting's value, declared once: its type, and whether it is there once the defaults are
 * applied (a row with a default, or --max-body-bytes's, is never absent). A row is this type's,
 * under its key (TABLE); the configuration (ServerConfig) and the components' options (Slice)
 * are made of it, so that a setting's field is written nowhere else.
 */
export interface SettingValues {
  /**
   * The server directory holding `tools/`, `resources/` and `prompts/` (each optional), as
   * `--dir` takes it. Default: the working directory.
   */
  readonly dir?: string;
  /** A folder served instead of DIR/tools (alone, without `dir`, it is all that is served). */
  readonly tools?: string;
  readonly resources?: string;
  readonly prompts?: string;
  /** Longest accepted input line (over stdio) or request body (over HTTP), in bytes. */
  readonly maxMessageBytes: number;
  readonly pageSize: number;
  readonly toolTimeoutMs: number;
  /**
   * How long a call of a tool that may run as a task runs inline for a client without the
   * tasks extension before it becomes a job (adr/0070); 0: never a job.
   */
  readonly jobAfterMs: number;
  /** The longest one call of the job tool waits for its job to end (adr/0070). */
  readonly jobWaitMs: number;
  readonly shutdownGraceMs: number;
  readonly maxConcurrency: number;
  readonly maxOutputBytes: number;
  readonly maxResourceBytes: number;
  readonly maxPrograms: number;
  /** As `--pass-env`: environment variables executable tools receive. */
  readonly passEnv: readonly string[];
  readonly allowOutsideSymlinks: boolean;
  /**
   * Serve only these toolsets (`tools/<set>/` folders) and the top-level tools (`--toolsets`,
   * adr/0045); a connection over HTTP may narrow it further. Default: every set.
   */
  readonly toolsets?: readonly string[];
  /** Serve only tools marked `annotations.readOnlyHint: true` (`--read-only`, adr/0045). */
  readonly readOnly?: boolean;
  /**
   * Serve code mode (adr/0073, `--code-mode`): stdio's tools are its three, and over HTTP
   * `/mcp/code` and `/mcp/<set>/code` serve them beside the catalog.
   */
  readonly codeMode?: boolean;
  /** Code may call destructive tools that opt in with `code: true` (`--code-destructive`). */
  readonly codeDestructive?: boolean;
  /** How long one run of code may take, then its process is killed (`--code-timeout`). */
  readonly codeTimeoutMs: number;
  /** The V8 heap of one run's process, in MiB (`--code-heap-mb`). */
  readonly codeHeapMb: number;
  /** Tool calls one run of code may make (`--code-max-calls`). */
  readonly codeMaxCalls: number;
  /** Processes started ahead of runs (`--code-pool`); 0: each run starts its own. */
  readonly codePool: number;
  /** The most characters of text one run's result carries to a host (`--code-result-chars`). */
  readonly codeResultChars: number;
  /** Watch the server directory and reload what changes (`--watch`). */
  readonly watch?: boolean;
  /** `--http`: the address to serve Streamable HTTP on. */
  readonly http?: ListenAddress;
  /**
   * Host names requests may carry in Host and Origin besides localhost, 127.0.0.1 and [::1]
   * (the DNS-rebinding guard): the names the server is reached by (--allow-host).
   */
  readonly allowedHosts: readonly string[];
  /**
   * Origins (`https://app.example`) whose pages may call the server from a browser, or `*` for
   * any (CORS, --cors-origin; adr/0039); an origin listed here passes the guard too.
   */
  readonly corsOrigins?: readonly string[];
  readonly allowUnauthenticated?: boolean;
  readonly issuer?: string;
  /**
   * The endpoint's URL as clients reach it (`https://mcp.example.com/mcp`, --public-url), which
   * the server card names (adr/0050); default: `oauth.publicUrl`, else the URL each request was
   * sent to.
   */
  readonly publicUrl?: string;
  readonly scopes?: readonly string[];
  readonly lists?: "all" | "permitted";
  /** One line per request on the diagnostics (--log-requests). */
  readonly logRequests?: boolean;
  readonly logFormat: "text" | "json";
  /** Connections open at once; one more gets 503 (--max-connections). */
  readonly maxConnections: number;
  /** A connection with no request in progress this long is closed (--idle-timeout). */
  readonly idleTimeoutMs: number;
  /** How long a request body may take to arrive after its headers (--body-timeout). */
  readonly bodyTimeoutMs: number;
  /**
   * Request bytes all requests together may hold, from their first byte to their answer
   * (--max-body-bytes; default: twice `maxMessageBytes`); past it a request gets 503.
   */
  readonly maxBodyBytes: number;
  /**
   * Answer bytes waiting for clients, all together, past which the stalest go
   * (--max-unsent-bytes).
   */
  readonly maxUnsentBytes: number;
  /** Live 2025-era sessions past which the least recently used idle one ends (--max-sessions). */
  readonly maxSessions: number;
  /**
   * This instance's name, which begins every session id it makes (--instance; default random):
   * behind a load balancer, a session id says which instance it lives on.
   */
  readonly instanceName?: string;
  /** `--metrics`: the address to serve Prometheus metrics on. */
  readonly metrics?: ListenAddress;
  /** Keep tasks, and the keys of requestState unless `stateKeys` are given, in Redis. */
  readonly redis?: string;
  /**
   * Every caller's rate limit across its requests (`--rate-limit`): `"60/min"`, `"5/s"`,
   * `"1000/h"`, `"60/min burst 10"`; shared through Redis with `redis` (adr/0043). Tools with a
   * `rateLimit` of their own are limited per caller whether or not this is set.
   */
  readonly rateLimit?: string;
  readonly verbose?: boolean;
  /** Every request must carry `Authorization: Bearer <token>` (TOOLSHED_HTTP_TOKEN). */
  readonly bearerToken?: string;
  readonly introspectionClientId?: string;
  readonly introspectionClientSecret?: string;
  readonly stateSecret?: string;
  readonly previousStateSecrets?: readonly string[];
  /**
   * Traces and metrics through Deno's OpenTelemetry (adr/0041), which must be on in this
   * process (OTEL_DENO=true when it started; main.ts sets this from it). Off (the default),
   * nothing of it is loaded or composed in.
   */
  readonly telemetry?: boolean;
}

/** A setting's name. */
export type SettingKey = keyof SettingValues;

/**
 * The settings the components that take a slice read, each a key of SettingValues: a row's
 * `for` names the same (tests/settings_test.ts holds the two to each other).
 */
export interface Readers {
  readonly http:
    | "maxMessageBytes"
    | "allowedHosts"
    | "corsOrigins"
    | "publicUrl"
    | "logRequests"
    | "maxConnections"
    | "idleTimeoutMs"
    | "bodyTimeoutMs"
    | "maxBodyBytes"
    | "maxUnsentBytes"
    | "maxSessions"
    | "instanceName"
    | "bearerToken";
  /** What `fetch` serves by, embedded in a server of one's own (ServerConfig.http's object). */
  readonly "embedded-http":
    | "allowedHosts"
    | "corsOrigins"
    | "publicUrl"
    | "logRequests"
    | "bodyTimeoutMs"
    | "maxBodyBytes"
    | "maxUnsentBytes"
    | "maxSessions"
    | "bearerToken";
  readonly metrics: "allowedHosts" | "idleTimeoutMs" | "metrics";
}

/** The rows of a group, which make one field of the configuration: `oauth`, `stateKeys`. */
type GroupOf<K extends SettingKey> = K extends
  | "issuer"
  | "publicUrl"
  | "scopes"
  | "lists"
  | "introspectionClientId"
  | "introspectionClientSecret" ? (K extends "publicUrl" ? undefined : "oauth")
  : K extends "stateSecret" | "previousStateSecrets" ? "stateKeys"
  : undefined;

/** The settings there once the defaults are applied (a row's default, or another setting's). */
type DefaultedKey = {
  [K in SettingKey]-?: Record<never, never> extends Pick<SettingValues, K> ? never : K;
}[SettingKey];

/** A setting's row: of its value's type, in its group, with a default if it is never absent. */
type RowOf<K extends SettingKey> =
  & Row<NonNullable<SettingValues[K]>>
  & (GroupOf<K> extends string ? { readonly group: GroupOf<K> } : { readonly group?: undefined })
  & (K extends Exclude<DefaultedKey, "maxBodyBytes">
    ? { readonly default: NonNullable<SettingValues[K]> }
    : unknown);

/**
 * Every setting, in the help's order: flags, then what only the environment gives; a row for
 * each key of SettingValues, of its type.
 */
export const TABLE = {
  dir: row({
    flag: "dir",
    value: "DIR",
    type: directory,
    for: ["serve", "discovery"],
    commands: true,
    help: [
      "The server directory, holding tools/, resources/ and",
      "prompts/, each optional (default: the working directory;",
      "in a compiled binary, the folders embedded at compile time)",
    ],
    commandHelp: ["The server directory (default: the working directory)"],
    doc: {
      default: "the working directory (a compiled binary: its embedded folders)",
      meaning:
        "the server directory: serves `DIR/tools`, `DIR/resources` and `DIR/prompts`, each optional (none of them: exit 1)",
    },
  }),
  tools: row({
    flag: "tools",
    value: "DIR",
    type: directory,
    for: ["serve", "discovery"],
    commands: true,
    help: [
      "The tools folder, instead of DIR/tools",
    ],
    doc: {
      default: "`DIR/tools`",
      meaning: "the tools folder; without `--dir`, only what is named alone is served",
    },
  }),
  resources: row({
    flag: "resources",
    value: "DIR",
    type: directory,
    for: ["serve", "discovery"],
    commands: true,
    help: [
      "The resources folder, instead of DIR/resources",
    ],
    doc: { default: "`DIR/resources`", meaning: "the resources folder (must exist when named)" },
  }),
  prompts: row({
    flag: "prompts",
    value: "DIR",
    type: directory,
    for: ["serve", "discovery"],
    commands: true,
    help: [
      "The prompts folder, instead of DIR/prompts",
    ],
    doc: { default: "`DIR/prompts`", meaning: "the prompts folder (must exist when named)" },
  }),
  maxMessageBytes: row({
    flag: "max-message-bytes",
    value: "N",
    type: bytes,
    default: 4 * 1024 * 1024,
    for: ["stdio", "http"],
    help: [
      "Longest accepted input line (with --http: request body), in",
      "bytes (default: {default})",
    ],
    doc: {
      default: "4194304 (4 MiB)",
      meaning:
        "longest input line (a longer one gets `-32600`, skipped to its newline) or HTTP body (413)",
    },
  }),
  pageSize: row({
    flag: "page-size",
    value: "N",
    type: count,
    default: 100,
    for: ["core"],
    help: [
      "Items per page of tools/list, resources/list,",
      "resources/templates/list and prompts/list (default: {default})",
    ],
    doc: {
      default: "100",
      meaning:
        "items per page of `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`",
    },
  }),
  toolTimeoutMs: row({
    flag: "tool-timeout",
    value: "MS",
    type: milliseconds,
    default: 60_000,
    for: ["core"],
    help: [
      "Time a tool call (a resource read, a prompt, a completion)",
      "may run unless it sets timeoutMs (default: {default})",
    ],
    doc: {
      default: "60000",
      meaning:
        "how long a call (a read, a prompt, a completion) may run unless it sets `timeoutMs`",
    },
  }),
  jobAfterMs: row({
    flag: "job-after",
    value: "MS",
    type: millisecondsOrNever,
    default: 25_000,
    for: ["core"],
    help: [
      "A call of a tool that may run as a task, from a client",
      "without tasks, answers with a job to follow after this",
      "long (default: {default}; 0: never)",
    ],
    doc: {
      default: "25000",
      meaning:
        "a call of a tool with `task` set, from a client that does not declare the tasks extension, runs inline this long, then answers with a job the client follows with the tool `toolshed_job` ([Tasks](../authoring/tasks.md#clients-without-tasks-jobs)); `0` keeps every such call inline",
    },
  }),
  jobWaitMs: row({
    flag: "job-wait",
    value: "MS",
    type: milliseconds,
    default: 45_000,
    for: ["core"],
    help: [
      "The longest one call of toolshed_job waits for its job",
      "to end (default: {default})",
    ],
    doc: {
      default: "45000",
      meaning:
        "how long one call of `toolshed_job` waits for its job to end before it answers with the job's status, under every host's cap on one call",
    },
  }),
  shutdownGraceMs: row({
    flag: "shutdown-grace",
    value: "MS",
    type: milliseconds,
    default: 5_000,
    for: ["serve"],
    help: [
      "Time in-flight requests may finish after input ends or on",
      "SIGTERM/SIGINT (default: {default})",
    ],
    doc: {
      default: "5000",
      meaning: "how long in-flight calls may finish after end of input or SIGTERM/SIGINT",
    },
  }),
  maxConcurrency: row({
    flag: "max-concurrency",
    value: "N",
    type: count,
    default: 64,
    for: ["core"],
    help: [
      "Requests that may run at once; more wait their turn",
      "(default: {default})",
    ],
    doc: { default: "64", meaning: "requests that may run at once; more wait their turn" },
  }),
  maxOutputBytes: row({
    flag: "max-output-bytes",
    value: "N",
    type: bytes,
    default: 16 * 1024 * 1024,
    for: ["programs"],
    help: [
      "Most bytes an executable tool may print on stdout in one",
      "call, or an API's answer may hold (default: {default})",
    ],
    doc: {
      default: "16777216 (16 MiB)",
      meaning:
        "most an executable tool may print on stdout in one call, or one answer of an OpenAPI operation may hold",
    },
  }),
  maxResourceBytes: row({
    flag: "max-resource-bytes",
    value: "N",
    type: bytes,
    default: 8 * 1024 * 1024,
    for: ["core"],
    help: [
      "Largest contents one resources/read may return, in bytes",
      "(default: {default})",
    ],
    doc: {
      default: "8388608 (8 MiB)",
      meaning: "largest contents one `resources/read` may return",
    },
  }),
  maxPrograms: row({
    flag: "max-programs",
    value: "N",
    type: count,
    default: 64,
    for: ["programs"],
    help: [
      "Executable-tool programs alive at once (running, or stopping",
      "after a cancel or timeout); more calls wait their turn",
      "(default: {default})",
    ],
    doc: {
      default: "64",
      meaning:
        "executable-tool programs alive at once, running or still stopping; more calls wait their turn",
    },
  }),
  passEnv: row({
    flag: "pass-env",
    value: "NAME",
    type: envNames,
    default: [],
    for: ["programs"],
    commands: true,
    help: [
      "Pass this environment variable on to executable tools",
      "(repeatable; PATH, HOME, LANG, LC_ALL, TZ, TMPDIR always are)",
    ],
    commandHelp: ["Pass this environment variable on to executable tools", "(repeatable)"],
    doc: {
      default: "",
      meaning: "pass this environment variable on to executable tools (repeatable)",
    },
  }),
  allowOutsideSymlinks: row({
    flag: "allow-outside-symlinks",
    type: flag,
    default: false,
    for: ["discovery"],
    commands: true,
    help: [
      "Serve executables and sidecars that are symlinks to files",
      "outside the tools directory",
    ],
    commandHelp: ["Load files that are symlinks to outside their folder"],
    doc: {
      default: "",
      meaning:
        "serve executables and sidecars that are symlinks to files outside the tools directory",
    },
  }),
  toolsets: row({
    flag: "toolsets",
    value: "SET,SET",
    type: toolsets,
    for: ["core"],
    help: [
      "Serve only these toolsets (folders of tools/) and the",
      "top-level tools; over HTTP a client may narrow it with",
      "/mcp/SET or the Mcp-Toolsets header (default: every set;",
      "docs/authoring/tools.md#toolsets)",
    ],
    doc: {
      default: "every set",
      meaning:
        "serve only these toolsets (folders of `tools/`) and the top-level tools; over HTTP a client narrows it by path or header ([Toolsets](../authoring/tools.md#toolsets))",
    },
  }),
  readOnly: row({
    flag: "read-only",
    type: flag,
    for: ["core"],
    help: [
      "Serve only tools marked readOnlyHint: true",
    ],
    doc: { default: "", meaning: "serve only tools with `annotations.readOnlyHint: true`" },
  }),
  codeMode: row({
    flag: "code-mode",
    type: flag,
    for: ["core"],
    help: [
      "Serve code mode: over stdio three tools (search, describe,",
      "run code) instead of the catalog; over HTTP also at",
      "/mcp/code and /mcp/SET/code (docs/authoring/code-mode.md)",
    ],
    doc: {
      default: "",
      meaning:
        "serve code mode: a model searches the tools, reads them as TypeScript and runs code that calls them, in a process with no permissions ([Code mode](../authoring/code-mode.md))",
    },
  }),
  codeDestructive: row({
    flag: "code-destructive",
    type: flag,
    for: ["core"],
    help: [
      "Code may call destructive tools that opt in with code: true",
    ],
    doc: {
      default: "",
      meaning: "code may call destructive tools that opt in with `code: true`",
    },
  }),
  codeTimeoutMs: row({
    flag: "code-timeout",
    value: "MS",
    type: milliseconds,
    default: 30_000,
    for: ["core"],
    help: ["Time one run of code may take (default: {default})"],
    doc: {
      default: "30000",
      meaning: "how long one run of code may take; then its process is killed",
    },
  }),
  codeHeapMb: row({
    flag: "code-heap-mb",
    value: "N",
    type: count,
    default: 64,
    for: ["core"],
    help: ["The heap of one run's process, in MiB (default: {default})"],
    doc: { default: "64", meaning: "the V8 heap of one run's process, in MiB" },
  }),
  codeMaxCalls: row({
    flag: "code-max-calls",
    value: "N",
    type: count,
    default: 100,
    for: ["core"],
    help: ["Tool calls one run of code may make (default: {default})"],
    doc: { default: "100", meaning: "tool calls one run of code may make; the next one fails" },
  }),
  codePool: row({
    flag: "code-pool",
    value: "N",
    type: countFromZero,
    default: 2,
    for: ["core"],
    help: [
      "Processes for code started ahead of runs, each used once",
      "(default: {default}; 0: each run starts its own)",
    ],
    doc: {
      default: "2",
      meaning:
        "processes started ahead of runs of code, each used once; 0: each run starts its own",
    },
  }),
  codeResultChars: row({
    flag: "code-result-chars",
    value: "N",
    type: resultChars,
    default: 40_000,
    for: ["core"],
    help: [
      "Characters of text one run's result carries, then cut",
      "saying so (default: {default}, Gemini CLI's cut)",
    ],
    doc: {
      default: "40000",
      meaning:
        "the most characters of text one run's result carries to a host; past it the text is cut, saying so (Gemini CLI 0.61 cuts at 40,000)",
    },
  }),
  watch: row({
    flag: "watch",
    type: flag,
    for: ["discovery"],
    help: [
      "Watch the server directory: reload what changes and tell",
      "connected clients (deno task start turns it on)",
    ],
    doc: {
      default: "",
      meaning:
        "reload the server directory when it changes ([Hot reload](../authoring/hot-reload.md))",
    },
  }),
  http: row({
    flag: "http",
    value: "ADDRESS",
    type: address,
    for: ["serve"],
    help: [
      "Serve Streamable HTTP (protocol version 2026-07-28) on",
      "http://ADDRESS/mcp instead of stdio. ADDRESS is HOST:PORT,",
      "[IPV6]:PORT, :PORT or PORT (host 127.0.0.1); port 0 picks",
      "a free one",
    ],
    doc: {
      default: "stdio",
      meaning: "serve Streamable HTTP on `http://ADDRESS/mcp` instead ([forms](http.md))",
    },
  }),
  allowedHosts: row({
    flag: "allow-host",
    value: "NAME",
    type: hostNames,
    default: [],
    for: ["http", "metrics", "embedded-http"],
    needs: ["http", "metrics"],
    help: [
      "With --http or --metrics: a host name requests may carry in",
      "Host and Origin besides localhost, 127.0.0.1 and [::1]",
      "(repeatable)",
    ],
    doc: {
      default: "",
      meaning:
        "with `--http` or `--metrics`: a name Host and Origin may carry besides the loopback ones (repeatable)",
    },
  }),
  corsOrigins: row({
    flag: "cors-origin",
    value: "ORIGIN",
    type: origins,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: pages of ORIGIN (scheme://host[:port]) may call",
      "the server from a browser (CORS), and pass the Origin check;",
      `* lets any page, and needs ${TOKEN_ENV} (repeatable)`,
    ],
    doc: {
      default: "",
      meaning:
        "with `--http`: pages of ORIGIN (`scheme://host[:port]`) may call from a browser (CORS), `*` any page, with a token only ([CORS](http.md))",
    },
  }),
  allowUnauthenticated: row({
    flag: "allow-unauthenticated",
    type: flag,
    for: ["serve"],
    needs: ["http"],
    help: [
      "With --http: serve an address that is not loopback although",
      `${TOKEN_ENV} is not set (behind an authenticating proxy)`,
    ],
    doc: {
      default: "",
      meaning:
        "with `--http`: bind a non-loopback address although `TOOLSHED_HTTP_TOKEN` is not set",
    },
  }),
  issuer: row({
    flag: "auth-issuer",
    value: "URL",
    type: url,
    for: ["oauth"],
    group: "oauth",
    help: [
      "With --http: callers sign in with OAuth; access tokens come",
      "from this authorization server (its issuer URL), are checked",
      "for this server as their audience, and scopes on tools,",
      "resources and prompts are enforced (docs/operating/oauth.md)",
    ],
    doc: {
      default: "",
      meaning:
        "with `--http`: callers sign in with OAuth; access tokens from this authorization server are checked, and scopes enforced ([OAuth](oauth.md))",
    },
  }),
  publicUrl: row({
    flag: "public-url",
    value: "URL",
    type: url,
    for: ["http", "oauth", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: the endpoint's URL as clients reach it",
      "(https://mcp.example.com/mcp), which OAuth tokens and the",
      "server card name; default: the address served (OAuth), the",
      "URL each request was sent to (the card)",
    ],
    doc: {
      default: "the address served",
      meaning:
        "with `--http`: the endpoint's URL as clients reach it (`https://mcp.example.com/mcp`): OAuth tokens' audience (required with `--auth-issuer` on a wildcard address) and the [server card](server-card.md)'s remote",
    },
  }),
  scopes: row({
    flag: "auth-scope",
    value: "SCOPE",
    type: scopes,
    for: ["oauth"],
    group: "oauth",
    needs: ["auth-issuer"],
    help: [
      "With --auth-issuer: a scope every request needs (repeatable)",
    ],
    doc: {
      default: "",
      meaning:
        "with `--auth-issuer`: a scope every request needs, named in every challenge (repeatable)",
    },
  }),
  lists: row({
    flag: "auth-lists",
    value: "all|permitted",
    type: lists,
    default: "all",
    for: ["oauth"],
    group: "oauth",
    needs: ["auth-issuer"],
    help: [
      "With --auth-issuer: whether lists show a caller what its",
      "token does not grant (default: all, so it can step up)",
    ],
    doc: {
      default: "all",
      meaning: "with `--auth-issuer`: whether lists show a caller what its token does not grant",
    },
  }),
  logRequests: row({
    flag: "log-requests",
    type: flag,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: one line per request on stderr (method, path,",
      "status, JSON-RPC method, duration)",
    ],
    doc: {
      default: "",
      meaning:
        "with `--http`: one line per request on stderr (method, path, status, JSON-RPC method, ms)",
    },
  }),
  logFormat: row({
    flag: "log-format",
    value: "text|json",
    type: logFormat,
    default: "text",
    for: ["serve"],
    help: [
      "How stderr's lines are written: for people (text, the",
      "default), or one JSON object each (time, level, message,",
      "and the request's method, tool, subject, trace, duration)",
    ],
    doc: {
      default: "text",
      meaning:
        "how stderr's lines are written: for people, or one JSON object each, start-up mistakes included ([Logs](logs.md))",
    },
  }),
  maxConnections: row({
    flag: "max-connections",
    value: "N",
    type: count,
    default: MAX_CONNECTIONS,
    for: ["http"],
    needs: ["http"],
    help: [
      "With --http: connections open at once; one more gets 503",
      "and is closed (default: {default}, at most half the",
      "open-file limit)",
    ],
    doc: {
      default: "1000, at most half the open-file limit",
      meaning:
        "with `--http`: connections open at once; one more gets 503 and is closed ([limits](limits.md))",
    },
  }),
  idleTimeoutMs: row({
    flag: "idle-timeout",
    value: "MS",
    type: milliseconds,
    default: IDLE_TIMEOUT_MS,
    for: ["http", "metrics"],
    needs: ["http", "metrics"],
    help: [
      "With --http or --metrics: a connection with no request in",
      "progress (silent, or still sending its headers) closes after",
      "this long (default: {default})",
    ],
    doc: {
      default: "30000",
      meaning:
        "with `--http` or `--metrics`: a connection with no request in progress (silent, or still sending headers) is closed after this long",
    },
  }),
  bodyTimeoutMs: row({
    flag: "body-timeout",
    value: "MS",
    type: milliseconds,
    default: BODY_TIMEOUT_MS,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: a request body not arrived this long after its",
      "headers gets 408, or over 64 KiB, its connection closed",
      "(default: {default})",
    ],
    doc: {
      default: "30000",
      meaning: "with `--http`: a request body not arrived this long after its headers gets 408",
    },
  }),
  maxBodyBytes: row({
    flag: "max-body-bytes",
    value: "N",
    type: bytes,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: request bytes all requests together may hold,",
      "from their first byte to their answer; past it a request",
      "gets 503 (default: twice --max-message-bytes)",
    ],
    doc: {
      default: "twice `--max-message-bytes`",
      meaning:
        "with `--http`: request bytes all requests together may hold, from their first byte to their answer (past it: 503)",
    },
  }),
  maxUnsentBytes: row({
    flag: "max-unsent-bytes",
    value: "N",
    type: bytes,
    default: MAX_UNSENT_BYTES,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: answer bytes waiting for clients that do not",
      "read, all together; past it the stalest answers are dropped",
      "and their connections closed (default: {default})",
    ],
    doc: {
      default: "67108864 (64 MiB)",
      meaning:
        "with `--http`: answer bytes waiting for clients that do not read; past it the stalest are dropped with their connections",
    },
  }),
  maxSessions: row({
    flag: "max-sessions",
    value: "N",
    type: count,
    default: MAX_SESSIONS,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: live 2025-era sessions; past it the least",
      "recently used idle one is ended (default: {default})",
    ],
    doc: {
      default: "10000",
      meaning:
        "with `--http`: live 2025-era sessions; past it the least recently used idle one is ended",
    },
  }),
  instanceName: row({
    flag: "instance",
    value: "NAME",
    type: instanceName,
    for: ["http"],
    needs: ["http"],
    help: [
      "With --http: the name this instance's session ids begin",
      "with, for routing sessions by prefix (default: random)",
    ],
    doc: {
      default: "random",
      meaning:
        "with `--http`: the name this instance's session ids begin with (`NAME.<uuid>`), for routing 2025-era sessions ([Scaling out](scaling.md))",
    },
  }),
  metrics: row({
    flag: "metrics",
    value: "ADDRESS",
    type: address,
    for: ["metrics"],
    help: [
      "Count requests and serve Prometheus metrics on",
      "http://ADDRESS/metrics, a listener of their own (stdio or",
      "HTTP); ADDRESS as --http's (host 127.0.0.1). Unauthenticated:",
      "bind it where only your Prometheus reaches",
    ],
    doc: {
      default: "",
      meaning:
        "count requests and serve Prometheus metrics on `http://ADDRESS/metrics`, a listener of its own, stdio or HTTP; unauthenticated ([Metrics](metrics.md))",
    },
  }),
  redis: row({
    flag: "redis",
    value: "URL",
    type: redisUrl,
    for: ["redis"],
    help: [
      "Keep tasks in Redis (redis://HOST:PORT) and pass task",
      "answers and cancellations between instances through it, so",
      "that any instance behind a load balancer serves any task",
    ],
    doc: {
      default: "",
      meaning:
        "keep tasks in Redis and pass task answers and cancellations between instances through it ([Scaling out](scaling.md#tasks-on-several-instances))",
    },
  }),
  rateLimit: row({
    flag: "rate-limit",
    value: "RATE",
    type: rate,
    for: ["core", "redis"],
    help: [
      "Every caller's limit across its requests (all but ping):",
      '"60/min", "5/s", "1000/h", "60/min burst 10"; over it a',
      "request is refused (HTTP 429 with Retry-After). The caller",
      "is the OAuth subject, else the 2025-era session, else the",
      "client address; shared through --redis when it is given",
      "(docs/operating/rate-limits.md)",
    ],
    doc: {
      default: "",
      meaning:
        "every caller's limit across its requests (all but `ping`): `60/min`, `5/s`, `1000/h`, `60/min burst 10`; over it a request gets `-32031` (HTTP 429 with `Retry-After`); shared through `--redis` ([Rate limits](rate-limits.md))",
    },
  }),
  verbose: row({
    flag: "verbose",
    short: "v",
    type: flag,
    for: ["serve"],
    help: [
      "Diagnostics with stacks: a tool that throws is one line on",
      "stderr per call without it",
    ],
    doc: {
      default: "",
      meaning:
        "diagnostics with stacks; without it, a tool that throws is one line on stderr per call",
    },
  }),
  bearerToken: row({
    env: TOKEN_ENV,
    type: token,
    for: ["http", "embedded-http"],
    needs: ["http"],
    help: [
      "With --http: the bearer token every request must carry",
    ],
    doc: {
      meaning:
        "with `--http`: the bearer token requests must carry ([Serving over HTTP](http.md)); an empty or malformed one exits 2",
    },
  }),
  introspectionClientId: row({
    env: INTROSPECTION_ID_ENV,
    type: text,
    for: ["oauth"],
    needs: ["auth-issuer"],
    group: "oauth",
    label: `${INTROSPECTION_ID_ENV}, ${INTROSPECTION_SECRET_ENV}`,
    help: [
      "With --auth-issuer: the client that introspects opaque",
      "(non-JWT) access tokens at the issuer (RFC 7662)",
    ],
    doc: {
      meaning:
        "with `--auth-issuer`: the client that introspects opaque (non-JWT) access tokens at the issuer (RFC 7662); both or neither ([OAuth](oauth.md))",
    },
  }),
  introspectionClientSecret: row({
    env: INTROSPECTION_SECRET_ENV,
    type: text,
    for: ["oauth"],
    needs: ["auth-issuer"],
    group: "oauth",
    help: [],
  }),
  stateSecret: row({
    env: STATE_KEY_ENV,
    type: stateKey,
    for: ["core"],
    group: "stateKeys",
    help: [
      "The secret (32 characters or more) that seals the",
      "requestState of input_required answers; the same on every",
      "instance (default: with --redis a key shared through it,",
      "else a random key per process)",
    ],
    doc: {
      meaning:
        "the secret that seals the `requestState` of `input_required` answers, 32 characters or more, else exit 2 ([Asking the user or the model](../authoring/asking.md#the-sealed-state))",
    },
  }),
  previousStateSecrets: row({
    env: PREVIOUS_STATE_KEYS_ENV,
    type: stateKeys,
    for: ["core"],
    group: "stateKeys",
    help: [
      "Keys that sealed state before a rotation, separated",
      "by commas: they still open it (for its 15 minutes)",
    ],
    doc: {
      meaning: "keys of a rotation that still open it, comma-separated, each 32 characters or more",
    },
  }),
  telemetry: row({
    env: OTEL_ENV,
    type: on,
    for: ["serve"],
    help: [],
  }),
} satisfies { readonly [K in SettingKey]: RowOf<K> };

/** The rows, with their names. */
export const ROWS: readonly (Row<unknown> & { readonly key: SettingKey })[] = Object.entries(TABLE)
  .map(([key, setting]) => ({ ...setting as Row<unknown>, key: key as SettingKey }));

/** Every row's value as given: each one optional, typed by its row's type. */
export type Given = { readonly [K in SettingKey]?: NonNullable<SettingValues[K]> };

/** The rows of a group. */
type GroupKey = { [K in SettingKey]: GroupOf<K> extends string ? K : never }[SettingKey];

/** What the OAuth rows make (`ServerConfig.oauth`), given --auth-issuer. */
export interface OAuthFlags {
  readonly issuer: string;
  readonly publicUrl?: string;
  readonly scopes?: readonly string[];
  readonly lists?: "all" | "permitted";
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
}

/**
 * The settings as given: every row's value, each optional, but that the rows of a group make one
 * field, under the configuration's name: `oauth` (the OAuth rows) and `stateKeys` (the state
 * key, then the previous ones).
 */
export type Settings = Omit<Given, GroupKey> & {
  readonly oauth?: OAuthFlags;
  readonly stateKeys?: readonly string[];
};

/** Every default: each row's, and --max-body-bytes's (twice --max-message-bytes). */
export type Defaults = Pick<SettingValues, DefaultedKey>;

/**
 * The settings component C reads (`Slice<"http">`), the defaults applied: what it is handed by
 * createServer (resolveSettings), or by a test that makes its own with resolveSettings.
 */
export type Slice<C extends keyof Readers> = Pick<SettingValues, Readers[C]>;

/** What of `settings` component C reads: its slice, and nothing else. */
export function sliceOf<C extends keyof Readers>(settings: Slice<C>, component: C): Slice<C> {
  const slice: Record<string, unknown> = {};
  for (const row of ROWS) {
    if (row.group !== undefined || !row.for.includes(component)) continue;
    const value = (settings as Record<string, unknown>)[row.key];
    if (value !== undefined) slice[row.key] = value;
  }
  return slice as Slice<C>;
}
