// The request core: one decoded request and its context in, its response out, whatever
// the transport. It routes by era and method (the era pin of adr/0004 lives in the session,
// when there is one); routing errors are thrown before any handler or middleware runs, at
// once, so that a transport can give them statuses of their own. Then it runs the chain of
// the registry snapshot of the moment (adr/0025): the built-in middleware (telemetry when it
// is on, authorize, stamp, channels, rounds), the configuration's and the server directory's
// middleware, the method's handler.
import { messageOf } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import {
  ErrorCode,
  internalError,
  invalidParams,
  methodNotFound,
  ProtocolError,
  unsupportedVersion,
} from "../wire/errors.ts";
import { META_PROTOCOL_VERSION } from "../wire/protocol.ts";
import { STATELESS_VERSIONS, VERSIONS } from "../wire/versions.ts";
import type { Era, VersionFeatures } from "../wire/versions.ts";
import type { Registry, Snapshot } from "../primitives/registry.ts";
import type { Middleware } from "../primitives/types.ts";
import type { RequestContext } from "../methods/context.ts";
import { createKeyRing, type KeyRing } from "../rounds/key_ring.ts";
import { createTasks } from "../tasks/tasks.ts";
import { createMemoryTaskStore } from "../tasks/task_store.ts";
import { createMemoryBus } from "../tasks/bus.ts";
import { changeNotices } from "../methods/change_notices.ts";
import type { Session } from "../methods/session.ts";
import type {
  ClientView,
  MethodCall,
  MethodEntry,
  MethodOptions,
  MethodTable,
  MethodTelemetry,
} from "../methods/call.ts";
import { capabilitiesOf, METHODS } from "../methods/table.ts";
import { UNINITIALIZED } from "../methods/session.ts";
import { type CallChain, chainOf, type CoreMiddleware } from "./chain.ts";
import { channels, SESSION_CHANNELS, STATELESS_CHANNELS } from "./channels.ts";
import { asksScopes, authorize } from "./authorize.ts";
import type { RateLimiter } from "./rate_limit.ts";
import { rounds } from "./rounds.ts";
import { stamp } from "./stamp.ts";
import { type ToolView, viewOf } from "../primitives/toolsets.ts";
import { quotedClientText } from "../util/client_text.ts";

export interface CoreOptions extends MethodOptions {
  readonly registry: Registry;
  /**
   * The keys that seal `requestState`; default: one random key of this process. Instances
   * behind a load balancer share one (TOOLSHED_STATE_KEY, or Redis).
   */
  readonly keyRing?: KeyRing;
  /** How long a 2026-07-28 client may cache a list (default: LIST_TTL_MS, five minutes). */
  readonly listTtlMs?: number;
  /** The methods served; METHODS unless a test or a feature extends it. */
  readonly methods?: MethodTable;
  /**
   * Middleware around every method's handler, the first outermost; a snapshot's own (the
   * server directory's `middleware/`) run inside these.
   */
  readonly middleware?: readonly Middleware[];
  /**
   * Given only when telemetry is on (OTEL_DENO=true: core/telemetry.ts, imported then): its
   * middleware is the outermost built-in; off, nothing of it is composed in.
   */
  readonly telemetry?: MethodTelemetry & { readonly middleware: CoreMiddleware };
  /**
   * The middleware that counts requests (core/metrics.ts), given only when metrics are on
   * (--metrics): without it nothing of metrics is composed in, or even imported.
   */
  readonly metrics?: CoreMiddleware;
  /**
   * The rate limits (adr/0043), composed after authorize in the chain of every snapshot they
   * apply to; undefined when none is configured (nothing of them runs).
   */
  readonly rateLimit?: RateLimiter;
  /**
   * Code mode's tools over a view's snapshot (code/code_view.ts, adr/0073), given only when the
   * server serves code mode (`--code-mode`): a view whose mode is "code" is shown through it.
   */
  readonly codeView?: (viewed: Snapshot) => Snapshot;
}

