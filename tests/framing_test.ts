import { deepStrictEqual } from "node:assert/strict";
import { createLineFramer } from "../lib/transports/stdio/framing.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Frames the chunks and returns what the sink saw, lines as text. */
function frame(chunks: (string | Uint8Array)[], maxLineBytes = 1024): string[] {
  const seen: string[] = [];
  const framer = createLineFramer(maxLineBytes, {
    line: (bytes) => seen.push(decoder.decode(bytes)),
    oversize: (limit) => seen.push(`<oversize ${limit}>`),
  });
  for (const chunk of chunks) {
    framer.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  }
  framer.end();
  return seen;
}

Deno.test("createLineFramer() splits a chunk into its lines", () => {
  deepStrictEqual(frame(["a\nbb\nccc\n"]), ["a", "bb", "ccc"]);
});

Deno.test("createLineFramer() joins a line split across many chunks", () => {
  deepStrictEqual(frame(['{"a', '":', "1}", "\n{}", "\n"]), ['{"a":1}', "{}"]);
});

Deno.test("createLineFramer() strips the carriage return of CRLF endings", () => {
  deepStrictEqual(frame(["one\r\ntwo\r", "\nthree\n"]), ["one", "two", "three"]);
});

Deno.test("createLineFramer() skips empty lines", () => {
  deepStrictEqual(frame(["\n\r\na\n\n"]), ["a"]);
});

Deno.test("createLineFramer() delivers a last line that has no newline at end of input", () => {
  deepStrictEqual(frame(["a\nlast"]), ["a", "last"]);
});

Deno.test("createLineFramer() reports an oversize line once and resynchronizes at its newline", () => {
  deepStrictEqual(frame(["ok\n", "x".repeat(5), "x".repeat(5), "xx\nnext\n"], 8), [
    "ok",
    "<oversize 8>",
    "next",
  ]);
});

Deno.test("createLineFramer() reports an oversize line that arrives in one chunk", () => {
  deepStrictEqual(frame(["123456789\n12345678\n"], 8), ["<oversize 8>", "12345678"]);
});

Deno.test("createLineFramer() drops an oversize line left unterminated at end of input", () => {
  deepStrictEqual(frame(["a\n", "x".repeat(20)], 8), ["a", "<oversize 8>"]);
});

Deno.test("createLineFramer() keeps bytes of a reused chunk buffer it still needs", () => {
  const seen: string[] = [];
  const framer = createLineFramer(1024, {
    line: (bytes) => seen.push(decoder.decode(bytes)),
    oversize: () => {},
  });
  const buffer = new Uint8Array(4);
  for (const part of ["ab", "cd\n"]) {
    buffer.fill(0);
    const bytes = encoder.encode(part);
    buffer.set(bytes);
    framer.push(buffer.subarray(0, bytes.length));
  }
  deepStrictEqual(seen, ["abcd"]);
});

Deno.test("createLineFramer() passes multi-byte UTF-8 split across chunks through intact", () => {
  const bytes = encoder.encode("é€😀\n");
  deepStrictEqual(frame([bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4)]), ["é€😀"]);
});

Deno.test("createLineFramer() keeps a long unended tail instead of copying it, and says so", () => {
  const seen: string[] = [];
  const framer = createLineFramer(1 << 20, {
    line: (bytes) => seen.push(decoder.decode(bytes)),
    oversize: () => {},
  });
  const long = "x".repeat(40_000);
  // A reader like stdio's: one buffer, reused (and scribbled over) unless the framer kept it.
  let buffer = new Uint8Array(64 * 1024);
  const kept: boolean[] = [];
  for (const part of ["a\n" + long, long, "tail\nb", "\n"]) {
    const bytes = encoder.encode(part);
    buffer.set(bytes);
    const keeps = framer.push(buffer.subarray(0, bytes.length));
    kept.push(keeps);
    if (keeps) buffer = new Uint8Array(64 * 1024);
    else buffer.fill(0x7a);
  }
  deepStrictEqual(kept, [true, true, false, false]);
  deepStrictEqual(seen, ["a", long + long + "tail", "b"]);
});
