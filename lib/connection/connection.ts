// The connection engine (adr/0025): what one connection needs, for every transport. A stdio
// connection is one; so is a 2025-era HTTP session; and one stateless engine takes every
// 2026-07-28 POST. It runs requests through the core within a concurrency limit (slots of its
// own, or shared by many engines), queues the rest in arrival order, finds them by id to cancel
// them, refuses an id already in flight, runs long-lived requests (a listen stream) beside the
// limit, routes the requests the server sends the client (Outbound) to the stream of the
// request that sent them, tells its session what a reload changed, and drains. A transport only
// frames messages and hands them over.
//
// A request's answer goes to the connection's `send` (stdio), or to a reply of its own (an
// HTTP POST, whose stream must end with an answer). Cancelled, a request answers nothing on the
// connection (its client forgot the id); with a reply of its own, a running request still gives
// its answer there, and one cancelled while waiting gives `undefined`.
import { idInUse, internalError } from "../wire/errors.ts";
import type { Notification, Request, Response } from "../wire/extract.ts";
import type { RequestId, RpcError } from "../wire/types.ts";
import { isThenable } from "../util/maybe.ts";
import type { JsonObject } from "../util/json.ts";
import type { Slots } from "../util/slots.ts";
import type { Registry } from "../primitives/registry.ts";
import type { FactBag } from "../methods/facts.ts";
import type { Origin, Outbound, Outcome, Outlet, RequestContext } from "../methods/context.ts";
import type { Session } from "../methods/session.ts";
import type { Core } from "../core/handle.ts";
import { createOutbound } from "./outbound.ts";

/** Long-lived requests one connection may hold open (the TypeScript SDK's cap too). */
export const MAX_LONG_LIVED = 1024;

interface ConnectionOptions {
  readonly core: Core;
  /**
   * The connection's session, shared by its requests (stdio, a 2025-era HTTP session). Without
   * one, requests come from many clients: nothing is keyed by their ids.
   */
  readonly session: Session | undefined;
  /** Where its requests come from (middleware sees it as `transport` and `sessionId`). */
  readonly origin: Origin;
  /**
   * Where answers and what belongs to no request go: stdio's writer; a session's GET stream
   * (when one is open).
   */
  readonly send: (message: JsonObject) => void;
  /** The concurrency limit: slots of its own (stdio) or shared by many engines (HTTP). */
  readonly slots: Slots;
  /** Long-lived requests it may hold open at once (default MAX_LONG_LIVED). */
  readonly maxLongLived?: number;
  /** Bytes of waiting requests past which `waitingBelowBound()` holds the reader back. */
  readonly waitingBoundBytes?: number;
  /** When what is served can change: the session is told of each change, as the core words it. */
  readonly registry?: Registry;
}

/** What one request brings besides itself (an HTTP POST: its stream and its answer). */
interface RequestOptions {
  /** Its size, counted while it waits for a slot. */
  readonly bytes?: number;
  /**
   * Its own way back, for its notifications and the requests sent on its behalf; default: the
   * connection's. `outbound` defaults to the connection's.
   */
  readonly outlet?: Partial<Outlet> & Pick<Outlet, "notify">;
  /**
   * Its own answer, given once: the response, or `undefined` when it ends without one (cancelled
   * or dropped while it waited), with the context it ran in (its `outcome`), if it ran.
   * Default: the connection's `send`, and nothing once cancelled.
   */
  readonly reply?: (response: JsonObject | undefined, ctx: RequestContext | undefined) => void;
  /** The core has it and its answer comes later (an HTTP answer then sends its headers). */
  readonly onPending?: () => void;
  /** What the transport learnt of it (RequestContext.facts): kept as given, not copied. */
  readonly facts?: FactBag;
}

/** A request taken by the engine. */
export interface Flight {
  readonly controller: AbortController;
  /** Its way back is gone (its client closed the stream): what it sends goes to the connection. */
  detach(): void;
}

