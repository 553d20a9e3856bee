// Test helper: runs main.ts as a real subprocess and talks to it over real stdio pipes.

const MAIN = new URL("../main.ts", import.meta.url).pathname;
export const FIXTURE_TOOLS = new URL("./fixtures/tools", import.meta.url).pathname;

/** Only guards against a hang; no test asserts how long anything takes. */
const HANG_GUARD_MS = 30_000;

/** A 2026-07-28 request's `_meta` claims. */
export const STATELESS_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 `tools/list` (id 1), then a `tools/call` of `echo` with `text` (id 2). */
export function listThenEcho(text: string): Record<string, unknown>[] {
  return [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: STATELESS_META } },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text }, _meta: STATELESS_META },
    },
  ];
}

/**
 * Fails with "No answer to <what>" instead of hanging the suite if `promise` never settles
 * within `ms` (longer for what does real work, such as type checking, on a loaded machine).
 */
export function withHangGuard<T>(
  promise: Promise<T>,
  what: string,
  ms: number = HANG_GUARD_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer to ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

export interface ServerProcess {
  child: Deno.ChildProcess;
  /** Writes one line (the newline is added) to the server's stdin. */
  send(line: string): Promise<void>;
  /** Writes raw bytes to the server's stdin. */
  sendBytes(bytes: Uint8Array): Promise<void>;
  /** The next stdout line, or null at end of output. */
  nextLine(): Promise<string | null>;
  /** Closes the server's stdin (end of input) without reading anything. */
  closeStdin(): Promise<void>;
  /** Stops reading stdout and closes the pipe, as a client that goes away does. */
  closeStdout(): Promise<void>;
  /** Closes stdin and waits for exit; returns the rest of stdout, stderr and the exit code. */
  finish(): Promise<{ code: number; rest: string[]; stderr: string }>;
}

/**
 * Opens a 2025-era session on a stdio `server`: `initialize` (id 1) as `client` declaring
 * `capabilities`, its answer (returned, parsed), then `notifications/initialized`.
 */
export async function openSession(
  server: ServerProcess,
  client: string,
  capabilities: Record<string, unknown> = {},
  protocolVersion = "2025-11-25",
): Promise<{ result?: { protocolVersion?: string } }> {
  await server.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: client, version: "1.0.0" } },
  }));
  const answer = JSON.parse((await withHangGuard(server.nextLine(), "initialize"))!);
  await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return answer;
}

export function spawnServer(
  args: string[] = ["--tools", FIXTURE_TOOLS],
  env: Record<string, string> = {},
): ServerProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const stderr = new Response(child.stderr).text();
  const lines = readLines(child.stdout);
  let stdinClosed = false;

  return {
    child,
    send: (line) => writer.write(encoder.encode(line + "\n")),
    sendBytes: (bytes) => writer.write(bytes),
    async nextLine() {
      const next = await lines.next();
      return next.done ? null : next.value;
    },
    async closeStdin() {
      if (!stdinClosed) {
        stdinClosed = true;
        await writer.close().catch(() => {});
      }
    },
    async closeStdout() {
      await lines.return(undefined);
    },
    async finish() {
      await this.closeStdin();
      const rest: string[] = [];
      for await (const line of lines) rest.push(line);
      const { code } = await child.status;
      return { code, rest, stderr: await stderr };
    },
  };
}

/**
 * The lines of a byte stream, without their newlines. Each chunk is scanned once, from
 * where the last newline was found: a 16 MiB line costs its length, not its length times
 * the number of chunks it arrives in.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  /** The pieces of the line under way, joined once its newline arrives. */
  let pieces: string[] = [];
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      pieces.push(text.slice(start, newline));
      yield pieces.join("");
      pieces = [];
      start = newline + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
  }
  const tail = decoder.decode();
  if (tail !== "") pieces.push(tail);
  if (pieces.length > 0) yield pieces.join("");
}

