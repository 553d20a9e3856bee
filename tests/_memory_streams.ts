// In-memory stand-ins for stdin and stdout, for running serve() in process.
const encoder = new TextEncoder();

/** A source fed by the test: `push` queues text or bytes, `end` ends input. Counts reads. */
export function feed() {
  const queue: (Uint8Array | null)[] = [];
  let wake: () => void = () => {};
  const source = {
    reads: 0,
    push(data: string | Uint8Array) {
      queue.push(typeof data === "string" ? encoder.encode(data) : data);
      wake();
    },
    end() {
      queue.push(null);
      wake();
    },
    async read(buffer: Uint8Array): Promise<number | null> {
      source.reads++;
      while (queue.length === 0) await new Promise<void>((resolve) => wake = resolve);
      const next = queue[0];
      if (next === null) return null;
      const count = Math.min(buffer.length, next.length);
      buffer.set(next.subarray(0, count));
      if (count === next.length) queue.shift();
      else queue[0] = next.subarray(count);
      return count;
    },
  };
  return source;
}

/**
 * A sink that collects output lines; `hold()` makes writes wait until `resume()`. Each
 * write is scanned once, from where the last newline was found, so collecting stays linear
 * in the output however it is cut into writes.
 */
export function collector() {
  const decoder = new TextDecoder();
  /** Complete lines, in order, without their newlines. */
  const raw: string[] = [];
  /** The pieces of the line under way. */
  let pieces: string[] = [];
  // deno-lint-ignore no-explicit-any
  const parsed: any[] = [];
  /** How many lines nextLine() has handed out. */
  let taken = 0;
  let closed = false;
  let gate: Promise<void> | undefined;
  let open = () => {};
  let waiters: (() => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const changed = () => new Promise<void>((resolve) => waiters.push(resolve));
  return {
    /** The complete lines written so far, parsed as JSON. */
    // deno-lint-ignore no-explicit-any
    lines(): any[] {
      while (parsed.length < raw.length) parsed.push(JSON.parse(raw[parsed.length]));
      return parsed.slice();
    },
    hold() {
      gate = new Promise((resolve) => open = resolve);
    },
    resume() {
      gate = undefined;
      open();
    },
    /** Resolves once `count` complete lines have been written. */
    async untilLines(count: number) {
      while (raw.length < count) await changed();
    },
    /** The next line not yet taken, as text; null once none is left and `close()` was called. */
    async nextLine(): Promise<string | null> {
      while (taken === raw.length && !closed) await changed();
      return taken < raw.length ? raw[taken++] : null;
    },
    /** The lines not yet taken (with a last one that lacks its newline, if any). */
    drain(): string[] {
      const rest = raw.slice(taken);
      taken = raw.length;
      const tail = pieces.join("") + decoder.decode();
      if (tail !== "") rest.push(tail);
      pieces = [];
      return rest;
    },
    /** No more writes will come. */
    close() {
      closed = true;
      wake();
    },
    async write(bytes: Uint8Array) {
      if (gate) await gate;
      const text = decoder.decode(bytes, { stream: true });
      let start = 0;
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
        pieces.push(text.slice(start, at));
        raw.push(pieces.join(""));
        pieces = [];
        start = at + 1;
      }
      if (start < text.length) pieces.push(text.slice(start));
      wake();
      return bytes.length;
    },
  };
}
