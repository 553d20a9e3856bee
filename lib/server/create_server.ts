// The composition root (adr/0025): the one place a server is put together from its
// configuration. main.ts, testServer, the commands, the test harnesses and the benches all
// build their server here, so what a test or a command runs is what a client reaches (there is
// no other door: tests/create_server_test.ts sees every option act through the harnesses'). It
// loads the server directory (or takes primitives already loaded), makes the registry, the
// tasks (in memory, or in Redis), the key ring that seals requestState, watches the directory
// when asked, and builds the one request core that every way of serving shares: stdio, HTTP,
// web-standard fetch, and single requests in process.
import { type JsonObject, messageOf } from "../util/json.ts";
import { type Diagnostics, warn } from "../util/diagnostics.ts";
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
import { createRegistry, type Registry } from "../primitives/registry.ts";
import {
  type ToolView,
  toolView,
  unknownToolset,
  UnknownToolsetError,
} from "../primitives/toolsets.ts";
import {
  contentsOfServer,
  type LoadedServer,
  loadServerDir,
  loadServerMeta,
  type NamedFolders,
  type ServerFolders,
  serverFolders,
  type ServerLoadOptions,
  serverMetaLocation,
} from "../discovery/server_dir.ts";
import { KINDS } from "../discovery/kinds.ts";
import type { Reloader } from "../discovery/reload.ts";
import { checkMiddleware } from "../discovery/middleware_dir.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import { implementationOf, type ServerMeta } from "../primitives/server_identity.ts";
import { createKeyRing, type KeyRing } from "../rounds/key_ring.ts";
import type { SharedState } from "./shared_state.ts";
import {
  type HttpModule,
  loadHttp,
  loadMetrics,
  loadReload,
  loadTelemetry,
  type MetricsModules,
  rateLimiterOf,
  type Telemetry,
} from "./features.ts";
import { createTasks, type Tasks } from "../tasks/tasks.ts";
import { createMemoryTaskStore } from "../tasks/task_store.ts";
import { createMemoryBus } from "../tasks/bus.ts";
import { IN_PROCESS } from "../methods/context.ts";
import { type Core, createCore } from "../core/handle.ts";
import type { RateLimiter } from "../core/rate_limit.ts";
import { type ByteSource, serve, type Server as StdioServer } from "../transports/stdio/stdio.ts";
import type { ByteSink } from "../transports/stdio/writer.ts";
import type { HttpOptions, HttpServer } from "../transports/http/server.ts";
import type { McpHttp } from "../transports/http/handler.ts";
import { settlesWithin } from "../util/settles_within.ts";
import type { Load } from "./metrics.ts";
import { resolveSettings } from "../settings/rules.ts";
import { type Defaults, type Slice, sliceOf } from "../settings/table.ts";
import {
  OUTPUT_BOUND_CHARS,
  STATE_KEY_ENV,
  WAITING_BOUND_BYTES,
  WATCHED_LIST_TTL_MS,
} from "./defaults.ts";

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
}

/** Where a stdio connection reads and writes: stdin and stdout, or memory in tests. */
interface StdioIo {
  readonly input: ByteSource;
  readonly output: ByteSink;
}

/** How to listen for HTTP; what the server's configuration says is the default for the rest. */
type HttpListen =
  & Omit<
    HttpOptions,
    "core" | "registry" | "meta" | "diagnostics" | keyof Slice<"http"> | SharedLimit
  >
  & Partial<Pick<HttpOptions, "diagnostics" | keyof Slice<"http"> | SharedLimit>>;
