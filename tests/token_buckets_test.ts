// The arithmetic of the rate limits (adr/0043) on a clock the test drives: rates as written,
// token buckets kept as the moment each is full again, all-or-none takes, and the bound on the
// keys held in memory. No test here reads a real clock.
import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { checkRateLimit, parseRate } from "../lib/primitives/rate.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { boundedKey, createLocalBuckets } from "../lib/util/token_buckets.ts";
import { parseCommand } from "../lib/host/cli.ts";

Deno.test("parseRate() reads a count per period as a bucket of that many, refilled evenly", () => {
  const shape = (text: string) => {
    const { capacity, intervalMs } = parseRate(text);
    return [capacity, intervalMs];
  };
  deepStrictEqual(shape("60/min"), [60, 1_000]);
  deepStrictEqual(shape("5/s"), [5, 200]);
  deepStrictEqual(shape("1000/h"), [1000, 3_600]);
  deepStrictEqual(shape("2/day"), [2, 43_200_000]);
  deepStrictEqual(shape(" 60 / minute "), [60, 1_000]);
  deepStrictEqual(shape("60/min burst 10"), [10, 1_000], "the burst is the capacity");
  strictEqual(parseRate("60/min burst 10").text, "60/min burst 10");
});

Deno.test("parseRate() refuses what is not a rate with one sentence naming it", () => {
  for (
    const [text, says] of [
      ["60", /"60" is not a rate: write it as "60\/min"/],
      ["60/fortnight", /has the period "fortnight": use s, min, h or d/],
      ["0/s", /has the count 0: it must be from 1 to 1000000000/],
      ["5/s burst 0", /has the burst 0/],
      ["1e3/s", /is not a rate/],
      ["-1/s", /is not a rate/],
      ["5/S", /is not a rate/],
      ["99999999999/s", /has the count 99999999999/],
    ] as const
  ) {
    throws(() => parseRate(text), says, text);
  }
  throws(() => checkRateLimit(60), /rateLimit must be a string such as "60\/min"/);
  strictEqual(checkRateLimit(undefined), undefined);
});

Deno.test("checkDefinition() takes rateLimit and names a bad one; it is never listed", () => {
  const tool = checkDefinition(
    { description: "d", inputSchema: { type: "object" }, rateLimit: "5/s", handler: () => "" },
    "t",
    "tools/t.ts",
  );
  deepStrictEqual([tool.rateLimit?.capacity, tool.rateLimit?.intervalMs], [5, 200]);
  throws(
    () =>
      checkDefinition(
        { description: "d", inputSchema: { type: "object" }, rateLimit: "5/y", handler: () => "" },
        "t",
        "tools/t.ts",
      ),
    /rateLimit "5\/y" has the period "y"/,
  );
});

Deno.test("parseCommand() takes --rate-limit as written and refuses a bad one as a usage error", () => {
  const command = parseCommand(["--rate-limit", "60/min burst 10"]);
  strictEqual(command.kind === "serve" && command.options.rateLimit, "60/min burst 10");
  const refused = parseCommand(["--rate-limit", "lots"]);
  strictEqual(refused.kind, "usage-error");
  ok(
    refused.kind === "usage-error" &&
      refused.message.startsWith('Invalid value for --rate-limit: "lots" is not a rate'),
    JSON.stringify(refused),
  );
});

/** Local buckets on a clock the test sets. */
function driven(maxKeys = 1_000) {
  let now = 0;
  const buckets = createLocalBuckets(maxKeys, () => now);
  return { buckets, at: (ms: number) => now = ms };
}

const rate = (key: string, text: string) => {
  const { capacity, intervalMs } = parseRate(text);
  return { key, capacity, intervalMs };
};