export interface Connection {
  readonly session: Session | undefined;
  /** The requests the server sends this connection's client, answered by id. */
  readonly outbound: Outbound;
  /** Runs a request now, queues it for a slot, or answers it at once (an id in use, a cap). */
  request(request: Request, options?: RequestOptions): Flight;
  /** A client notification: `notifications/cancelled` cancels by id; others are ignored. */
  notification(message: Notification): void;
  /** A client's response to a request the server sent; false when nothing awaits it. */
  response(message: Response): boolean;
  /** Forgets a request (running or waiting) by id; running, it is aborted. */
  cancel(id: RequestId, reason: string): void;
  /** Aborts every running request's signal; they answer as soon as their handlers see it. */
  abortRunning(reason: string): void;
  /** Answers every waiting request with `error` instead of running it. */
  answerWaiting(error: RpcError): void;
  /** Drops waiting requests without an answer (when nothing can be written any more). */
  dropWaiting(): void;
  /**
   * Asks every long-lived request for its graceful answer; resolves once all are answered, or
   * gives undefined when there are none.
   */
  closeLongLived(): Promise<void> | undefined;
  /** True while an ordinary request is running or waiting. */
  busy(): boolean;
  /** Resolves when no ordinary request is running or waiting. */
  idle(): Promise<void>;
  /** Resolves when waiting requests hold at most the byte bound (at once when they do). */
  waitingBelowBound(): Promise<void>;
  /** Requests taken and not yet answered, long-lived ones included. */
  size(): number;
  /**
   * Requests running now (long-lived ones included; a synchronous one is over before anyone
   * could look) and requests waiting for a slot: the gauges of --metrics.
   */
  load(): { running: number; waiting: number };
  /**
   * Ends the connection: what it awaits from the client is rejected, and it hears of no more
   * changes; with `abort`, its requests are aborted and the waiting ones end without running.
   */
  close(reason: string, abort?: boolean): void;
}

/** The engine's bookkeeping of one request; it *is* the request's context. */
interface Entry extends RequestContext, Flight {
  readonly bytes: number;
  state: "waiting" | "running" | "done";
  cancelled: boolean;
  /** Long-lived only: fired to ask for the graceful answer. */
  readonly closer: AbortController | undefined;
  readonly reply: RequestOptions["reply"];
  readonly onPending: (() => void) | undefined;
  /** Where the requests it sends the client go; undefined: the connection's `send`. */
  route: ((message: JsonObject) => void) | undefined;
}

