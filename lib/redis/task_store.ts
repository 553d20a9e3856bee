// Tasks kept in Redis (adr/0016), so that any instance answers `tasks/get` for a task another
// runs: one key per task, `<prefix>:task:<id>`, holding the stored task as JSON and expiring
// with the task's ttl. A script writes it unless the task stored there has finished, so a
// cancellation made on one instance is never undone by a late write of the instance running
// the task.
//
// Finished tasks are bounded in Redis as in memory (adr/0022), for the whole deployment: the
// script keeps their ids in finishing order (`<prefix>:finished`, a sorted set), their sizes
// (`<prefix>:finished-sizes`) and the total (`<prefix>:finished-bytes`), and deletes the
// oldest finished while the total is over the budget or their count over MAX_STORED_TASKS.
// A task that expired on its own leaves the index when it reaches its front. A finished task
// over a quarter of the budget is written failed, without its result (keptBytes()). This process
// holds nothing of the tasks in Redis: what a `get` reads is parsed for its answer only.
import {
  COLLECTED_JSON_CHARS,
  expiryOf,
  isTerminal,
  keptBytes,
  MAX_FINISHED_TASK_BYTES,
  MAX_STORED_TASKS,
  release,
  type StoredTask,
  type TaskStore,
} from "../tasks/task_store.ts";
import type { RedisLink } from "./connection.ts";
import { allocated } from "../util/collect.ts";
import type { Buffer } from "node:buffer";

const PUT_UNLESS_FINISHED = `
local current = redis.call('GET', KEYS[1])
if current then
  local status = cjson.decode(current).record.status
  if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] ~= '1' then return 1 end
local id, prefix = ARGV[7], ARGV[8]
redis.call('ZADD', KEYS[2], ARGV[4], id)
local before = tonumber(redis.call('HGET', KEYS[3], id) or '0')
redis.call('HSET', KEYS[3], id, #ARGV[1])
local total = redis.call('INCRBY', KEYS[4], #ARGV[1] - before)
local function forget(old)
  redis.call('ZREM', KEYS[2], old)
  total = redis.call('DECRBY', KEYS[4], tonumber(redis.call('HGET', KEYS[3], old) or '0'))
  redis.call('HDEL', KEYS[3], old)
  redis.call('DEL', prefix .. old)
end
for _ = 1, 100 do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if oldest == nil or oldest == id then break end
  if redis.call('EXISTS', prefix .. oldest) == 1 and total <= tonumber(ARGV[5])
    and redis.call('ZCARD', KEYS[2]) <= tonumber(ARGV[6]) then break end
  forget(oldest)
end
return 1`;

export function createRedisTaskStore(
  link: RedisLink,
  now: () => number = Date.now,
  maxFinishedBytes = MAX_FINISHED_TASK_BYTES,
): TaskStore {
  const prefix = `${link.prefix}:task:`;
  const keepAtMost = Math.floor(maxFinishedBytes / 4);
  const index = [
    `${link.prefix}:finished`,
    `${link.prefix}:finished-sizes`,
    `${link.prefix}:finished-bytes`,
  ];
  return {
    maxFinishedBytes,
    async put(task: StoredTask) {
      const ttl = Math.max(1, expiryOf(task.record) - now());
      // As bytes: node-redis writes a Buffer as it is, where a string argument is copied twice
      // more (into the command's text, then into bytes for the socket).
      const bytes = keptBytes(task, keepAtMost);
      await link.run((client) =>
        client.eval(PUT_UNLESS_FINISHED, {
          keys: [`${prefix}${task.record.taskId}`, ...index],
          arguments: [
            bufferOf(bytes),
            String(ttl),
            isTerminal(task.record.status) ? "1" : "0",
            String(now()),
            String(maxFinishedBytes),
            String(MAX_STORED_TASKS),
            task.record.taskId,
            prefix,
          ],
        })
      );
      release(bytes); // written: this process holds nothing of it
    },
    async get(taskId) {
      const text = await link.run((client) => client.get(`${prefix}${taskId}`));
      if (typeof text !== "string") return undefined;
      // Garbage once parsed (util/collect.ts): the reply's bytes, and its text.
      if (text.length > COLLECTED_JSON_CHARS) allocated(2 * text.length);
      return JSON.parse(text) as StoredTask;
    },
    // A reuse window's name (adr/0070): `<prefix>:job-key:<key>`, expiring with the window.
    async nameOnce(key, taskId, ms) {
      const named = `${link.prefix}:job-key:${key}`;
      const set = await link.run((client) =>
        client.set(named, taskId, { condition: "NX", expiration: { type: "PX", value: ms } })
      );
      if (set === "OK") return taskId;
      return await link.run((client) => client.get(named)) ?? taskId;
    },
    async named(key) {
      const id = await link.run((client) => client.get(`${link.prefix}:job-key:${key}`));
      return typeof id === "string" ? id : undefined;
    },
    unavailable: () => link.health(),
    onRestored: (listener) => link.onRestored(listener),
  };
}

/**
 * `bytes` as a Node Buffer, sharing its memory. node:buffer is taken when first needed, not
 * imported: a static `node:` import would load Deno's Node layer at every start of the one-file
 * bundle (build/bundle.ts refuses it, adr/0008), where this module is inlined.
 */
function bufferOf(bytes: Uint8Array): Buffer {
  return process.getBuiltinModule("node:buffer").Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    bytes.length,
  );
}
