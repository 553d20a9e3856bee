// Code mode's sandbox, the parent's side (adr/0073 decision 2): each run of the model's code is
// one child process with no permissions (sandbox_runner.ts), a V8 heap cap, a clean environment
// and a process group of its own, used once and killed. The parent holds every limit itself and
// reads the child's lines as untrusted input (sandbox_lines.ts): a child that dies, overflows,
// lies or talks too much ends its run with an error outcome, and nothing else happens.
//
// How a child starts: from source (a clone, a URL, the npm bundle), `deno eval` of the runner's
// text with no permission flag, so that nothing has to be read to start it; in a compiled
// toolshed (`Deno.build.standalone`, whose binary has -A baked in), the binary itself with the
// hidden subcommand CODE_RUNNER_COMMAND (main.ts), where the runner revokes every permission
// before it reads a byte of code. On Linux with util-linux's `prlimit`, the child's writable
// memory (RLIMIT_DATA) is capped too: the heap cap does not bound ArrayBuffers.
import { type Launcher, spawnLeader, watchGroup } from "../programs/process_group.ts";
import { MAX_TIMER_MS, messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { type ChildLine, parseChildLine } from "./sandbox_lines.ts";
import { runSandboxChild } from "./sandbox_runner.ts";
import { CODE_RUNNER_COMMAND } from "./runner_command.ts";

export interface SandboxLimits {
  /** V8 old-space cap of the child, in MiB (DENO_V8_FLAGS=--max-old-space-size). */
  heapMb: number;
  /** Wall clock of one run, then SIGKILL of the child's process group. */
  timeoutMs: number;
  /** Inner tool calls per run; the next one is refused (an error the script can catch). */
  maxCalls: number;
  /** Console output kept, in bytes of UTF-8; past it cut with a marker, never buffered whole. */
  maxConsoleBytes: number;
  /** The run's value, in bytes of JSON (an inner call's arguments too); past it the run fails. */
  maxResultBytes: number;
  /** Pre-started children waiting (each used once, then killed); 0: none. */
  poolSize: number;
}

/** Calls one tool for the code; resolves to what the script's `await tools.name(args)` gets. */
export type CallTool = (name: string, args: unknown, signal: AbortSignal) => Promise<unknown>;

export interface RunOutcome {
  ok: boolean;
  /** The code's value (JSON) when `ok`; absent when it returned nothing. */
  value?: unknown;
  /** One sentence: the script's thrown message, or why the run was stopped. */
  error?: string;
  /** What the code printed, each console call a line, cut at maxConsoleBytes with a marker. */
  console: string;
  consoleCut: boolean;
  /** The inner calls the parent made for it. */
  calls: number;
}

export interface Sandbox {
  run(code: string, callTool: CallTool, signal: AbortSignal): Promise<RunOutcome>;
  /** Kills every child, waiting or running (a running one's run ends with an error). */
  close(): Promise<void>;
}

/** How a child is started: a program and its arguments (the runner must be what runs). */
export interface RunnerCommand {
  program: string;
  args: readonly string[];
}

interface SandboxOptions {
  /** Where a child that cannot start, or a missing `prlimit`, is reported. */
  diagnostics?: Diagnostics;
  /** How a child is started; by default as this process runs (see above). */
  runner?: RunnerCommand;
  /** How a child comes to lead its own process group (process_group.ts). */
  launcher?: Launcher;
}

/** The smallest heap a child starts with, in MiB. */
const MIN_HEAP_MB = 16;

/**
 * What RLIMIT_DATA allows a child beyond its heap, in MiB: Deno 2.9.6 reserves ~550 MiB of it at
 * start (V8's code range among it, measured: 540 fails to start, 560 starts), the rest is
 * ArrayBuffers and the heap's own growth.
 */
const DATA_HEADROOM_MB = 1024;

/** Where util-linux's prlimit is looked for. */
const PRLIMIT_PATHS = ["/usr/bin/prlimit", "/bin/prlimit"];

/** Console text the child sends in one line at most (UTF-16 units; 6 bytes each, escaped). */
const LOG_CHUNK_CHARS = 16 * 1024;

/** Bytes of a line beyond its payload: the envelope, an id, a tool's name. */
const LINE_OVERHEAD_BYTES = 4 * 1024;

/** The end of a child's stderr kept for the message of a child that died (an OOM report). */
const STDERR_TAIL_BYTES = 4 * 1024;

/** How the console output says it was cut. */
function consoleCutMarker(maxConsoleBytes: number): string {
  return `\n[console output cut at ${maxConsoleBytes} bytes]\n`;
}

/** Creates a sandbox; its pool, if any, starts filling at once. */
export function createSandbox(limits: SandboxLimits, options: SandboxOptions = {}): Sandbox {
  checkLimits(limits);
  const runner = options.runner ?? defaultRunner();
  const prlimit = findPrlimit(options.diagnostics);
  const pool: Child[] = [];
  const live = new Set<Child>();
  let closed = false;

  const start = (): Child => {
    const child = startChild(limits, runner, prlimit, options.launcher);
    live.add(child);
    child.status.finally(() => live.delete(child));
    return child;
  };
  const refill = () => {
    while (!closed && pool.length < limits.poolSize) {
      let child: Child;
      try {
        child = start();
      } catch (error) {
        options.diagnostics?.error(`Cannot start a child of the code sandbox: ${messageOf(error)}`);
        return;
      }
      pool.push(child);
      // One that dies while it waits leaves the pool (and is not replaced until the next run).
      child.status.then(() => {
        const at = pool.indexOf(child);
        if (at !== -1) pool.splice(at, 1);
      });
    }
  };
  refill();

  return {
    async run(code, callTool, signal) {
      if (closed) return failed("The code sandbox is closed");
      if (signal.aborted) return failed("The run was cancelled before it started");
      let child = pool.shift();
      if (child === undefined || child.exited) {
        try {
          child = start();
        } catch (error) {
          return failed(`Cannot start the code sandbox's process: ${messageOf(error)}`);
        }
      }
      refill();
      return await runOn(child, code, callTool, signal, limits, () => closed);
    },
    async close() {
      closed = true;
      pool.length = 0;
      const all = [...live];
      for (const child of all) child.kill();
      await Promise.all(all.map((child) => child.status));
    },
  };
}

function failed(error: string): RunOutcome {
  return { ok: false, error, console: "", consoleCut: false, calls: 0 };
}

function checkLimits(limits: SandboxLimits): void {
  const whole = (name: keyof SandboxLimits, least: number, most = Number.MAX_SAFE_INTEGER) => {
    const value = limits[name];
    if (!Number.isSafeInteger(value) || value < least || value > most) {
      throw new Error(
        `Cannot create the code sandbox: "${name}" must be a whole number from ${least} to ` +
          `${most}, not "${String(value)}"`,
      );
    }
  };
  whole("heapMb", MIN_HEAP_MB);
  whole("timeoutMs", 1, MAX_TIMER_MS);
  whole("maxCalls", 0);
  whole("maxConsoleBytes", 0);
  whole("maxResultBytes", 1);
  whole("poolSize", 0);
}

/** The runner as this process runs: a compiled binary's subcommand, else `deno eval`. */
export function defaultRunner(): RunnerCommand {
  if (Deno.build.standalone) return { program: Deno.execPath(), args: [CODE_RUNNER_COMMAND] };
  return {
    program: Deno.execPath(),
    args: [
      "eval",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      "--no-npm",
      "--no-remote",
      "--quiet",
      "--ext=js",
      `await (${runSandboxChild.toString()})(Deno);`,
    ],
  };
}

function findPrlimit(diagnostics: Diagnostics | undefined): string | undefined {
  if (Deno.build.os !== "linux") return undefined;
  for (const path of PRLIMIT_PATHS) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not there, or not readable: the next.
    }
  }
  diagnostics?.error(
    `No prlimit program in ${PRLIMIT_PATHS.join(" or ")}: the code sandbox caps its ` +
      "children's heap but not their ArrayBuffers",
  );
  return undefined;
}

