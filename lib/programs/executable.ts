// Running a program as a tool: the handler of an executable tool (a file in the tools
// directory with a JSON sidecar, adr/0007). Each call spawns the program without a shell
// in a new session, so that it leads its own process group; writes the validated
// arguments as JSON to its stdin; forwards its stderr to ours line by line, except lines
// that are messages to the server (progress and logs, channel.ts); and reads its stdout,
// up to a cap, as the result (text unless the sidecar says otherwise, adr/0009). On
// cancellation, timeout or overflow the whole group gets SIGTERM, then SIGKILL after a
// grace; when the program exits, whatever it left running in its group gets SIGKILL. A
// call holds one of the server's program slots from before the spawn until then. Like any
// tool handler it returns what the tool says (a CallToolResult, `isError` for a failed
// program); nothing here knows JSON-RPC.
import { concatBytes } from "../util/bytes.ts";
import { deliver, notUnderstoodNote, ORDINARY_LINE, readChannelLine } from "./channel.ts";
import { isObject, messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Slots } from "../util/slots.ts";
import type { JsonObject } from "../util/json.ts";
import type { ToolContext } from "../primitives/types.ts";

/** Environment variables a program receives from the server's environment, when set. */
export const BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"] as const;

/** What a program may use to find its bearings; set by toolshed for every call. */
export const CONTEXT_ENV = {
  toolName: "TOOLSHED_TOOL_NAME",
  protocolVersion: "TOOLSHED_PROTOCOL_VERSION",
  clientName: "TOOLSHED_CLIENT_NAME",
  /** The caller, when the server authenticates callers by OAuth (ctx.auth): never the token. */
  authSubject: "TOOLSHED_AUTH_SUBJECT",
  authClientId: "TOOLSHED_AUTH_CLIENT_ID",
  /** The token's scopes, separated by spaces (as OAuth writes them). */
  authScopes: "TOOLSHED_AUTH_SCOPES",
} as const;

/**
 * The most UTF-16 code units of the client's name passed on in TOOLSHED_CLIENT_NAME: the
 * kernel refuses to start a program with a variable over 128 KiB (E2BIG).
 */
const CLIENT_NAME_CHARS = 1024;

/** Whether the cut of a long client name has been reported (once per process). */
let clientNameCutReported = false;

/** How long a program may take to exit after SIGTERM before its group gets SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** How long stdout or stderr may give nothing after the program has exited before it is left. */
const PIPES_AFTER_EXIT_MS = 1_000;

/**
 * That time is counted in ticks, each its own turn of the event loop: a loop blocked for a
 * while (a busy machine, spawns) costs one tick, not the whole wait, so data that is in the
 * pipe is read before the pipe is left.
 */
const PIPE_IDLE_TICKS = 10;

import type { OutputMode } from "./limits.ts";
import { type Launcher, spawnLeader, watchGroup } from "./process_group.ts";

/** The most of a program's printed text an error result carries (its end is kept). */
const MESSAGE_CHARS = 16 * 1024;

/** A stderr line longer than this is forwarded in pieces, so memory stays bounded. */
const STDERR_LINE_CHARS = 64 * 1024;

/**
 * Prefixed stderr text handed to the log at a time: a chunk of empty lines would grow by
 * the prefix's length per byte otherwise.
 */
const STDERR_BATCH_CHARS = 64 * 1024;

interface ExecutableOptions {
  /** The program's absolute path. */
  program: string;
  /** As shown in messages (e.g. `tools/stats.sh`). */
  file: string;
  /** Names of further environment variables passed through from the server's environment. */
  passEnv: readonly string[];
  /** Most bytes read from stdout; past it the group is stopped and the call fails. */
  maxOutputBytes: number;
  /** How stdout becomes the result; defaults to "text". */
  output?: OutputMode;
  /**
   * The server's program slots (--max-programs), held from before the spawn until the
   * program's group is dead. The loader always passes them; without, nothing is bounded.
   */
  slots?: Slots;
  /** SIGTERM-to-SIGKILL grace; tests shorten it. */
  killGraceMs?: number;
  /** Defaults to "setsid" where that program exists, else "detached". */
  launcher?: Launcher;
  /** Where the program's stderr and the server's notes about it go. */
  diagnostics: Diagnostics;
  /**
   * With telemetry on: the trace context of the call, as TRACEPARENT (and TRACESTATE) for the
   * program, read when the handler starts, inside the call's span (core/telemetry.ts).
   */
  traceEnvironment?: () => Record<string, string>;
}