export function createConnection(options: ConnectionOptions): Connection {
  const { core, slots, send } = options;
  const maxLongLived = options.maxLongLived ?? MAX_LONG_LIVED;
  const waitingBound = options.waitingBoundBytes ?? Infinity;
  /** Requests running (answered later) or waiting; a synchronous one never enters. */
  const live = new Set<Entry>();
  /** The same, by id, where ids are one client's (a session). */
  const byId = options.session === undefined ? undefined : new Map<RequestId, Entry>();
  const longLived = new Set<Entry>();
  let running = 0;
  let waiting = 0;
  let waitingBytes = 0;
  let idleWaiters: (() => void)[] = [];
  let boundWaiters: (() => void)[] = [];
  let longLivedWaiters: (() => void)[] = [];

  // A request the server sends goes on the stream of the request it is for, while that stream
  // is there; else on the connection's.
  const outbound = createOutbound((message, signal) => {
    for (const entry of live) {
      if (entry.controller.signal === signal) return (entry.route ?? send)(message);
    }
    send(message);
  });
  const session = options.session;
  // Without a session (2026-07-28), the server sends no requests: there is no way back.
  const connectionOutlet: Outlet = { notify: send, outbound: session && outbound };
  const unwatch = session === undefined ? undefined : options.registry?.onChange(
    (next, previous) => {
      for (const notice of core.changeNotices(previous, next, session)) send(notice);
    },
  );

  function wake(): void {
    if (waitingBytes <= waitingBound && boundWaiters.length > 0) {
      const ready = boundWaiters;
      boundWaiters = [];
      for (const resolve of ready) resolve();
    }
    if (running === 0 && waiting === 0 && idleWaiters.length > 0) {
      const ready = idleWaiters;
      idleWaiters = [];
      for (const resolve of ready) resolve();
    }
    if (longLived.size === 0 && longLivedWaiters.length > 0) {
      const ready = longLivedWaiters;
      longLivedWaiters = [];
      for (const resolve of ready) resolve();
    }
  }

  function enter(entry: Entry): void {
    live.add(entry);
    byId?.set(entry.request.id, entry);
  }

  function leave(entry: Entry): void {
    live.delete(entry);
    if (byId?.get(entry.request.id) === entry) byId.delete(entry.request.id);
  }

  /** The answer, to the request's own reply, or to the connection unless it was cancelled. */
  function deliver(entry: Entry, response: JsonObject | undefined): void {
    entry.state = "done";
    if (entry.reply !== undefined) entry.reply(response, entry);
    else if (response !== undefined && !entry.cancelled) send(response);
  }

  /** Runs a request that holds a slot (`release`), or a long-lived one (no slot). */
  function run(entry: Entry, release: (() => void) | undefined): void {
    entry.state = "running";
    const outcome = core.handle(entry);
    // Answered at once (a synchronous tool): nothing to track, nothing to cancel.
    if (!isThenable(outcome)) {
      release?.();
      if (live.has(entry)) leave(entry);
      if (entry.closer !== undefined) longLived.delete(entry);
      deliver(entry, outcome);
      return wake();
    }
    if (!live.has(entry)) enter(entry);
    if (release !== undefined) running++;
    if (entry.onPending !== undefined) {
      // A decision under way (a rate limit in Redis): a refusal must still get its own status.
      const outcome = entry.outcome;
      if (outcome === undefined) entry.onPending();
      else if (isThenable(outcome)) {
        (outcome as Promise<Outcome | undefined>).then((decided) => {
          if (decided === undefined && entry.state === "running") entry.onPending!();
        });
      }
    }
    (outcome as Promise<JsonObject>).then((response) => {
      if (release !== undefined) {
        running--;
        release();
      } else longLived.delete(entry);
      leave(entry);
      deliver(entry, response);
      wake();
    });
  }

  /** Waits for a slot; leaves the line without running when aborted or answered meanwhile. */
  function queue(entry: Entry): void {
    if (!live.has(entry)) enter(entry);
    waiting++;
    waitingBytes += entry.bytes;
    /** Leaves the line without running: cancelled, or its connection ended, while it waited. */
    const leaveLine = () => {
      stopWaiting(entry);
      leave(entry);
      deliver(entry, undefined);
      wake();
    };
    slots.acquire(entry.controller.signal).then((release) => {
      if (entry.state !== "waiting") return release(); // answered while the slot came
      // Cancelled as the slot came (a turn before this callback): it does not run either.
      if (entry.controller.signal.aborted) {
        release();
        return leaveLine();
      }
      stopWaiting(entry);
      // Running before anyone hears of it: idle() must not resolve between the two.
      run(entry, release);
      wake();
    }, () => {
      if (entry.state === "waiting") leaveLine();
    });
  }

  function stopWaiting(entry: Entry): void {
    waiting--;
    waitingBytes -= entry.bytes;
  }

  function waitingEntries(): Entry[] {
    return [...live].filter((entry) => entry.state === "waiting");
  }

  function entryOf(request: Request, given: RequestOptions, closer?: AbortController): Entry {
    const own = given.outlet;
    const entry: Entry = {
      request,
      controller: new AbortController(),
      closing: closer?.signal,
      session,
      outlet: own === undefined ? connectionOutlet : {
        notify: own.notify,
        outbound: own.outbound ?? connectionOutlet.outbound,
        closeStream: own.closeStream,
      },
      origin: options.origin,
      facts: given.facts,
      outcome: undefined,
      bytes: given.bytes ?? 0,
      state: "waiting",
      cancelled: false,
      closer,
      reply: given.reply,
      onPending: given.onPending,
      // Only a session's requests send the client anything to route.
      route: session === undefined ? undefined : own?.notify,
      detach() {
        entry.route = undefined;
      },
    };
    return entry;
  }

  /** An answer at once, without running: an id in use, or too many long-lived requests. */
  function refuse(
    given: RequestOptions,
    id: RequestId | null,
    error: RpcError,
  ): Flight {
    const response = { jsonrpc: "2.0", id, error };
    if (given.reply !== undefined) given.reply(response, undefined);
    else send(response);
    return REFUSED;
  }

  function cancel(id: RequestId, reason: string): void {
    const entry = byId?.get(id);
    if (entry === undefined) return; // unknown or finished: cancellation races are normal
    entry.cancelled = true;
    // Forgotten at once: the id is the client's to use again.
    byId!.delete(id);
    if (entry.closer !== undefined) {
      longLived.delete(entry);
      entry.controller.abort(reason);
      return wake();
    }
    // Waiting, it leaves the line (queue() sees the abort); running, its handler sees it.
    entry.controller.abort(reason);
  }

  return {
    session,
    outbound,
    request(request, given = {}) {
      if (byId?.has(request.id)) {
        // Answered with id null: an answer carrying the id would be taken by the client as
        // the answer to the first request, which goes on.
        return refuse(given, null, idInUse(request.id));
      }
      if (core.method(request.method)?.longLived) {
        if (longLived.size >= maxLongLived) {
          return refuse(
            given,
            request.id,
            internalError(`this connection already holds ${maxLongLived} long-lived requests open`),
          );
        }
        const entry = entryOf(request, given, new AbortController());
        longLived.add(entry);
        if (entry.route !== undefined) enter(entry);
        run(entry, undefined);
        return entry;
      }
      const entry = entryOf(request, given);
      // A request with a stream of its own is found from its first turn, for what its handler
      // sends the client before it first waits.
      if (entry.route !== undefined) enter(entry);
      const release = slots.take();
      if (release !== undefined) run(entry, release);
      else queue(entry);
      return entry;
    },
    notification(message) {
      if (message.method !== "notifications/cancelled") return;
      const { requestId, reason } = message.params;
      cancel(
        requestId as RequestId,
        typeof reason === "string" ? reason : "cancelled by the client",
      );
    },
    response: (message) => outbound.settle(message),
    cancel,
    abortRunning(reason) {
      for (const entry of live) {
        if (entry.state === "running") entry.controller.abort(reason);
      }
    },
    answerWaiting(error) {
      for (const entry of waitingEntries()) {
        stopWaiting(entry);
        leave(entry);
        deliver(entry, { jsonrpc: "2.0", id: entry.request.id, error });
        entry.controller.abort(error.message);
      }
      wake();
    },
    dropWaiting() {
      for (const entry of waitingEntries()) {
        stopWaiting(entry);
        leave(entry);
        entry.state = "done";
        entry.controller.abort("dropped");
      }
      wake();
    },
    closeLongLived() {
      if (longLived.size === 0) return undefined;
      for (const entry of longLived) entry.closer!.abort("the server is closing the stream");
      return new Promise((resolve) => longLivedWaiters.push(resolve));
    },
    busy: () => running > 0 || waiting > 0,
    idle() {
      if (running === 0 && waiting === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    waitingBelowBound() {
      if (waitingBytes <= waitingBound) return Promise.resolve();
      return new Promise((resolve) => boundWaiters.push(resolve));
    },
    size: () => live.size,
    load: () => ({ running: running + longLived.size, waiting }),
    close(reason, abort = true) {
      unwatch?.();
      outbound.close(reason);
      if (!abort) return;
      for (const entry of [...live, ...longLived]) entry.controller.abort(reason);
    },
  };
}

/** What `request` gives for a request answered at once without running. */
const REFUSED: Flight = Object.freeze({
  controller: new AbortController(),
  detach() {},
});
