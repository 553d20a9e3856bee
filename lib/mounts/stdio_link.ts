// The stdio transport to an upstream MCP server, client side: a long-lived child spawned
// without a shell as the leader of its own process group (programs/process_group.ts), spoken
// to in newline-delimited JSON-RPC. Each stdout line is parsed once (wire/extract.ts); each
// message written is serialized once (wire/serialize.ts), writes queued so lines never
// interleave. The child's stderr goes to the diagnostics line by line, prefixed with the
// upstream's name. When the child exits its group is killed and the link reports it closed;
// `close()` ends stdin, then SIGTERM to the group, then SIGKILL after a grace.
import { concatBytes } from "../util/bytes.ts";
import { messageOf } from "../util/json.ts";
import { extract } from "../wire/extract.ts";
import { serialize } from "../wire/serialize.ts";
import { BASE_ENV } from "../programs/executable.ts";
import { spawnLeader, watchGroup } from "../programs/process_group.ts";
import { UpstreamError } from "./link.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { JsonObject } from "../util/json.ts";
import type { Link, LinkEvents } from "./link.ts";

export interface StdioLinkOptions {
  kind: "stdio";
  /** A path, or a name looked up in PATH (`npx`). */
  command: string;
  args: string[];
  /** Already expanded; the child gets these plus BASE_ENV from the server's environment. */
  env: Record<string, string>;
  cwd?: string;
}

/**
 * The longest line read from the child's stdout (bytes, without the newline): past it the
 * line is dropped, said once, and the call it answered waits for its signal. The TypeScript
 * SDK's stdio reader stops at 10 MiB; an upstream's tools/list can be large, hence 16 MiB.
 */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** A stderr line longer than this is forwarded in pieces. */
const STDERR_LINE_CHARS = 64 * 1024;

/** How long the group has after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** How long the pipes may stay open after the child exited before the link is closed anyway. */
const PIPES_AFTER_EXIT_MS = 1_000;

const encoder = new TextEncoder();

interface StdioLinkContext {
  name: string;
  diagnostics: Diagnostics;
  events: LinkEvents;
  /** Reports a kind of bad input once per upstream. */
  note(kind: string, message: string): void;
  /** Tests shorten it. */
  killGraceMs?: number;
}

/** Spawns the child now; throws an UpstreamError of kind "transport" when it cannot start. */
export function openStdioLink(options: StdioLinkOptions, context: StdioLinkContext): Link {
  const env: Record<string, string> = {};
  for (const name of BASE_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, options.env);
  let child: Deno.ChildProcess;
  try {
    child = spawnLeader({
      program: options.command,
      args: options.args,
      env,
      cwd: options.cwd,
      launcher: undefined,
    });
  } catch (error) {
    throw new UpstreamError(
      "transport",
      `Cannot start upstream "${context.name}" ("${options.command}"): ${messageOf(error)}`,
    );
  }
  const group = watchGroup(child.pid, context.killGraceMs ?? KILL_GRACE_MS);
  const writer = child.stdin.getWriter();
  let writing: Promise<void> = Promise.resolve();
  let exited = false;
  const reading = readLines(child.stdout, context);
  const stderr = forwardStderr(child.stderr, context);
  const status = child.status.then(async (status) => {
    exited = true;
    group.leaderExited();
    // A descendant that left the group may hold the pipes: wait for them a while, not forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = new Promise((resolve) => timer = setTimeout(resolve, PIPES_AFTER_EXIT_MS));
    await Promise.race([Promise.allSettled([reading, stderr]), wait]);
    clearTimeout(timer);
    const how = status.signal === null
      ? `exited with code ${status.code}`
      : `was killed by ${status.signal}`;
    context.events.closed(`upstream "${context.name}" ${how}`);
  });
  writer.closed.catch(() => {}); // EPIPE once the child is gone: the exit says it

  return {
    send(message: JsonObject, signal: AbortSignal): Promise<void> {
      const line = encoder.encode(serialize(message) + "\n");
      const written = writing.then(() => {
        if (exited) throw new UpstreamError("transport", `upstream "${context.name}" has exited`);
        return writer.write(line);
      });
      writing = written.catch(() => {});
      return raceSignal(written, signal);
    },
    established() {},
    reset() {},
    async close() {
      if (!exited) {
        writer.close().catch(() => {});
        group.terminate();
      }
      await status;
    },
  };
}

/** `promise`, or a rejection with the signal's reason once it aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** Reads stdout as lines of at most MAX_LINE_BYTES, each handed to `events.message`. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  context: StdioLinkContext,
): Promise<void> {
  let parts: Uint8Array[] = [];
  let size = 0;
  /** Whether the current line went past the cap: its rest is skipped up to its newline. */
  let skipping = false;
  const deliver = (line: Uint8Array) => {
    const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
    const message = extract(line.subarray(0, end));
    if (message.kind === "ignored") return; // a blank line
    context.events.message(message, undefined);
  };
  try {
    for await (const chunk of stream) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const stop = newline === -1 ? chunk.length : newline;
        if (!skipping) {
          size += stop - start;
          if (size > MAX_LINE_BYTES) {
            skipping = true;
            parts = [];
            context.note(
              "long line",
              `Upstream "${context.name}" wrote a line longer than ${MAX_LINE_BYTES} bytes; ` +
                "it was dropped, and a call it answered waits until its own end",
            );
          } else parts.push(chunk.subarray(start, stop));
        }
        if (newline === -1) break;
        if (!skipping) deliver(parts.length === 1 ? parts[0] : concatBytes(parts));
        parts = [];
        size = 0;
        skipping = false;
        start = newline + 1;
      }
    }
  } catch {
    // The pipe broke: the child's exit says why.
  }
  if (!skipping && size > 0) deliver(concatBytes(parts));
}

/** Forwards stderr to the diagnostics line by line, `[name] ` first, waiting on backpressure. */
async function forwardStderr(
  stream: ReadableStream<Uint8Array>,
  context: StdioLinkContext,
): Promise<void> {
  const prefix = `[${context.name}] `;
  const source = `stderr from upstream "${context.name}"`;
  const decoder = new TextDecoder();
  let pending = "";
  const flush = async (lines: string[]) => {
    if (lines.length === 0) return;
    const text = lines.map((line) => `${prefix}${line}\n`).join("");
    await context.diagnostics.forward(text, lines.length, source, context.name);
  };
  try {
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop()!;
      while (pending.length > STDERR_LINE_CHARS) {
        lines.push(pending.slice(0, STDERR_LINE_CHARS));
        pending = pending.slice(STDERR_LINE_CHARS);
      }
      await flush(lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line));
    }
  } catch {
    // The pipe broke: the child's exit says why.
  }
  pending += decoder.decode();
  await flush(pending === "" ? [] : [pending]);
}
