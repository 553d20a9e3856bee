// What the HTTP transport counts of memory (adr/0058), in this process: the parsed cost of a
// body, the bound on it, resource files read a few at a time, and a large answer sent a
// slice of text at a time. tests/memory_worst_case_test.ts holds the whole against a process.
import { ok, rejects, strictEqual } from "node:assert/strict";
import { createBodyBudget, parsedCost } from "../lib/transports/http/body.ts";
import { createAnswer } from "../lib/transports/http/answer.ts";
import { createUnsentLedger } from "../lib/transports/http/unsent.ts";
import { MAX_UNSENT_BYTES } from "../lib/settings/values.ts";
import { readBounded } from "../lib/primitives/resource_files.ts";
import { serialize } from "../lib/wire/serialize.ts";

const encoder = new TextEncoder();

Deno.test("parsedCost() counts the shapes a parser pays most for many times their bytes, and a long string about twice", () => {
  const objects = encoder.encode(JSON.stringify(Array.from({ length: 100_000 }, () => ({}))));
  const text = encoder.encode(JSON.stringify({ text: "x".repeat(300_000) }));
  const objectsFactor = parsedCost(objects) / objects.length;
  const textFactor = parsedCost(text) / text.length;
  ok(objectsFactor > 20 && objectsFactor < 40, `[{},…]: ${objectsFactor.toFixed(1)}×`);
  ok(textFactor >= 2 && textFactor < 2.1, `a string: ${textFactor.toFixed(2)}×`);
});

Deno.test("createBodyBudget() admits a body's parsed cost alone whatever its size, and beside others only within the bound", () => {
  const budget = createBodyBudget(1024, 100);
  ok(budget.takeParsed(150), "alone, over the bound");
  ok(!budget.takeParsed(1), "beside it, nothing");
  budget.giveParsed(150);
  ok(budget.takeParsed(60));
  ok(budget.takeParsed(40));
  ok(!budget.takeParsed(1));
  strictEqual(budget.parsed(), 100);
});

Deno.test("readBounded() gives up a file whose read is cancelled while it waits its turn, with the signal's reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = new URL(`file://${dir}/big.txt`);
    await Deno.writeTextFile(url, "x".repeat(1024));
    const options = { maxResourceBytes: 4096, insideDir: undefined };
    strictEqual((await readBounded(url, "toolshed:///big.txt", options))?.byteLength, 1024);
    const reason = new Error("cancelled");
    await rejects(
      readBounded(url, "toolshed:///big.txt", options, AbortSignal.abort(reason)),
      (error) => error === reason,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large JSON answer sent a slice of text at a time arrives whole, a surrogate pair on a slice's edge included", async () => {
  const empty = serialize({ jsonrpc: "2.0", id: 1, result: { text: "" } });
  const before = empty.indexOf('""') + 1;
  // The pair's high half is the 65,536th character: the edge of the first 64 Ki slice.
  const text = "a".repeat(64 * 1024 - 1 - before) + "😀" + "b".repeat(100_000);
  const message = { jsonrpc: "2.0", id: 1, result: { text } };
  strictEqual(serialize(message).charCodeAt(64 * 1024 - 1), "😀".charCodeAt(0));
  const response = createAnswer(false, createUnsentLedger(MAX_UNSENT_BYTES)).complete(message, 200);
  strictEqual(await response.text(), serialize(message));
});

Deno.test("the unsent ledger counts a large answer's text by what it holds: a character each, two beyond Latin-1", async () => {
  for (const [char, width] of [["é", 1], ["€", 2]] as const) {
    const ledger = createUnsentLedger(MAX_UNSENT_BYTES);
    const message = { jsonrpc: "2.0", id: 1, result: { text: char.repeat(40_000) } };
    const response = createAnswer(false, ledger).complete(message, 200);
    strictEqual(ledger.counts().bytes, serialize(message).length * width, char);
    strictEqual(await response.text(), serialize(message));
    strictEqual(ledger.counts().bytes, 0);
  }
});
