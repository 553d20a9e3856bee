// The request core: one decoded request and its context in, its response out, whatever
// the transport. It routes by era and method (the era pin of adr/0004 lives in the
// session, when there is one), runs the handler on the registry snapshot of the moment,
// and stamps what every 2026-07-28 result carries.
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
import { LOG_LEVELS, META_PROTOCOL_VERSION } from "../wire/protocol.ts";
import { MODERN_VERSIONS, VERSIONS } from "../wire/versions.ts";
import type { Era, VersionFeatures } from "../wire/versions.ts";
import type { Registry, Snapshot } from "../primitives/registry.ts";
import type { Channels, ClientRequestMethod, LogLevel } from "../primitives/types.ts";
import type { RequestContext } from "../methods/context.ts";
import { answersOf, CLIENT_CAPABILITY, createRounds, refusal } from "../rounds/input_rounds.ts";
import { createKeyRing, type KeyRing } from "../rounds/key_ring.ts";
import { createTasks } from "../tasks/tasks.ts";
import { createMemoryTaskStore } from "../tasks/task_store.ts";
import { createMemoryBus } from "../tasks/bus.ts";
import { changeNotices } from "../methods/change_notices.ts";
import type { Session } from "../methods/session.ts";
import type { ClientView, MethodEntry, MethodOptions, MethodTable } from "../methods/call.ts";
import { capabilitiesOf, METHODS } from "../methods/table.ts";
import { modernResult } from "../methods/results.ts";
import { UNINITIALIZED } from "../methods/session.ts";

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
}

const MODERN_PIN = Object.freeze({ era: "modern" as const });
const OPEN_PIN = Object.freeze({ era: "open" as const });

/** Log levels by severity, least severe first. */
const LEVEL_RANK = new Map([...LOG_LEVELS].map((level, rank) => [level, rank]));

/**
 * A 2026-07-28 request has no way back but its result (a method that may answer
 * input_required gets a `request` of its own, input_rounds.ts). Shared: costs a call nothing.
 */
const MODERN_CHANNELS: Channels = Object.freeze({
  progress() {},
  log() {},
  closeStream: () => false,
  request: (method: string) =>
    Promise.reject(
      new Error(
        `Cannot send ${method}: only tools/call, prompts/get and resources/read may ask the ` +
          `client, by answering input_required`,
      ),
    ),
});

/** A legacy request whose client declared nothing to ask and wants no progress or logs. */
const LEGACY_CHANNELS: Channels = Object.freeze({
  progress() {},
  log() {},
  closeStream: () => false,
  request: (method: string) => Promise.reject(new Error(refusal(method as ClientRequestMethod))),
});

/** At most one progress notification per request this often; reports between are merged. */
export const PROGRESS_INTERVAL_MS = 20;
/** Log messages one request may send at once, and per second after that; the rest are counted. */
export const LOG_BURST = 100;

