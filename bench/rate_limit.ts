// What a rate limit costs per request in process, with no I/O (adr/0043): 1,000 pipelined echo
// calls through serve() of the same tools, without a limit (the baseline), with `--rate-limit`
// set too high to refuse (the caller's bucket checked on every call, in memory), and with the
// tool's own `rateLimit` as well (two buckets per call), and over its limit after the first call
// (what a caller who floods costs the server: a refusal answered before any handler runs). The
// bucket arithmetic alone is timed beside it. Redis's cost is a round trip: `deno task bench:http --rate-limit`.
//
//   deno run -A bench/rate_limit.ts [ROUNDS]
//
// Rounds are interleaved (each contestant once per round, the order rotated), each a fresh server;
// what is printed is, per contestant, the median over the rounds of its time ÷ the unlimited
// one's in the same round. (Deno.bench is not used: its runner never finished an iteration that
// starts and closes a server.)
import { createServer } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { createLocalBuckets } from "../lib/util/token_buckets.ts";
import { recorder } from "../tests/_diagnostics.ts";
import { stdinOf } from "./_stdin.ts";

const REQUESTS = 1_000;
const NEVER_REFUSED = "1000000000/s";
const encoder = new TextEncoder();
const { tools } = await loadTools(new URL("./tools/", import.meta.url), {
  diagnostics: recorder(),
});
const echo = tools.find((tool) => tool.name === "echo")!;
const limitedEcho = checkDefinition(
  { ...echo.definition, rateLimit: NEVER_REFUSED } as unknown as Record<string, never>,
  "echo",
  echo.file,
);

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
let text = "";
for (let id = 1; id <= REQUESTS; id++) {
  const params = { name: "echo", arguments: { text: `hello ${id}` }, _meta: meta };
  text += JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }) + "\n";
}
const input = encoder.encode(text);

const config = {
  diagnostics: recorder(),
  maxMessageBytes: 32 * 1024 * 1024,
  outputBoundChars: 16 * 1024 * 1024,
  waitingBoundBytes: 16 * 1024 * 1024,
};
const unlimited = { ...config, primitives: { tools } };
const perCaller = { ...unlimited, rateLimit: NEVER_REFUSED };
/** Over its limit after the first call: what a caller who floods costs the server per request. */
const refused = { ...unlimited, rateLimit: "1/h" };
const both = {
  ...perCaller,
  primitives: { tools: tools.map((tool) => tool === echo ? limitedEcho : tool) },
};

/** A fresh server of `given` answers the 1,000 calls (every answer counted). */
async function through(given: typeof unlimited): Promise<void> {
  const server = await createServer(given);
  let lines = 0;
  const sink = {
    write(bytes: Uint8Array) {
      for (const byte of bytes) if (byte === 10) lines++;
      return Promise.resolve(bytes.length);
    },
  };
  await server.serveStdio({ input: stdinOf(input), output: sink }).done;
  await server.close();
  if (lines !== REQUESTS) throw new Error(`${lines} answers of ${REQUESTS}`);
}

const CONTESTANTS = [
  ["no rate limit", unlimited],
  ["--rate-limit (one bucket per call)", perCaller],
  ["--rate-limit and the tool's rateLimit (two buckets)", both],
  ["--rate-limit 1/h: all but the first call refused", refused],
] as const;
const rounds = Number(Deno.args[0] ?? 31);
const ratios: number[][] = CONTESTANTS.map(() => []);
const times: number[][] = CONTESTANTS.map(() => []);
for (const [, given] of CONTESTANTS) await through(given); // warm up
for (let round = 0; round < rounds; round++) {
  const took: number[] = [];
  for (let i = 0; i < CONTESTANTS.length; i++) {
    const at = (i + round) % CONTESTANTS.length;
    const started = performance.now();
    await through(CONTESTANTS[at][1]);
    took[at] = performance.now() - started;
  }
  took.forEach((ms, i) => {
    times[i].push(ms);
    ratios[i].push(ms / took[0]);
  });
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const quartiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[sorted.length >> 2].toFixed(2)}–${sorted[(3 * sorted.length) >> 2].toFixed(2)}`;
};
// deno-lint-ignore no-console -- a benchmark prints its table for people
console.log(
  `${rounds} rounds of ${REQUESTS} pipelined calls, a fresh server each\n\n` +
    "| contestant | median ms | ÷ no limit, median (quartiles) |\n|---|---|---|\n" +
    CONTESTANTS.map(([label], i) =>
      `| ${label} | ${median(times[i]).toFixed(1)} | ${median(ratios[i]).toFixed(2)}× (${
        quartiles(ratios[i])
      }) |`
    ).join("\n"),
);

const buckets = createLocalBuckets();
const limits = [{ key: "c address 127.0.0.1", capacity: 1e9, intervalMs: 1e-6 }];
const started = performance.now();
for (let i = 0; i < 1_000_000; i++) buckets.take(limits);
// deno-lint-ignore no-console -- as above
console.log(`\none local bucket: ${((performance.now() - started) / 1000).toFixed(3)} µs per take`);
