// The one writer that owns stdout. Responses are queued as serialized lines; while a
// write is in flight, everything that becomes ready meanwhile is gathered and written
// as one chunk (measured before this project: awaiting one write per response ran 15-40x
// slower).

/** Where bytes go: `Deno.stdout` or anything with the same `write`. */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

interface Writer {
  /** Queues one serialized message; the newline is added here. */
  send(line: string): void;
  /** Holds queued messages back until `release()`, so that a burst leaves in one write. */
  hold(): void;
  /** Starts writing what `hold()` held back. */
  release(): void;
  /** Resolves once everything queued so far is written (or the sink has failed). */
  flushed(): Promise<void>;
  /** True while output is queued or being written. */
  writing(): boolean;
  /** Resolves when the queue is below its bound again (immediately when it is). */
  belowBound(): Promise<void>;
}

interface WriterOptions {
  /** Queued characters past which `belowBound` waits (backpressure on the reader). */
  boundChars: number;
  /** Called once if the sink fails (e.g. the client closed its end of the pipe). */
  onClosed(error: unknown): void;
}

const encoder = new TextEncoder();
/**
 * Output at least this long is encoded a piece at a time (`writeInPieces`) instead of joined and
 * encoded: the join makes a string that `encode` must first flatten, a copy that at 16 MiB cost
 * as much as the encoding itself (adr/0052). Below it, one join and one `encode` of many small
 * lines cost less than an `encodeInto` per line.
 */
const ENCODE_INTO_CHARS = 64 * 1024;
/** Characters encoded per piece of a large output; at most three bytes each in UTF-8. */
const PIECE_CHARS = 64 * 1024;
const PIECE_BYTES = 3 * PIECE_CHARS;
const NEWLINE = 0x0a;

export function createWriter(sink: ByteSink, options: WriterOptions): Writer {
  let queue: string[] = [];
  let queuedChars = 0;
  let writing: Promise<void> | undefined;
  let closed = false;
  let held = false;
  let waiters: (() => void)[] = [];
  /** What large output is encoded into, a piece at a time: made at the first large output. */
  let piece: Uint8Array | undefined;

  function release(): void {
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) {
        const lines = queue;
        const chars = queuedChars;
        queue = [];
        queuedChars = 0;
        release();
        if (chars < ENCODE_INTO_CHARS) {
          await writeAll(sink, encoder.encode(lines.join("\n") + "\n"));
        } else {
          piece ??= new Uint8Array(PIECE_BYTES);
          await writeInPieces(sink, lines, piece);
        }
      }
    } catch (error) {
      closed = true;
      queue = [];
      queuedChars = 0;
      release();
      options.onClosed(error);
    } finally {
      writing = undefined;
    }
  }

  return {
    send(line) {
      if (closed) return;
      queue.push(line);
      queuedChars += line.length;
      if (!held) writing ??= drain();
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      if (queue.length > 0) writing ??= drain();
    },
    async flushed() {
      while (writing) await writing;
    },
    writing: () => writing !== undefined || queue.length > 0,
    belowBound() {
      if (closed || queuedChars <= options.boundChars) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/**
 * Writes large output, each line ended by a newline, encoded piece by piece into one reused
 * buffer, each piece written before the next is encoded: no copy of the whole output is ever made, so a 16 MiB answer costs no fresh 16 MiB of
 * memory (whose first touch, page by page, made the per-byte cost grow with size: adr/0052).
 */
async function writeInPieces(sink: ByteSink, lines: string[], piece: Uint8Array): Promise<void> {
  let filled = 0;
  for (const line of lines) {
    for (let start = 0; start < line.length;) {
      let end = Math.min(line.length, start + PIECE_CHARS);
      // A surrogate pair stays whole: its halves encode as one character.
      if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
      if (filled + (end - start) * 3 > PIECE_BYTES) {
        await writeAll(sink, piece.subarray(0, filled));
        filled = 0;
      }
      filled += encoder.encodeInto(line.substring(start, end), piece.subarray(filled)).written;
      start = end;
    }
    if (filled === PIECE_BYTES) {
      await writeAll(sink, piece);
      filled = 0;
    }
    piece[filled++] = NEWLINE;
  }
  await writeAll(sink, piece.subarray(0, filled));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

async function writeAll(sink: ByteSink, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await sink.write(bytes.subarray(offset));
}
