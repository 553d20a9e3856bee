// What the composition root builds a server from (adr/0061 §6), in the order it does: what is
// served (the directory and its server.meta.json loaded, or primitives given in code), then the
// one request core on it (the registry, the tool view, the key ring, the tasks, the counting of
// metrics, with the middleware and methods given in code), and what an embedded server is given
// when its configuration names nothing. Every server runs all of it at start.
import type { Diagnostics } from "../util/diagnostics.ts";
import { messageOf } from "../util/json.ts";
import { createRegistry, type Registry } from "../primitives/registry.ts";
import {
  type ToolView,
  toolView,
  unknownToolset,
  UnknownToolsetError,
} from "../primitives/toolsets.ts";
import { implementationOf, type ServerMeta } from "../primitives/server_identity.ts";
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
import { DirectoryLoadError } from "../discovery/load_error.ts";
import { checkMiddleware } from "../discovery/middleware_dir.ts";
import type { MountPlace } from "../discovery/tools_dir.ts";
import type { TokenExchange } from "../primitives/front_token.ts";
import { createKeyRing, type KeyRing } from "../rounds/key_ring.ts";
import { createTasks, type Tasks } from "../tasks/tasks.ts";
import { createMemoryTaskStore } from "../tasks/task_store.ts";
import { createMemoryBus } from "../tasks/bus.ts";
import { type Core, createCore } from "../core/handle.ts";
import type { RateLimiter } from "../core/rate_limit.ts";
import type { Defaults } from "../settings/table.ts";
import type { ServerConfig } from "./config.ts";
import type { SharedState } from "./shared_state.ts";
import type { CodeModeModule, MetricsModules, Telemetry } from "./features.ts";
import type { McpHttpOptions } from "../transports/http/handler.ts";

/** With --watch, how long a 2026-07-28 client may cache a list: changes show within it. */
const WATCHED_LIST_TTL_MS = 5_000;

/**
 * Where an embedded server's troubles go when its configuration names no place: the
 * console of the program it is embedded in (main.ts gives its own stderr log).
 */
