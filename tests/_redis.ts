// Test helper: a real redis-server on a loopback port, without persistence, that a test can
// stall (SIGSTOP), resume, stop and start again on the same port (empty, as a restart leaves
// it). Where redis-server is not installed the Redis tests are ignored with a message, except
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
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined) return;
      running.kill("SIGCONT");
      running.kill("SIGTERM");
      await running.status;
    },
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
