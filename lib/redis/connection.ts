// The connection to Redis that instances share state through (--redis URL; adr/0016): one
// client for commands and one for subscriptions, from node-redis (npm `@redis/client`, no
// dependencies of its own), imported only when Redis is configured: a server without it
// never loads the client (~300 ms and ~50 MB of RSS, measured in adr/0016). Every command
// fails at once while the connection is down instead of queueing, and a connection that
// cannot be made gives up after a few tries with a message naming the URL.
import type { RedisClientType } from "npm:@redis/client@6.3.1";
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";

export type RedisClient = RedisClientType;

export interface RedisLink {
  /** For commands. */
  readonly client: RedisClient;
  /** For subscriptions only (a subscribed connection takes no other command). */
  readonly subscriber: RedisClient;
  /** Keys this deployment's state lives under: `<prefix>:…`. */
  readonly prefix: string;
  close(): Promise<void>;
}

/** Tries to connect (or reconnect) this many times before giving up. */
const MAX_RETRIES = 5;
const COMMAND_TIMEOUT_MS = 2_000;

/** Connects both clients; rejects with a sentence naming the URL when Redis cannot be reached. */
export async function connectRedis(
  url: string,
  diagnostics: Diagnostics,
  prefix = "toolshed",
): Promise<RedisLink> {
  const { createClient } = await import("npm:@redis/client@6.3.1");
  const shown = redacted(url);
  const make = (name: string) => {
    const client = createClient({
      url,
      name: `toolshed-${name}`,
      disableOfflineQueue: true,
      commandOptions: { timeout: COMMAND_TIMEOUT_MS },
      socket: {
        connectTimeout: COMMAND_TIMEOUT_MS,
        reconnectStrategy: (retries: number, cause: Error) =>
          retries >= MAX_RETRIES
            ? new Error(`Redis at ${shown} is unreachable after ${retries} tries: ${cause.message}`)
            : Math.min(100 * 2 ** retries, 2_000),
      },
    }) as unknown as RedisClient;
    // Without a listener a dropped connection is never reconnected; with it, each drop is
    // said once on stderr and commands fail until Redis is back.
    let down = false;
    client.on("error", (error: unknown) => {
      if (!down) diagnostics.error(`Redis (${name}) at ${shown}: ${messageOf(error)}`);
      down = true;
    });
    client.on("ready", () => down = false);
    return client;
  };
  const client = make("commands");
  const subscriber = make("events");
  try {
    await client.connect();
    await subscriber.connect();
  } catch (error) {
    await Promise.allSettled([client.destroy(), subscriber.destroy()]);
    throw new Error(`Cannot connect to Redis at ${shown}: ${messageOf(error)}`);
  }
  return {
    client,
    subscriber,
    prefix,
    async close() {
      await Promise.allSettled([subscriber.close(), client.close()]);
    },
  };
}

/** The URL without its password, for messages. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.href;
  } catch {
    return "(an invalid URL)";
  }
}