/** A started child, waiting for its code or running it. */
interface Child {
  /** Its lines, each at most `maxLineBytes`; a longer one ends them with "too long". */
  lines: AsyncIterator<string | { tooLong: true }>;
  write(line: string): void;
  /** The end of what it wrote on stderr. */
  stderrTail(): string;
  status: Promise<Deno.CommandStatus>;
  exited: boolean;
  /** SIGKILL to its whole group. */
  kill(): void;
}

function startChild(
  limits: SandboxLimits,
  runner: RunnerCommand,
  prlimit: string | undefined,
  launcher: Launcher | undefined,
): Child {
  const env: Record<string, string> = {
    DENO_V8_FLAGS: `--max-old-space-size=${limits.heapMb}`,
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PROMPT: "1",
    NO_COLOR: "1",
  };
  // Where Deno keeps its cache, when the server was told (not a secret; the child reads none).
  try {
    const denoDir = Deno.env.get("DENO_DIR");
    if (denoDir !== undefined) env.DENO_DIR = denoDir;
  } catch {
    // A server that may not read its environment: the child finds Deno's cache as deno does.
  }
  const process = spawnLeader(
    prlimit === undefined ? { program: runner.program, args: runner.args, env, launcher } : {
      program: prlimit,
      args: [
        `--data=${(limits.heapMb + DATA_HEADROOM_MB) * 1024 * 1024}`,
        "--",
        runner.program,
        ...runner.args,
      ],
      env,
      launcher,
    },
  );
  const group = watchGroup(process.pid, 0);
  const child: Child = {
    lines: boundedLines(process.stdout, maxLineBytes(limits)),
    write: writerOf(process.stdin),
    stderrTail: tailOf(process.stderr),
    status: process.status.then((status) => {
      child.exited = true;
      group.leaderExited();
      return status;
    }),
    exited: false,
    kill: () => {
      if (!child.exited) group.terminate();
    },
  };
  return child;
}

