// Bench helper: stdin in memory, for benches that serve stdio in process.

/** A source that yields `input` in 64 KiB reads, as stdin would, then ends. */
export function stdinOf(input: Uint8Array): { read(buffer: Uint8Array): Promise<number | null> } {
  let offset = 0;
  return {
    read(buffer: Uint8Array): Promise<number | null> {
      if (offset >= input.length) return Promise.resolve(null);
      const count = Math.min(buffer.length, input.length - offset);
      buffer.set(input.subarray(offset, offset + count));
      offset += count;
      return Promise.resolve(count);
    },
  };
}
