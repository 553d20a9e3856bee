// What the scale test (tests/scale.ts) and the scale benchmark (bench/scale.ts) share: finding
// or installing redis-server, haproxy and nginx, free loopback ports, child processes whose
// stderr is kept, toolshed instances that restart on their port (in the repository's root, with
// the variables the fixture's mount expands), a redis-server and an HAProxy running
// deploy/haproxy.cfg. Loopback only; every wait is bounded.

export const ROOT = new URL("../../", import.meta.url).pathname;
export const MAIN = `${ROOT}main.ts`;
/**
 * The server directory the instances serve: tests/scale/tools, whose mount upstream.mcp.json
 * starts toolshed serving tests/scale/upstream over stdio.
 */
export const FIXTURE = `${ROOT}tests/scale`;
export const HAPROXY_CFG = `${ROOT}deploy/haproxy.cfg`;
export const NGINX_CONF = `${ROOT}deploy/nginx.conf`;

const encoder = new TextEncoder();

export function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
}
/** A line on stdout. */
export const say = (line: string) => writeAll(Deno.stdout, line + "\n");
/** A line on stderr, prefixed with the program's name. */
export const note = (line: string) =>
  writeAll(Deno.stderr, `${Deno.mainModule.split("/").slice(-2).join("/")}: ${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const message = (error: unknown) => error instanceof Error ? error.message : String(error);

/** Whether `command` runs (whatever its exit code: `wrk -v` exits 1). */
async function runs(command: string, args: string[]): Promise<boolean> {
  try {
    await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** `command` on PATH, installed with apt-get (package `pkg`) when it is not. */
export async function ensure(command: string, versionArgs: string[], pkg: string): Promise<void> {
  if (await runs(command, versionArgs)) return;
  note(`${command} is not on PATH: installing ${pkg} with apt-get`);
  for (const args of [["update", "-qq"], ["install", "-y", "-qq", pkg]]) {
    const { success, stderr } = await new Deno.Command("apt-get", {
      args,
      env: { DEBIAN_FRONTEND: "noninteractive" },
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) {
      throw new Error(`apt-get ${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`);
    }
  }
  if (!(await runs(command, versionArgs))) throw new Error(`${command} is still not on PATH`);
}

/** A free loopback port (free now; chosen up front so that an instance restarts on it). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

export async function waitForPort(port: number, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`${what} never listened on port ${port}`);
}

/** The lines of a byte stream. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    pending += text;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
  }
  if (pending !== "") yield pending;
}

/** A child process whose stderr is kept (the last lines) and never left unread. */
export class Child {
  readonly stderr: string[] = [];
  readonly process: Deno.ChildProcess;
  readonly drained: Promise<void>;
  readonly listening: Promise<boolean>;
  exited = false;

  constructor(
    readonly what: string,
    command: string,
    args: string[],
    env?: Record<string, string>,
    cwd?: string,
  ) {
    const process = new Deno.Command(command, {
      args,
      env,
      cwd,
      clearEnv: env !== undefined,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.process = process;
    process.status.then(() => this.exited = true);
    let heard: (value: boolean) => void = () => {};
    this.listening = new Promise((resolve) => heard = resolve);
    this.drained = (async () => {
      for await (const line of lines(process.stderr)) {
        this.stderr.push(line);
        if (this.stderr.length > 200) this.stderr.shift();
        if (/listening on http:\/\//.test(line)) heard(true);
      }
      heard(false);
    })();
  }

  kill(signal: Deno.Signal): void {
    try {
      this.process.kill(signal);
    } catch { /* gone already */ }
  }

  /** `signal`, then the exit (SIGKILL after 15 s). */
  async stop(signal: Deno.Signal = "SIGTERM"): Promise<Deno.CommandStatus> {
    this.kill(signal);
    const timer = setTimeout(() => this.kill("SIGKILL"), 15_000);
    try {
      const status = await this.process.status;
      await this.drained;
      return status;
    } finally {
      clearTimeout(timer);
    }
  }

  tail(): string {
    return this.stderr.slice(-5).join(" | ");
  }
}

let denoDir: Promise<string> | undefined;

/** The folder of deno's cache this deno uses (DENO_DIR, else its default), as `deno info` says. */
function cacheDir(): Promise<string> {
  denoDir ??= (async () => {
    const { success, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
      stderr: "null",
    }).output();
    const info = success ? JSON.parse(new TextDecoder().decode(stdout)) : undefined;
    if (typeof info?.denoDir !== "string") throw new Error("`deno info --json` named no denoDir");
    return info.denoDir;
  })();
  return denoDir;
}

/**
 * The environment of a toolshed instance: ours, without any shared secret or token, plus what
 * the fixture's mount (tests/scale/tools/upstream.mcp.json) expands: TOOLSHED_SCALE_DENO, this
 * deno (which may not be on PATH: CI runs `npx deno`), and TOOLSHED_SCALE_DENO_DIR, its cache,
 * which the upstream could not find by itself (a stdio upstream gets PATH, HOME and a few more
 * of the instance's variables, not DENO_DIR or XDG_CACHE_HOME).
 */
export async function instanceEnv(): Promise<Record<string, string>> {
  const env = Deno.env.toObject();
  for (const name of ["TOOLSHED_STATE_KEY", "TOOLSHED_STATE_KEY_PREVIOUS", "TOOLSHED_HTTP_TOKEN"]) {
    delete env[name];
  }
  env.TOOLSHED_SCALE_DENO = Deno.execPath();
  env.TOOLSHED_SCALE_DENO_DIR = await cacheDir();
  return env;
}

/** How an instance runs besides its port and name. */
export interface InstanceSetup {
  /** main.ts flags after `--http` and `--instance` (`--redis URL`, …). */
  extra?: string[];
  /** Deno flags before main.ts (`--preload FILE`, …). */
  denoFlags?: string[];
  /** Variables added to instanceEnv(). */
  env?: Record<string, string>;
}

/** A toolshed instance on a fixed port, which can be stopped and started again on it. */
export class Instance {
  child?: Child;
  constructor(
    readonly name: string,
    readonly port: number,
    readonly setup: InstanceSetup | string[] = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /** The process id of the running instance. */
  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  async start(): Promise<void> {
    const setup = Array.isArray(this.setup) ? { extra: this.setup } : this.setup;
    const args = [
      "run",
      "-A",
      ...setup.denoFlags ?? [],
      MAIN,
      "--http",
      `127.0.0.1:${this.port}`,
      ...(this.name === "" ? [] : ["--instance", this.name]),
      ...setup.extra ?? [],
      "--dir",
      FIXTURE,
    ];
    const env = { ...await instanceEnv(), ...setup.env };
    // In the root of the repository: the mount's upstream is `main.ts --dir tests/scale/upstream`.
    const child = new Child(`instance ${this.name}`, Deno.execPath(), args, env, ROOT);
    this.child = child;
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const listening = await child.listening;
    clearTimeout(timer);
    if (!listening) throw new Error(`instance ${this.name} did not start: ${child.tail()}`);
    await this.ready();
  }

  /** Until GET /readyz answers 200 (bounded). */
  async ready(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      try {
        const response = await fetch(`http://127.0.0.1:${this.port}/readyz`, {
          signal: AbortSignal.timeout(2_000),
        });
        await response.body?.cancel();
        if (response.status === 200) return;
      } catch { /* not yet */ }
      await sleep(50);
    }
    throw new Error(`instance ${this.name}: /readyz never answered 200`);
  }

  async stop(signal: Deno.Signal = "SIGTERM"): Promise<Deno.CommandStatus | undefined> {
    const child = this.child;
    this.child = undefined;
    return await child?.stop(signal);
  }
}

