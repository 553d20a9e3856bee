// Test helper: a real redis-server on a loopback port, without persistence, that a test can
// stall (SIGSTOP), resume, stop or kill and start again on the same port (empty, as a restart
// leaves it); and a loopback proxy in front of it that can hold Redis's replies (a slow Redis)
// and counts the commands sent through it. Where redis-server is not installed the Redis tests are ignored with a message, except
// under CI, where its absence fails them.

async function hasRedisServer(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("redis-server", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

const AVAILABLE = await hasRedisServer();
if (!AVAILABLE && Deno.env.get("CI") === undefined) {
  Deno.stderr.writeSync(new TextEncoder().encode(
    "tests: redis-server is not installed, so the Redis checks are ignored " +
      "(apt-get install redis-server runs them)\n",
  ));
}

/** Whether to run the Redis checks: where redis-server is installed, and always under CI. */
export const RUN_REDIS = AVAILABLE || Deno.env.get("CI") !== undefined;

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGSTOP: the connections stay open and nothing answers. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** SIGTERM, then the exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash), then the exit. */
  kill(): Promise<void>;
  /** A new redis-server on the same port, empty. */
  start(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

/** A redis-server on a free loopback port. */
export async function startRedis(): Promise<RedisServer> {
  const port = freePort();
  let child: Deno.ChildProcess | undefined;
  async function end(signal: Deno.Signal): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined) return;
    running.kill("SIGCONT");
    running.kill(signal);
    await running.status;
  }
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
    async start() {
      child = new Deno.Command("redis-server", {
        args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout: "null",
        stderr: "null",
      }).spawn();
      for (let i = 0; i < 200; i++) {
        try {
          (await Deno.connect({ hostname: "127.0.0.1", port })).close();
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      throw new Error(`redis-server never listened on port ${port}`);
    },
  };
  await server.start();
  return server;
}

/** Polls `read` until `done` holds (at most ~`tries` × 50 ms); the last value. */
export async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  tries = 400,
): Promise<T> {
  let value = await read();
  for (let i = 0; i < tries && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

export interface RedisProxy {
  /** Where clients connect instead of Redis. */
  readonly url: string;
  /** Keeps what Redis answers from now on (a slow Redis); commands still reach it. */
  hold(): void;
  /** Forwards what was held, in order, and whatever comes after. */
  release(): void;
  /** How many times `command` (e.g. "EVALSHA") was sent to Redis through the proxy. */
  sent(command: string): number;
  /** Closes the listener and every connection through it. */
  close(): void;
}

/** A loopback TCP proxy in front of `redis`, one connection to it per client connection. */
export function proxyRedis(redis: RedisServer): RedisProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  /** What each client connection was sent by Redis while held, and how to send it on. */
  const flushes = new Set<() => void>();
  /** Everything clients sent, for counting commands (a test sends little). */
  let written = "";
  let held = false;

  function pass(client: Deno.Conn, server: Deno.Conn): void {
    const decoder = new TextDecoder();
    let writing = Promise.resolve();
    const send = (to: Deno.Conn, chunk: Uint8Array) => {
      writing = writing.then(async () => {
        for (let done = 0; done < chunk.length;) done += await to.write(chunk.subarray(done));
      }).catch(() => shut());
    };
    const shut = () => {
      for (const conn of [client, server]) {
        if (conns.delete(conn)) closeQuietly(conn);
      }
      flushes.delete(flush);
    };
    let kept: Uint8Array[] = [];
    const flush = () => {
      for (const chunk of kept) send(client, chunk);
      kept = [];
    };
    flushes.add(flush);
    (async () => {
      for await (const chunk of client.readable) {
        written += decoder.decode(chunk, { stream: true });
        send(server, chunk);
      }
    })().catch(() => {}).finally(shut);
    (async () => {
      for await (const chunk of server.readable) {
        if (held) kept.push(chunk);
        else send(client, chunk);
      }
    })().catch(() => {}).finally(shut);
  }

  (async () => {
    for await (const client of listener) {
      try {
        const server = await Deno.connect({ hostname: "127.0.0.1", port: redis.port });
        conns.add(client);
        conns.add(server);
        pass(client, server);
      } catch {
        client.close(); // Redis is down: so is the connection through the proxy
      }
    }
  })().catch(() => {});

  return {
    url: `redis://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const flush of flushes) flush();
    },
    sent(command) {
      const bulk = `$${command.length}\r\n${command}\r\n`.toLowerCase();
      return written.toLowerCase().split(bulk).length - 1;
    },
    close() {
      listener.close();
      for (const conn of conns) closeQuietly(conn);
      conns.clear();
      flushes.clear();
    },
  };
}

/** Closes `conn`, which its readable's end may have closed already. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* closed already */ }
}