const encoder = new TextEncoder();

/** Builds the handler of an executable tool. */
export function executableHandler(
  options: ExecutableOptions,
): (args: JsonObject, ctx: ToolContext) => Promise<unknown> {
  const names = [...BASE_ENV, ...options.passEnv];
  return (args, ctx) => {
    const trace = options.traceEnvironment?.();
    const spawn = () => {
      // Read at each call: without --allow-env this fails the call, not the server's start.
      const env: Record<string, string> = {};
      for (const name of names) {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      }
      Object.assign(env, contextEnv(ctx, options.diagnostics), trace);
      return spawnLeader({ program: options.program, env, launcher: options.launcher });
    };
    return run(options, spawn, args, ctx);
  };
}

function contextEnv(ctx: ToolContext, diagnostics: Diagnostics): Record<string, string> {
  const env: Record<string, string> = {
    [CONTEXT_ENV.toolName]: ctx.toolName,
    [CONTEXT_ENV.protocolVersion]: ctx.protocolVersion,
  };
  const client = ctx.clientInfo?.name;
  if (typeof client === "string") {
    const shown = boundedClientName(client, diagnostics);
    // An environment value cannot hold NUL; the name is for display only, so drop it then.
    if (!shown.includes("\0")) env[CONTEXT_ENV.clientName] = shown;
  }
  const { auth } = ctx;
  if (auth !== undefined) {
    // What a verified token says; a value the kernel cannot pass (NUL) is left out.
    const put = (name: string, value: string | undefined) => {
      if (value !== undefined && !value.includes("\0")) env[name] = value;
    };
    put(CONTEXT_ENV.authSubject, auth.subject);
    put(CONTEXT_ENV.authClientId, auth.clientId);
    put(CONTEXT_ENV.authScopes, auth.scopes.join(" "));
  }
  return env;
}