type SharedLimit = "maxMessageBytes" | "maxConcurrency" | "shutdownGraceMs";

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
  let folders: ServerFolders | undefined;
  let loaded: LoadedServer;
  let meta = config.meta;
  if (config.primitives !== undefined) loaded = loadedOf(config.primitives);
  else {
    // A folder a flag names on its own (--tools DIR) is the setting of its kind's name.
    const named = config as Readonly<Record<string, unknown>>;
    const given: { -readonly [K in keyof NamedFolders]: NamedFolders[K] } = {
      dir: pathOf(config.dir),
    };
    for (const kind of KINDS) {
      if (kind.named) given[kind.folder] = pathOf(named[kind.folder] as string | URL | undefined);
    }
    const base = config.dir === undefined ? config.embedded : undefined;
    folders = serverFolders(given, base);
    const metaAt = config.meta === undefined ? serverMetaLocation(given, base) : undefined;
    // Both are read before either's problems are said: every problem is reported together.
    const [directory, file] = await Promise.allSettled([
      loadServerDir(folders, load),
      metaAt === undefined ? undefined : loadServerMeta(metaAt),
    ]);
    const problems = [directory, file].flatMap((settled) =>
      settled.status === "rejected" && settled.reason instanceof DirectoryLoadError
        ? settled.reason.problems
        : []
    );
    if (problems.length > 0) throw new DirectoryLoadError(problems);
    if (directory.status === "rejected") throw directory.reason;
    if (file.status === "rejected") throw file.reason;
    loaded = directory.value;
    meta ??= file.value;
  }
  const instance = config.http ? config.instanceName ?? randomInstanceName() : undefined;
  // Redis's modules, and the assembly of what they share, are loaded only for a server with Redis.
  let shared: SharedState | undefined;
  if (config.redis !== undefined) {
    const { sharedState } = await import("./shared_state.ts");
    shared = await sharedState(config.redis, config.stateKeys === undefined, instance, diagnostics);
  }
  const rateLimit = await rateLimiterOf(config, loaded, shared, diagnostics);
  // The HTTP transport is loaded only for a server that serves HTTP (a stdio server, which
  // every client starts, pays nothing for it: ~0.5 MB of RSS, bench:e2e); `fetch` loads it.
  const http = config.http ? await loadHttp() : undefined;
  // Metrics are loaded only when on (adr/0042): off, nothing of them is imported or composed.
  const metrics = config.metrics ? await loadMetrics() : undefined;
  // Hot reload is loaded only for a server that watches (adr/0051).
  const reload = config.watch ? await loadReload() : undefined;
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
  parts: {
    loaded: LoadedServer;
    folders: ServerFolders | undefined;
    meta: ServerMeta | undefined;
    load: ServerLoadOptions;
    instance: string | undefined;
    shared: SharedState | undefined;
    http: HttpModule | undefined;
    telemetry: Telemetry | undefined;
    metrics: MetricsModules | undefined;
    rateLimit?: RateLimiter;
    /** Given only when `config.watch`: hot reload's module, loaded then. */
    watchAndReload?: typeof import("../discovery/reload.ts").watchAndReload;
  },
): Server {
  const { loaded, folders, meta, load, instance, shared, http, telemetry, rateLimit } = parts;
  const sessionEnded = telemetry?.sessionEnded;
  // Middleware given in code is checked as a middleware/ file is, naming where it was given.
  config.middleware?.forEach((middleware, index) => {
    try {
      checkMiddleware(middleware);
    } catch (error) {
      throw new Error(`Cannot use middleware[${index}] of the configuration: ${messageOf(error)}`);
    }
  });
  // Embedded, toolshed cannot know the URL clients reach the app by: tokens must name it.
  if (config.oauth && typeof config.http === "object" && config.oauth.publicUrl === undefined) {
    throw new Error(
      "Cannot serve OAuth embedded without oauth.publicUrl: the endpoint's URL as clients reach " +
        "it (https://mcp.example.com/mcp), which access tokens must name as their audience",
    );
  }
  const registry = createRegistry(contentsOfServer(loaded));
  if (shared === undefined && config.http) {
    if (config.stateKeys === undefined) {
      warn(
        diagnostics,
        `${STATE_KEY_ENV} is not set: the requestState of input_required answers is sealed ` +
          "with a random key of this process, which no other instance can open (set it to the " +
          "same secret on every instance behind a load balancer, or give them --redis)",
      );
    }
    if (loaded.tools.tools.some((tool) => tool.task !== undefined)) {
      warn(
        diagnostics,
        "Tasks are kept in this process's memory: no other instance can answer for them " +
          "(pass --redis URL to every instance behind a load balancer)",
      );
    }
  }
  const { view, toolsetsHttp } = toolsetsOf(config, loaded);
  const keyRing: KeyRing | undefined = shared?.keyRing ??
    (config.stateKeys === undefined ? undefined : createKeyRing([...config.stateKeys]));
  // The tasks that calls become (adr/0016): in Redis with `redis`, else in this process.
  const tasks = shared?.tasks ??
    createTasks(createMemoryTaskStore(), createMemoryBus(), Date.now, instance);
  // With `metrics`: the counting and the gauges, and their listener (which may throw: taken).
  const metrics = parts.metrics?.createMetrics({
    tasks,
    redisUp: shared && (() => shared.health() === undefined),
  });
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
  if (config.watch) {
    if (folders === undefined) throw new Error("Cannot watch primitives that were not loaded");
    reloader = parts.watchAndReload!({ folders, load, registry, loaded, diagnostics });
  }
  const listChanged = config.listChanged ?? config.watch === true;
  const { shutdownGraceMs, maxMessageBytes, maxConcurrency } = config;
  const core = createCore({
    registry,
    tasks,
    keyRing,
    pageSize: config.pageSize,
    toolTimeoutMs: config.toolTimeoutMs,
    diagnostics,
    listChanged,
    listTtlMs: config.listTtlMs ?? (config.watch ? WATCHED_LIST_TTL_MS : undefined),
    methods: config.methods,
    middleware: config.middleware,
    listed: config.oauth?.lists,
    telemetry,
    metrics: metrics?.middleware,
    rateLimit,
    view,
    serverInfo: meta === undefined ? undefined : implementationOf(meta),
  });
  const degraded = () => shared?.health();
  let lastId = 0;
  // What `fetch` serves by: the HTTP settings, and `http`'s own over them.
  const embedding = resolveSettings({
    ...sliceOf(config, "http"),
    ...(typeof config.http === "object" ? config.http : {}),
  });
  const outerSteps = metrics && [metrics.httpStep];
  /** What `fetch` serves through, made at its first request. */
  let embedded: Promise<McpHttp> | undefined;
  const embeddedHttp = () =>
    embedded ??= (http === undefined ? loadHttp() : Promise.resolve(http)).then((module) =>
      module.createMcpHttp({
        ...embedding,
        allowedHosts: embedding.allowedHosts ?? [],
        oauth: config.oauth,
        core,
        registry,
        diagnostics,
        maxConcurrency,
        maxMessageBytes,
        instanceName: instance,
        degraded,
        sessionEnded,
        outerSteps,
        callerAddresses: rateLimit !== undefined,
        toolsets: toolsetsHttp,
        meta,
      })
    ).then((mcp) => {
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
      const served = http.serveHttp({
        maxConcurrency,
        shutdownGraceMs,
        // The HTTP settings, as the flags gave them; what `listen` says wins.
        ...sliceOf(config, "http"),
        instanceName: instance,
        degraded,
        diagnostics,
        oauth: config.oauth,
        sessionEnded,
        callerAddresses: rateLimit !== undefined,
        toolsets: toolsetsHttp,
        ...listen,
        core,
        registry,
        meta,
        outerSteps,
      });
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
        await Promise.all([shared?.close(), metricsListener?.close()]);
      })();
      return closing;
    },
  };
}

