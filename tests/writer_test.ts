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
