// In-memory stand-ins for stdin and stdout, for running serve() in process.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A source fed by the test: `push` queues bytes, `end` ends input. Counts reads. */
export function feed() {
  const queue: (Uint8Array | null)[] = [];
  let wake: () => void = () => {};
  const source = {
    reads: 0,
    push(text: string) {
      queue.push(encoder.encode(text));
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

/** A sink that collects output lines; `hold()` makes writes wait until `resume()`. */
export function collector() {
  let text = "";
  let gate: Promise<void> | undefined;
  let open = () => {};
  const lineWaiters: (() => void)[] = [];
  return {
    // deno-lint-ignore no-explicit-any
    lines: (): any[] =>
      text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)),
    hold() {
      gate = new Promise((resolve) => open = resolve);
    },
    resume() {
      gate = undefined;
      open();
    },
    async untilLines(count: number) {
      while (this.lines().length < count) {
        await new Promise<void>((resolve) => lineWaiters.push(resolve));
      }
    },
    async write(bytes: Uint8Array) {
      if (gate) await gate;
      text += decoder.decode(bytes);
      for (const resolve of lineWaiters.splice(0)) resolve();
      return bytes.length;
    },
  };
}