/**
 * The server's own view of its tools (`toolsets`, `readOnly`), checked against the sets the
 * directory holds, and whether HTTP reads a choice of toolsets: when there are sets, when a
 * reload may bring some, or when the server's view narrows (adr/0045). Neither: nothing of
 * toolsets is composed in.
 */
function toolsetsOf(
  config: ServerConfig,
  loaded: LoadedServer,
): { view: ToolView | undefined; toolsetsHttp: { base: ToolView | undefined } | undefined } {
  const held = [...new Set(loaded.tools.tools.flatMap((tool) => tool.toolset ?? []))].sort();
  if (config.toolsets !== undefined) {
    const unknown = unknownToolset(config.toolsets, held);
    if (unknown !== undefined || config.toolsets.length === 0) {
      throw new UnknownToolsetError(
        `Cannot serve the toolsets asked for: ${unknown ?? "none is named"}`,
      );
    }
  }
  const view = config.toolsets !== undefined || config.readOnly
    ? toolView(config.toolsets, config.readOnly === true)
    : undefined;
  const toolsetsHttp = held.length > 0 || config.watch || view !== undefined
    ? { base: view }
    : undefined;
  return { view, toolsetsHttp };
}

/** Who a request sent in process says it comes from. */
const IN_PROCESS_CLIENT = Object.freeze({
  name: `${SERVER_INFO.name}-in-process`,
  version: SERVER_INFO.version,
});

/**
 * Where an embedded server's troubles go when its configuration names no place: the
 * console of the program it is embedded in (main.ts gives its own stderr log).
 */
const CONSOLE_DIAGNOSTICS: Diagnostics = {
  error(message, error) {
    // deno-lint-ignore no-console -- an embedded server reports on its host program's console
    console.error(`toolshed: ${message}`, ...(error === undefined ? [] : [error]));
  },
  forward(text) {
    // deno-lint-ignore no-console -- a program's stderr, forwarded as the host program's
    console.error(text.replace(/\n$/, ""));
    return undefined;
  },
};

/** A folder as serve's flags take it: a path; a `file:` URL is read as one. */
function pathOf(location: string | URL | undefined): string | undefined {
  if (!(location instanceof URL)) return location;
  if (location.protocol !== "file:") {
    throw new Error(`Cannot serve "${location.href}": give a path or a file: URL`);
  }
  return decodeURIComponent(location.pathname);
}

function loadOptionsOf(
  settings: ServerConfig & Defaults,
  diagnostics: Diagnostics,
  telemetry?: Telemetry,
): ServerLoadOptions {
  return {
    traceEnvironment: telemetry?.traceEnvironment,
    passEnv: settings.passEnv,
    maxOutputBytes: settings.maxOutputBytes,
    maxPrograms: settings.maxPrograms,
    maxResourceBytes: settings.maxResourceBytes,
    allowOutsideSymlinks: settings.allowOutsideSymlinks,
    skipExecutables: settings.skipExecutables ?? false,
    diagnostics,
  };
}

/** Primitives given in code, as a directory's load would have found them. */
function loadedOf(primitives: NonNullable<ServerConfig["primitives"]>): LoadedServer {
  const { tools = [], resources = [], templates = [], prompts = [] } = primitives;
  return {
    tools: {
      tools: [...tools],
      byName: new Map(tools.map((tool) => [tool.name, tool])),
      skipped: [],
    },
    resources,
    templates,
    prompts,
    skills: [],
    middleware: [],
  };
}
