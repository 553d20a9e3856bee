import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { createStderrLog } from "../lib/log.ts";

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
      "toolshed: 1 line(s) of diagnostics dropped: stderr was not being read\n",
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
