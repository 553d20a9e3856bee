import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { createWriter } from "../lib/transports/stdio/writer.ts";

const decoder = new TextDecoder();

/** A sink whose writes wait until `release()`, recording each chunk as text. */
function gatedSink(maxBytesPerWrite = Infinity) {
  const chunks: string[] = [];
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => open = resolve);
  return {
    chunks,
    release() {
      open();
    },
    close() {
      gate = new Promise<void>((resolve) => open = resolve);
    },
    async write(bytes: Uint8Array) {
      await gate;
      const taken = bytes.subarray(0, Math.min(bytes.length, maxBytesPerWrite));
      chunks.push(decoder.decode(taken));
      return taken.length;
    },
  };
}

Deno.test("createWriter() coalesces lines queued while a write is in flight into one chunk", async () => {
  const sink = gatedSink();
  const writer = createWriter(sink, { boundChars: 1_000, onClosed: () => {} });
  writer.send("1");
  writer.send("2");
  writer.send("3");
  sink.release();
  await writer.flushed();
  deepStrictEqual(sink.chunks, ["1\n", "2\n3\n"]);
});

Deno.test("createWriter() finishes partial writes", async () => {
  const sink = gatedSink(3);
  sink.release();
  const writer = createWriter(sink, { boundChars: 1_000, onClosed: () => {} });
  writer.send('{"a":"long line"}');
  await writer.flushed();
  deepStrictEqual(sink.chunks.join(""), '{"a":"long line"}\n');
  ok(sink.chunks.length > 1);
});

Deno.test("createWriter() holds belowBound() until the queue drains below its bound", async () => {
  const sink = gatedSink();
  const writer = createWriter(sink, { boundChars: 5, onClosed: () => {} });
  writer.send("first"); // taken by the in-flight write
  writer.send("second line"); // queued: 11 chars, over the bound
  let released = false;
  const waiting = writer.belowBound().then(() => released = true);
  // A turn of the event loop runs everything that could release it short of the sink.
  await new Promise((resolve) => setTimeout(resolve, 0));
  strictEqual(released, false);
  sink.release();
  await waiting;
  await writer.flushed();
  deepStrictEqual(sink.chunks, ["first\n", "second line\n"]);
});

Deno.test("createWriter() reports a failing sink once and drops later lines", async () => {
  const failures: unknown[] = [];
  let writes = 0;
  const writer = createWriter({
    write() {
      writes++;
      return Promise.reject(new Deno.errors.BrokenPipe("closed"));
    },
  }, { boundChars: 1, onClosed: (error) => failures.push(error) });
  writer.send("a");
  await writer.flushed();
  writer.send("b");
  await writer.flushed();
  await writer.belowBound();
  strictEqual(failures.length, 1);
  ok(failures[0] instanceof Deno.errors.BrokenPipe);
  strictEqual(writes, 1);
});

Deno.test("createWriter() writes large output byte for byte, ASCII or not, lines in order", async () => {
  const big = "a".repeat(70_000);
  for (
    const lines of [
      ["small", big, "after"],
      // Characters past ASCII stop the one-byte fill mid-line; the rest is encoded as UTF-8.
      ["small", `${big}é€😀${big}`, "après"],
      [`€${big}`, "x"],
    ]
  ) {
    const sink = gatedSink();
    const writer = createWriter(sink, { boundChars: 1_000_000, onClosed: () => {} });
    writer.hold();
    for (const line of lines) writer.send(line);
    sink.release();
    writer.release();
    await writer.flushed();
    strictEqual(sink.chunks.join(""), lines.join("\n") + "\n");
  }
});

/** A sink that keeps every byte written and the size of each write. */
function recordingSink() {
  const parts: Uint8Array[] = [];
  return {
    parts,
    write(bytes: Uint8Array) {
      parts.push(bytes.slice());
      return Promise.resolve(bytes.length);
    },
    text: () => decoder.decode(new Uint8Array(parts.flatMap((part) => [...part]))),
  };
}

Deno.test("createWriter() encodes a large line in pieces, never the whole line at once", async () => {
  const sink = recordingSink();
  const writer = createWriter(sink, { boundChars: Infinity, onClosed: () => {} });
  const line = "x".repeat(4 * 1024 * 1024);
  writer.send(line);
  await writer.flushed();
  strictEqual(sink.text(), line + "\n");
  ok(sink.parts.length > 1, "written in several pieces");
  const largest = Math.max(...sink.parts.map((part) => part.length));
  ok(largest <= 256 * 1024, `largest write ${largest} bytes`);
});

Deno.test("createWriter() keeps characters whole across the pieces of a large output", async () => {
  const piece = 64 * 1024; // the writer's piece, in UTF-16 code units
  for (
    const lines of [
      // A surrogate pair astride the first piece's end.
      ["a".repeat(piece - 1) + "😀" + "b".repeat(10)],
      // Three-byte characters that fill a piece exactly, then the newline.
      ["€".repeat(piece), "€".repeat(piece + 1)],
      // Mixed widths, several lines, each in order.
      ["small", "é".repeat(piece * 2 + 3), "😀".repeat(piece), "after"],
    ]
  ) {
    const sink = recordingSink();
    const writer = createWriter(sink, { boundChars: Infinity, onClosed: () => {} });
    writer.hold();
    for (const line of lines) writer.send(line);
    writer.release();
    await writer.flushed();
    strictEqual(sink.text(), lines.join("\n") + "\n");
  }
});
