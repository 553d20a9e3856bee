// Tasks kept in Redis (adr/0016), so that any instance answers `tasks/get` for a task another
// runs: one key per task, `<prefix>:task:<id>`, holding the stored task as JSON and expiring
// with the task's ttl. A script writes it unless the task stored there has finished, so a
// cancellation made on one instance is never undone by a late write of the instance running
// the task.
import { expiryOf, type StoredTask, type TaskStore } from "../core/task_store.ts";
import type { RedisLink } from "./connection.ts";

const PUT_UNLESS_FINISHED = `
local current = redis.call('GET', KEYS[1])
if current then
  local status = cjson.decode(current).record.status
  if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

export function createRedisTaskStore(link: RedisLink, now: () => number = Date.now): TaskStore {
  const keyOf = (taskId: string) => `${link.prefix}:task:${taskId}`;
  return {
    async put(task) {
      const ttl = Math.max(1, expiryOf(task.record) - now());
      await link.client.eval(PUT_UNLESS_FINISHED, {
        keys: [keyOf(task.record.taskId)],
        arguments: [JSON.stringify(task), String(ttl)],
      });
    },
    async get(taskId) {
      const text = await link.client.get(keyOf(taskId));
      return typeof text === "string" ? JSON.parse(text) as StoredTask : undefined;
    },
  };
}
