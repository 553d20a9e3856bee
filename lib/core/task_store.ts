// Where tasks are kept (the tasks extension, adr/0016): what `tasks/get` shows of each, by id,
// until it expires, and which instance runs it. An interface, so that instances behind a load
// balancer share one store (lib/redis/task_store.ts); the default keeps them in this
// process's memory, bounded.
import type { JsonObject } from "../util/json.ts";
import type { InputRequest } from "../primitives/input_required.ts";

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
}

/** Tasks one process keeps at most; the oldest are forgotten first. */
export const MAX_STORED_TASKS = 10_000;

export const isTerminal = (status: TaskStatus) =>
  status === "completed" || status === "failed" || status === "cancelled";

/** When a task is forgotten: its ttl after its creation. */
export const expiryOf = (record: TaskRecord) => Date.parse(record.createdAt) + record.ttlMs;

/** A store in this process's memory: at most `max` tasks, each until its ttl is over. */
export function createMemoryTaskStore(
  max = MAX_STORED_TASKS,
  now: () => number = Date.now,
): TaskStore {
  /** By id, in creation order (a Map keeps insertion order: the oldest come first). */
  const tasks = new Map<string, StoredTask>();
  const expired = (task: StoredTask) => expiryOf(task.record) <= now();
  return {
    local: true,
    put(task) {
      const stored = tasks.get(task.record.taskId);
      if (stored === undefined) {
        tasks.set(task.record.taskId, task);
        // Forget what has expired, then the oldest beyond the bound.
        for (const [id, old] of tasks) {
          if (!expired(old) && tasks.size <= max) break;
          tasks.delete(id);
        }
      } else if (!isTerminal(stored.record.status)) tasks.set(task.record.taskId, task);
      return Promise.resolve();
    },
    get(taskId) {
      const task = tasks.get(taskId);
      if (task && expired(task)) tasks.delete(taskId);
      return Promise.resolve(task && !expired(task) ? task : undefined);
    },
  };
}
