// One connection to an upstream MCP server (adr/0071), over stdio_link.ts or http_link.ts:
// connected lazily (single flight), its era learnt once per connection — `server/discover`
// (2026-07-28, stateless: every request carries its `_meta`), else the 2025 `initialize`
// handshake at the newest version both speak — then requests matched to answers by id.
//
// Per call: progress comes back by the progressToken the link made for it; the caller's abort
// sends `notifications/cancelled` (stdio in both eras, a 2025 HTTP session; a 2026-07-28 POST
// is cancelled by closing it) and rejects at once; a `tools/call` answer that crossed the
// cancel and is a task (the upstream made it just before) gets a `tasks/cancel` (over stdio; over
// HTTP the answer's stream closes with the cancel, and such a task runs on to its own end). A 2025-era upstream's requests to the
// client (elicitation, sampling, roots) go to the `request` hook of the call they belong to:
// over HTTP, the call whose answer stream carried them; over stdio nothing says, so they go to
// the one call in flight that has a hook, and when there are several (or none) the upstream
// is answered with an error saying the request cannot be tied to one call — a limit of the
// 2025 stdio protocol, not lifted by guessing.
//
// Notifications not tied to a call: a 2025-era upstream sends them unsolicited; a 2026-07-28
// one only on a `subscriptions/listen` request, which the connection keeps open while someone
// listens (`onNotification`) and the upstream advertises a list that changes, asking for the
// lists it advertises `listChanged` of. A listen that ends (the upstream's graceful result, its
// `notifications/cancelled` on stdio, a broken HTTP stream, an error) is opened again after a
// backoff (1 s doubling to 30 s, back to 1 s after one that lived a minute); one the upstream
// does not know (-32601) is not. A change made while nothing could tell would be missed, so
// the listeners are told every list changed when toolshed connects again (a restarted child,
// either era), and each list a listen covers when it is acknowledged after another listen
// ended on the same connection (a dropped HTTP stream).
//
// When a stdio child exits, pending calls fail ("transport", naming the exit) and the next
// call starts it again after a backoff: 50 ms doubling to 30 s, back to 50 ms after a
// connection that lived a minute; meanwhile calls fail at once ("down", saying when).
import { isObject, messageOf } from "../util/json.ts";
import { inform } from "../util/diagnostics.ts";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SUBSCRIPTION_ID,
  SERVER_INFO,
} from "../wire/protocol.ts";
import { SESSION_VERSIONS, STATELESS_VERSIONS } from "../wire/versions.ts";
import { ErrorCode } from "../wire/errors.ts";
import { UpstreamError } from "./link.ts";
import { openStdioLink } from "./stdio_link.ts";
import { openHttpLink } from "./http_link.ts";
import { delay } from "./delay.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { JsonObject } from "../util/json.ts";
import type { RequestId } from "../wire/types.ts";
import type { Incoming, Link, MirroredArgument } from "./link.ts";
import type { StdioLinkOptions } from "./stdio_link.ts";
import type { HttpLinkOptions } from "./http_link.ts";

export { UpstreamError } from "./link.ts";

/** What the upstream said when connected. */
export interface UpstreamServer {
  /** 2026-07-28 (stateless) or a 2025-era session. */
  era: "stateless" | "session";
  protocolVersion: string;
  capabilities: JsonObject;
  serverInfo: JsonObject | undefined;
  instructions: string | undefined;
}

