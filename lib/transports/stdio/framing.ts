// Line framing: stdin chunks in, one callback per newline-terminated line out.
//
// Each byte is scanned once (only the new chunk is searched for "\n"), so a long line
// costs linear time however it is split. A line longer than the limit is reported once
// and skipped through its newline, after which framing resynchronizes.
import { concatBytes } from "../../util/bytes.ts";

/** Where framed lines go. `line` must use the bytes before it returns: they may be reused. */
interface LineSink {
  line(bytes: Uint8Array): void;
  oversize(limitBytes: number): void;
}

interface LineFramer {
  /**
   * Frames one chunk. Returns true when the framer kept the chunk itself (the start of a long
   * line): the caller must then read into a new buffer. On false, the caller may reuse it.
   */
  push(chunk: Uint8Array): boolean;
  /** Ends input: a last line without a newline is still delivered. */
  end(): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/**
 * An unended tail at least this long is kept as it is rather than copied out: a long line then
 * costs one copy (the join) instead of two, which at 16 MiB is ~12 ms of fresh memory
 * (adr/0052). A shorter tail is copied, so that pipelined small messages keep one read buffer.
 */
const KEEP_TAIL_BYTES = 16 * 1024;

export function createLineFramer(maxLineBytes: number, sink: LineSink): LineFramer {
  // The start of a line that has not ended yet, copied out of earlier chunks.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // True while skipping the rest of a line that passed the limit.
  let skipping = false;

  function deliver(bytes: Uint8Array): void {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN
      ? bytes.length - 1
      : bytes.length;
    if (end > 0) sink.line(end === bytes.length ? bytes : bytes.subarray(0, end));
  }

  function joinPending(last: Uint8Array): Uint8Array {
    if (pending.length === 0) return last;
    const whole = concatBytes([...pending, last]);
    pending = [];
    pendingBytes = 0;
    return whole;
  }

  function overflow(): void {
    pending = [];
    pendingBytes = 0;
    skipping = true;
    sink.oversize(maxLineBytes);
  }

  return {
    push(chunk) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1) {
          const tail = chunk.subarray(start);
          if (skipping) return false;
          if (pendingBytes + tail.length > maxLineBytes) {
            overflow();
            return false;
          }
          const kept = tail.length >= KEEP_TAIL_BYTES;
          pending.push(kept ? tail : tail.slice());
          pendingBytes += tail.length;
          return kept;
        }
        const piece = chunk.subarray(start, newline);
        start = newline + 1;
        if (skipping) {
          skipping = false;
        } else if (pendingBytes + piece.length > maxLineBytes) {
          overflow();
          skipping = false;
        } else {
          deliver(joinPending(piece));
        }
      }
      return false;
    },
    end() {
      if (!skipping && pendingBytes > 0) deliver(joinPending(new Uint8Array(0)));
      pending = [];
      pendingBytes = 0;
      skipping = false;
    },
  };
}