/** The longest line a child may write. */
function maxLineBytes(limits: SandboxLimits): number {
  return Math.max(limits.maxResultBytes, 6 * LOG_CHUNK_CHARS) + LINE_OVERHEAD_BYTES;
}

function writerOf(stdin: WritableStream<Uint8Array>): (line: string) => void {
  const writer = stdin.getWriter();
  const encoder = new TextEncoder();
  return (line) => {
    // A child that died or was killed no longer reads; its run ends by its status.
    writer.write(encoder.encode(line + "\n")).catch(() => {});
  };
}

function tailOf(stderr: ReadableStream<Uint8Array>): () => string {
  let tail = new Uint8Array(0);
  (async () => {
    try {
      for await (const chunk of stderr) {
        const joined = new Uint8Array(tail.length + chunk.length);
        joined.set(tail);
        joined.set(chunk, tail.length);
        tail = joined.slice(Math.max(0, joined.length - STDERR_TAIL_BYTES));
      }
    } catch {
      // The child is gone.
    }
  })();
  return () => new TextDecoder().decode(tail);
}

/** The lines of `stdout`, none longer than `max` bytes: a longer one ends them. */
async function* boundedLines(
  stdout: ReadableStream<Uint8Array>,
  max: number,
): AsyncGenerator<string | { tooLong: true }> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stdout) {
      let from = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, from);
        const piece = chunk.subarray(from, end === -1 ? chunk.length : end);
        size += piece.length;
        if (size > max) {
          yield { tooLong: true };
          return;
        }
        if (piece.length > 0) parts.push(piece.slice());
        if (end === -1) break;
        const line = new Uint8Array(size);
        let at = 0;
        for (const part of parts) {
          line.set(part, at);
          at += part.length;
        }
        yield decoder.decode(line);
        parts = [];
        size = 0;
        from = end + 1;
      }
    }
  } catch {
    // The child is gone: no more lines.
  }
}

