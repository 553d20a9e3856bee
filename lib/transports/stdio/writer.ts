// The one writer that owns stdout. Responses are queued as serialized lines; while a
// write is in flight, everything that becomes ready meanwhile is gathered and written
// as one chunk (measured before this project: awaiting one write per response ran 15-40x
// slower).

/** Where bytes go: `Deno.stdout` or anything with the same `write`. */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

export interface Writer {
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

export interface WriterOptions {
  /** Queued characters past which `belowBound` waits (backpressure on the reader). */
  boundChars: number;
  /** Called once if the sink fails (e.g. the client closed its end of the pipe). */
  onClosed(error: unknown): void;
}

const encoder = new TextEncoder();
/**
 * Output at least this long is encoded line by line into one buffer of its size (`encodeInto`)
 * instead of joined and encoded: the join makes a string that `encode` must first flatten, a
 * copy that at 16 MiB cost as much as the encoding itself (adr/0052). Below it, one join and one
 * `encode` of many small lines cost less than an `encodeInto` per line.
 */
const ENCODE_INTO_CHARS = 64 * 1024;
const NEWLINE = 0x0a;

export function createWriter(sink: ByteSink, options: WriterOptions): Writer {
  let queue: string[] = [];
  let queuedChars = 0;
  let writing: Promise<void> | undefined;
  let closed = false;
  let held = false;
  let waiters: (() => void)[] = [];

  function release(): void {
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) {
        const chunks = encodeLines(queue, queuedChars);
        queue = [];
        queuedChars = 0;
        release();
        for (const chunk of chunks) await writeAll(sink, chunk);
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
 * The lines, each ended by a newline, as bytes: one chunk, or two when a large output holds
 * characters beyond Latin-1's ASCII half (its UTF-8 length is not known until it is encoded).
 */
function encodeLines(lines: string[], chars: number): Uint8Array[] {
  if (chars < ENCODE_INTO_CHARS) return [encoder.encode(lines.join("\n") + "\n")];
  // One byte per character for ASCII, which JSON output mostly is; a line that needs more
  // stops the filling, and the rest is encoded the ordinary way.
  const bytes = new Uint8Array(chars + lines.length);
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const { read, written } = encoder.encodeInto(line, bytes.subarray(offset));
    offset += written;
    if (read < line.length) {
      const rest = [line.slice(read), ...lines.slice(i + 1)].join("\n") + "\n";
      return [bytes.subarray(0, offset), encoder.encode(rest)];
    }
    bytes[offset++] = NEWLINE;
  }
  return [bytes];
}

async function writeAll(sink: ByteSink, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await sink.write(bytes.subarray(offset));
}
