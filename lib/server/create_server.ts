// The composition root (adr/0025): the one place a server is put together from its
// configuration. main.ts, testServer, the commands, the test harnesses and the benches all
// build their server here, so what a test or a command runs is what a client reaches (there is
// no other door: tests/create_server_test.ts sees every option act through the harnesses'). Here
// is the sequence: what is served is loaded (or taken as given), the features a server has on are
// loaded, the one request core is assembled (features.ts: the registry, the tasks, in memory or
// in Redis, the key ring that seals requestState), the directory is watched when asked, and every
// way of serving shares that core: stdio, HTTP and web-standard fetch (http_side.ts, loaded only
// for them), and single requests in process.
import type { JsonObject } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { randomInstanceName } from "../util/instance.ts";
import { extract } from "../wire/extract.ts";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  SERVER_INFO,
} from "../wire/protocol.ts";
import { serialize } from "../wire/serialize.ts";
import { STATELESS_VERSIONS } from "../wire/versions.ts";
import type { Registry } from "../primitives/registry.ts";
import type { ToolView } from "../primitives/toolsets.ts";
import type { LoadedServer, ServerFolders, ServerLoadOptions } from "../discovery/server_dir.ts";
import type { Reloader } from "../discovery/reload.ts";
import type { Mount } from "../mounts/mount.ts";
import type { ServerMeta } from "../primitives/server_identity.ts";
import type { SharedState } from "./shared_state.ts";
import {
  assembleCore,
  checkGivenMiddleware,
  CONSOLE_DIAGNOSTICS,
  type CoreParts,
  loadOptionsOf,
  servedOf,
} from "./assembly.ts";
import {
  type HttpModule,
  loadCodeMode,
  loadHttp,
  loadMetrics,
  loadReload,
  loadTelemetry,
  rateLimiterOf,
} from "./features.ts";
import type { Tasks } from "../tasks/tasks.ts";
import { IN_PROCESS } from "../methods/context.ts";
import type { Core } from "../core/handle.ts";
import {
  type ByteSource,
  OUTPUT_BOUND_CHARS,
  serve,
  type Server as StdioServer,
  WAITING_BOUND_BYTES,
} from "../transports/stdio/stdio.ts";
import type { ByteSink } from "../transports/stdio/writer.ts";
import type { HttpServer } from "../transports/http/server.ts";
import type { HttpListen, HttpWiring } from "./http_side.ts";
import type { McpHttp } from "../transports/http/handler.ts";
import { settlesWithin } from "../util/settles_within.ts";
import type { Load } from "./metrics.ts";
import { resolveSettings } from "../settings/rules.ts";
import { type Defaults, sliceOf } from "../settings/table.ts";
import type { ServerConfig } from "./config.ts";

export type { EmbeddedHttp, OAuthConfig, ServerConfig } from "./config.ts";

/** What one request sent in process (`request()`) declares, and where its notifications go. */
interface InProcessRequest {
  readonly capabilities?: JsonObject;
  readonly clientInfo?: JsonObject;
  readonly logLevel?: string;
  readonly progressToken?: string | number;
  readonly notify?: (message: JsonObject) => void;
  /** Aborting it cancels the request. */
  readonly signal?: AbortSignal;
  readonly id?: number | string;
  /**
   * The tools it is served, as an HTTP path chooses them (`/mcp/<set>`, `/mcp/code`: the view
   * transports/http/toolsets.ts sets); default: the server's own view (stdio's).
   */
  readonly view?: ToolView;
}

/** Where a stdio connection reads and writes: stdin and stdout, or memory in tests. */
interface StdioIo {
  readonly input: ByteSource;
  readonly output: ByteSink;
}

