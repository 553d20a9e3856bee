// Requests between arrival and answer: at most `maxConcurrency` run at once, the rest wait
// in arrival order; cancellation finds them by id in either state; shutdown can wait for
// them, abort them, or answer the ones that never started. Long-lived requests (a listen
// stream) run at once beside the others: they hold no slot and no shutdown waits for them.
import { idInUse, internalError } from "../wire/errors.ts";
import type { Request } from "../wire/extract.ts";
import { isThenable } from "../util/maybe.ts";
import type { JsonObject } from "../util/json.ts";
import type { RequestId, RpcError } from "../wire/types.ts";
import type { Origin, Outlet, RequestContext } from "../methods/context.ts";
import type { Core } from "../core/handle.ts";
import type { Session } from "../methods/session.ts";

/** Long-lived requests one connection may hold open (the TypeScript SDK's cap too). */
export const MAX_LONG_LIVED = 1024;

export interface InFlightOptions {
  core: Core;
  /** The connection's session, shared by its requests; undefined for stateless ones. */
  session: Session | undefined;
  outlet: Outlet;
  /** Where its requests come from (middleware sees it as `transport` and `sessionId`). */
  origin: Origin;
  /** Requests that may run at once; more wait their turn. */
  maxConcurrency: number;
  /** Bytes of waiting requests past which `waitingBelowBound()` holds the reader back. */
  waitingBoundBytes: number;
  /** Where answers go (already matched to their ids). */
  send(response: JsonObject): void;
}

export interface InFlight {
  /** Runs a request now, or queues it when `maxConcurrency` requests are running. */
  start(request: Request, bytes: number): void;
  /** Forgets a request (running or waiting); its answer is never sent. */
  cancel(id: RequestId, reason: string): void;
  /** Aborts every running request's signal; they answer as soon as their handlers see it. */
  abortRunning(reason: string): void;
  /** Answers every waiting request with `error` instead of running it. */
  answerWaiting(error: RpcError): void;
  /** Drops waiting requests without an answer (when nothing can be written any more). */
  dropWaiting(): void;
  /**
   * Asks every long-lived request for its graceful answer; resolves once all are answered,
   * or gives undefined when there are none.
   */
  closeLongLived(): Promise<void> | undefined;
  /** True while any ordinary request is running or waiting. */
  busy(): boolean;
  /** Resolves when no ordinary request is running or waiting. */
  idle(): Promise<void>;
  /** Resolves when waiting requests hold at most the bound (at once when they do). */
  waitingBelowBound(): Promise<void>;
}

/** A request's context, and what in-flight bookkeeping needs besides. */
interface Entry extends RequestContext {
  bytes: number;
  /** False while it waits for a slot. */
  started: boolean;
  cancelled: boolean;
  /** Long-lived only: fired to ask for the graceful answer. */
  closer: AbortController | undefined;
}

export function createInFlight(options: InFlightOptions): InFlight {
  const { core, maxConcurrency } = options;
  /** Running (async) and waiting requests by id; a synchronous one is never entered here. */
  const entries = new Map<RequestId, Entry>();
  const waiting: Entry[] = [];
  const longLived = new Set<Entry>();
  let waitingBytes = 0;
  let running = 0;
  let idleWaiters: (() => void)[] = [];
  let boundWaiters: (() => void)[] = [];
  let longLivedWaiters: (() => void)[] = [];

  function wake(): void {
    if (waitingBytes <= options.waitingBoundBytes && boundWaiters.length > 0) {
      const ready = boundWaiters;
      boundWaiters = [];
      for (const resolve of ready) resolve();
    }
    if (running === 0 && waiting.length === 0 && idleWaiters.length > 0) {
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

  function entryOf(request: Request, bytes: number, closer?: AbortController): Entry {
    return {
      request,
      controller: new AbortController(),
      closing: closer?.signal,
      session: options.session,
      outlet: options.outlet,
      origin: options.origin,
      bytes,
      started: false,
      cancelled: false,
      closer,
    };
  }

  function run(entry: Entry): void {
    entry.started = true;
    const outcome = core.handle(entry);
    // Answered at once (a synchronous tool): nothing to track, nothing to cancel.
    if (!isThenable(outcome)) return options.send(outcome);
    entries.set(entry.request.id, entry);
    running++;
    (outcome as Promise<JsonObject>).then((response) => {
      running--;
      if (entries.get(entry.request.id) === entry) entries.delete(entry.request.id);
      if (!entry.cancelled) options.send(response);
      startWaiting();
      wake();
    });
  }

  function runLongLived(entry: Entry): void {
    entry.started = true;
    const outcome = core.handle(entry);
    if (!isThenable(outcome)) return options.send(outcome);
    entries.set(entry.request.id, entry);
    longLived.add(entry);
    (outcome as Promise<JsonObject>).then((response) => {
      longLived.delete(entry);
      if (entries.get(entry.request.id) === entry) entries.delete(entry.request.id);
      if (!entry.cancelled) options.send(response);
      wake();
    });
  }

  function startWaiting(): void {
    while (running < maxConcurrency && waiting.length > 0) {
      const entry = waiting.shift()!;
      waitingBytes -= entry.bytes;
      entries.delete(entry.request.id);
      run(entry);
    }
  }

  return {
    start(request, bytes) {
      if (entries.has(request.id)) {
        // Answered with id null: an answer carrying the id would be taken by the client as
        // the answer to the first request, which goes on.
        options.send({ jsonrpc: "2.0", id: null, error: idInUse(request.id) });
        return;
      }
      if (core.method(request.method)?.longLived) {
        if (longLived.size >= MAX_LONG_LIVED) {
          options.send({
            jsonrpc: "2.0",
            id: request.id,
            error: internalError(
              `this connection already holds ${MAX_LONG_LIVED} long-lived requests open`,
            ),
          });
          return;
        }
        return runLongLived(entryOf(request, bytes, new AbortController()));
      }
      const entry = entryOf(request, bytes);
      if (running < maxConcurrency) return run(entry);
      entries.set(request.id, entry);
      waiting.push(entry);
      waitingBytes += bytes;
    },
    cancel(id, reason) {
      const entry = entries.get(id);
      if (!entry) return; // unknown or finished: cancellation races are normal
      entry.cancelled = true;
      entries.delete(id);
      if (entry.closer) {
        longLived.delete(entry);
        entry.controller.abort(reason);
        return wake();
      }
      if (entry.started) return entry.controller.abort(reason);
      waiting.splice(waiting.indexOf(entry), 1); // it never started: it just leaves the line
      waitingBytes -= entry.bytes;
      wake();
    },
    abortRunning(reason) {
      for (const entry of entries.values()) if (entry.started) entry.controller.abort(reason);
    },
    answerWaiting(error) {
      for (const entry of waiting.splice(0)) {
        entries.delete(entry.request.id);
        options.send({ jsonrpc: "2.0", id: entry.request.id, error });
      }
      waitingBytes = 0;
      wake();
    },
    dropWaiting() {
      for (const entry of waiting.splice(0)) entries.delete(entry.request.id);
      waitingBytes = 0;
      wake();
    },
    closeLongLived() {
      if (longLived.size === 0) return undefined;
      for (const entry of longLived) entry.closer!.abort("the server is closing the stream");
      return new Promise((resolve) => longLivedWaiters.push(resolve));
    },
    busy: () => running > 0 || waiting.length > 0,
    idle() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    waitingBelowBound() {
      if (waitingBytes <= options.waitingBoundBytes) return Promise.resolve();
      return new Promise((resolve) => boundWaiters.push(resolve));
    },
  };
}
