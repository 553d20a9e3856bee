// Where tasks are kept (the tasks extension, adr/0016): what `tasks/get` shows of each, by id,
// until it expires, and which instance runs it. An interface, so that instances behind a load
// balancer share one store (lib/redis/task_store.ts); the default keeps them in this
// process's memory, bounded by count and by the bytes finished ones hold (adr/0022, adr/0060).
import type { JsonObject } from "../util/json.ts";
import type { InputRequest } from "../primitives/input_required.ts";
import { internalError } from "../wire/errors.ts";
import { allocated } from "../util/collect.ts";

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
   * changes again); resolves once a `get` anywhere would see it. A finished task whose JSON
   * is longer than a quarter of `maxFinishedBytes` is kept failed, without its result
   * (keptBytes()).
   */
  put(task: StoredTask): Promise<void>;
  /** The task, or undefined when there is none by that id or it has expired. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Makes `key` name `taskId` for `ms`, unless it names a task already; resolves with the id
   * it names afterwards (a tool's reuse window, adr/0070: the same caller, tool and arguments).
   */
  nameOnce?(key: string, taskId: string, ms: number): Promise<string>;
  /** The task id `key` names, or undefined once its window has passed. */
  named?(key: string): Promise<string | undefined>;
  /** True for a store in this process's memory, which no other instance reads. */
  readonly local?: boolean;
  /** The bytes finished tasks may take in it (default MAX_FINISHED_TASK_BYTES). */
  readonly maxFinishedBytes?: number;
  /** For a store in memory: what the finished tasks it keeps hold in this process now. */
  heldBytes?(): number;
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
 * The bytes finished tasks may take in one store: in one process's memory, all it holds for them
 * (their JSON in UTF-8 and FINISHED_TASK_OVERHEAD_BYTES each); in one Redis, their JSON. Past it
 * the oldest finished are forgotten first.
 */
export const MAX_FINISHED_TASK_BYTES = 64 * 1024 * 1024;
/**
 * What the memory store holds for a finished task besides its JSON: its id, the entries of its
 * two maps, the object and the buffer that keep it (measured: ~410 bytes a task, after a
 * collection, over 10,000 finished tasks).
 */
export const FINISHED_TASK_OVERHEAD_BYTES = 512;

export const isTerminal = (status: TaskStatus) =>
  status === "completed" || status === "failed" || status === "cancelled";

/** When a task is forgotten: its ttl after its creation. */
export const expiryOf = (record: TaskRecord) => Date.parse(record.createdAt) + record.ttlMs;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A code unit beyond ASCII (more than one byte in UTF-8). */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** The bytes of a string in UTF-8 (as TextEncoder makes them), counted without encoding it. */
function utf8Bytes(text: string): number {
  if (!BEYOND_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2; // a pair: four bytes for its two units
      i++;
    } else bytes += 2; // three bytes, a lone surrogate too (U+FFFD)
  }
  return bytes;
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit < 0xe000;

/** The record of a finished task whose JSON costs `bytes`, more than `maxBytes`: failed, saying so. */
function tooLarge(record: TaskRecord, bytes: number, maxBytes: number): TaskRecord {
  const { result: _, error: __, statusMessage: ___, inputRequests: ____, ...base } = record;
  const error = internalError(
    `the finished task takes ${bytes} bytes, more than the ${maxBytes} bytes a finished task ` +
      "may keep, so its result was not kept",
  );
  return { ...base, status: "failed", statusMessage: error.message, error: { ...error } };
}

/**
 * What a store keeps of a task: its JSON in UTF-8, made once, of the task itself or, when it has
 * finished and its JSON is longer than `maxBytes`, of the task `failed` with an error that says
 * so and no result. (The listens following the task on the instance that ran it are still told
 * the whole result.) Bytes, not a string: they live outside V8's heap, which V8 lets grow to
 * several times what it held after its last collection before it collects again (64 MiB of
 * results kept as strings let the heap reach ~300 MB).
 */
export function keptBytes(task: StoredTask, maxBytes: number): Uint8Array<ArrayBuffer> {
  const json = JSON.stringify(task);
  if (!isTerminal(task.record.status)) return encoder.encode(json);
  // Garbage soon, for the collector (util/collect.ts): this JSON, and the result it was made of.
  if (json.length > COLLECTED_JSON_CHARS) allocated(2 * json.length);
  const bytes = utf8Bytes(json);
  if (bytes <= maxBytes) return encoder.encode(json);
  return encoder.encode(
    JSON.stringify({ ...task, record: tooLarge(task.record, bytes, maxBytes) }),
  );
}

