// Line framing: stdin chunks in, one callback per newline-terminated line out.
//
// Each byte is scanned once (only the new chunk is searched for "\n"), so a long line
// costs linear time however it is split. A line longer than the limit is reported once
// and skipped through its newline, after which framing resynchronizes.
import { concatBytes } from "../../util/bytes.ts";

/** Where framed lines go. `line` must use the bytes before it returns: they may be reused. */
export interface LineSink {
  line(bytes: Uint8Array): void;
  oversize(limitBytes: number): void;
}

export interface LineFramer {
  /** Frames one chunk. The chunk may be reused by the caller once this returns. */
  push(chunk: Uint8Array): void;
  /** Ends input: a last line without a newline is still delivered. */
  end(): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

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
          if (skipping) return;
          if (pendingBytes + tail.length > maxLineBytes) return overflow();
          pending.push(tail.slice());
          pendingBytes += tail.length;
          return;
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
    },
    end() {
      if (!skipping && pendingBytes > 0) deliver(joinPending(new Uint8Array(0)));
      pending = [];
      pendingBytes = 0;
      skipping = false;
    },
  };
}