export interface Core {
  /**
   * Answers one request with its JSON-RPC response object: at once when every step is
   * synchronous, else as a promise. Never throws or rejects. Routing errors (a version not
   * served, a method unknown or of the other era, a session pinned otherwise) are always
   * answered at once, before any handler runs, so a transport can give them statuses of
   * their own (HTTP's 400 and 404).
   */
  handle(ctx: RequestContext): MaybePromise<JsonObject>;
  /** The table entry of a method, so a transport can tell long-lived requests apart. */
  method(name: string): MethodEntry | undefined;
  /** What a session should be told of a swap of the registry's snapshot (change_notices.ts). */
  changeNotices(previous: Snapshot, next: Snapshot, session: Session): JsonObject[];
  /**
   * The built-in middleware composed into the chain of `snapshot`, by name, outermost first:
   * what a feature that is on adds, and one that is off does not.
   */
  builtins(snapshot: Snapshot): readonly BuiltinName[];
}

const STATELESS_PIN = Object.freeze({ era: "stateless" as const });
const OPEN_PIN = Object.freeze({ era: "open" as const });

/** What a snapshot makes once: the capabilities each era is told, the chain of middleware. */
interface Made {
  readonly stateless: Readonly<JsonObject>;
  readonly session: Readonly<JsonObject>;
  readonly chain: CallChain;
}