/** A task's JSON longer than this is reported to the collector once made or read. */
export const COLLECTED_JSON_CHARS = 16 * 1024;

/** The task `keptBytes()` made. */
export function fromKeptBytes(bytes: Uint8Array): StoredTask {
  const json = decoder.decode(bytes);
  // Garbage once parsed (util/collect.ts); the answer made of it is reported where it is built.
  if (json.length > COLLECTED_JSON_CHARS) allocated(json.length);
  return JSON.parse(json) as StoredTask;
}

/**
 * Frees bytes at once that nothing will read again, rather than at V8's next collection, which
 * comes only once 64 MiB of such buffers are garbage: that much more than a budget meanwhile.
 */
export const release = (bytes: Uint8Array<ArrayBuffer>) => void bytes.buffer.transfer(0);

/** What the memory store holds of a task: a running one as it is, a finished one as JSON. */
interface Kept {
  readonly expiry: number;
  /** While it runs: the task as it was put. */
  readonly running?: StoredTask;
  /** Once finished: keptBytes(), parsed afresh for each `get`. */
  readonly finished?: Uint8Array<ArrayBuffer>;
}

/**
 * A store in this process's memory: at most `max` tasks, each until its ttl is over, and
 * finished ones within `maxFinishedBytes` of what they hold here (their JSON and
 * FINISHED_TASK_OVERHEAD_BYTES each); the oldest finished are forgotten first, and the last to
 * finish is always kept. A finished task over a quarter of the budget is kept failed
 * (keptBytes()).
 */
export function createMemoryTaskStore(
  max = MAX_STORED_TASKS,
  now: () => number = Date.now,
  maxFinishedBytes = MAX_FINISHED_TASK_BYTES,
): TaskStore {
  /** By id, in creation order (a Map keeps insertion order: the oldest come first). */
  const tasks = new Map<string, Kept>();
  /** What each finished task holds, by id, in the order they finished. */
  const finished = new Map<string, number>();
  let finishedBytes = 0;
  const keepAtMost = Math.floor(maxFinishedBytes / 4);
  /** The reuse windows' names, oldest first, bounded as the tasks are. */
  const names = new Map<string, { taskId: string; until: number }>();
  const forget = (taskId: string) => {
    const bytes = tasks.get(taskId)?.finished;
    if (bytes !== undefined) release(bytes);
    tasks.delete(taskId);
    finishedBytes -= finished.get(taskId) ?? 0;
    finished.delete(taskId);
  };
  return {
    local: true,
    maxFinishedBytes,
    heldBytes: () => finishedBytes,
    put(task) {
      const { taskId } = task.record;
      const stored = tasks.get(taskId);
      if (stored?.finished !== undefined) return Promise.resolve();
      const expiry = expiryOf(task.record);
      if (isTerminal(task.record.status)) {
        const bytes = keptBytes(task, keepAtMost);
        const held = bytes.length + FINISHED_TASK_OVERHEAD_BYTES;
        tasks.set(taskId, { expiry, finished: bytes });
        finished.set(taskId, held);
        finishedBytes += held;
        for (const old of finished.keys()) {
          if (finishedBytes <= maxFinishedBytes || old === taskId) break;
          forget(old);
        }
      } else tasks.set(taskId, { expiry, running: task });
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
      return Promise.resolve(kept.running ?? fromKeptBytes(kept.finished!));
    },
    nameOnce(key, taskId, ms) {
      const named = names.get(key);
      if (named !== undefined && named.until > now()) return Promise.resolve(named.taskId);
      names.delete(key); // set again: it becomes the newest
      names.set(key, { taskId, until: now() + ms });
      for (const [old, { until }] of names) {
        if (until > now() && names.size <= max) break;
        names.delete(old);
      }
      return Promise.resolve(taskId);
    },
    named(key) {
      const named = names.get(key);
      if (named === undefined || named.until > now()) return Promise.resolve(named?.taskId);
      names.delete(key);
      return Promise.resolve(undefined);
    },
  };
}