/** Runs `code` on a started child and ends that child, whatever happens. */
async function runOn(
  child: Child,
  code: string,
  callTool: CallTool,
  signal: AbortSignal,
  limits: SandboxLimits,
  isClosed: () => boolean,
): Promise<RunOutcome> {
  const encoder = new TextEncoder();
  let console = "";
  let consoleBytes = 0;
  let consoleCut = false;
  let calls = 0;
  const innerCalls = new AbortController();
  let settle!: (outcome: { ok: boolean; value?: unknown; error?: string }) => void;
  const ended = new Promise<{ ok: boolean; value?: unknown; error?: string }>((resolve) => {
    settle = resolve;
  });
  let over = false;
  const end = (outcome: { ok: boolean; value?: unknown; error?: string }) => {
    if (over) return;
    over = true;
    settle(outcome);
  };
  const stop = (error: string) => end({ ok: false, error });
  const lying = (what: string) =>
    stop(`The code sandbox's process sent ${what}, so it was stopped`);

  const timer = setTimeout(
    () => stop(`The code ran for more than ${limits.timeoutMs} ms, so it was stopped`),
    limits.timeoutMs,
  );
  const onAbort = () => stop(isClosed() ? "The code sandbox was closed" : "The run was cancelled");
  signal.addEventListener("abort", onAbort, { once: true });

  const handle = (line: ChildLine) => {
    switch (line.kind) {
      case "bad":
        return lying(line.why);
      case "log": {
        const bytes = encoder.encode(line.text).length;
        if (consoleCut || consoleBytes + bytes > limits.maxConsoleBytes) {
          return lying("more console output than it may");
        }
        consoleBytes += bytes;
        console += line.text;
        return;
      }
      case "cut":
        consoleCut = true;
        return;
      case "call": {
        if (calls >= limits.maxCalls) return lying(`more than ${limits.maxCalls} inner call(s)`);
        if (JSON.stringify(line.args).length > limits.maxResultBytes) {
          return lying(`arguments over ${limits.maxResultBytes} bytes`);
        }
        calls++;
        callInner(line.id, line.name, line.args);
        return;
      }
      case "done": {
        if (!line.ok) return end({ ok: false, error: line.error });
        if (
          line.value !== undefined &&
          encoder.encode(JSON.stringify(line.value)).length > limits.maxResultBytes
        ) {
          return lying(`a result over ${limits.maxResultBytes} bytes`);
        }
        return end(line.value === undefined ? { ok: true } : { ok: true, value: line.value });
      }
    }
  };
  const callInner = (id: number, name: string, args: Record<string, unknown>) => {
    (async () => {
      let answer: string;
      try {
        const value = await callTool(name, args, innerCalls.signal);
        answer = JSON.stringify({ result: value === undefined ? { id } : { id, value } });
      } catch (error) {
        answer = JSON.stringify({ result: { id, error: messageOf(error) } });
      }
      if (!over) child.write(answer);
    })();
  };

  const reading = (async () => {
    for (;;) {
      const next = await child.lines.next();
      if (over) return;
      if (next.done) break;
      const line = next.value;
      if (typeof line !== "string") {
        return lying(`a line over ${maxLineBytes(limits)} bytes`);
      }
      handle(parseChildLine(line));
      if (over) return;
    }
    const status = await child.status;
    end({
      ok: false,
      error: isClosed()
        ? "The code sandbox was closed"
        : diedMessage(status, child.stderrTail(), limits),
    });
  })();

  child.write(JSON.stringify({
    run: {
      code,
      maxCalls: limits.maxCalls,
      maxConsoleBytes: limits.maxConsoleBytes,
      maxResultBytes: limits.maxResultBytes,
      logChunkBytes: LOG_CHUNK_CHARS,
    },
  }));
  let outcome: { ok: boolean; value?: unknown; error?: string };
  try {
    outcome = await ended;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    innerCalls.abort();
    child.kill();
    await child.status;
    await reading;
  }
  return {
    ...outcome,
    console: consoleCut ? console + consoleCutMarker(limits.maxConsoleBytes) : console,
    consoleCut,
    calls,
  };
}

/** Why a child ended before it answered. */
function diedMessage(status: Deno.CommandStatus, stderr: string, limits: SandboxLimits): string {
  if (/out of memory/i.test(stderr)) {
    return `The code ran out of memory (the sandbox's heap is capped at ${limits.heapMb} MB), ` +
      "so its process ended";
  }
  const how = status.signal === null ? `exit code ${status.code}` : `signal ${status.signal}`;
  return `The code's process ended before it answered (${how})`;
}
