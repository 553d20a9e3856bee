// Where tasks are kept (the tasks extension, adr/0016): what `tasks/get` shows of each, by id,
// until it expires, and which instance runs it. An interface, so that instances behind a load
// balancer share one store (lib/redis/task_store.ts); the default keeps them in this
// process's memory, bounded by count and by bytes (adr/0022).
import type { JsonObject } from "../util/json.ts";
import type { InputRequest } from "../primitives/input_required.ts";
import { internalError } from "../wire/errors.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as `tasks/get` shows it (without `resultType`). */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long after its creation the task is kept. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** While `input_required`: the questions not answered yet, by key. */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** Once `completed`: the whole CallToolResult (a tool error too). */
  readonly result?: JsonObject;
  /** Once `failed`: the JSON-RPC error. */
  readonly error?: JsonObject;
}

/** A task as stored: its record, and which instance runs it for how long yet. */
export interface StoredTask {
  readonly record: TaskRecord;
  /** The instance running it (its handler, its waiting questions). */
  readonly owner: string;
  /** Until when (ms since the epoch) the owner vouches for it; renewed while it runs. */
  readonly leaseUntil: number;
  /**
   * Whose it is, when its caller was verified (methods/caller.ts): only that caller may get,
   * update, cancel or follow it.
   */
  readonly caller?: string;
}

export interface TaskStore {
  /**
   * Stores a task, new or changed, unless the one stored has finished (a finished task never
   * changes again); resolves once a `get` anywhere would see it.
   */
  put(task: StoredTask): Promise<void>;
  /** The task, or undefined when there is none by that id or it has expired. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /** True for a store in this process's memory, which no other instance reads. */
  readonly local?: boolean;
  /** The bytes finished tasks may take in it (default MAX_FINISHED_TASK_BYTES). */
  readonly maxFinishedBytes?: number;
  /**
   * Undefined while the store can be used; else why not, as a sentence (its calls fail at
   * once meanwhile). A store in memory is always usable.
   */
  unavailable?(): string | undefined;
  /**
   * Runs `listener` each time the store is usable again after an outage, in which it may have
   * lost what it held; returns how to stop.
   */
  onRestored?(listener: () => unknown): () => void;
}

/** Tasks one process keeps at most (in Redis: finished tasks); the oldest are forgotten first. */
export const MAX_STORED_TASKS = 10_000;
/**
 * The bytes (of their JSON, UTF-8) that finished tasks may take in one store: one process's
 * memory, or one Redis. Past it the oldest finished are forgotten first.
 */
export const MAX_FINISHED_TASK_BYTES = 64 * 1024 * 1024;

export const isTerminal = (status: TaskStatus) =>
  status === "completed" || status === "failed" || status === "cancelled";

/** When a task is forgotten: its ttl after its creation. */
export const expiryOf = (record: TaskRecord) => Date.parse(record.createdAt) + record.ttlMs;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The bytes of a value's JSON in UTF-8 (what Redis keeps of it). */
export const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/**
 * The record a store keeps of a finished task: the task itself, or, when its JSON is longer
 * than `maxBytes`, the task `failed` with an error that says so and no result. (The listens
 * following the task on the instance that ran it are still told the whole result.)
 */
export function keptRecord(record: TaskRecord, maxBytes: number): TaskRecord {
  if (!isTerminal(record.status)) return record;
  const bytes = jsonBytes(record);
  if (bytes <= maxBytes) return record;
  const { result: _, error: __, statusMessage: ___, inputRequests: ____, ...base } = record;
  const error = internalError(
    `the finished task takes ${bytes} bytes, more than the ${maxBytes} bytes a finished task ` +
      "may keep, so its result was not kept",
  );
  return { ...base, status: "failed", statusMessage: error.message, error: { ...error } };
}

/** What the memory store holds of a task: a running one as it is, a finished one as JSON. */
interface Kept {
  readonly owner: string;
  readonly caller?: string;
  readonly leaseUntil: number;
  readonly expiry: number;
  readonly running?: TaskRecord;
  /** The finished record's JSON, in UTF-8: what it costs is what is counted. */
  readonly finished?: Uint8Array;
}

/**
 * A store in this process's memory: at most `max` tasks, each until its ttl is over, and
 * finished ones within `maxFinishedBytes` (the oldest finished are forgotten first; the last
 * to finish is always kept).
 */
export function createMemoryTaskStore(
  max = MAX_STORED_TASKS,
  now: () => number = Date.now,
  maxFinishedBytes = MAX_FINISHED_TASK_BYTES,
): TaskStore {
  /** By id, in creation order (a Map keeps insertion order: the oldest come first). */
  const tasks = new Map<string, Kept>();
  /** The bytes of each finished task, by id, in the order they finished. */
  const finished = new Map<string, number>();
  let finishedBytes = 0;
  const forget = (taskId: string) => {
    tasks.delete(taskId);
    finishedBytes -= finished.get(taskId) ?? 0;
    finished.delete(taskId);
  };
  return {
    local: true,
    maxFinishedBytes,
    put({ record, owner, leaseUntil, caller }) {
      const { taskId } = record;
      const stored = tasks.get(taskId);
      if (stored?.finished !== undefined) return Promise.resolve();
      const expiry = expiryOf(record);
      if (isTerminal(record.status)) {
        const json = encoder.encode(JSON.stringify(record));
        tasks.set(taskId, { owner, caller, leaseUntil, expiry, finished: json });
        finished.set(taskId, json.length);
        finishedBytes += json.length;
        for (const old of finished.keys()) {
          if (finishedBytes <= maxFinishedBytes || old === taskId) break;
          forget(old);
        }
      } else tasks.set(taskId, { owner, caller, leaseUntil, expiry, running: record });
      if (stored === undefined) {
        // Forget what has expired, then the oldest beyond the bound.
        for (const [id, old] of tasks) {
          if (old.expiry > now() && tasks.size <= max) break;
          forget(id);
        }
      }
      return Promise.resolve();
    },
    get(taskId) {
      const kept = tasks.get(taskId);
      if (kept === undefined) return Promise.resolve(undefined);
      if (kept.expiry <= now()) {
        forget(taskId);
        return Promise.resolve(undefined);
      }
      const record = kept.finished === undefined
        ? kept.running!
        : JSON.parse(decoder.decode(kept.finished)) as TaskRecord;
      return Promise.resolve({
        record,
        owner: kept.owner,
        leaseUntil: kept.leaseUntil,
        caller: kept.caller,
      });
    },
  };
}
