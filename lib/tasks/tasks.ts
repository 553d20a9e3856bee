// Tasks on this instance (the io.modelcontextprotocol/tasks extension of 2026-07-28, SEP-2663;
// adr/0016): a task is stored before its creation is answered, then changes as its handler
// runs here: questions it asks make it `input_required` until `tasks/update` answers them,
// its end makes it `completed` (a tool error too) or `failed`, and `tasks/cancel` makes it
// `cancelled` at once and aborts the handler's signal. The store says what `tasks/get` shows.
//
// A store that cannot be reached (adr/0022) fails a task call with -32603 saying so, and
// takes nothing with it: a task whose creation could not be stored is no longer running here.
// Finished tasks whose last write failed are written again once the store is back, with every
// task still running here, so that they are visible again at once.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import type { InputRequest } from "../primitives/input_required.ts";
import type { ClientRequestMethod } from "../primitives/types.ts";
import { internalError, ProtocolError } from "../wire/errors.ts";
import type { RpcError } from "../wire/types.ts";
import type { Bus } from "./bus.ts";
import { idOf, instanceOf } from "../util/instance.ts";
import { firstTimeOf } from "../util/first_time.ts";
import { isAnswerTo } from "../rounds/input_rounds.ts";
import {
  FINISHED_TASK_OVERHEAD_BYTES,
  fromKeptBytes,
  isTerminal,
  keptBytes,
  MAX_FINISHED_TASK_BYTES,
  release,
  type StoredTask,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from "./task_store.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** How long a finished task stays readable beyond the longest its tool may run. */
const TASK_KEEP_MS = 60 * 60 * 1000;
/** How often a client is told to poll `tasks/get`. */
const TASK_POLL_INTERVAL_MS = 500;
/** Tasks one instance runs at once; a call beyond it is refused (-32603). */
export const MAX_RUNNING_TASKS = 256;

/** A task this instance runs: what its handler's context does with it. */
export interface LiveTask {
  readonly taskId: string;
  /** Aborted by `tasks/cancel` (and by the tool's timeout, which the call sets). */
  readonly controller: AbortController;
  /** The task as created: what the `tools/call` answers with. */
  readonly created: TaskRecord;
  /** Asks the client through `tasks/get`: resolves with the answer `tasks/update` brings. */
  ask(method: string, params: JsonObject, key: string | undefined): Promise<JsonObject>;
  /** Progress, as the task's `statusMessage`. */
  progress(message: string): void;
  /** The handler's end: `completed` with the result. */
  complete(result: JsonObject): void;
  /** A fault that is not the tool's: `failed` with the JSON-RPC error. */
  fail(error: RpcError): void;
}

export interface Tasks {
  /**
   * Why another task may not start here now (as many as may run are running, or the store
   * cannot be reached), as a sentence; undefined when one may.
   */
  refusal(): string | undefined;
  /**
   * A new task, stored (`working`) before this resolves. `runMs`: the most its tool runs;
   * `caller`: whose it is (methods/caller.ts), the only caller that may reach it later.
   */
  create(runMs: number, caller?: string): Promise<LiveTask>;
  /**
   * The task as `tasks/get` shows it; one whose instance stopped renewing it has `failed`.
   * Another caller's task is none (undefined), as are the ones below.
   */
  get(taskId: string, caller?: string): Promise<TaskRecord | undefined>;
  /**
   * Gives a task the answers to questions it has outstanding (others are ignored), here or
   * on the instance that runs it; false when there is no such task.
   */
  update(taskId: string, responses: JsonObject, caller?: string): Promise<boolean>;
  /**
   * Makes `key` name the task `taskId` for `ms` unless it names one already (a tool's reuse
   * window, adr/0070); a store that cannot name tasks does nothing.
   */
  name(key: string, taskId: string, ms: number): Promise<void>;
  /** The id of the task `key` names, or undefined. */
  named(key: string): Promise<string | undefined>;
  /** Cancels a task (a finished one stays as it is); false when there is no such task. */
  cancel(taskId: string, caller?: string): Promise<boolean>;
  /**
   * The instance a task id names when it is not this one and tasks live in this process's
   * memory (only that instance knows the task), and whether this is the first time that
   * instance's tasks reached this one. Undefined otherwise.
   */
  elsewhere(taskId: string): { instance: string; first: boolean } | undefined;
  /**
   * Calls `listener` with each task's new state and whose it is, whichever instance changed it
   * (through the bus), for the tasks of `taskIds` (all, without it); returns how to stop. A
   * result another instance made is read from the store only for a listener that follows it.
   */
  onChange(
    listener: (task: TaskRecord, caller: string | undefined) => void,
    taskIds?: ReadonlySet<string>,
  ): () => void;
  /**
   * The tasks running on this instance now, by status (`working`, `input_required`): the gauge
   * of --metrics. Finished tasks live in the store (shared, with Redis), not counted here.
   */
  running(): { working: number; input_required: number };
  /** Stops renewing leases and listening to the bus. */
  close(): void;
  /**
   * At shutdown: waits up to `ms` for the tasks running here to end, then fails the rest
   * ("the server instance running the task shut down", so that readers learn it at once
   * rather than when the lease runs out), stops their handlers, stores that, and closes.
   */
  drain(ms: number): Promise<void>;
}

/** How often a draining instance looks whether its tasks have ended. */
const DRAIN_POLL_MS = 25;

/** How long an instance vouches for a task it runs; it renews a third of the way through. */
const TASK_LEASE_MS = 15_000;
/**
 * For this long after the store is back from an outage, a lease that ran out meanwhile is not
 * taken for an instance that stopped: the instance running the task writes it again as soon as
 * it reconnects too.
 */
const RESTORE_GRACE_MS = 5_000;

/** A fault of the store or the bus, as the call's answer: -32603 saying tasks are unavailable. */
function unavailable(error: unknown): never {
  if (error instanceof ProtocolError) throw error;
  const { code, message } = internalError(`tasks are unavailable: ${messageOf(error)}`);
  throw new ProtocolError(code, message);
}

interface Running {
  record: TaskRecord;
  /** Whose it is (methods/caller.ts). */
  readonly caller: string | undefined;
  controller: AbortController;
  /** The handler's questions waiting for an answer, by key. */
  waiting: Map<string, { request: InputRequest; resolve(answer: JsonObject): void }>;
  /** Every key this task has used: keys are never reused over its lifetime. */
  keys: Set<string>;
}

/**
 * The tasks of this instance. With `instance`, task ids are `<instance>.<uuid>`, so that
 * another instance can tell whose a task is (instance.ts).
 */
export function createTasks(
  store: TaskStore,
  bus: Bus,
  now: () => number = Date.now,
  instance?: string,
): Tasks {
  /** This instance, as the owner of the tasks it runs. */
  const owner = crypto.randomUUID();
  const running = new Map<string, Running>();
  /** Instances whose task ids reached this one (elsewhere()). */
  const firstStray = firstTimeOf();
  const stamp = () => new Date(now()).toISOString();
  const put = (record: TaskRecord, caller: string | undefined) =>
    store.put({ record, owner, leaseUntil: now() + TASK_LEASE_MS, caller });
  const maxFinishedBytes = store.maxFinishedBytes ?? MAX_FINISHED_TASK_BYTES;

  /**
   * Finished tasks whose last write failed, by id, oldest first, kept as a store keeps them
   * (keptBytes()): written once the store is back.
   */
  const unsaved = new Map<string, Uint8Array<ArrayBuffer>>();
  let unsavedBytes = 0;
  const forgetUnsaved = (taskId: string) => {
    const bytes = unsaved.get(taskId);
    if (bytes === undefined) return;
    unsavedBytes -= bytes.length + FINISHED_TASK_OVERHEAD_BYTES;
    unsaved.delete(taskId);
    release(bytes);
  };
  /** Keeps a finished task for later; the oldest go first past the finished tasks' budget. */
  const keepUnsaved = (record: TaskRecord, caller: string | undefined) => {
    const task: StoredTask = { record, owner, leaseUntil: 0, caller };
    const bytes = keptBytes(task, Math.floor(maxFinishedBytes / 4));
    forgetUnsaved(record.taskId);
    unsaved.set(record.taskId, bytes);
    unsavedBytes += bytes.length + FINISHED_TASK_OVERHEAD_BYTES;
    for (const taskId of unsaved.keys()) {
      if (unsavedBytes <= maxFinishedBytes || taskId === record.taskId) break;
      forgetUnsaved(taskId);
    }
  };
  /** When the store was last back from an outage (a lease that ran out meanwhile has grace). */
  let restoredAt = -Infinity;
  const stopRestoring = store.onRestored?.(async () => {
    restoredAt = now();
    const writes = [...running.values()].map((task) => put(task.record, task.caller));
    for (const [taskId, bytes] of unsaved) {
      const { record, caller } = fromKeptBytes(bytes);
      // Its change reached the other instances' listeners while the bus was down too (this
      // instance's were told at once): they hear of it now.
      writes.push(
        put(record, caller).then(() => {
          forgetUnsaved(taskId);
          return tellOthers(record, caller);
        }),
      );
    }
    await Promise.allSettled(writes);
  });

  // While tasks run here, their leases are renewed (the timer never keeps the process up).
  // Started with the first task, not before: Deno loads its timers on their first use (~13 ms
  // at start-up), and most servers run no task.
  let renewal: ReturnType<typeof setInterval> | undefined;
  const renewLeases = () => {
    if (renewal !== undefined) return;
    const timer = setInterval(() => {
      for (const task of running.values()) put(task.record, task.caller).catch(() => {});
    }, TASK_LEASE_MS / 3);
    Deno.unrefTimer(timer);
    renewal = timer;
  };
  // Only a timer that was armed is cleared: naming clearInterval loads Deno's timers as well,
  // which a stdio server whose input ends would pay for on its way out (adr/0051).
  const stopRenewal = () => {
    if (renewal !== undefined) clearInterval(renewal);
    renewal = undefined;
  };

  /** Who listens to changes, and to the changes of which tasks (all: undefined). */
  const listeners = new Map<
    (task: TaskRecord, caller: string | undefined) => void,
    ReadonlySet<string> | undefined
  >();
  const follows = (taskId: string) => {
    for (const taskIds of listeners.values()) if (taskIds?.has(taskId) ?? true) return true;
    return false;
  };
  /** Tells this instance's listeners of a task's new state, as it is here: whole. */
  const tellHere = (record: TaskRecord, caller: string | undefined) => {
    for (const [listener, taskIds] of listeners) {
      if (taskIds?.has(record.taskId) ?? true) listener(record, caller);
    }
  };
  /**
   * Tells the other instances of a task's new state; resolves once it is sent. A result stays
   * out of the message (`stored` says there is one): an instance whose listeners follow the
   * task reads it from the store, and no other parses it (a 16 MiB result was sent to every
   * instance, and copied on each, for each finished task).
   */
  const tellOthers = (record: TaskRecord, caller: string | undefined) => {
    const { result, ...task } = record;
    return bus.publish({
      type: "tasks/changed",
      task: task as unknown as JsonObject,
      except: owner,
      ...(result === undefined ? {} : { stored: true }),
      ...(caller === undefined ? {} : { caller }),
    }).catch(() => {});
  };
  /** Tells every instance's listeners of a task's new state (each change, once). */
  const announce = (record: TaskRecord, caller: string | undefined) => {
    tellHere(record, caller);
    return tellOthers(record, caller);
  };
  let draining: Promise<void> | undefined;

  const stopListening = bus.subscribe((message) => {
    if (message.type === "tasks/changed" && isObject(message.task)) {
      if (message.except === owner) return; // told here already, whole
      const caller = typeof message.caller === "string" ? message.caller : undefined;
      const task = message.task as unknown as TaskRecord;
      if (message.stored !== true) return tellHere(task, caller);
      if (follows(task.taskId)) {
        store.get(task.taskId).then(
          (found) => found && tellHere(found.record, found.caller),
          () => {}, // the store reports its own faults
        );
      }
      return;
    }
    const task = running.get(message.taskId as string);
    if (task === undefined) return; // another instance's, or finished
    if (message.type === "tasks/update" && isObject(message.responses)) {
      answer(task, message.responses);
    } else if (message.type === "tasks/cancel") cancelHere(task);
  });

  /**
   * Stores the task's next state (nothing changes a task once it has finished); the promise
   * settles once it is stored and announced, for a shutdown to wait on (others need not).
   */
  function change(
    task: Running,
    status: TaskStatus,
    fields: Partial<TaskRecord> = {},
  ): Promise<unknown> {
    if (isTerminal(task.record.status)) return Promise.resolve();
    const { inputRequests: _, statusMessage, ...base } = task.record;
    task.record = {
      ...base,
      ...(statusMessage === undefined || isTerminal(status) ? {} : { statusMessage }),
      ...fields,
      status,
      lastUpdatedAt: stamp(),
    };
    if (isTerminal(status)) {
      running.delete(task.record.taskId);
      task.waiting.clear();
    }
    // This instance's listeners hear of it at once, whole (a result too large to keep is kept
    // failed by the store); the others once it is stored, when they must read a result there.
    // The store and the bus report their own faults; a finished task that could not be
    // written is written once the store is back.
    const { record, caller } = task;
    tellHere(record, caller);
    const stored = record.result !== undefined;
    return Promise.all([
      put(record, caller).then(
        () => {
          forgetUnsaved(record.taskId);
          if (stored) return tellOthers(record, caller);
        },
        () => isTerminal(record.status) && keepUnsaved(record, caller),
      ),
      stored ? undefined : tellOthers(record, caller),
    ]);
  }

  /** `input_required` with the questions still waiting, or `working` once none is. */
  function asking(task: Running): void {
    if (task.waiting.size === 0) {
      change(task, "working");
      return;
    }
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, { request }] of task.waiting) inputRequests[key] = request;
    change(task, "input_required", { inputRequests });
  }

  function answer(task: Running, responses: JsonObject): void {
    let answered = false;
    for (const [key, given] of Object.entries(responses)) {
      const question = task.waiting.get(key);
      const method = question?.request.method as ClientRequestMethod | undefined;
      if (question === undefined || !isAnswerTo(method!, given)) continue;
      task.waiting.delete(key);
      question.resolve(given as JsonObject);
      answered = true;
    }
    // Before the acknowledgement: a tasks/get right after it sees the answers taken.
    if (answered) asking(task);
  }

  function cancelHere(task: Running): void {
    change(task, "cancelled", { statusMessage: "Cancelled by the client" });
    task.controller.abort("the client cancelled the task");
  }

  /**
   * The stored task, if it is `caller`'s; one whose owner stopped renewing it is failed, once
   * and for all.
   */
  async function stored(
    taskId: string,
    caller: string | undefined,
  ): Promise<TaskRecord | undefined> {
    const found = await store.get(taskId).catch(unavailable);
    if (found === undefined || found.caller !== caller) return undefined;
    const { record } = found;
    if (
      isTerminal(record.status) || found.leaseUntil >= now() || running.has(taskId) ||
      now() - restoredAt < RESTORE_GRACE_MS
    ) {
      return record;
    }
    const { inputRequests: _, ...base } = record;
    const error = internalError("the server instance running the task stopped");
    const failed: TaskRecord = {
      ...base,
      status: "failed",
      statusMessage: error.message,
      error: { ...error },
      lastUpdatedAt: stamp(),
    };
    await store.put({ ...found, record: failed }).catch(unavailable);
    announce(failed, found.caller);
    return (await store.get(taskId).catch(unavailable))?.record ?? failed;
  }

  return {
    refusal() {
      if (running.size >= MAX_RUNNING_TASKS) {
        return `${MAX_RUNNING_TASKS} tasks are running on this server already; try again later`;
      }
      const why = store.unavailable?.();
      return why === undefined ? undefined : `tasks are unavailable: ${why}`;
    },
    elsewhere(taskId) {
      if (!store.local || instance === undefined) return undefined;
      const named = instanceOf(taskId);
      if (named === undefined || named === instance) return undefined;
      return { instance: named, first: firstStray(named) };
    },
    async create(runMs, caller) {
      const createdAt = stamp();
      const task: Running = {
        record: {
          // Unguessable: 122 random bits.
          taskId: instance === undefined ? crypto.randomUUID() : idOf(instance),
          status: "working",
          createdAt,
          lastUpdatedAt: createdAt,
          ttlMs: runMs + TASK_KEEP_MS,
          pollIntervalMs: TASK_POLL_INTERVAL_MS,
        },
        caller,
        controller: new AbortController(),
        waiting: new Map(),
        keys: new Set(),
      };
      const { taskId } = task.record;
      running.set(taskId, task);
      try {
        await put(task.record, caller);
      } catch (error) {
        running.delete(taskId); // not stored: nothing of it is left here
        unavailable(error);
      }
      renewLeases();
      const created = task.record;
      return {
        taskId,
        controller: task.controller,
        created,
        ask(method, params, given) {
          if (isTerminal(task.record.status)) {
            return Promise.reject(new Error(`task ${taskId} has ended`));
          }
          let key = given ?? `input_${task.keys.size + 1}`;
          for (let n = 2; task.keys.has(key); n++) key = `${given ?? "input"}_${n}`;
          task.keys.add(key);
          return new Promise((resolve) => {
            task.waiting.set(key, { request: { method, params }, resolve });
            asking(task);
          });
        },
        progress(statusMessage) {
          if (!isTerminal(task.record.status)) {
            change(task, task.record.status, {
              statusMessage,
              ...(task.record.inputRequests ? { inputRequests: task.record.inputRequests } : {}),
            });
          }
        },
        complete: (result) => change(task, "completed", { result }),
        fail: (error) =>
          change(task, "failed", { error: { ...error }, statusMessage: error.message }),
      };
    },
    get: stored,
    running() {
      let asking = 0;
      for (const task of running.values()) if (task.record.status === "input_required") asking++;
      return { working: running.size - asking, input_required: asking };
    },
    async update(taskId, responses, caller) {
      const task = running.get(taskId);
      if (task !== undefined) {
        if (task.caller !== caller) return false;
        answer(task, responses);
        return true;
      }
      const record = await stored(taskId, caller);
      if (record === undefined) return false;
      if (!isTerminal(record.status)) {
        await bus.publish({ type: "tasks/update", taskId, responses }).catch(unavailable);
      }
      return true;
    },
    async cancel(taskId, caller) {
      const task = running.get(taskId);
      if (task !== undefined) {
        if (task.caller !== caller) return false;
        cancelHere(task);
        return true;
      }
      const found = await store.get(taskId).catch(unavailable);
      if (found === undefined || found.caller !== caller) return false;
      if (!isTerminal(found.record.status)) {
        // Cancelled at once for every reader; the instance running it stops its handler.
        const { inputRequests: _, ...base } = found.record;
        const record: TaskRecord = {
          ...base,
          status: "cancelled",
          statusMessage: "Cancelled by the client",
          lastUpdatedAt: stamp(),
        };
        await store.put({ ...found, record }).catch(unavailable);
        announce(record, found.caller);
        await bus.publish({ type: "tasks/cancel", taskId }).catch(unavailable);
      }
      return true;
    },
    async name(key, taskId, ms) {
      await store.nameOnce?.(key, taskId, ms);
    },
    async named(key) {
      return await store.named?.(key);
    },
    onChange(listener, taskIds) {
      listeners.set(listener, taskIds);
      return () => listeners.delete(listener);
    },
    close() {
      stopRenewal();
      stopListening();
      stopRestoring?.();
    },
    drain(ms) {
      // Once: a signal's shutdown and the end of input may both ask.
      draining ??= (async () => {
        const deadline = now() + ms;
        while (running.size > 0 && now() < deadline) {
          await new Promise((wake) => setTimeout(wake, Math.min(DRAIN_POLL_MS, deadline - now())));
        }
        const error = internalError("the server instance running the task shut down");
        await Promise.all([...running.values()].map((task) => {
          const stored = change(task, "failed", {
            error: { ...error },
            statusMessage: error.message,
          });
          task.controller.abort(error.message);
          return stored;
        }));
        stopRenewal();
        stopListening();
        stopRestoring?.();
      })();
      return draining;
    },
  };
}
