// The connection to Redis that instances share state through (--redis URL; adr/0016): one
// client for commands and one for subscriptions, from node-redis (npm `@redis/client`, no
// dependencies of its own), imported only when Redis is configured: a server without it
// never loads the client (~300 ms and ~50 MB of RSS, measured in adr/0016).
//
// Faults (adr/0022) are decided here, in one place: every round trip has a deadline, which
// node-redis's own command timeout is not (it stops counting once a command is written, so a
// Redis that stops answering held every caller for ever). A missed deadline, a dropped
// connection or a failed reconnection makes the link *down*: every command then fails at once
// with a sentence saying so, and the link makes a new pair of connections, with capped
// backoff, for as long as it takes (node-redis never reconnects on its own). Once a new pair
// answers, the link runs what asked to be told (tasks written again, the key ring re-seeded)
// before it says it is healthy.
import type { RedisClientType } from "npm:@redis/client@6.3.1";
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";

type RedisClient = RedisClientType;

export interface RedisLink {
  /** Keys this deployment's state lives under: `<prefix>:…`. */
  readonly prefix: string;
  /**
   * One round trip on the commands connection, within the deadline; rejects at once while
   * Redis is unreachable (and with the sentence that says so, when a connection fails).
   */
  run<T>(command: (client: RedisClient) => Promise<T>): Promise<T>;
  /** Hands `channel`'s messages to `listener`, on this connection and every later one. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Undefined while Redis answers; else why not, as a sentence for clients and probes. */
  health(): string | undefined;
  /**
   * Runs `listener` each time Redis answers again after an outage (maybe empty, after a
   * restart), before the link says it is healthy; returns how to stop.
   */
  onRestored(listener: () => unknown): () => void;
  close(): Promise<void>;
}

interface RedisLinkOptions {
  /** Keys live under `<prefix>:…` (default "toolshed"). */
  prefix?: string;
  /** The longest one round trip may take before Redis counts as unreachable. */
  deadlineMs?: number;
}

/** The longest a round trip may take (a connection: twice this) before Redis is unreachable. */
const REDIS_DEADLINE_MS = 2_000;
/** While Redis answers, it is asked a PING this often, so that a stall is noticed unasked. */
const PROBE_MS = 1_000;
/** Tries at start-up before giving up (later outages are retried for as long as they last). */
const START_TRIES = 5;
/** The backoff between reconnections: doubling from 50 ms up to this. */
const RECONNECT_CAP_MS = 1_000;

const backoff = (attempt: number) => Math.min(50 * 2 ** attempt, RECONNECT_CAP_MS);
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

interface Pair {
  readonly client: RedisClient;
  readonly subscriber: RedisClient;
}