interface CallHooks {
  /** Aborted: the upstream is told, and `request()` rejects at once ("cancelled"). */
  signal: AbortSignal;
  /** Given: the link sends a progressToken of its own and routes the upstream's progress here. */
  progress?: (progress: number, total?: number, message?: string) => void;
  /**
   * A 2025-era upstream's requests to the client that belong to this call (elicitation/create,
   * sampling/createMessage, roots/list); a rejection becomes a JSON-RPC error answer upstream
   * (its `code` when it has a numeric one).
   */
  request?: (method: string, params: JsonObject) => Promise<JsonObject>;
  /** Extra `_meta` keys (W3C trace context); protocol-owned keys are never taken from here. */
  meta?: JsonObject;
  /** 2026-07-28: the capabilities claimed in this request's `_meta` (the front client's). */
  clientCapabilities?: JsonObject;
  /** 2026-07-28 over HTTP: the `tools/call` arguments sent as `Mcp-Param-*` headers too. */
  mirrored?: readonly MirroredArgument[];
}

export interface Upstream {
  /** Connects if not connected (single flight); `signal` bounds this caller's wait only. */
  connect(signal?: AbortSignal): Promise<UpstreamServer>;
  /**
   * Connects lazily, sends, and resolves with the result as sent (any resultType:
   * input_required is the caller's to handle); rejects with an UpstreamError.
   */
  request(method: string, params: JsonObject, hooks: CallHooks): Promise<JsonObject>;
  /** Notifications not tied to a call (…/list_changed, logging); returns the unsubscribe. */
  onNotification(listener: (method: string, params: JsonObject) => void): () => void;
  /** For /readyz and stderr. */
  status(): { state: "idle" | "connecting" | "up" | "down"; error?: string };
  /** Stops the child (its whole group) or ends the HTTP session; rejects what is pending. */
  close(): Promise<void>;
}

/** The first wait before a new try after a failure; doubled at each failure in a row. */
const BACKOFF_FIRST_MS = 50;
/** The longest wait between tries. */
const BACKOFF_MAX_MS = 30_000;
/** A connection that lived this long resets the backoff. */
const STABLE_MS = 60_000;
/**
 * How long the handshake (probe and initialize) may take before the try fails; each caller
 * waits only as long as its own signal allows.
 */
const HANDSHAKE_MS = 30_000;
/**
 * How long the `server/discover` probe waits on stdio before trying `initialize`: some 2025
 * servers never answer a request before `initialize`.
 */
const PROBE_MS = 5_000;

/** How many cancelled calls are remembered, whose late answer may be a task to cancel. */
const MAX_ABANDONED = 256;

/** The first wait before a listen is opened again; doubled at each end in a row. */
const LISTEN_FIRST_MS = 1_000;

/** The lists a listen asks about, by the capability that advertises each one's changes. */
const LISTS = [
  ["tools", "toolsListChanged", "notifications/tools/list_changed"],
  ["prompts", "promptsListChanged", "notifications/prompts/list_changed"],
  ["resources", "resourcesListChanged", "notifications/resources/list_changed"],
] as const;

/** The capabilities a 2025 session declares: what the front client may do for the upstream. */
const SESSION_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };

/** A `_meta` key MCP reserves: a prefix whose second label is "modelcontextprotocol" or "mcp". */
const PROTOCOL_OWNED = /^[a-z0-9-]+\.(modelcontextprotocol|mcp)(\.[a-z0-9-]+)*\//i;

interface Pending {
  id: RequestId;
  method: string;
  hooks: CallHooks;
  progressToken: string | undefined;
  resolve(result: JsonObject): void;
  reject(error: UpstreamError): void;
}

interface Connection {
  link: Link;
  server: UpstreamServer;
  since: number;
}