Deno.test("createLocalBuckets() gives a full bucket at once, then one token per interval", () => {
  const { buckets, at } = driven();
  const limit = [rate("a", "3/s")]; // a token every 333.3 ms
  for (let i = 0; i < 3; i++) strictEqual(buckets.take(limit), undefined, `take ${i + 1}`);
  const refused = buckets.take(limit);
  strictEqual(refused?.index, 0);
  ok(Math.abs(refused!.retryAfterMs - 1000 / 3) < 1e-9, String(refused?.retryAfterMs));
  at(300);
  ok(
    Math.abs(buckets.take(limit)!.retryAfterMs - (1000 / 3 - 300)) < 1e-9,
    "a refusal takes nothing",
  );
  at(1000 / 3);
  strictEqual(buckets.take(limit), undefined, "the token that came back");
  ok(buckets.take(limit) !== undefined, "and no other");
  at(10_000); // long idle: full again, never more than full
  for (let i = 0; i < 3; i++) strictEqual(buckets.take(limit), undefined, `after idle ${i + 1}`);
  ok(buckets.take(limit) !== undefined, "capacity 3, not 30");
});

Deno.test("createLocalBuckets() with a burst: that many at once, then the rate's pace", () => {
  const { buckets, at } = driven();
  const limit = [rate("a", "60/min burst 2")];
  strictEqual(buckets.take(limit), undefined);
  strictEqual(buckets.take(limit), undefined);
  strictEqual(buckets.take(limit)?.retryAfterMs, 1000);
  at(1000);
  strictEqual(buckets.take(limit), undefined);
  strictEqual(buckets.take(limit)?.retryAfterMs, 1000);
});

Deno.test("createLocalBuckets() takes from every limit or from none, and names the longest wait", () => {
  const { buckets } = driven();
  const caller = rate("caller", "10/s");
  const tool = rate("tool", "1/min");
  strictEqual(buckets.take([caller, tool]), undefined);
  const refused = buckets.take([caller, tool]);
  deepStrictEqual([refused?.index, refused?.retryAfterMs], [1, 60_000]);
  // The refused request took nothing from the caller's bucket: nine are left of ten.
  for (let i = 0; i < 9; i++) strictEqual(buckets.take([caller]), undefined, `caller ${i + 1}`);
  const both = buckets.take([caller, tool]);
  strictEqual(both?.index, 1, "the tool's wait (60 s) is longer than the caller's (100 ms)");
  const callerOnly = buckets.take([caller]);
  deepStrictEqual([callerOnly?.index, callerOnly?.retryAfterMs], [0, 100]);
});

Deno.test("createLocalBuckets() holds at most maxKeys; the least recently used goes, and a full one costs nothing", () => {
  const { buckets, at } = driven(100);
  const limit = (key: string) => [rate(key, "1/min")];
  strictEqual(buckets.take(limit("hot")), undefined);
  for (let i = 0; i < 300; i++) {
    strictEqual(buckets.take(limit(`caller ${i}`)), undefined);
    ok(buckets.take(limit("hot")) !== undefined, `hot stays refused (${i})`); // and recently used
    ok(buckets.size() <= 100, `size ${buckets.size()}`);
  }
  strictEqual(buckets.size(), 100);
  strictEqual(buckets.forgotten(), 201, "301 callers, 100 kept: 201 forgotten, never hot");
  at(60_000); // every bucket is full again
  for (let i = 300; i < 400; i++) strictEqual(buckets.take(limit(`caller ${i}`)), undefined);
  strictEqual(buckets.forgotten(), 201, "forgetting a full bucket changes no answer");
});

Deno.test("boundedKey() keeps short keys and replaces long ones by a bounded digest", () => {
  strictEqual(boundedKey("address 127.0.0.1"), "address 127.0.0.1");
  const long = (c: string) => `sub ["https://issuer.example","${c.repeat(5_000)}"]`;
  const a = boundedKey(long("a"));
  const b = boundedKey(long("b"));
  ok(a.length < 40 && b.length < 40, `${a} ${b}`);
  ok(a !== b);
  strictEqual(boundedKey(long("a")), a, "the same key each time");
});