export function createCore(given: CoreOptions): Core {
  // Tasks are kept in this process unless the host shares a store (a few bytes until used).
  // Handlers reach the core again through `reenter` (inner calls, adr/0073).
  const options: CoreOptions = {
    ...given,
    tasks: given.tasks ?? createTasks(createMemoryTaskStore(), createMemoryBus()),
    reenter: (ctx) => core.handle(ctx),
  };
  const table = options.methods ?? METHODS;
  const ring = options.keyRing ?? createKeyRing();
  // State sealed by another instance means instances without a shared key: said once.
  let saidSealedElsewhere = false;
  const sealedElsewhere = () => {
    if (saidSealedElsewhere) return;
    saidSealedElsewhere = true;
    options.diagnostics.error(
      "A requestState sealed with another key reached this instance: instances behind a " +
        "load balancer must share TOOLSHED_STATE_KEY (or use --redis), else a multi-round " +
        "call fails whenever its next round lands on another instance",
    );
  };
  const limiter = options.rateLimit;
  /**
   * The built-ins of a snapshot: with authorize when something in it asks for scopes, with the
   * rate limit when one applies to it (after authorize: a refusal for scopes takes no token).
   * Four ways at most, each made once.
   */
  const builtinsBy = new Map<number, ReturnType<typeof namedBuiltins>>();
  const builtinsFor = (snapshot: Snapshot): ReturnType<typeof namedBuiltins> => {
    const scoped = asksScopes(snapshot, table);
    const limited = limiter?.applies(snapshot) === true;
    const key = (scoped ? 1 : 0) + (limited ? 2 : 0);
    let found = builtinsBy.get(key);
    if (found === undefined) {
      const limit = limited ? limiter!.middleware : undefined;
      found = namedBuiltins(options, ring, sealedElsewhere, limit, scoped);
      builtinsBy.set(key, found);
    }
    return found;
  };
  const outer = options.middleware ?? [];
  /** By snapshot: a snapshot never changes, so what it makes is made once. */
  const made = new WeakMap<Snapshot, Made>();
  function madeFor(snapshot: Snapshot): Made {
    let found = made.get(snapshot);
    if (found === undefined) {
      const advertised = (era: Era) => {
        const capabilities = capabilitiesOf(table, snapshot, era);
        return options.listChanged ? withListChanged(capabilities, era) : capabilities;
      };
      found = {
        stateless: advertised("stateless"),
        session: advertised("session"),
        chain: chainOf(
          builtinsFor(snapshot).map(([, middleware]) => middleware),
          outer,
          snapshot.middleware,
        ),
      };
      made.set(snapshot, found);
    }
    return found;
  }

  /** Finds the entry and the version the request is served under, or throws its error. */
  function route(ctx: RequestContext): MaybePromise<JsonObject> {
    const { request, session } = ctx;
    const { method, envelope } = request;
    const entry = table.get(method);
    if (envelope) {
      const features = VERSIONS.get(envelope.protocolVersion);
      if (features?.era !== "stateless") {
        throw unsupportedVersion(STATELESS_VERSIONS, envelope.protocolVersion);
      }
      const served = entry !== undefined && entry.eras.includes("stateless");
      if (session && !(served && entry.session === "ignores")) {
        if (session.pin.era === "session") {
          const initialized = session.pin.client.protocolVersion;
          throw new ProtocolError(
            ErrorCode.UnsupportedProtocolVersion,
            `Unsupported protocol version: this connection was initialized for "${initialized}"`,
            { supported: [initialized], requested: envelope.protocolVersion },
          );
        }
        session.pin = STATELESS_PIN;
      }
      if (!served) {
        throw features.removedMethods.has(method)
          ? methodNotFound(method, `(removed in protocol version ${envelope.protocolVersion})`)
          : methodNotFound(method);
      }
      return run(ctx, entry, features, envelope, "stateless");
    }
    const pin = session?.pin ?? OPEN_PIN;
    if (entry?.session === "opens") {
      return run(
        ctx,
        entry,
        VERSIONS.get(UNINITIALIZED.protocolVersion)!,
        UNINITIALIZED,
        "session",
      );
    }
    // A stateless method, or any request on a stateless connection, without its _meta. On a
    // session's connection a stateless-only method is just one the session does not have (and
    // its error must not speak 2026-07-28).
    const statelessOnly = entry !== undefined && !entry.eras.includes("session");
    if (pin.era === "stateless" || (statelessOnly && pin.era !== "session")) {
      throw invalidParams(`Missing required _meta field: ${META_PROTOCOL_VERSION}`);
    }
    if (entry === undefined || statelessOnly) throw methodNotFound(method);
    const client = pin.era === "session" ? pin.client : UNINITIALIZED;
    return run(ctx, entry, VERSIONS.get(client.protocolVersion)!, client, "session");
  }

  function run(
    ctx: RequestContext,
    entry: MethodEntry,
    features: VersionFeatures,
    client: ClientView,
    era: Era,
  ): MaybePromise<JsonObject> {
    // A session's tools are those it was opened with; a stateless request's, those it chose.
    const view = (ctx.session === undefined ? ctx.facts : ctx.session.facts)?.view ??
      options.view;
    const snapshot = shown(options.registry.current(), view);
    const { chain, [era]: capabilities } = madeFor(snapshot);
    if (entry.capability !== undefined && !(entry.capability in capabilities)) {
      // Served, but this server has nothing of the kind (no prompts: no `prompts/*`).
      throw methodNotFound(ctx.request.method);
    }
    const { request, origin } = ctx;
    const call: MethodCall = {
      method: request.method,
      params: request.params,
      id: request.id,
      protocolVersion: client.protocolVersion,
      clientInfo: client.clientInfo,
      clientCapabilities: client.clientCapabilities,
      signal: ctx.controller.signal,
      transport: origin.transport,
      sessionId: origin.sessionId,
      auth: ctx.facts?.caller,
      request,
      entry,
      ctx,
      snapshot,
      features,
      client,
      capabilities,
      channels: era === "stateless" ? STATELESS_CHANNELS : SESSION_CHANNELS,
      onChange: options.registry.onChange,
      options,
    };
    return chain(call);
  }

  /** The response to a request whose routing or handling threw. */
  function failure(request: RequestContext["request"], error: unknown): JsonObject {
    if (error instanceof ProtocolError) {
      return { jsonrpc: "2.0", id: request.id, error: error.toRpcError() };
    }
    options.diagnostics.error(`Request ${quotedClientText(request.method)} failed`, error);
    return { jsonrpc: "2.0", id: request.id, error: internalError(messageOf(error)) };
  }

  const core: Core = {
    handle(ctx) {
      const { request } = ctx;
      try {
        const result = route(ctx);
        // Answered at once (most): the response, and no closure made for a later one.
        if (!isThenable(result)) return { jsonrpc: "2.0", id: request.id, result };
        return (result as Promise<JsonObject>).then(
          (ready) => ({ jsonrpc: "2.0", id: request.id, result: ready }),
          (error) => failure(request, error),
        );
      } catch (error) {
        return failure(request, error);
      }
    },
    method: (name) => table.get(name),
    builtins: (snapshot) => builtinsFor(snapshot).map(([name]) => name),
    changeNotices(previous, next, session) {
      const view = session.facts?.view ?? options.view;
      return changeNotices(
        shown(previous, view),
        shown(next, view),
        session,
        options.listChanged === true,
      );
    },
  };
  return core;

  /** `snapshot` as `view` shows it: its tools, code mode's over them, or what code may call. */
  function shown(snapshot: Snapshot, view: ToolView | undefined): Snapshot {
    if (view === undefined) return snapshot;
    const viewed = viewOf(snapshot, view);
    if (view.mode !== "code") return viewed;
    if (options.codeView === undefined) {
      throw new Error("unreachable: a code-mode view on a server without code mode");
    }
    return options.codeView(viewed);
  }
}