export function createCore(given: CoreOptions): Core {
  // Tasks are kept in this process unless the host shares a store (a few bytes until used).
  const options: CoreOptions = given.tasks
    ? given
    : { ...given, tasks: createTasks(createMemoryTaskStore(), createMemoryBus()) };
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
  /** By snapshot, then era: a snapshot's capabilities never change, so they are made once. */
  const advertised = new WeakMap<Snapshot, Map<Era, Readonly<JsonObject>>>();
  function capabilitiesFor(snapshot: Snapshot, era: Era): Readonly<JsonObject> {
    let byEra = advertised.get(snapshot);
    if (byEra === undefined) advertised.set(snapshot, byEra = new Map());
    let capabilities = byEra.get(era);
    if (capabilities === undefined) {
      capabilities = capabilitiesOf(table, snapshot, era);
      if (options.listChanged) capabilities = withListChanged(capabilities, era);
      byEra.set(era, capabilities);
    }
    return capabilities;
  }

  /** Finds the entry and the version the request is served under, or throws its error. */
  function route(ctx: RequestContext): MaybePromise<JsonObject> {
    const { request, session } = ctx;
    const { method, envelope } = request;
    const entry = table.get(method);
    if (envelope) {
      const features = VERSIONS.get(envelope.protocolVersion);
      if (features?.era !== "modern") {
        throw unsupportedVersion(MODERN_VERSIONS, envelope.protocolVersion);
      }
      const served = entry !== undefined && entry.eras.includes("modern");
      if (session && !(served && entry.session === "ignores")) {
        if (session.pin.era === "legacy") {
          const initialized = session.pin.client.protocolVersion;
          throw new ProtocolError(
            ErrorCode.UnsupportedProtocolVersion,
            `Unsupported protocol version: this connection was initialized for "${initialized}"`,
            { supported: [initialized], requested: envelope.protocolVersion },
          );
        }
        session.pin = MODERN_PIN;
      }
      if (!served) {
        throw features.removedMethods.has(method)
          ? methodNotFound(method, `(removed in protocol version ${envelope.protocolVersion})`)
          : methodNotFound(method);
      }
      return run(ctx, entry, features, envelope, "modern");
    }
    const pin = session?.pin ?? OPEN_PIN;
    if (entry?.session === "opens") {
      return run(ctx, entry, VERSIONS.get(UNINITIALIZED.protocolVersion)!, UNINITIALIZED, "legacy");
    }
    // A modern method, or any request on a modern connection, without its _meta. On a
    // legacy connection a modern-only method is just one the session does not have (and
    // its error must not speak 2026-07-28).
    const modernOnly = entry !== undefined && !entry.eras.includes("legacy");
    if (pin.era === "modern" || (modernOnly && pin.era !== "legacy")) {
      throw invalidParams(`Missing required _meta field: ${META_PROTOCOL_VERSION}`);
    }
    if (entry === undefined || modernOnly) throw methodNotFound(method);
    const client = pin.era === "legacy" ? pin.client : UNINITIALIZED;
    return run(ctx, entry, VERSIONS.get(client.protocolVersion)!, client, "legacy");
  }

  function run(
    ctx: RequestContext,
    entry: MethodEntry,
    features: VersionFeatures,
    client: ClientView,
    era: Era,
  ): MaybePromise<JsonObject> {
    const snapshot = options.registry.current();
    const capabilities = capabilitiesFor(snapshot, era);
    if (entry.capability !== undefined && !(entry.capability in capabilities)) {
      // Served, but this server has nothing of the kind (no prompts: no `prompts/*`).
      throw methodNotFound(ctx.request.method);
    }
    const live = channelsFor(ctx, era, client, capabilities);
    const channels = live?.channels ?? (era === "modern" ? MODERN_CHANNELS : LEGACY_CHANNELS);
    const invoke = (channels: Channels) =>
      entry.handler({
        request: ctx.request,
        entry,
        ctx,
        snapshot,
        version: client.protocolVersion,
        features,
        client,
        capabilities,
        channels,
        onChange: options.registry.onChange,
        options,
      });
    if (era === "modern" && entry.incomplete?.includes("input_required")) {
      const result = inRounds(ctx, client, channels, invoke);
      if (isThenable(result)) {
        return (result as Promise<JsonObject>).then((ready) => finished(ready, entry, era, live));
      }
      return finished(result, entry, era, live);
    }
    const result = invoke(channels);
    if (isThenable(result)) {
      return (result as Promise<JsonObject>).then((ready) => finished(ready, entry, era, live));
    }
    return finished(result, entry, era, live);
  }

  /**
   * Runs a handler that may ask the client (2026-07-28): with the answers of earlier rounds
   * (its sealed requestState, checked first) and this round's; an answer that stops it to
   * ask is sealed with the answers so far. Synchronous when nothing in it waits (no state to
   * check, a synchronous handler that asks nothing), as every other request is.
   */
  function inRounds(
    ctx: RequestContext,
    client: ClientView,
    channels: Channels,
    invoke: (channels: Channels) => MaybePromise<JsonObject>,
  ): MaybePromise<JsonObject> {
    const { params, method } = ctx.request;
    const binding = {
      method,
      name: String(params.name ?? params.uri ?? ""),
      args: params.arguments,
    };
    const proceed = (answers: JsonObject): MaybePromise<JsonObject> => {
      const rounds = createRounds(
        ctx.controller,
        client.clientCapabilities,
        answers,
        ring,
        binding,
      );
      const result = invoke({ ...channels, request: rounds.request });
      return isThenable(result)
        ? (result as Promise<JsonObject>).then(rounds.finish)
        : rounds.finish(result);
    };
    const answers = answersOf(params, ring, binding, sealedElsewhere);
    return isThenable(answers) ? (answers as Promise<JsonObject>).then(proceed) : proceed(answers);
  }

  /** Ends what a request may send besides its answer, and shapes the answer for the era. */
  function finished(
    result: JsonObject,
    entry: MethodEntry,
    era: Era,
    live: { finish(): void } | undefined,
  ): JsonObject {
    live?.finish();
    return era === "modern" ? stamped(result, entry) : result;
  }

  /**
   * The channels of a request that has a use for them (a progress token, a log level, a
   * client to ask), or undefined: most requests have none and allocate nothing.
   */
  function channelsFor(
    ctx: RequestContext,
    era: Era,
    client: ClientView,
    capabilities: Readonly<JsonObject>,
  ): { channels: Channels; finish(): void } | undefined {
    const token = ctx.request.progressToken;
    const level = era === "modern" ? ctx.request.envelope?.logLevel : ctx.session?.logLevel;
    const threshold = level !== undefined && "logging" in capabilities
      ? LEVEL_RANK.get(level)
      : undefined;
    const declared = client.clientCapabilities;
    const outbound = era === "legacy" &&
        ("sampling" in declared || "elicitation" in declared || "roots" in declared)
      ? ctx.outlet.outbound
      : undefined;
    if (token === undefined && threshold === undefined && outbound === undefined) return undefined;

    let finished = false;
    const sending = () => !finished && !ctx.controller.signal.aborted;
    const fallback = era === "modern" ? MODERN_CHANNELS : LEGACY_CHANNELS;

    // Progress: growing values only, at most one notification per PROGRESS_INTERVAL_MS; a
    // report in between waits (replacing any older waiting one) and goes out when the
    // interval is over, or just before the response, so the last value always arrives.
    let last = -Infinity;
    let sentAt = -Infinity;
    let waiting: JsonObject | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sendProgress = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (waiting === undefined || !sending()) return;
      ctx.outlet.notify({ jsonrpc: "2.0", method: "notifications/progress", params: waiting });
      waiting = undefined;
      sentAt = performance.now();
    };
    // Logs: a bucket of LOG_BURST messages that refills at LOG_BURST a second; what does not
    // fit is counted and told once, before the response.
    let tokens = LOG_BURST;
    // Full until the first message (every 2025-era request has a level now: adr/0024).
    let filledAt = -Infinity;
    let dropped = 0;
    const sendLog = (params: JsonObject) =>
      ctx.outlet.notify({ jsonrpc: "2.0", method: "notifications/message", params });

    const channels: Channels = {
      progress: token === undefined ? fallback.progress : (progress, total, message) => {
        // Progress must grow; a report that does not, or is not a number, is dropped.
        if (!sending() || !(Number.isFinite(progress) && progress > last)) return;
        last = progress;
        const params: JsonObject = { progressToken: token, progress };
        if (typeof total === "number" && Number.isFinite(total)) params.total = total;
        if (typeof message === "string") params.message = message;
        waiting = params;
        const wait = sentAt + PROGRESS_INTERVAL_MS - performance.now();
        if (wait <= 0) sendProgress();
        else timer ??= setTimeout(sendProgress, wait);
      },
      log: threshold === undefined ? fallback.log : (level: LogLevel, data, logger) => {
        const rank = LEVEL_RANK.get(level);
        if (!sending() || rank === undefined || rank < threshold) return;
        const now = performance.now();
        tokens = Math.min(LOG_BURST, tokens + (now - filledAt) * LOG_BURST / 1000);
        filledAt = now;
        if (tokens < 1) {
          dropped++;
          return;
        }
        tokens--;
        const params: JsonObject = { level, data };
        if (typeof logger === "string") params.logger = logger;
        sendLog(params);
      },
      request: outbound === undefined ? fallback.request : (method, params, _options) => {
        if (!(CLIENT_CAPABILITY[method] in declared)) {
          return Promise.reject(new Error(refusal(method)));
        }
        return outbound.request(method, params, ctx.controller.signal);
      },
      closeStream: () => sending() && (ctx.outlet.closeStream?.() ?? false),
    };
    const finish = () => {
      sendProgress();
      if (dropped > 0 && sending() && LEVEL_RANK.get("warning")! >= threshold!) {
        sendLog({
          level: "warning",
          logger: "toolshed",
          data: `toolshed dropped ${dropped} log message(s) of this request: ` +
            `more than ${LOG_BURST} a second`,
        });
      }
      finished = true;
    };
    return { channels, finish };
  }

  /** What every 2026-07-28 result carries; a resultType the method cannot have is -32603. */
  function stamped(result: JsonObject, entry: MethodEntry): JsonObject {
    const type = result.resultType;
    if (type !== undefined && type !== "complete" && !entry.incomplete?.includes(type as string)) {
      throw new Error(`the handler answered with resultType ${JSON.stringify(type)}`);
    }
    return modernResult(result, entry.cacheable === true, options.listTtlMs);
  }

  return {
    handle(ctx) {
      const { request } = ctx;
      const answer = (result: JsonObject) => ({ jsonrpc: "2.0", id: request.id, result });
      const fail = (error: unknown) => {
        if (error instanceof ProtocolError) {
          return { jsonrpc: "2.0", id: request.id, error: error.toRpcError() };
        }
        options.diagnostics.error(`Request "${request.method}" failed`, error);
        return { jsonrpc: "2.0", id: request.id, error: internalError(messageOf(error)) };
      };
      try {
        const result = route(ctx);
        return isThenable(result)
          ? (result as Promise<JsonObject>).then(answer, fail)
          : answer(result);
      } catch (error) {
        return fail(error);
      }
    },
    method: (name) => table.get(name),
    changeNotices: (previous, next, session) =>
      changeNotices(previous, next, session, options.listChanged === true),
  };
}

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
    if (kind === "resources" && era === "modern") added.subscribe = true;
    offered[kind] = Object.freeze({ ...(capability as JsonObject), ...added });
  }
  return Object.freeze(offered);
}