export const CONSOLE_DIAGNOSTICS: Diagnostics = {
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

/** What a server serves, and who it is: its folders loaded, or primitives given in code. */
interface Served {
  readonly loaded: LoadedServer;
  /** The folders served; undefined when `primitives` were given. */
  readonly folders: ServerFolders | undefined;
  readonly meta: ServerMeta | undefined;
}

/**
 * Loads what the configuration names: the directory (or the folders flags name) and its
 * server.meta.json, or takes the primitives given. A directory with problems rejects with a
 * DirectoryLoadError listing every one.
 */
export async function servedOf(config: ServerConfig, load: ServerLoadOptions): Promise<Served> {
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
  return { loaded, folders, meta };
}

/** A folder as serve's flags take it: a path; a `file:` URL is read as one. */
function pathOf(location: string | URL | undefined): string | undefined {
  if (!(location instanceof URL)) return location;
  if (location.protocol !== "file:") {
    throw new Error(`Cannot serve "${location.href}": give a path or a file: URL`);
  }
  return decodeURIComponent(location.pathname);
}

/** How the directory is loaded: the settings of the loaders, and telemetry when on. */
export function loadOptionsOf(
  settings: ServerConfig & Defaults,
  diagnostics: Diagnostics,
  telemetry?: Telemetry,
): ServerLoadOptions {
  // Filled at the first mount file (adr/0071); a change before the composition root says where
  // changes go is noted, and told then.
  const issuer = settings.oauth?.issuer;
  const mounts: MountPlace = {
    changed: () => void (mounts.missed = true),
    exchange: issuer === undefined ? undefined : lazyExchange(issuer),
    maxResourceBytes: settings.maxResourceBytes,
  };
  return {
    traceEnvironment: telemetry?.traceEnvironment,
    passEnv: settings.passEnv,
    maxOutputBytes: settings.maxOutputBytes,
    maxPrograms: settings.maxPrograms,
    maxResourceBytes: settings.maxResourceBytes,
    allowOutsideSymlinks: settings.allowOutsideSymlinks,
    skipExecutables: settings.skipExecutables ?? false,
    diagnostics,
    mounts,
  };
}

/**
 * Token exchange at the server's authorization server (adr/0071 §5), loaded at the first
 * exchange: only a mount that exchanges callers' tokens pays for its code.
 */
function lazyExchange(issuer: string): TokenExchange {
  let made: Promise<TokenExchange> | undefined;
  return {
    async tokenFor(request, signal) {
      made ??= import("../auth/token_exchange.ts").then((module) =>
        module.createTokenExchange({ issuer })
      );
      return await (await made).tokenFor(request, signal);
    },
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

/** Middleware given in code is checked as a middleware/ file is, naming where it was given. */
export function checkGivenMiddleware(middleware: ServerConfig["middleware"]): void {
  middleware?.forEach((middleware, index) => {
    try {
      checkMiddleware(middleware);
    } catch (error) {
      throw new Error(`Cannot use middleware[${index}] of the configuration: ${messageOf(error)}`);
    }
  });
}

/** What the core is assembled from, besides the configuration: what was loaded first. */
export interface CoreParts {
  readonly loaded: LoadedServer;
  readonly meta: ServerMeta | undefined;
  readonly instance: string | undefined;
  readonly shared: SharedState | undefined;
  readonly telemetry: Telemetry | undefined;
  readonly metrics: MetricsModules | undefined;
  readonly rateLimit: RateLimiter | undefined;
  /** With `codeMode`: code mode's view and sandbox (adr/0073). */
  readonly codeMode?: CodeModeModule;
}

/** The core and what it was built on, which the ways of serving share. */
interface AssembledCore {
  readonly core: Core;
  readonly registry: Registry;
  readonly tasks: Tasks;
  /** With `metrics`: the counting and the gauges. */
  readonly metrics: ReturnType<MetricsModules["createMetrics"]> | undefined;
  /** Whether HTTP reads a choice of toolsets, and the view it narrows from (toolsetsOf). */
  readonly toolsetsHttp: McpHttpOptions["toolsets"];
}

/** The one request core of a server, from its configuration and what was loaded. */
export function assembleCore(
  config: ServerConfig & Defaults,
  diagnostics: Diagnostics,
  parts: CoreParts,
): AssembledCore {
  const { loaded, meta, instance, shared, telemetry, rateLimit } = parts;
  const registry = createRegistry(contentsOfServer(loaded));
  const { view, toolsetsHttp } = toolsetsOf(config, loaded);
  const keyRing: KeyRing | undefined = shared?.keyRing ??
    (config.stateKeys === undefined ? undefined : createKeyRing([...config.stateKeys]));
  // The tasks that calls become (adr/0016): in Redis with `redis`, else in this process.
  const tasks = shared?.tasks ??
    createTasks(createMemoryTaskStore(), createMemoryBus(), Date.now, instance);
  // With `metrics`: the counting and the gauges (their listener is the root's).
  const metrics = parts.metrics?.createMetrics({
    tasks,
    redisUp: shared && (() => shared.health() === undefined),
  });
  const listChanged = config.listChanged ?? config.watch === true;
  const core = createCore({
    registry,
    tasks,
    keyRing,
    pageSize: config.pageSize,
    toolTimeoutMs: config.toolTimeoutMs,
    jobAfterMs: config.jobAfterMs,
    jobWaitMs: config.jobWaitMs,
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
    codeView: parts.codeMode?.view,
  });
  return { core, registry, tasks, metrics, toolsetsHttp };
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
): { view: ToolView | undefined; toolsetsHttp: McpHttpOptions["toolsets"] } {
  const held = [...new Set(loaded.tools.tools.flatMap((tool) => tool.toolset ?? []))].sort();
  if (config.toolsets !== undefined) {
    const unknown = unknownToolset(config.toolsets, held);
    if (unknown !== undefined || config.toolsets.length === 0) {
      throw new UnknownToolsetError(
        `Cannot serve the toolsets asked for: ${unknown ?? "none is named"}`,
      );
    }
  }
  const narrowed = config.toolsets !== undefined || config.readOnly;
  const base = narrowed ? toolView(config.toolsets, config.readOnly === true) : undefined;
  if (config.codeMode) {
    // Code mode (adr/0073): the server's own view (stdio's) is code mode's; HTTP serves it at
    // `/mcp/code` and `/mcp/<set>/code`, the catalog at `/mcp` as ever.
    const destructive = config.codeDestructive === true;
    const view = toolView(config.toolsets, config.readOnly === true, "code", destructive);
    return { view, toolsetsHttp: { base, code: { destructive } } };
  }
  const toolsetsHttp = held.length > 0 || config.watch || base !== undefined ? { base } : undefined;
  return { view: base, toolsetsHttp };
}