/** The client's name cut to CLIENT_NAME_CHARS, never inside a surrogate pair. */
function boundedClientName(name: string, diagnostics: Diagnostics): string {
  if (name.length <= CLIENT_NAME_CHARS) return name;
  if (!clientNameCutReported) {
    clientNameCutReported = true;
    diagnostics.error(
      `The client's name is ${name.length} characters long; programs get its first ` +
        `${CLIENT_NAME_CHARS} in ${CONTEXT_ENV.clientName}`,
    );
  }
  const last = name.charCodeAt(CLIENT_NAME_CHARS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? CLIENT_NAME_CHARS - 1 : CLIENT_NAME_CHARS;
  return name.slice(0, end);
}

async function run(
  options: ExecutableOptions,
  spawn: () => Deno.ChildProcess,
  args: JsonObject,
  ctx: ToolContext,
): Promise<unknown> {
  ctx.signal.throwIfAborted();
  // A call cancelled while it waits leaves the line (rejecting) without ever spawning.
  const release = options.slots ? await options.slots.acquire(ctx.signal) : () => {};
  try {
    ctx.signal.throwIfAborted(); // granted just as the call was cancelled
    return await runHolding(options, spawn, args, ctx, release);
  } finally {
    release();
  }
}

/** Runs the program once a slot is held; `release` frees it once the group is dead. */
async function runHolding(
  options: ExecutableOptions,
  spawn: () => Deno.ChildProcess,
  args: JsonObject,
  ctx: ToolContext,
  release: () => void,
): Promise<unknown> {
  let child: Deno.ChildProcess;
  try {
    child = spawn();
  } catch (error) {
    throw new Error(
      cannotRun(options.file, error instanceof Deno.errors.NotFound ? undefined : messageOf(error)),
    );
  }
  const group = watchGroup(child.pid, options.killGraceMs ?? KILL_GRACE_MS);
  const stop = () => group.terminate();
  ctx.signal.addEventListener("abort", stop, { once: true });
  try {
    const stdinWritten = writeAll(child.stdin, JSON.stringify(args));
    const exited = new AbortController();
    const stderr = forwardStderr(child.stderr, ctx, exited.signal, options.diagnostics);
    const stdout = readCapped(child.stdout, options.maxOutputBytes, stop, exited.signal);
    const status = await child.status;
    group.leaderExited();
    release();
    // What the program printed is in the pipes by now; only an escaped descendant keeps them.
    exited.abort();
    const [output, errorText] = await Promise.all([stdout, stderr, stdinWritten]);
    if (ctx.signal.aborted) return undefined; // the call was already answered (or not at all)
    if (output === undefined) {
      return failure(
        `Tool "${ctx.toolName}" printed more than ${options.maxOutputBytes} bytes on stdout ` +
          `(the limit set by --max-output-bytes), so it was stopped`,
      );
    }
    const text = new TextDecoder().decode(output);
    const execFailed = SETSID_FAILED.exec(errorText);
    if ((status.code === 126 || status.code === 127) && execFailed) {
      const reason = execFailed[1];
      return failure(cannotRun(options.file, /No such file/.test(reason) ? undefined : reason));
    }
    if (!status.success) return failure(exitMessage(ctx.toolName, status, text, errorText));
    return resultOf(text, options.output ?? "text", ctx.toolName);
  } finally {
    ctx.signal.removeEventListener("abort", stop);
    group.leaderExited();
  }
}

/** What util-linux's setsid prints when it cannot exec the program (exit status 126 or 127). */
const SETSID_FAILED = /^setsid: failed to execute .*: ([^:\n]+)\n?$/;

/** Why a program did not start; no reason means it (or its interpreter) was not found. */
function cannotRun(file: string, reason: string | undefined): string {
  return reason === undefined
    ? `Cannot run "${file}": it, or the interpreter its "#!" line names, was not found`
    : `Cannot run "${file}": ${reason}`;
}

/**
 * stdout as the result, as the sidecar's `output` says. Only "result" lets stdout decide
 * `isError`, links or structured content: data a tool passes through must not pose as one.
 */
function resultOf(text: string, mode: OutputMode, toolName: string): unknown {
  const block = { type: "text", text: withoutFinalNewline(text) };
  if (mode === "text") return { content: [block] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const expected = mode === "result" ? ' (one JSON object with a "content" array)' : "";
    return failure(
      `Tool "${toolName}" printed output that is not JSON, but its sidecar sets ` +
        `"output": "${mode}"${expected}: ${messageOf(error)}`,
    );
  }
  if (mode === "json") return { content: [block], structuredContent: value };
  if (isObject(value) && Array.isArray(value.content)) return value;
  return failure(
    `Tool "${toolName}" printed JSON that is not a CallToolResult, but its sidecar sets ` +
      `"output": "result": print one JSON object with a "content" array (e.g. ` +
      `{"content":[{"type":"text","text":"…"}]}), or set "output": "json" to return the JSON ` +
      "printed as structured content",
  );
}

function failure(text: string): JsonObject {
  return { content: [{ type: "text", text }], isError: true };
}

function exitMessage(
  toolName: string,
  status: Deno.CommandStatus,
  stdout: string,
  stderr: string,
): string {
  const printed = withoutFinalNewline(stdout.trim() === "" ? stderr : stdout);
  if (status.signal === null && printed.trim() !== "") {
    return printed.length <= MESSAGE_CHARS
      ? printed
      : `…${printed.slice(printed.length - MESSAGE_CHARS)}`;
  }
  const how = status.signal === null
    ? `exited with code ${status.code}`
    : `was killed by ${status.signal}`;
  const tail = printed.trim() === "" ? "" : `: ${printed.slice(-MESSAGE_CHARS)}`;
  return `Tool "${toolName}" ${how}${tail}`;
}

function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, "");
}

/** Writes the arguments and closes stdin; a program that does not read them is no error. */
async function writeAll(stdin: WritableStream<Uint8Array>, text: string): Promise<void> {
  const writer = stdin.getWriter();
  try {
    await writer.write(encoder.encode(text));
    await writer.close();
  } catch {
    // EPIPE: the program closed its stdin or exited without reading everything.
  }
}

/** Reads stdout up to `cap` bytes; past it calls `onOverflow`, stops reading and gives undefined. */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  onOverflow: () => void,
  exited: AbortSignal,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksUntil(stream, exited)) {
    size += chunk.length;
    if (size > cap) {
      onOverflow();
      return undefined; // leaving the loop cancels the stream: the pipe is closed
    }
    chunks.push(chunk);
  }
  return concatBytes(chunks);
}

