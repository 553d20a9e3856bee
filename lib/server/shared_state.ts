// The state instances share through Redis (adr/0025's "state shared between instances", adr/0061
// §6): tasks, the requestState keys and the rate-limit buckets. The root imports this module only
// for a server with Redis, and this module imports the Redis modules only then too.
import type { Diagnostics } from "../util/diagnostics.ts";
import type { KeyRing } from "../rounds/key_ring.ts";
import { createTasks, type Tasks } from "../tasks/tasks.ts";
import type { Buckets, LocalBuckets } from "../util/token_buckets.ts";

export interface SharedState {
  readonly tasks: Tasks;
  readonly keyRing: KeyRing | undefined;
  /** Rate-limit buckets in Redis, deciding with `local` while Redis does not answer. */
  rateBuckets(local: LocalBuckets, diagnostics: Diagnostics): Promise<Buckets>;
  health(): string | undefined;
  close(): Promise<void>;
}

/**
 * Tasks kept in Redis at `url` and told between instances through it, and, when no state
 * key is given, the requestState keys too (the Redis modules are imported only here).
 */
export async function sharedState(
  url: string,
  shareKeys: boolean,
  instance: string | undefined,
  diagnostics: Diagnostics,
): Promise<SharedState> {
  const { connectRedis } = await import("../redis/connection.ts");
  const { createRedisTaskStore } = await import("../redis/task_store.ts");
  const { createRedisBus } = await import("../redis/bus.ts");
  const { createRedisKeyRing } = await import("../redis/key_ring.ts");
  const link = await connectRedis(url, diagnostics);
  const bus = await createRedisBus(link, diagnostics);
  return {
    tasks: createTasks(createRedisTaskStore(link), bus, Date.now, instance),
    keyRing: shareKeys ? createRedisKeyRing(link) : undefined,
    async rateBuckets(local, diagnostics) {
      const { createRedisBuckets } = await import("../redis/rate_buckets.ts");
      return createRedisBuckets(link, local, diagnostics);
    },
    health: link.health,
    close: () => link.close(),
  };
}
