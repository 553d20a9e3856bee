// The configuration createServer takes (adr/0061 §6): what to serve and how, apart from the
// composition root so that the files the root is split into take these types from here, not
// from the root (which re-exports them), and no import circle closes.
import type { Diagnostics } from "../util/diagnostics.ts";
import type { OtherPrimitives } from "../primitives/registry.ts";
import type { Tool } from "../primitives/tools.ts";
import type { Middleware } from "../primitives/types.ts";
import type { ServerMeta } from "../primitives/server_identity.ts";
import type { MethodTable } from "../methods/call.ts";
import type { OAuthHttpOptions } from "../transports/http/oauth.ts";
import type { MetricsAddress } from "./metrics_listener.ts";

/** What to serve and how; every field is optional. */
export interface ServerConfig {
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

  /** As `--pass-env`: environment variables executable tools receive. */
  readonly passEnv?: readonly string[];
  readonly maxOutputBytes?: number;
  readonly maxPrograms?: number;
  readonly maxResourceBytes?: number;
  readonly allowOutsideSymlinks?: boolean;
  /** Leaves executable tools out, as a compiled binary must (it cannot run programs it embeds). */
  readonly skipExecutables?: boolean;

  readonly pageSize?: number;
  readonly toolTimeoutMs?: number;
  readonly maxMessageBytes?: number;
  readonly maxConcurrency?: number;
  readonly shutdownGraceMs?: number;
  /** Watch the server directory and reload what changes (`--watch`). */
  readonly watch?: boolean;
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
  readonly instanceName?: string;
  // What `serveHttp` serves by unless it is told otherwise, as the flags of `toolshed serve
  // --http` say it (docs/operating/flags.md); `http`'s own fields, for `fetch`, go over them.
  // tests/settings_test.ts holds these fields to the settings table's rows.
  /** Host names requests may carry in Host and Origin besides the loopback ones (--allow-host). */
  readonly allowedHosts?: readonly string[];
  /** Origins whose pages may call from a browser, or `*` (--cors-origin; adr/0039). */
  readonly corsOrigins?: readonly string[];
  /** Every request must carry `Authorization: Bearer <token>` (TOOLSHED_HTTP_TOKEN). */
  readonly bearerToken?: string;
  /** One line per request on the diagnostics (--log-requests). */
  readonly logRequests?: boolean;
  /** Connections open at once; one more gets 503 (--max-connections). */
  readonly maxConnections?: number;
  /** A connection with no request in progress this long is closed (--idle-timeout). */
  readonly idleTimeoutMs?: number;
  /** How long a request body may take to arrive after its headers (--body-timeout). */
  readonly bodyTimeoutMs?: number;
  /** Request bytes all requests together may hold (--max-body-bytes). */
  readonly maxBodyBytes?: number;
  /** Answer bytes waiting for clients, all together (--max-unsent-bytes). */
  readonly maxUnsentBytes?: number;
  /** Live 2025-era sessions past which the least recently used idle one ends (--max-sessions). */
  readonly maxSessions?: number;
  /** The endpoint's URL as clients reach it (--public-url), which the server card names. */
  readonly publicUrl?: string;
  /**
   * Over HTTP, callers sign in with OAuth 2.1 access tokens from this authorization server:
   * toolshed is a resource server (adr/0038), and scopes on tools, resources and prompts are
   * enforced. Stdio is never asked for tokens.
   */
  readonly oauth?: OAuthConfig;
  /** Keep tasks, and the keys of requestState unless `stateKeys` are given, in Redis. */
  readonly redis?: string;
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
   * Every caller's rate limit across its requests (`--rate-limit`): `"60/min"`, `"5/s"`,
   * `"1000/h"`, `"60/min burst 10"`; shared through Redis with `redis` (adr/0043). Tools with a
   * `rateLimit` of their own are limited per caller whether or not this is set.
   */
  readonly rateLimit?: string;
  /**
   * Serve only these toolsets (`tools/<set>/` folders) and the top-level tools (`--toolsets`,
   * adr/0045); a connection over HTTP may narrow it further. Default: every set.
   */
  readonly toolsets?: readonly string[];
  /** Serve only tools marked `annotations.readOnlyHint: true` (`--read-only`, adr/0045). */
  readonly readOnly?: boolean;

  /**
   * Middleware around every request's handler, the first outermost; the server directory's
   * `middleware/` runs inside these (adr/0025).
   */
  readonly middleware?: readonly Middleware[];
  /** Where the server's own troubles go (a tool's stack, a program's stderr). */
  readonly diagnostics?: Diagnostics;
  /** The methods served (tests that add one); default: every method toolshed serves. */
  readonly methods?: MethodTable;
  /**
   * Traces and metrics through Deno's OpenTelemetry (adr/0041), which must be on in this
   * process (OTEL_DENO=true when it started; main.ts sets this from it). Off (the default),
   * nothing of it is loaded or composed in.
   */
  readonly telemetry?: boolean;
}

/** Toolshed as an OAuth 2.1 resource server (`--auth-issuer` and the flags beside it). */
export interface OAuthConfig extends OAuthHttpOptions {
  /**
   * Whether lists show what a caller's token does not grant ("all", the default, so that a
   * client can see a tool and step up for it) or hide it ("permitted", `--auth-lists`).
   */
  readonly lists?: "all" | "permitted";
}

/** How `fetch` serves Streamable HTTP inside a server of one's own (Deno.serve, Hono). */
export interface EmbeddedHttp {
  /**
   * Host names requests may carry in Host and Origin besides localhost, 127.0.0.1 and [::1]
   * (the DNS-rebinding guard): the names your server is reached by.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins (`https://app.example`) whose pages may call the server from a browser, or `*` for
   * any (CORS, as --cors-origin; adr/0039); an origin listed here passes the guard too.
   */
  readonly corsOrigins?: readonly string[];
  /** Every request must carry `Authorization: Bearer <token>` (as TOOLSHED_HTTP_TOKEN). */
  readonly bearerToken?: string;
  /** Where the MCP endpoint is (default /mcp); other paths answer 404, but /healthz, /readyz. */
  readonly path?: string;
  /** One line per request on the diagnostics (as --log-requests). */
  readonly logRequests?: boolean;
  /** Live 2025-era sessions (as --max-sessions). */
  readonly maxSessions?: number;
  /** Request bytes all requests together may hold (as --max-body-bytes). */
  readonly maxBodyBytes?: number;
  /** Answer bytes waiting for clients, all together (as --max-unsent-bytes). */
  readonly maxUnsentBytes?: number;
  /** How long a request body may take to arrive (as --body-timeout). */
  readonly bodyTimeoutMs?: number;
  /** An event stream idle this long gets a `: keep-alive` comment (default 15 s). */
  readonly keepAliveMs?: number;
  /**
   * The endpoint's URL as clients reach the app (`https://app.example/mcp`), which the server
   * card names (adr/0050); default: `oauth.publicUrl`, else the URL each request was sent to.
   */
  readonly publicUrl?: string;
}