export interface Server {
  /** The request core every way of serving shares. */
  readonly core: Core;
  /** What is served now; a reload swaps its snapshot. */
  readonly registry: Registry;
  /** What the directory held at start (empty when `primitives` were given). */
  readonly loaded: LoadedServer;
  /** The folders served; undefined when `primitives` were given. */
  readonly folders: ServerFolders | undefined;
  /** Who the server is (server.meta.json or `config.meta`); undefined: neither says. */
  readonly meta: ServerMeta | undefined;
  /** This instance's name (with `http`), which begins the ids of its sessions and tasks. */
  readonly instance: string | undefined;
  readonly tasks: Tasks;
  /** What the server cannot do now while staying ready (Redis unreachable), or undefined. */
  degraded(): string | undefined;
  /** The servers mounted from `tools/*.mcp.json` (adr/0071), as loaded now. */
  mounts(): readonly Mount[];
  /** Serves one stdio connection until its input ends or it is shut down. */
  serveStdio(io: StdioIo): StdioServer;
  /** Listens for Streamable HTTP until shut down. */
  serveHttp(listen: HttpListen): HttpServer;
  /**
   * Answers one web-standard request as the HTTP transport would (the MCP endpoint, the
   * probes), for mounting inside a server of one's own; configured by `config.http`.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * Sends one 2026-07-28 request through the extractor and the core, as a line from a client
   * would go, and gives its JSON-RPC response (`result` or `error`); never rejects.
   */
  request(method: string, params?: JsonObject, options?: InProcessRequest): Promise<JsonObject>;
  /** With `watch`: resolves once the reload a change started is over. */
  reloaded(): Promise<void>;
  /** Lets the tasks running here end within the shutdown grace; the rest are failed. */
  drainTasks(): Promise<void>;
  /** With `metrics`: where they are served, and their text now; else undefined. */
  readonly metrics: ServedMetrics | undefined;
  /**
   * Stops watching; drains what `fetch` serves (from now on a request gets 503; those in flight
   * have the shutdown grace, then are aborted) and the tasks running here (within the same
   * grace); then closes the link to Redis. Called again, it gives the same promise.
   */
  close(): Promise<void>;
}

/** Metrics being served (`config.metrics`). */
interface ServedMetrics {
  /** `http://127.0.0.1:9464/metrics`, the port bound. */
  readonly url: string;
  /** The text exposition now, as the listener answers it. */
  text(): string;
  /** Stops listening (close() does it too). */
  close(): Promise<void>;
}

/**
 * Builds a server from its configuration. A directory with problems rejects with a
 * DirectoryLoadError listing every one; an unreachable Redis rejects saying so.
 */
export async function createServer(config: ServerConfig = {}): Promise<Server> {
  const diagnostics = config.diagnostics ?? CONSOLE_DIAGNOSTICS;
  // Every setting's default, applied once.
  const settings = resolveSettings(config);
  // Telemetry is loaded only for a server that has it on (a module and its instruments).
  const telemetry = config.telemetry ? await loadTelemetry() : undefined;
  const load = loadOptionsOf(settings, diagnostics, telemetry);
  const { loaded, folders, meta } = await servedOf(config, load);
  const instance = config.http ? config.instanceName ?? randomInstanceName() : undefined;
  // Redis's modules, and the assembly of what they share, are loaded only for a server with Redis.
  let shared: SharedState | undefined;
  if (config.redis !== undefined) {
    const { sharedState } = await import("./shared_state.ts");
    shared = await sharedState(config.redis, config.stateKeys === undefined, instance, diagnostics);
  }
  const rateLimit = await rateLimiterOf(config, loaded, shared, diagnostics);
  // The HTTP side and its transport are loaded only for a server that serves HTTP (a stdio
  // server, which every client starts, pays nothing for them: ~0.5 MB of RSS, bench:e2e); `fetch`
  // loads them.
  const http = config.http ? await loadHttp() : undefined;
  // Metrics are loaded only when on (adr/0042): off, nothing of them is imported or composed.
  const metrics = config.metrics ? await loadMetrics() : undefined;
  // Hot reload is loaded only for a server that watches (adr/0051).
  const reload = config.watch ? await loadReload() : undefined;
  // Code mode is loaded only for a server that serves it (adr/0073).
  const codeMode = await loadCodeMode(settings, diagnostics);
  try {
    return assemble(settings, diagnostics, {
      loaded,
      folders,
      meta,
      load,
      instance,
      shared,
      http,
      telemetry,
      metrics,
      rateLimit,
      codeMode,
      watchAndReload: reload?.watchAndReload,
    });
  } catch (error) {
    await shared?.close(); // the metrics' address taken, say
    throw error;
  }
}

