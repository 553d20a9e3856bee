// Where tasks are kept (the tasks extension, adr/0016): what `tasks/get` shows of each, by id,
// until it expires. An interface, so that instances behind a load balancer can share one
// store; the default keeps them in this process's memory, bounded.
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

export interface TaskStore {
  /** Stores `record` (new or changed); resolves once a `get` anywhere would see it. */
  put(record: TaskRecord): Promise<void>;
  /** The task, or undefined when there is none by that id or it has expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
}

/** Tasks one process keeps at most; the oldest are forgotten first. */
export const MAX_STORED_TASKS = 10_000;

export const isTerminal = (status: TaskStatus) =>
  status === "completed" || status === "failed" || status === "cancelled";

/** A store in this process's memory: at most `max` tasks, each until its ttl is over. */
export function createMemoryTaskStore(
  max = MAX_STORED_TASKS,
  now: () => number = Date.now,
): TaskStore {
  /** By id, in creation order (a Map keeps insertion order: the oldest come first). */
  const tasks = new Map<string, { record: TaskRecord; expiresAt: number }>();
  const expired = (entry: { expiresAt: number }) => entry.expiresAt <= now();
  return {
    put(record) {
      const entry = tasks.get(record.taskId);
      if (entry) entry.record = record;
      else {
        const expiresAt = Date.parse(record.createdAt) + record.ttlMs;
        tasks.set(record.taskId, { record, expiresAt });
        // Forget what has expired, then the oldest beyond the bound.
        for (const [id, old] of tasks) {
          if (!expired(old) && tasks.size <= max) break;
          tasks.delete(id);
        }
      }
      return Promise.resolve();
    },
    get(taskId) {
      const entry = tasks.get(taskId);
      if (entry && expired(entry)) tasks.delete(taskId);
      return Promise.resolve(entry && !expired(entry) ? entry.record : undefined);
    },
  };
}
