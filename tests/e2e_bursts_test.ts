// bench/e2e/bursts.ts: bench:e2e's pipelined ratios, taken between stdio servers up side by side
// and loaded in turn by short pipelined bursts, the order reversed every other round (issue 42).
// Real processes over real pipes: two bare loops (bench/contestants/bare_loop.ts, no permissions
// needed) for the order, and a tiny server written here that answers with the wrong text.
import assert from "node:assert/strict";
import { runStdioBursts, type StdioBurstOptions } from "../bench/e2e/bursts.ts";
import type { Contestant } from "../bench/e2e/client.ts";

const BARE_LOOP = new URL("../bench/contestants/bare_loop.ts", import.meta.url).pathname;

/** A bare loop under `key`: a real server that answers every echo correctly. */
function bareLoop(key: string): Contestant {
  return { key, label: `bare loop ${key}`, args: ["run", BARE_LOOP], era: "modern" };
}

/** Short bursts: the test asserts on the order and the answers, never on a figure. */
const SHORT: StdioBurstOptions = { rounds: 4, ms: 40, warmMs: 40, inFlight: 8 };

Deno.test("runStdioBursts() loads each server in turn, reversing the order every other round, one round after another", async () => {
  const rounds = await runStdioBursts([bareLoop("a"), bareLoop("b")], SHORT);
  assert.equal(rounds.length, 4);
  const orders = rounds.map((round) =>
    Object.entries(round).sort(([, x], [, y]) => x.startedMs - y.startedMs).map(([key]) => key)
  );
  assert.deepEqual(orders, [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]);
  // A round's bursts follow each other, after the previous round's: a ratio taken within a round
  // divides figures measured side by side in time.
  for (let i = 1; i < rounds.length; i++) {
    const previousEnd = Math.max(
      ...Object.values(rounds[i - 1]).map((burst) => burst.startedMs + burst.seconds * 1000),
    );
    const start = Math.min(...Object.values(rounds[i]).map((burst) => burst.startedMs));
    assert.ok(previousEnd <= start, `round ${i + 1} started before round ${i} ended`);
  }
  for (const burst of rounds.flatMap((round) => Object.values(round))) {
    assert.ok(burst.requests > 0, JSON.stringify(burst));
    assert.equal(burst.rps, burst.requests / burst.seconds);
  }
});

/** A stdio server that answers its first 100 echoes and then echoes the wrong text. */
const WRONG_SERVER = `
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let buffered = "";
let answered = 0;
for await (const chunk of Deno.stdin.readable) {
  buffered += decoder.decode(chunk, { stream: true });
  const lines = buffered.split("\\n");
  buffered = lines.pop();
  let out = "";
  for (const line of lines) {
    const { id, params } = JSON.parse(line);
    const text = ++answered > 100 ? "not what was sent" : params.arguments.text;
    out += JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } }) + "\\n";
  }
  await Deno.stdout.write(encoder.encode(out));
}
`;

Deno.test("runStdioBursts() fails at a server that answers with the wrong text, naming it, and stops every server", async () => {
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(script, WRONG_SERVER);
    const wrong: Contestant = {
      key: "wrong",
      label: "the wrong echo",
      args: ["run", script],
      era: "modern",
    };
    await assert.rejects(
      runStdioBursts([bareLoop("a"), wrong], SHORT),
      /^Error: the wrong echo: wrong answer to request \d+: .*not what was sent/,
    );
    // The test's sanitizers fail it if a server process or pipe is left open.
  } finally {
    await Deno.remove(script);
  }
});

Deno.test("runStdioBursts() refuses rounds, burst lengths and in-flight counts it cannot run, before any server starts", async () => {
  // A contestant that could not start: had a server been spawned, the error would be another.
  const never: Contestant = {
    key: "never",
    label: "never started",
    args: ["run", "/nonexistent/server.ts"],
    era: "modern",
  };
  const cases: [Partial<StdioBurstOptions>, RegExp][] = [
    [{ rounds: 0 }, /Cannot run "0" rounds of bursts: give a whole number ≥ 1/],
    [{ rounds: 1.5 }, /Cannot run "1.5" rounds of bursts/],
    [{ ms: 0 }, /Cannot run bursts of "0" ms: give a whole number of ms ≥ 1/],
    [{ ms: NaN }, /Cannot run bursts of "NaN" ms/],
    [{ warmMs: 0 }, /Cannot warm with a burst of "0" ms/],
    [{ inFlight: 0 }, /Cannot keep "0" requests in flight/],
  ];
  for (const [bad, message] of cases) {
    await assert.rejects(runStdioBursts([never], { ...SHORT, ...bad }), message);
  }
  await assert.rejects(
    runStdioBursts([bareLoop("a"), bareLoop("a")], SHORT),
    /Cannot run bursts against servers "a,a": give distinct keys/,
  );
});

Deno.test("bench:e2e refuses --burst-rounds 0 and --burst-ms 0 before it builds or starts anything", async () => {
  const e2e = new URL("../bench/e2e.ts", import.meta.url).pathname;
  for (
    const [flag, message] of [
      ["--burst-rounds", 'Cannot run "0" rounds of bursts'],
      ["--burst-ms", 'Cannot run bursts of "0" ms'],
    ]
  ) {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", e2e, flag, "0"],
      stdout: "null",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(stderr);
    assert.equal(code, 1, said);
    assert.ok(said.includes(message), said);
    assert.ok(!said.includes("Warming up"), said);
  }
});