/**
 * The built-in middleware, outermost first: telemetry and metrics (each only when given),
 * authorize (when `scoped`: something asks for scopes), the rate limit (when given), stamp,
 * channels, rounds. A refusal thrown inside (authorize's -32030, a rate limit's -32031)
 * reaches the outer ones as an outcome. A feature that is off adds nothing.
 */
export function builtinsOf(
  options: Pick<CoreOptions, "telemetry" | "metrics" | "listTtlMs" | "serverInfo">,
  ring: KeyRing,
  sealedElsewhere: () => void,
  rateLimit?: CoreMiddleware,
  scoped = true,
): readonly CoreMiddleware[] {
  const named = namedBuiltins(options, ring, sealedElsewhere, rateLimit, scoped);
  return named.map(([, middleware]) => middleware);
}

/** The built-ins of builtinsOf, each with its name (what Core.builtins tells). */
function namedBuiltins(
  options: Pick<CoreOptions, "telemetry" | "metrics" | "listTtlMs" | "serverInfo">,
  ring: KeyRing,
  sealedElsewhere: () => void,
  rateLimit: CoreMiddleware | undefined,
  scoped: boolean,
): readonly (readonly [BuiltinName, CoreMiddleware])[] {
  const named: (readonly [BuiltinName, CoreMiddleware])[] = [];
  if (options.telemetry !== undefined) named.push(["telemetry", options.telemetry.middleware]);
  if (options.metrics !== undefined) named.push(["metrics", options.metrics]);
  if (scoped) named.push(["authorize", authorize()]);
  if (rateLimit !== undefined) named.push(["rateLimit", rateLimit]);
  named.push(
    ["stamp", stamp(options.listTtlMs, options.serverInfo)],
    ["channels", channels()],
    ["rounds", rounds(ring, sealedElsewhere)],
  );
  return named;
}

/** The built-in middleware, by name. */
type BuiltinName =
  | "telemetry"
  | "metrics"
  | "authorize"
  | "rateLimit"
  | "stamp"
  | "channels"
  | "rounds";

/**
 * With a watched directory, lists can change, and the server says so: to 2025-era sessions
 * with list_changed notifications, to 2026-07-28 clients on `subscriptions/listen` streams,
 * which also carry `resources/updated` (hence `subscribe`).
 */
function withListChanged(capabilities: Readonly<JsonObject>, era: Era): Readonly<JsonObject> {
  const offered: JsonObject = { ...capabilities };
  for (const kind of ["tools", "resources", "prompts"]) {
    const capability = offered[kind];
    if (capability === undefined) continue;
    const added: JsonObject = { listChanged: true };
    if (kind === "resources" && era === "stateless") added.subscribe = true;
    offered[kind] = Object.freeze({ ...(capability as JsonObject), ...added });
  }
  return Object.freeze(offered);
}
