// The configuration createServer takes (adr/0061 §6): what to serve and how, apart from the
// composition root so that the files the root is split into take these types from here, not
// from the root (which re-exports them), and no import circle closes.
import type { Diagnostics } from "../util/diagnostics.ts";
import type { ReloadOutcome } from "../discovery/reload.ts";
import type { OtherPrimitives } from "../primitives/registry.ts";
import type { Tool } from "../primitives/tools.ts";
import type { Middleware } from "../primitives/types.ts";
import type { ServerMeta } from "../primitives/server_identity.ts";
import type { MethodTable } from "../methods/call.ts";
import type { OAuthHttpOptions } from "../transports/http/oauth.ts";
import type { MetricsAddress } from "./metrics_listener.ts";
import type { SettingValues, Slice } from "../settings/table.ts";

/**
 * The settings createServer does not take as their rows give them: the folders (a `file:` URL
 * too, below), the address to listen on (`http` says whether it is served over HTTP, below),
 * the metrics' (more below), the rows of a group (`oauth`, `stateKeys`, below) and what only
 * the process reads (main.ts).
 */
type NotConfigured =
  | "dir"
  | "tools"
  | "resources"
  | "prompts"
  | "http"
  | "metrics"
  | "issuer"
  | "scopes"
  | "lists"
  | "introspectionClientId"
  | "introspectionClientSecret"
  | "stateSecret"
  | "previousStateSecrets"
  | "verbose"
  | "logFormat"
  | "allowUnauthenticated";

/**
 * What to serve and how; every field is optional. The settings (lib/settings/table.ts, the flags
 * of `toolshed serve`, docs/operating/flags.md) are fields under their names, and the HTTP ones
 * are what `serveHttp` serves by unless told otherwise (`http`'s own fields, for `fetch`, go
 * over them).
 */
export interface ServerConfig extends Partial<Omit<SettingValues, NotConfigured>> {
  /**
   * The server directory holding `tools/`, `resources/` and `prompts/` (each optional), as
   * `--dir` takes it: a path or a `file:` URL. Default: the working directory.
   */
  readonly dir?: string | URL;
  /** A folder served instead of DIR/tools (alone, without `dir`, it is all that is served). */
  readonly tools?: string | URL;
  readonly resources?: string | URL;
  readonly prompts?: string | URL;
  /** Where a compiled binary embeds its folders: served when no `dir` is named. */
  readonly embedded?: URL;
  /**
   * Who the server is (name, version, …; adr/0049), as the directory's server.meta.json says
   * it; given here, the file is not read. Without either, serverInfo names toolshed.
   */
  readonly meta?: ServerMeta;
  /** Primitives already loaded, served instead of a directory (tests and benches). */
  readonly primitives?: Omit<OtherPrimitives, "middleware"> & { readonly tools?: readonly Tool[] };

  /** Leaves executable tools out, as a compiled binary must (it cannot run programs it embeds). */
  readonly skipExecutables?: boolean;

  /** Tell clients that lists may change (`listChanged`); default: when watching. */
  readonly listChanged?: boolean;
  /** How long a 2026-07-28 client may cache a list; default: 5 s when watching, else 5 min. */
  readonly listTtlMs?: number;
  /** Over stdio: serialized answers waiting for a slow reader, past which reading pauses. */
  readonly outputBoundChars?: number;
  /** Over stdio: bytes of requests waiting for a slot, past which reading pauses. */
  readonly waitingBoundBytes?: number;

  /**
   * The server is reached over HTTP, where instances behind a load balancer share state: ids of
   * sessions and tasks begin with this instance's name (`instanceName`, default random), and what
   * instances cannot share without Redis or a shared state key is said on the diagnostics. An
   * object also says how `fetch` serves (embedded in a server of one's own).
   */
  readonly http?: boolean | EmbeddedHttp;
  /**
   * Over HTTP, callers sign in with OAuth 2.1 access tokens from this authorization server:
   * toolshed is a resource server (adr/0038), and scopes on tools, resources and prompts are
   * enforced. Stdio is never asked for tokens.
   */
  readonly oauth?: OAuthConfig;
  /**
   * Count requests and serve Prometheus metrics at `http://HOSTNAME:PORT/metrics`, on a
   * listener of their own (`--metrics`; port 0 picks a free one). Unauthenticated: bind it
   * where only what scrapes it can reach. Without it nothing of metrics is loaded. The listener
   * has its own connection cap, an idle deadline and a Host guard (adr/0056).
   */
  readonly metrics?: MetricsAddress;
  /** Secrets that seal requestState, the current one first (TOOLSHED_STATE_KEY and previous). */
  readonly stateKeys?: readonly string[];
  /**
   * Middleware around every request's handler, the first outermost; the server directory's
   * `middleware/` runs inside these (adr/0025).
   */
  readonly middleware?: readonly Middleware[];
  /** Where the server's own troubles go (a tool's stack, a program's stderr). */
  readonly diagnostics?: Diagnostics;
  /** With `watch`: told of each reload's outcome, after the swap (`toolshed dev`'s page). */
  readonly onReload?: (outcome: ReloadOutcome) => void;
  /** The methods served (tests that add one); default: every method toolshed serves. */
  readonly methods?: MethodTable;
}

/** Toolshed as an OAuth 2.1 resource server (`--auth-issuer` and the flags beside it). */
export interface OAuthConfig extends OAuthHttpOptions {
  /**
   * Whether lists show what a caller's token does not grant ("all", the default, so that a
   * client can see a tool and step up for it) or hide it ("permitted", `--auth-lists`).
   */
  readonly lists?: "all" | "permitted";
}

/**
 * How `fetch` serves Streamable HTTP inside a server of one's own (Deno.serve, Hono): the
 * settings it reads (lib/settings/table.ts, as their flags say), each optional, and its path.
 */
export interface EmbeddedHttp extends Partial<Slice<"embedded-http">> {
  /** Where the MCP endpoint is (default /mcp); other paths answer 404, but /healthz, /readyz. */
  readonly path?: string;
  /** An event stream idle this long gets a `: keep-alive` comment (default 15 s). */
  readonly keepAliveMs?: number;
}