/**
 * Reads stderr line by line (split on `\n`, a final `\r` dropped, UTF-8 across chunks). A line
 * that is a channel message (lib/programs/channel.ts) goes to `ctx.progress` or `ctx.log` and
 * nowhere else; every other line is forwarded to the server's diagnostics, prefixed with
 * `[toolName] `, the first one that starts with `toolshed:` without being understood after a
 * note saying so. Returns the last MESSAGE_CHARS characters of the forwarded text, for an error
 * message. While the server's stderr queue is full it reads no more, so the program waits on its
 * own writes (as with any pipe) and nothing is lost; lib/host/stderr_log.ts drops lines only once
 * stderr stalls. Channel messages never wait: the core merges and rate-limits them.
 */
async function forwardStderr(
  stream: ReadableStream<Uint8Array>,
  ctx: Pick<ToolContext, "toolName" | "progress" | "log">,
  exited: AbortSignal,
  diagnostics: Diagnostics,
): Promise<string> {
  const prefix = `[${ctx.toolName}] `;
  const source = `stderr from tool "${ctx.toolName}"`;
  let pending = "";
  let tail = "";
  /** What this chunk adds to the tail: the forwarded text, without prefixes. */
  let kept = "";
  let out = "";
  let lines = 0;
  /** Whether `pending` continues a line whose start was forwarded in pieces already. */
  let midLine = false;
  let noted = false;
  const flush = async () => {
    if (lines > 0) await diagnostics.forward(out, lines, source, ctx.toolName);
    out = "";
    lines = 0;
  };
  const forward = async (text: string, newline: boolean) => {
    out += `${prefix}${text}\n`;
    kept += newline ? `${text}\n` : text;
    lines++;
    if (out.length >= STDERR_BATCH_CHARS) await flush();
  };
  /** A line (`newline` when one ended it), or a STDERR_LINE_CHARS piece of a longer one. */
  const take = async (text: string, newline: boolean, piece = false) => {
    const read = midLine ? ORDINARY_LINE : readChannelLine(text);
    midLine = piece;
    if (read.kind === "progress" || read.kind === "log") return deliver(read, ctx);
    if (read.kind === "not understood" && !noted) {
      noted = true;
      await flush(); // the note comes before the line it is about
      diagnostics.error(notUnderstoodNote(ctx.toolName));
    }
    await forward(text, newline);
  };
  const decoder = new TextDecoder();
  for await (const chunk of chunksUntil(stream, exited)) {
    pending += decoder.decode(chunk, { stream: true });
    let start = 0;
    let newline;
    while ((newline = pending.indexOf("\n", start)) !== -1) {
      const end = newline > start && pending.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      await take(pending.slice(start, end), true);
      start = newline + 1;
    }
    pending = pending.slice(start);
    while (pending.length > STDERR_LINE_CHARS) {
      await take(pending.slice(0, STDERR_LINE_CHARS), false, true);
      pending = pending.slice(STDERR_LINE_CHARS);
    }
    await flush();
    tail = (tail + kept).slice(-MESSAGE_CHARS);
    kept = "";
  }
  pending += decoder.decode();
  if (pending !== "") await take(pending, false);
  await flush();
  return (tail + kept).slice(-MESSAGE_CHARS);
}

/**
 * The chunks of a stream until it ends, or until the program has exited and a read has
 * waited PIPES_AFTER_EXIT_MS for data; then reading stops and the stream is cancelled. A
 * descendant that left the process group (say, a daemon that called setsid) can hold a
 * pipe open after the program has exited; the call must not wait on it. Time the caller
 * spends between chunks (waiting for room on stderr) does not count.
 */
async function* chunksUntil(
  stream: ReadableStream<Uint8Array>,
  exited: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    while (true) {
      const next = await readUnlessIdle(reader, exited);
      if (next === null || next.done) return;
      yield next.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The next read, or null once the program has exited and no data came for a while. */
async function readUnlessIdle(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  exited: AbortSignal,
): Promise<ReadableStreamReadResult<Uint8Array> | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let giveUp = () => {};
  const idle = new Promise<null>((resolve) => {
    let ticks = 0;
    const tick = () => {
      if (++ticks >= PIPE_IDLE_TICKS) resolve(null);
      else timer = setTimeout(tick, PIPES_AFTER_EXIT_MS / PIPE_IDLE_TICKS);
    };
    giveUp = () => timer = setTimeout(tick, PIPES_AFTER_EXIT_MS / PIPE_IDLE_TICKS);
  });
  if (exited.aborted) giveUp();
  else exited.addEventListener("abort", giveUp, { once: true });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
    exited.removeEventListener("abort", giveUp);
  }
}
