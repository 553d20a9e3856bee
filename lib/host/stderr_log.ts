// Diagnostics for humans go to stderr, never stdout (which carries protocol only).
//
// They are written asynchronously through a bounded queue: a client that pipes our stderr
// and does not read it must not be able to block the server (a synchronous write would
// stop the event loop once the pipe is full). Past the bound, diagnostic lines are dropped
// and the number dropped is reported once stderr moves again.
//
// A program's stderr is forwarded with backpressure instead: while the queue is full, its
// forwarder waits (and stops reading the program's pipe), so nothing is lost while stderr
// moves. Only once stderr has taken no write for a while (nobody reads it) are forwarded
// lines dropped, counted and reported, so that the program is not stuck on its own writes.
import type { ByteSink } from "../transports/stdio/writer.ts";
import { concatBytes } from "../util/bytes.ts";
import type { Diagnostics, LogFields } from "../util/diagnostics.ts";
import { forwardedJsonLines, type LogFormat, logLine, type LogRecord } from "./log_lines.ts";

interface StderrLog {
  /** Queues text for stderr, or drops it when the queue is full. */
  write(text: string): void;
  /**
   * Queues `lines` line(s) of text forwarded from `source` (as notices name it, e.g.
   * `stderr from tool "x"`). While the queue is full it gives a promise that resolves once
   * the text is queued, or dropped because stderr has stalled; the caller should read no
   * more meanwhile. Undefined means the text was dealt with at once.
   */
  forward(text: string, lines: number, source: string): Promise<void> | undefined;
  /** Resolves when everything queued is written, or after `ms` at the latest. */
  flush(ms: number): Promise<void>;
}

/** How much unwritten diagnostic text may wait before lines are dropped. */
const LOG_BOUND_BYTES = 1024 * 1024;

/** How long a write to stderr may take before forwarded lines are dropped instead of waiting. */
const STALL_MS = 1_000;

/**
 * The most bytes given to one write: a blocking write to a pipe returns only once all of it
 * is in, so a large one to a slow but steady reader would look like a stall.
 */
const WRITE_BYTES = 64 * 1024;

const encoder = new TextEncoder();

/** The line that says `message` in the log's format (`toolshed: message\n` for people). */
type NoticeLine = (message: string) => string;

const TEXT_NOTICE: NoticeLine = (message) => `toolshed: ${message}\n`;

export function createStderrLog(
  sink: ByteSink,
  boundBytes: number,
  stallMs: number = STALL_MS,
  noticeLine: NoticeLine = TEXT_NOTICE,
): StderrLog {
  // Forwarded text fills at most half the queue, keeping the rest for diagnostics.
  const forwardBoundBytes = Math.floor(boundBytes / 2);
  let queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  const droppedFrom = new Map<string, number>();
  let pumping: Promise<void> | undefined;
  /** True while a write has been pending for stallMs or longer. */
  let stalled = false;
  /** Forwarders waiting for room, woken when the queue empties or stderr stalls. */
  let waiters: (() => void)[] = [];
  /** When the write under way began (performance.now()); undefined between writes. */
  let writingSince: number | undefined;
  /**
   * The stall watchdog, armed only while forwarders wait: Deno loads its timers on their first
   * use (~13 ms), which a timer per write made every server pay at start-up, for one line.
   */
  let watchdog: ReturnType<typeof setTimeout> | undefined;

  /** Arms the watchdog for the write under way, if it is not armed. */
  function watch(): void {
    if (watchdog !== undefined || writingSince === undefined) return;
    watchdog = setTimeout(() => {
      watchdog = undefined;
      if (writingSince === undefined) return;
      if (performance.now() - writingSince < stallMs) return watch(); // a newer write
      stalled = true;
      wakeWaiters(); // they drop their text now rather than wait on a reader that is gone
    }, Math.max(0, stallMs - (performance.now() - writingSince)));
  }

  function wakeWaiters(): void {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  }

  function notices(): Uint8Array[] {
    const parts: Uint8Array[] = [];
    if (dropped > 0) {
      parts.push(encoder.encode(noticeLine(
        `${dropped} line(s) of diagnostics dropped: the queue of unwritten stderr ` +
          `text passed its bound of ${sizeText(boundBytes)}`,
      )));
      dropped = 0;
    }
    for (const [source, count] of droppedFrom) {
      parts.push(encoder.encode(noticeLine(
        `${count} line(s) of ${source} dropped: the server's stderr took no writes ` +
          `for ${durationText(stallMs)}`,
      )));
    }
    droppedFrom.clear();
    return parts;
  }

  async function writeOut(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      writingSince = performance.now();
      if (waiters.length > 0) watch();
      try {
        offset += await sink.write(chunk.subarray(offset, offset + WRITE_BYTES));
      } finally {
        writingSince = undefined;
      }
      stalled = false;
    }
  }

  async function pump(): Promise<void> {
    try {
      while (queue.length > 0 || dropped > 0 || droppedFrom.size > 0) {
        // After the first pass, reached once a write has finished: stderr moves, so the
        // notices of what was dropped meanwhile can go out.
        const parts = [...queue, ...notices()];
        queue = [];
        queuedBytes = 0;
        wakeWaiters();
        await writeOut(concatBytes(parts));
      }
    } catch {
      // stderr is gone: there is nowhere left to say anything.
      queue = [];
      queuedBytes = 0;
      dropped = 0;
      droppedFrom.clear();
    } finally {
      pumping = undefined;
      stalled = false;
      wakeWaiters();
    }
  }

  function enqueue(bytes: Uint8Array): void {
    queue.push(bytes);
    queuedBytes += bytes.length;
    pumping ??= pump();
  }

  function forwardBytes(
    bytes: Uint8Array,
    lines: number,
    source: string,
  ): Promise<void> | undefined {
    if (queuedBytes === 0 || queuedBytes + bytes.length <= forwardBoundBytes) {
      enqueue(bytes);
      return undefined;
    }
    if (stalled) {
      droppedFrom.set(source, (droppedFrom.get(source) ?? 0) + lines);
      return undefined;
    }
    const waiting = new Promise<void>((resolve) => waiters.push(resolve));
    watch();
    return waiting.then(() => forwardBytes(bytes, lines, source));
  }

  return {
    write(text) {
      const bytes = encoder.encode(text);
      if (queuedBytes + bytes.length > boundBytes) {
        dropped++;
        return;
      }
      enqueue(bytes);
    },
    forward(text, lines, source) {
      return forwardBytes(encoder.encode(text), lines, source);
    },
    async flush(ms) {
      if (!pumping) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
      while (pumping) {
        if (await Promise.race([pumping.then(() => false), late.then(() => true)])) break;
      }
      clearTimeout(timer);
    },
  };
}