export function createUpstream(
  link: StdioLinkOptions | HttpLinkOptions,
  options: { diagnostics: Diagnostics; name: string; killGraceMs?: number },
): Upstream {
  const { diagnostics, name } = options;
  const what = `upstream "${name}"`;
  let state: "idle" | "connecting" | "up" | "down" = "idle";
  let lastError: string | undefined;
  let connection: Connection | undefined;
  let connecting: Promise<Connection> | undefined;
  let failures = 0;
  let nextTryAt = 0;
  let closed = false;
  let nextId = 1;
  const pending = new Map<RequestId, Pending>();
  const byToken = new Map<string, Pending>();
  const listeners = new Set<(method: string, params: JsonObject) => void>();
  const noted = new Set<string>();
  /** `tools/call`s cancelled before their answer, with the capabilities they claimed. */
  const abandoned = new Map<RequestId, JsonObject | undefined>();
  /** The listen loop while one runs, stopped at close. */
  let listening: AbortController | undefined;
  /** The id of the listen request in flight, whose ack and end are recognised by it. */
  let listenId: RequestId | undefined;
  /** Whether a listen ended on this connection: the next ack announces its lists as changed. */
  let listenEnded = false;
  /** Whether a connection was up before: the next one announces every list as changed. */
  let connectedBefore = false;

  const note = (kind: string, message: string) => {
    if (noted.has(kind)) return;
    noted.add(kind);
    diagnostics.error(message);
  };

  function failed(reason: string) {
    lastError = reason;
    state = "down";
    failures++;
    const wait = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
    nextTryAt = Date.now() + wait;
  }

  /** The link is gone: every call on it fails, and the next call reconnects after the backoff. */
  function lost(of: Link, reason: string) {
    const wasUp = connection?.link === of;
    if (connection !== undefined && !wasUp) return; // a link already replaced
    if (wasUp && Date.now() - connection!.since >= STABLE_MS) failures = 0;
    connection = undefined;
    for (const call of [...pending.values()]) {
      call.reject(new UpstreamError("transport", `The call failed: ${reason}`));
    }
    if (!closed && wasUp) { // a handshake's failure is the attempt's to count
      failed(reason);
      diagnostics.error(`The connection to ${what} ended: ${reason}`);
    }
  }

  function settle(call: Pending) {
    pending.delete(call.id);
    if (call.progressToken !== undefined) byToken.delete(call.progressToken);
  }

  function onMessage(from: Link, incoming: Incoming, call: RequestId | undefined) {
    switch (incoming.kind) {
      case "response": {
        const waiting = incoming.id === null ? undefined : pending.get(incoming.id);
        if (waiting === undefined && incoming.id !== null && abandoned.has(incoming.id)) {
          return cancelLateTask(incoming.id, incoming.result);
        }
        if (waiting === undefined) {
          note(
            "unknown id",
            `${what} answered a request toolshed did not send or no longer waits for (id ${
              JSON.stringify(incoming.id)
            }); such answers are dropped`,
          );
          return;
        }
        settle(waiting);
        if (incoming.result !== undefined) return waiting.resolve(incoming.result);
        const error = isObject(incoming.error) ? incoming.error : {};
        const message = typeof error.message === "string" ? error.message : "no message";
        return waiting.reject(
          new UpstreamError("rpc", `${what} answered with an error: ${message}`, {
            code: typeof error.code === "number" ? error.code : undefined,
            data: error.data,
          }),
        );
      }
      case "notification":
        return onNotificationMessage(incoming.method, incoming.params);
      case "request":
        return void answerServerRequest(from, incoming.id, incoming.method, incoming.params, call);
      case "rejected":
        if (incoming.id !== null) {
          // A malformed request from the upstream gets its error, as any peer's would.
          from.send(
            { jsonrpc: "2.0", id: incoming.id, error: incoming.error },
            AbortSignal.timeout(HANDSHAKE_MS),
          ).catch(() => {});
        }
        return note(
          "bad message",
          `${what} sent a message that is not JSON-RPC (${incoming.error.message}); such messages are dropped`,
        );
      case "ignored":
        return;
    }
  }

  function onNotificationMessage(method: string, params: JsonObject) {
    if (method === "notifications/progress") {
      const token = params.progressToken;
      const call = typeof token === "string" ? byToken.get(token) : undefined;
      const progress = params.progress;
      if (call?.hooks.progress === undefined || typeof progress !== "number") return;
      const total = typeof params.total === "number" ? params.total : undefined;
      const message = typeof params.message === "string" ? params.message : undefined;
      return call.hooks.progress(progress, total, message);
    }
    if (method === "notifications/cancelled") {
      // On stdio, how a 2026-07-28 server may end a listen; it is sent for nothing else.
      const listen = listenId === undefined ? undefined : pending.get(listenId);
      if (listen !== undefined && params.requestId === listenId) {
        settle(listen);
        listen.resolve({});
      }
      return;
    }
    if (method === "notifications/subscriptions/acknowledged") return acknowledged(params);
    tell(method, params);
  }

  /** The call a server request belongs to: the one its stream names, else the only one that can. */
  function callFor(call: RequestId | undefined): Pending | string {
    if (call !== undefined) {
      const named = pending.get(call);
      if (named?.hooks.request !== undefined) return named;
      return "the call it belongs to cannot answer requests";
    }
    const able = [...pending.values()].filter((p) => p.hooks.request !== undefined);
    if (able.length === 1) return able[0];
    return able.length === 0
      ? "no call in flight can answer requests"
      : `it cannot be tied to one call: ${able.length} calls in flight can answer requests`;
  }

  async function answerServerRequest(
    from: Link,
    id: RequestId,
    method: string,
    params: JsonObject,
    call: RequestId | undefined,
  ) {
    let answer: JsonObject;
    if (method === "ping") answer = { jsonrpc: "2.0", id, result: {} };
    else {
      const target = callFor(call);
      if (typeof target === "string") {
        answer = {
          jsonrpc: "2.0",
          id,
          error: {
            code: ErrorCode.InternalError,
            message: `toolshed cannot answer "${method}": ${target}`,
          },
        };
      } else {
        try {
          const result = await target.hooks.request!(method, params);
          answer = { jsonrpc: "2.0", id, result };
        } catch (error) {
          const code = isObject(error) && Number.isSafeInteger(error.code)
            ? error.code as number
            : ErrorCode.InternalError;
          answer = { jsonrpc: "2.0", id, error: { code, message: messageOf(error) } };
        }
      }
    }
    await from.send(answer, AbortSignal.timeout(HANDSHAKE_MS)).catch(() => {});
  }

  /**
   * The answer to a `tools/call` cancelled before it came: a task it started (the cancel
   * crossed the answer) has no one to follow it, so the upstream is told to cancel it.
   */
  function cancelLateTask(id: RequestId, result: JsonObject | undefined) {
    const clientCapabilities = abandoned.get(id);
    abandoned.delete(id);
    if (result?.resultType !== "task" || typeof result.taskId !== "string") return;
    request("tasks/cancel", { taskId: result.taskId }, {
      signal: AbortSignal.timeout(HANDSHAKE_MS),
      clientCapabilities,
    }).catch(() => {});
  }

  /** Tells the listeners `method` happened, each on its own (one that throws is said). */
  function tell(method: string, params: JsonObject) {
    for (const listener of listeners) {
      try {
        listener(method, params);
      } catch (error) {
        diagnostics.error(`A listener of ${what}'s notifications threw`, error);
      }
    }
  }

  /** A listen's ack: after a gap, each list it covers may have changed unseen. */
  function acknowledged(params: JsonObject) {
    const meta = isObject(params._meta) ? params._meta : {};
    if (listenId === undefined || meta[META_SUBSCRIPTION_ID] !== listenId) return;
    const granted = isObject(params.notifications) ? params.notifications : {};
    if (!listenEnded) return;
    listenEnded = false;
    for (const [, field, method] of LISTS) if (granted[field] === true) tell(method, {});
  }

  /**
   * Keeps a `subscriptions/listen` open on `current` while it is the connection, someone
   * listens and the upstream (2026-07-28) advertises a list that changes; one loop at a time.
   */
  function keepListening(current: Connection) {
    if (listening !== undefined || closed || listeners.size === 0) return;
    if (current.server.era !== "stateless") return; // a session's notifications come unasked
    const filter: JsonObject = {};
    for (const [capability, field] of LISTS) {
      const advertised = current.server.capabilities[capability];
      if (isObject(advertised) && advertised.listChanged === true) filter[field] = true;
    }
    if (Object.keys(filter).length === 0) return;
    const controller = new AbortController();
    listening = controller;
    const { signal } = controller;
    const goOn = () => !signal.aborted && connection === current && listeners.size > 0;
    (async () => {
      let ends = 0;
      while (goOn()) {
        const opened = Date.now();
        const id = nextId;
        listenId = id;
        try {
          await exchange(current.link, "subscriptions/listen", {
            notifications: filter,
            _meta: statelessMeta(),
          }, { signal });
        } catch (error) {
          if (!goOn()) break;
          if (error instanceof UpstreamError && error.code === ErrorCode.MethodNotFound) {
            note(
              "listen",
              `${what} advertises lists that change but does not know subscriptions/listen; ` +
                "its changes are not seen until toolshed reconnects",
            );
            break;
          }
        } finally {
          if (listenId === id) listenId = undefined;
        }
        listenEnded = true;
        if (Date.now() - opened >= STABLE_MS) ends = 0;
        ends++;
        await delay(Math.min(LISTEN_FIRST_MS * 2 ** (ends - 1), BACKOFF_MAX_MS), signal);
      }
    })().finally(() => {
      if (listening === controller) listening = undefined;
    });
  }

  function open(): Link {
    const events = {
      message: (incoming: Incoming, call: RequestId | undefined) =>
        onMessage(opened, incoming, call),
      closed: (reason: string) => lost(opened, reason),
    };
    const opened: Link = link.kind === "stdio"
      ? openStdioLink(link, { name, diagnostics, events, note, killGraceMs: options.killGraceMs })
      : openHttpLink(link, { name, events, note });
    return opened;
  }

  /** Sends one request on `on` and waits for its answer, `signal` bounding the wait. */
  function exchange(
    on: Link,
    method: string,
    params: JsonObject,
    hooks: CallHooks,
    progressToken?: string,
  ): Promise<JsonObject> {
    const id = nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const { signal } = hooks;
      const call: Pending = { id, method, hooks, progressToken, resolve, reject };
      const abort = () => {
        if (!pending.has(id)) return;
        settle(call);
        if (method === "tools/call") abandoned.set(id, hooks.clientCapabilities);
        if (abandoned.size > MAX_ABANDONED) abandoned.delete(abandoned.keys().next().value!);
        reject(new UpstreamError("cancelled", `The call of "${method}" to ${what} was cancelled`));
        // 2026-07-28 over HTTP: the POST's end is the cancellation; elsewhere a notification.
        if (link.kind === "stdio" || connection?.server.era === "session") {
          on.send(
            {
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: id, reason: "The caller cancelled the call" },
            },
            AbortSignal.timeout(HANDSHAKE_MS),
          ).catch(() => {});
        }
      };
      call.resolve = (result) => {
        signal.removeEventListener("abort", abort);
        resolve(result);
      };
      call.reject = (error) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      };
      if (signal.aborted) {
        return reject(new UpstreamError("cancelled", `The call of "${method}" was cancelled`));
      }
      if (closed) return reject(new UpstreamError("down", `${what} was closed`));
      pending.set(id, call);
      if (progressToken !== undefined) byToken.set(progressToken, call);
      signal.addEventListener("abort", abort, { once: true });
      on.send({ jsonrpc: "2.0", id, method, params }, signal, hooks.mirrored).catch((error) => {
        if (!pending.has(id)) return;
        settle(call);
        call.reject(
          error instanceof UpstreamError ? error : new UpstreamError(
            "transport",
            `Cannot send "${method}" to ${what}: ${messageOf(error)}`,
          ),
        );
      });
    });
  }

  function statelessMeta(clientCapabilities: JsonObject = {}): JsonObject {
    return {
      [META_PROTOCOL_VERSION]: STATELESS_VERSIONS[0],
      [META_CLIENT_INFO]: { name: SERVER_INFO.name, version: SERVER_INFO.version },
      [META_CLIENT_CAPABILITIES]: clientCapabilities,
    };
  }

  /** The era and what the upstream said, on a fresh link. */
  async function handshake(
    on: Link,
    signal: AbortSignal,
    era?: "session",
  ): Promise<UpstreamServer> {
    if (era === "session") return await initialize(on, signal);
    const probe = link.kind === "stdio"
      ? AbortSignal.any([signal, AbortSignal.timeout(PROBE_MS)])
      : signal;
    try {
      const found = await exchange(on, "server/discover", { _meta: statelessMeta() }, {
        signal: probe,
      });
      const versions = Array.isArray(found.supportedVersions) ? found.supportedVersions : [];
      const version = STATELESS_VERSIONS.find((v) => versions.includes(v));
      if (version !== undefined) {
        const meta = isObject(found._meta) ? found._meta : {};
        const serverInfo = meta["io.modelcontextprotocol/serverInfo"];
        return {
          era: "stateless",
          protocolVersion: version,
          capabilities: isObject(found.capabilities) ? found.capabilities : {},
          serverInfo: isObject(serverInfo) ? serverInfo : undefined,
          instructions: typeof found.instructions === "string" ? found.instructions : undefined,
        };
      }
    } catch (error) {
      if (signal.aborted || !legacyAnswer(error, probe, link.kind === "http")) throw error;
    }
    return await initialize(on, signal);
  }

  /** The 2025 handshake, at the newest version both speak. */
  async function initialize(on: Link, signal: AbortSignal): Promise<UpstreamServer> {
    const initialized = await exchange(on, "initialize", {
      protocolVersion: SESSION_VERSIONS[0],
      capabilities: SESSION_CAPABILITIES,
      clientInfo: { name: SERVER_INFO.name, version: SERVER_INFO.version },
    }, { signal });
    const version = initialized.protocolVersion;
    if (typeof version !== "string" || !SESSION_VERSIONS.includes(version)) {
      throw new UpstreamError(
        "transport",
        `${what} speaks protocol version ${JSON.stringify(version)}, which toolshed does not (${
          [...STATELESS_VERSIONS, ...SESSION_VERSIONS].join(", ")
        })`,
      );
    }
    on.established({ era: "session", protocolVersion: version });
    await on.send({ jsonrpc: "2.0", method: "notifications/initialized" }, signal);
    return {
      era: "session",
      protocolVersion: version,
      capabilities: isObject(initialized.capabilities) ? initialized.capabilities : {},
      serverInfo: isObject(initialized.serverInfo) ? initialized.serverInfo : undefined,
      instructions: typeof initialized.instructions === "string"
        ? initialized.instructions
        : undefined,
    };
  }

  async function attempt(): Promise<Connection> {
    state = "connecting";
    let opened: Link | undefined;
    try {
      opened = open();
      const server = await handshake(opened, AbortSignal.timeout(HANDSHAKE_MS));
      if (server.era === "stateless") opened.established(server);
      if (closed) throw new UpstreamError("down", `${what} was closed`);
      connection = { link: opened, server, since: Date.now() };
      state = "up";
      lastError = undefined;
      inform(diagnostics, `Connected to ${what} (${server.protocolVersion})`);
      if (connectedBefore) { for (const [, , method] of LISTS) tell(method, {}); }
      connectedBefore = true;
      listenEnded = false;
      keepListening(connection);
      return connection;
    } catch (error) {
      const reason = error instanceof UpstreamError ? error.message : messageOf(error);
      await opened?.close();
      if (!closed) failed(`the handshake failed: ${reason}`);
      throw new UpstreamError("down", `Cannot connect to ${what}: ${reason}`);
    } finally {
      connecting = undefined;
    }
  }

  function connectionNow(signal: AbortSignal | undefined): Promise<Connection> {
    if (closed) return Promise.reject(new UpstreamError("down", `${what} was closed`));
    if (connection !== undefined) return Promise.resolve(connection);
    if (connecting === undefined) {
      const wait = nextTryAt - Date.now();
      if (state === "down" && wait > 0) {
        return Promise.reject(
          new UpstreamError(
            "down",
            `${what} is down (${lastError}); the next try is at ${
              new Date(nextTryAt).toISOString()
            }, in ${wait} ms`,
          ),
        );
      }
      connecting = attempt();
      connecting.catch(() => {});
    }
    return signal === undefined ? connecting : raceAbort(connecting, signal, what);
  }

  async function request(
    method: string,
    params: JsonObject,
    hooks: CallHooks,
  ): Promise<JsonObject> {
    for (let tries = 0;; tries++) {
      const current = await connectionNow(hooks.signal);
      const progressToken = hooks.progress === undefined ? undefined : `toolshed-${nextId}`;
      const meta: JsonObject = {};
      for (const source of [params._meta, hooks.meta]) {
        if (!isObject(source)) continue;
        for (const [key, value] of Object.entries(source)) {
          if (key !== "progressToken" && !PROTOCOL_OWNED.test(key)) meta[key] = value;
        }
      }
      if (current.server.era === "stateless") {
        Object.assign(meta, statelessMeta(hooks.clientCapabilities));
      }
      if (progressToken !== undefined) meta.progressToken = progressToken;
      const sent = { ...params };
      if (Object.keys(meta).length > 0) sent._meta = meta;
      else delete sent._meta;
      try {
        return await exchange(current.link, method, sent, hooks, progressToken);
      } catch (error) {
        // A 2025 session the upstream lost: initialize again, once, and send the call again.
        if (!(error instanceof UpstreamError) || !error.sessionLost || tries > 0) throw error;
        if (connection === current) {
          connection = undefined;
          current.link.reset();
          const link = current.link;
          connecting = (async () => {
            try {
              const server = await handshake(link, AbortSignal.timeout(HANDSHAKE_MS), "session");
              connection = { link, server, since: Date.now() };
              return connection;
            } catch (error) {
              lost(link, `initializing again failed: ${messageOf(error)}`);
              throw error;
            } finally {
              connecting = undefined;
            }
          })();
          connecting.catch(() => {});
        }
      }
    }
  }

  return {
    connect: async (signal) => (await connectionNow(signal)).server,
    request,
    onNotification(listener) {
      listeners.add(listener);
      if (connection !== undefined) keepListening(connection);
      return () => listeners.delete(listener);
    },
    status: () => (lastError === undefined ? { state } : { state, error: lastError }),
    async close() {
      if (closed) return;
      closed = true;
      state = "down";
      lastError = "closed";
      listening?.abort();
      const current = connection ?? await connecting?.catch(() => undefined);
      connection = undefined;
      for (const call of [...pending.values()]) {
        settle(call);
        call.reject(new UpstreamError("down", `${what} was closed`));
      }
      await current?.link.close();
    },
  };
}

/**
 * Whether the probe's failure says "a 2025-era server": a JSON-RPC error, silence until the
 * probe's own deadline (stdio), or an HTTP error status without one (a 2025 server's 400). A
 * child that exited says nothing of the era.
 */
function legacyAnswer(error: unknown, probe: AbortSignal, http: boolean): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.kind === "rpc") return true;
  if (error.kind === "cancelled") return probe.aborted;
  return http && error.kind === "transport";
}

/** `promise`, or an UpstreamError ("cancelled") once `signal` aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  const cancelled = () => new UpstreamError("cancelled", `Waiting for ${what} was cancelled`);
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(cancelled());
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