/** Connects both clients; rejects with a sentence naming the URL when Redis cannot be reached. */
export async function connectRedis(
  url: string,
  diagnostics: Diagnostics,
  options: RedisLinkOptions = {},
): Promise<RedisLink> {
  const { createClient, ErrorReply } = await import("npm:@redis/client@6.3.1");
  const shown = redacted(url);
  const deadlineMs = options.deadlineMs ?? REDIS_DEADLINE_MS;
  const channels = new Map<string, (message: string) => void>();
  const restorers = new Set<() => unknown>();
  /** The connections in use; undefined while Redis is unreachable. */
  let current: Pair | undefined;
  /** The pair whose tasks and keys are being written back; not healthy until it is done. */
  let restoring: Pair | undefined;
  let closed = false;
  /** When the outage began (ms since the epoch). */
  let downSince = 0;

  const unreachable = () =>
    new Error(`Redis is unreachable (for ${Math.ceil((Date.now() - downSince) / 1000)} s)`);

  function open(): Promise<Pair> {
    const make = (name: string) =>
      createClient({
        url,
        name: `toolshed-${name}`,
        disableOfflineQueue: true,
        socket: { connectTimeout: deadlineMs, reconnectStrategy: false },
      }) as unknown as RedisClient;
    const pair = { client: make("commands"), subscriber: make("events") };
    // A listener is needed (an unheard "error" throws); only the pair in use matters.
    for (const client of [pair.client, pair.subscriber]) {
      client.on("error", (error: unknown) => lost(pair, messageOf(error)));
      client.on("end", () => lost(pair, "the connection closed"));
    }
    const opening = (async () => {
      await pair.client.connect();
      await pair.subscriber.connect();
      for (const [channel, listener] of channels) {
        await pair.subscriber.subscribe(channel, listener);
      }
      return pair;
    })();
    return within(opening, 2 * deadlineMs, "connecting took longer than").catch((error) => {
      discard(pair);
      throw error;
    });
  }

  /** The pair in use failed: Redis is down until a new pair answers. */
  function lost(pair: Pair, why: string): void {
    if (pair !== current || closed) return;
    current = undefined;
    downSince = Date.now();
    diagnostics.error(
      `Redis at ${shown} is unreachable (${why}): task calls fail until it answers again, ` +
        "and this instance reconnects meanwhile",
    );
    discard(pair); // what waits on it fails now
    reconnect();
  }

  async function reconnect(): Promise<void> {
    for (let attempt = 0; !closed; attempt++) {
      await sleep(backoff(attempt));
      if (closed) return;
      let pair: Pair;
      try {
        pair = await open();
      } catch {
        continue;
      }
      if (closed) return discard(pair);
      current = pair;
      restoring = pair;
      await Promise.allSettled(
        [...restorers].map((restore) =>
          within(Promise.resolve().then(restore), deadlineMs, "restoring took longer than")
        ),
      );
      if (restoring === pair) restoring = undefined;
      if (current === pair) {
        diagnostics.error(
          `Redis at ${shown} answers again, after ${
            ((Date.now() - downSince) / 1000).toFixed(1)
          } s`,
        );
      }
      return;
    }
  }

  function run<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    const pair = current;
    if (closed) return Promise.reject(new Error("the Redis link is closed"));
    if (pair === undefined) return Promise.reject(unreachable());
    const answered = Promise.resolve().then(() => command(pair.client));
    return within(answered, deadlineMs, "it did not answer within").catch((error) => {
      // An error Redis answered is the command's; any other is the connection's.
      if (error instanceof ErrorReply) throw error;
      lost(pair, messageOf(error));
      throw new Error(`Redis is unreachable (${messageOf(error)})`);
    });
  }

  for (let attempt = 0;; attempt++) {
    try {
      current = await open();
      break;
    } catch (error) {
      if (attempt + 1 >= START_TRIES) {
        throw new Error(`Cannot connect to Redis at ${shown}: ${messageOf(error)}`);
      }
      await sleep(backoff(attempt + 2));
    }
  }

  // The probe: a stall with no command under way is noticed too (the timer keeps no process up).
  const probe = setInterval(() => {
    if (current !== undefined && restoring !== current) {
      run((client) => client.ping()).catch(() => {});
    }
  }, PROBE_MS);
  Deno.unrefTimer(probe);

  return {
    prefix: options.prefix ?? "toolshed",
    run,
    async subscribe(channel, listener) {
      channels.set(channel, listener);
      const pair = current;
      if (pair === undefined) return; // the next connection subscribes
      await within(pair.subscriber.subscribe(channel, listener), deadlineMs, "no answer within");
    },
    health: () =>
      current === undefined || restoring === current ? unreachable().message : undefined,
    onRestored(listener) {
      restorers.add(listener);
      return () => restorers.delete(listener);
    },
    async close() {
      closed = true;
      clearInterval(probe);
      const pair = current;
      current = undefined;
      if (pair === undefined) return;
      const closing = Promise.allSettled([pair.subscriber.close(), pair.client.close()]);
      // A Redis that does not answer is not waited for.
      await within(closing, deadlineMs, "closing took longer than").catch(() => discard(pair));
    },
  };
}

/** Destroys both clients: whatever waits on them is rejected. */
function discard(pair: Pair): void {
  for (const client of [pair.client, pair.subscriber]) {
    try {
      client.destroy();
    } catch { /* never opened, or gone already */ }
  }
}

/** `promise`, or a rejection `${what} ${ms} ms` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} ${ms} ms`)), ms);
  });
  promise.catch(() => {}); // a late rejection, after the deadline won, is nobody's
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
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
