// Messages between the instances of one deployment (adr/0016): what one instance must tell
// the others, such as an answer or a cancellation for a task another instance runs. Every
// instance gets every message, its own included. The default is this process alone; several
// instances share one through Redis (lib/redis/bus.ts).
import type { JsonObject } from "../util/json.ts";

export interface Bus {
  /** Sends `message` to every instance; resolves once it is sent. */
  publish(message: JsonObject): Promise<void>;
  /** Calls `handler` with each message from now on; returns how to stop. */
  subscribe(handler: (message: JsonObject) => void): () => void;
}

/** A bus for one process: messages are delivered in a later task of its event loop. */
export function createMemoryBus(): Bus {
  const handlers = new Set<(message: JsonObject) => void>();
  return {
    publish(message) {
      const copy = structuredClone(message); // as a wire would: no shared objects
      setTimeout(() => {
        for (const handler of handlers) handler(copy);
      }, 0);
      return Promise.resolve();
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
}