/** `1 MiB`, `64 KiB` or `10 bytes`. */
function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** `1 s` or `30 ms`. */
function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The server's stderr. */
export const stderrLog: StderrLog = createStderrLog(
  { write: (bytes) => Deno.stderr.write(bytes) },
  LOG_BOUND_BYTES,
  STALL_MS,
  (message) => logLine(format, { level: "warn", message }),
);

/** How stderr's lines are written: for people (the default) or one JSON object each. */
let format: LogFormat = "text";

/** Sets how stderr's lines are written (`--log-format`), before anything is said. */
export function setLogFormat(chosen: LogFormat): void {
  format = chosen;
}

/** Writes one record to stderr in the format chosen. */
export function writeRecord(record: LogRecord): void {
  stderrLog.write(logLine(format, record));
}

/** Writes one diagnostic line to stderr, with the error's stack when there is one. */
export function logError(message: string, error?: unknown, fields?: LogFields): void {
  writeRecord({ level: "error", message, error, fields });
}

/** Writes a line about something that is probably a mistake (a tool in a subdirectory). */
export function logWarning(message: string, fields?: LogFields): void {
  writeRecord({ level: "warn", message, fields });
}

/** Writes a line of news (what is served, where it listens). */
export function logInfo(message: string, fields?: LogFields): void {
  writeRecord({ level: "info", message, fields });
}

/** Whether diagnostics carry stacks (--verbose); else one line each. */
let stacks = false;
let stacksHinted = false;

/** Turns stacks in diagnostics on (--verbose). */
export function showStacks(on: boolean): void {
  stacks = on;
}

/**
 * The server's diagnostics: everything goes to its stderr. A tool failing as designed
 * (a division by zero) is one line per call; --verbose adds the stack, as the first such
 * line says once.
 */
export const stderrDiagnostics: Diagnostics = {
  error: (message, error, fields) => {
    if (stacks || !(error instanceof Error)) return logError(message, error, fields);
    writeRecord({ level: "error", message, error, stack: false, fields });
    if (!stacksHinted) {
      stacksHinted = true;
      logInfo("(start with --verbose to see the stacks of such errors)");
    }
  },
  info: logInfo,
  warning: logWarning,
  forward: (text, lines, source, tool) =>
    stderrLog.forward(
      format === "json" ? forwardedJsonLines(text, source, tool) : text,
      lines,
      source,
    ),
};
