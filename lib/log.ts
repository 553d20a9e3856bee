// Diagnostics for humans go to stderr, never stdout (which carries protocol only).
//
// They are written asynchronously through a bounded queue: a client that pipes our stderr
// and does not read it must not be able to block the server (a synchronous write would
// stop the event loop once the pipe is full). Past the bound, lines are dropped and the
// number dropped is reported once stderr moves again.
import type { ByteSink } from "./writer.ts";
import { concatBytes } from "./_bytes.ts";

export interface StderrLog {
  /** Queues text for stderr, or drops it when the queue is full. */
  write(text: string): void;
  /** Resolves when everything queued is written, or after `ms` at the latest. */
  flush(ms: number): Promise<void>;
}

/** How much unwritten diagnostic text may wait before lines are dropped. */
export const LOG_BOUND_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

export function createStderrLog(sink: ByteSink, boundBytes: number): StderrLog {
  let queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let pumping: Promise<void> | undefined;

  async function pump(): Promise<void> {
    try {
      while (queue.length > 0 || dropped > 0) {
        const parts = queue;
        if (dropped > 0) {
          parts.push(encoder.encode(
            `toolshed: ${dropped} line(s) of diagnostics dropped: stderr was not being read\n`,
          ));
          dropped = 0;
        }
        queue = [];
        queuedBytes = 0;
        const chunk = concatBytes(parts);
        let offset = 0;
        while (offset < chunk.length) offset += await sink.write(chunk.subarray(offset));
      }
    } catch {
      // stderr is gone: there is nowhere left to say anything.
      queue = [];
      queuedBytes = 0;
    } finally {
      pumping = undefined;
    }
  }

  return {
    write(text) {
      const bytes = encoder.encode(text);
      if (queuedBytes + bytes.length > boundBytes) {
        dropped++;
        return;
      }
      queue.push(bytes);
      queuedBytes += bytes.length;
      pumping ??= pump();
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

/** The server's stderr. */
export const stderrLog: StderrLog = createStderrLog(
  { write: (bytes) => Deno.stderr.write(bytes) },
  LOG_BOUND_BYTES,
);

/** Writes one diagnostic line to stderr, with the error's stack when there is one. */
export function logError(message: string, error?: unknown): void {
  let detail = "";
  try {
    if (error instanceof Error) detail = `\n${error.stack ?? error.message}`;
  } catch {
    // A tool's error object with a throwing `stack` getter: the message alone will do.
  }
  stderrLog.write(`toolshed: ${message}${detail}\n`);
}