/** The server's parts, once what takes a wait (the directory, Redis) is there. */
function assemble(
  config: ServerConfig & Defaults,
  diagnostics: Diagnostics,
  parts: CoreParts & {
    folders: ServerFolders | undefined;
    load: ServerLoadOptions;
    http: HttpModule | undefined;
    /** Given only when `config.watch`: hot reload's module, loaded then. */
    watchAndReload?: typeof import("../discovery/reload.ts").watchAndReload;
  },
): Server {
  const { loaded, folders, meta, load, instance, shared, http, telemetry, rateLimit } = parts;
  const sessionEnded = telemetry?.sessionEnded;
  checkGivenMiddleware(config.middleware);
  // Serving HTTP: what only such a server refuses or warns of.
  http?.checkHttp(config, loaded, shared, diagnostics);
  const { core, registry, tasks, metrics, toolsetsHttp } = assembleCore(config, diagnostics, parts);
  // With `metrics`: their listener (which may throw: the address taken).
  const metricsListener = metrics &&
    parts.metrics!.listenForMetrics(
      config.metrics!,
      metrics.text,
      diagnostics,
      sliceOf(config, "metrics"),
    );
  /** Adds a transport's load to the gauges until it is done. */
  const watched = <T extends { done: Promise<void> }>(served: T, load: () => Load): T => {
    if (metrics === undefined) return served;
    const unwatch = metrics.watch(load);
    served.done.then(unwatch, unwatch);
    return served;
  };

  let reloader: Reloader | undefined;
  /** What reloading reads and writes, whether it watches or a mount asks for it. */
  const reloading = (dirs: ServerFolders) => ({
    folders: dirs,
    load,
    registry,
    loaded,
    diagnostics,
    onReload: config.onReload,
  });
  if (config.watch) {
    if (folders === undefined) throw new Error("Cannot watch primitives that were not loaded");
    reloader = parts.watchAndReload!(reloading(folders));
  }
  // A mount whose upstream changed its tools (adr/0071) reloads the directory, watched or not:
  // the code of reloading loads then for a server that does not watch.
  const mounts = load.mounts;
  if (mounts !== undefined && folders !== undefined) {
    let asked: Promise<Reloader> | undefined;
    mounts.changed = () => {
      asked ??= reloader !== undefined
        ? Promise.resolve(reloader)
        : loadReload().then((module) =>
          reloader = module.watchAndReload({ ...reloading(folders), watch: false })
        );
      asked.then((each) => each.reloadSoon());
    };
    if (mounts.missed) mounts.changed();
  }
  const { shutdownGraceMs, maxMessageBytes, maxConcurrency } = config;
  // What /readyz adds to its 200: Redis out of reach, and mounted upstreams that are down.
  const degraded = () => {
    const down = mounts?.host?.mounts().flatMap((mount) => {
      const { state, error } = mount.status();
      return state === "down" ? [`${mount.file} is down${error ? ` (${error})` : ""}`] : [];
    }) ?? [];
    const said = [shared?.health(), ...down].filter((each) => each !== undefined);
    return said.length === 0 ? undefined : said.join("; ");
  };
  let lastId = 0;
  // What serveHttp and fetch serve by (http_side.ts).
  const wiring: HttpWiring = {
    config,
    core,
    registry,
    meta,
    diagnostics,
    instance,
    degraded,
    sessionEnded,
    outerSteps: metrics && [metrics.httpStep],
    callerAddresses: rateLimit !== undefined,
    toolsets: toolsetsHttp,
  };
  /** What `fetch` serves through, made at its first request. */
  let embedded: Promise<McpHttp> | undefined;
  const embeddedHttp = () =>
    embedded ??= (http === undefined ? loadHttp() : Promise.resolve(http)).then((module) => {
      const mcp = module.embedHttp(wiring);
      metrics?.watch(mcp.endpoint.counts);
      return mcp;
    });
  /** Set by close(): its work, done once. */
  let closing: Promise<void> | undefined;

  return {
    core,
    registry,
    loaded,
    folders,
    meta,
    instance,
    tasks,
    degraded,
    mounts: () => mounts?.host?.mounts() ?? [],
    serveStdio(io) {
      const served = serve({
        input: io.input,
        output: io.output,
        core,
        registry,
        maxMessageBytes,
        shutdownGraceMs,
        maxConcurrency,
        outputBoundChars: config.outputBoundChars ?? OUTPUT_BOUND_CHARS,
        waitingBoundBytes: config.waitingBoundBytes ?? WAITING_BOUND_BYTES,
        diagnostics,
        ended: sessionEnded,
      });
      return watched(served, served.load);
    },
    serveHttp(listen) {
      if (http === undefined) {
        throw new Error(
          "Cannot serve HTTP: this server was created without http (createServer({ http: true }) " +
            "loads the HTTP transport)",
        );
      }
      const served = http.listenHttp(wiring, listen);
      return watched(served, served.counts);
    },
    async fetch(request) {
      const mcp = await embeddedHttp();
      // After close(), what fetch serves is drained: a request gets 503, as while draining.
      if (closing !== undefined) mcp.endpoint.drain();
      return mcp.fetch(request);
    },
    async request(method, params = {}, options = {}) {
      const meta: JsonObject = {
        [META_PROTOCOL_VERSION]: STATELESS_VERSIONS[0],
        [META_CLIENT_CAPABILITIES]: options.capabilities ?? {},
        [META_CLIENT_INFO]: options.clientInfo ?? IN_PROCESS_CLIENT,
      };
      if (options.logLevel !== undefined) meta[META_LOG_LEVEL] = options.logLevel;
      if (options.progressToken !== undefined) meta.progressToken = options.progressToken;
      const id = options.id ?? ++lastId;
      const line = serialize({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } });
      const incoming = extract(new TextEncoder().encode(line));
      if (incoming.kind === "rejected") {
        return { jsonrpc: "2.0", id: incoming.id, error: incoming.error };
      }
      if (incoming.kind !== "request") {
        throw new Error(`Cannot send ${method}: the extractor read it as a ${incoming.kind}`);
      }
      const controller = new AbortController();
      const cancel = () => controller.abort(options.signal?.reason);
      if (options.signal?.aborted) cancel();
      options.signal?.addEventListener("abort", cancel, { once: true });
      try {
        return await core.handle({
          request: incoming,
          controller,
          closing: undefined,
          session: undefined,
          outlet: { notify: options.notify ?? (() => {}), outbound: undefined },
          origin: IN_PROCESS,
          ...options.view === undefined ? {} : { facts: { view: options.view } },
        });
      } finally {
        options.signal?.removeEventListener("abort", cancel);
      }
    },
    reloaded: () => reloader?.settled() ?? Promise.resolve(),
    drainTasks: () => tasks.drain(shutdownGraceMs),
    metrics: metricsListener && {
      url: metricsListener.url,
      text: metrics!.text,
      close: metricsListener.close,
    },
    close() {
      closing ??= (async () => {
        reloader?.close();
        // The requests fetch serves and the tasks running here share the grace, as they do
        // on a signal to main.ts; then what still runs is aborted.
        const drainHttp = async () => {
          if (embedded === undefined) return;
          const { endpoint } = await embedded;
          const idle = endpoint.drain();
          if (await settlesWithin(idle, shutdownGraceMs) === "timed out") {
            endpoint.abort("the server is shutting down");
            await idle;
          }
        };
        await Promise.all([drainHttp(), tasks.drain(shutdownGraceMs)]);
        await Promise.all([
          shared?.close(),
          metricsListener?.close(),
          mounts?.host?.close(),
          parts.codeMode?.close(),
        ]);
      })();
      return closing;
    },
  };
}

/** Who a request sent in process says it comes from. */
const IN_PROCESS_CLIENT = Object.freeze({
  name: `${SERVER_INFO.name}-in-process`,
  version: SERVER_INFO.version,
});
