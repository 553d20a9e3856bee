import assert, { deepStrictEqual, strictEqual } from "node:assert/strict";
import { createStderrLog } from "../lib/host/stderr_log.ts";

const decoder = new TextDecoder();

/** A sink whose writes wait until `release()`, as a pipe nobody reads would. */
function stalledSink() {
  const written: string[] = [];
  let open = () => {};
  const gate = new Promise<void>((resolve) => open = resolve);
  return {
    written,
    release: () => open(),
    async write(bytes: Uint8Array) {
      await gate;
      written.push(decoder.decode(bytes));
      return bytes.length;
    },
  };
}

Deno.test("createStderrLog() never blocks its caller, drops past its bound, and says how many", async () => {
  const sink = stalledSink();
  const log = createStderrLog(sink, 10);
  log.write("first\n"); // taken by the stalled write
  log.write("12345\n"); // queued: 6 bytes
  log.write("too much\n"); // 6 + 9 > 10: dropped
  log.write("x\n"); // 6 + 2 fits
  strictEqual(sink.written.length, 0);
  sink.release();
  await log.flush(10_000);
  deepStrictEqual(
    sink.written.join(""),
    [
      "first\n",
      "12345\nx\n",
      "toolshed: 1 line(s) of diagnostics dropped: the queue of unwritten stderr text passed " +
      "its bound of 10 bytes\n",
    ].join(""),
  );
});

Deno.test("createStderrLog() flush() gives up after its time when stderr never moves", async () => {
  const sink = stalledSink();
  const log = createStderrLog(sink, 1_000);
  log.write("stuck\n");
  await log.flush(20);
  strictEqual(sink.written.length, 0);
  sink.release(); // let the pending write finish so no promise outlives the test
  await log.flush(10_000);
});

Deno.test("createStderrLog() goes quiet once its sink fails", async () => {
  let attempts = 0;
  const log = createStderrLog({
    write() {
      attempts++;
      return Promise.reject(new Deno.errors.BrokenPipe("gone"));
    },
  }, 1_000);
  log.write("a\n");
  await log.flush(10_000);
  log.write("b\n");
  await log.flush(10_000);
  strictEqual(attempts, 2);
});

/** A sink that takes at most `most` bytes per write, each a little later: slow, but moving. */
function slowSink(most: number) {
  const written: string[] = [];
  return {
    written,
    async write(bytes: Uint8Array) {
      for (let i = 0; i < 10; i++) await null;
      const taken = bytes.subarray(0, most);
      written.push(decoder.decode(taken));
      return taken.length;
    },
  };
}

Deno.test("createStderrLog() forward() makes its caller wait while the queue is full, and loses nothing while stderr moves", async () => {
  const sink = slowSink(7);
  const log = createStderrLog(sink, 64, 1_000);
  const expected: string[] = [];
  let waits = 0;
  for (let i = 0; i < 300; i++) {
    const text = `[t] line ${i}\n[t] again ${i}\n`;
    expected.push(text);
    const wait = log.forward(text, 2, 'stderr from tool "t"');
    if (wait) {
      waits++;
      await wait;
    }
  }
  await log.flush(10_000);
  assert(waits > 100, `forward() waited ${waits} times`);
  strictEqual(sink.written.join(""), expected.join(""));
});

Deno.test("createStderrLog() forward() drops lines once stderr has taken nothing for the stall time, and says how many when it moves", async () => {
  const sink = stalledSink();
  const log = createStderrLog(sink, 20, 30);
  const source = 'stderr from tool "t"';
  strictEqual(log.forward("one\n", 1, source), undefined); // taken by the stalled write
  strictEqual(log.forward("two\n", 1, source), undefined); // queued: 4 bytes
  strictEqual(log.forward("three\n", 1, source), undefined); // 10: half the bound, the most
  const waiting = log.forward("four\n", 1, source);
  assert(waiting, "forward() did not wait for room");
  // Nothing moves: after the stall time the wait ends and the line is dropped.
  await waiting;
  strictEqual(log.forward("five\nsix\n", 2, source), undefined); // dropped at once now
  log.write("diag\n"); // the other half of the queue is for diagnostics
  strictEqual(sink.written.length, 0);
  sink.release();
  await log.flush(10_000);
  strictEqual(log.forward("seven\n", 1, source), undefined);
  await log.flush(10_000);
  strictEqual(
    sink.written.join(""),
    [
      "one\n",
      "two\nthree\ndiag\n",
      'toolshed: 3 line(s) of stderr from tool "t" dropped: the server\'s stderr took no ' +
      "writes for 30 ms\n",
      "seven\n",
    ].join(""),
  );
});

Deno.test("createStderrLog() forward() takes text of any size into an empty queue", async () => {
  const written: string[] = [];
  const log = createStderrLog(
    {
      write(bytes) {
        written.push(decoder.decode(bytes));
        return Promise.resolve(bytes.length);
      },
    },
    4,
    1_000,
  );
  strictEqual(log.forward("longer than the bound\n", 1, "x"), undefined);
  await log.flush(10_000);
  deepStrictEqual(written, ["longer than the bound\n"]);
});