/** A redis-server on `port` (default: a free loopback port), without persistence. */
export async function startRedis(
  port = freePort(),
): Promise<{ child: Child; port: number; url: string }> {
  const child = new Child("redis-server", "redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ]);
  await waitForPort(port, "redis-server");
  return { child, port, url: `redis://127.0.0.1:${port}` };
}

/**
 * HAProxy running deploy/haproxy.cfg (copied into `temp`) on `port` (default: a free one), in
 * front of `ports` (one to three instances: the `server` lines past them are dropped). A port
 * chosen before the instances start lets them know HAProxy's URL (--public-url).
 */
export async function startHaproxy(
  temp: string,
  ports: number[],
  port = freePort(),
): Promise<{ child: Child; port: number; url: string }> {
  if (ports.length < 1 || ports.length > 3) throw new Error("HAProxy takes 1 to 3 instances");
  const config = `${temp}/haproxy-${port}.cfg`;
  const text = (await Deno.readTextFile(HAPROXY_CFG)).replaceAll(
    /^\s*server s([1-3]) .*\n/gm,
    (line, n) => Number(n) <= ports.length ? line : "",
  );
  await Deno.writeTextFile(config, text);
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    LISTEN: `127.0.0.1:${port}`,
  };
  ports.forEach((p, i) => env[`S${i + 1}`] = `127.0.0.1:${p}`);
  const child = new Child("haproxy", "haproxy", ["-db", "-f", config], env);
  await waitForPort(port, `haproxy (${child.tail()})`);
  return { child, port, url: `http://127.0.0.1:${port}/mcp` };
}