/** The messages of an SSE body, one per `data:` line, as they arrive. */
export async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  let pending = "";
  for await (const line of readLines(body)) {
    if (line.startsWith("data: ")) pending = line.slice("data: ".length);
    else if (line === "" && pending !== "") {
      yield JSON.parse(pending);
      pending = "";
    }
  }
}

/** main.ts serving HTTP on a free loopback port, its URL read from the line it prints. */
export interface HttpServerProcess {
  readonly url: string;
  readonly pid: number;
  /** What it wrote on stderr so far, a line each. */
  stderr(): string[];
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGTERM, then waits for the exit; the exit code and everything it wrote on stderr. */
  stop(): Promise<{ code: number; stderr: string[] }>;
}

/** How the process is started besides its arguments. */
export interface Launch {
  /** `ulimit -n` for it (it then runs under bash, exec'ed). */
  openFiles?: number;
  /** Flags for `deno run` before main.ts (`--v8-flags=…`). */
  denoFlags?: string[];
}

/** The URL of a "listening on" line, for people or as JSON (`--log-format json`). */
function listeningUrl(line: string): string | undefined {
  const said = line.startsWith("{") ? (JSON.parse(line) as { message?: string }).message : line;
  return said?.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
}

/** main.ts as spawnMain started it, past the line it was waited for. */
export interface StartedMain {
  child: Deno.ChildProcess;
  /** Its exit, once it has exited. */
  status: Promise<Deno.CommandStatus>;
  /** What it wrote on stderr so far, a line each (read on to the end). */
  stderr(): string[];
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resolves once its stderr has ended. */
  drained: Promise<void>;
}

/**
 * Starts `deno run -A <denoFlags> main.ts <args>` (under `ulimit -n` if `launch` says so) and
 * waits until `ready` holds of a line it wrote on stderr; fails with what it wrote if it ended
 * before (`what` names the line).
 */
export async function spawnMain(
  args: string[],
  ready: (line: string) => boolean,
  what: string,
  options: { env?: Record<string, string>; launch?: Launch; stdin?: "null" | "piped" } = {},
): Promise<StartedMain> {
  const { env = {}, launch = {}, stdin = "null" } = options;
  const command = [Deno.execPath(), "run", "-A", ...launch.denoFlags ?? [], MAIN, ...args];
  const [program, ...programArgs] = launch.openFiles === undefined
    ? command
    : ["bash", "-c", `ulimit -n ${launch.openFiles} && exec "$@"`, "bash", ...command];
  const child = new Deno.Command(program, {
    args: programArgs,
    env,
    stdin,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let exited = false;
  const status = child.status.then((outcome) => {
    exited = true;
    return outcome;
  });
  const lines = readLines(child.stderr);
  const seen: string[] = [];
  for (;;) {
    const next = await withHangGuard(lines.next(), what);
    if (next.done) {
      await status;
      throw new Error(`main.ts ended before ${what}:\n${seen.join("\n")}`);
    }
    seen.push(next.value);
    if (ready(next.value)) break;
  }
  // Read on, so that the server never blocks on a full stderr pipe.
  const drained = (async () => {
    for await (const line of lines) seen.push(line);
  })();
  return { child, status, stderr: () => seen, alive: () => !exited, drained };
}

/** Starts `main.ts --http 127.0.0.1:0 <args>` and waits for its "listening on" line. */
export async function spawnHttpServer(
  args: string[],
  env: Record<string, string> = {},
  launch: Launch = {},
): Promise<HttpServerProcess> {
  const { child, status, stderr, alive, drained } = await spawnMain(
    ["--http", "127.0.0.1:0", ...args],
    (line) => listeningUrl(line) !== undefined,
    "the listening line",
    { env, launch },
  );
  return {
    url: stderr().map(listeningUrl).find((url) => url !== undefined)!,
    pid: child.pid,
    stderr,
    alive,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* it has exited already */ }
      const { code } = await withHangGuard(status, "the server exiting");
      await drained;
      return { code, stderr: stderr() };
    },
  };
}
