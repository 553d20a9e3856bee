// bench/http/bursts.ts: the HTTP ratios of bench:http and bench:floor, taken between servers up
// side by side and loaded in turn by short bursts, the order reversed every other round (issue
// 42). The arithmetic (the order, the median and spread of per-round ratios, a target's
// verdict) on figures made by hand; then one short real run with wrk against two loopback
// servers in this process, which see the bursts arrive in the order the rounds promise.
import assert from "node:assert/strict";
import {
  burstOrder,
  type BurstRound,
  figureOf,
  formatRatio,
  median,
  ratioTable,
  type RatioTarget,
  roundRatios,
  runBursts,
  spreadOf,
  verdictLine,
  verdictOf,
} from "../bench/http/bursts.ts";
import { removeScript } from "../bench/http/wrk.ts";

Deno.test("burstOrder() runs the servers as given in even rounds and reversed in odd ones", () => {
  const servers = ["a", "b", "c"];
  assert.deepEqual(
    [0, 1, 2, 3].map((round) => burstOrder(servers, round)),
    [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"], ["c", "b", "a"]],
  );
  assert.deepEqual(servers, ["a", "b", "c"]);
});

Deno.test("spreadOf() gives the median, the extremes and the quartiles, in any order", () => {
  assert.deepEqual(spreadOf([5, 1, 4, 2, 3]), {
    median: 3,
    min: 1,
    max: 5,
    q1: 2,
    q3: 4,
    count: 5,
  });
  // An even count: the median is the mean of the two middle figures, the quartiles linear.
  assert.deepEqual(spreadOf([4, 1, 3, 2]), {
    median: 2.5,
    min: 1,
    max: 4,
    q1: 1.75,
    q3: 3.25,
    count: 4,
  });
  assert.equal(median([7]), 7);
  assert.throws(() => spreadOf([]), new Error("Cannot take the spread of no figures"));
});

/** A burst whose figures are all derived from one number, so each figure tells its source. */
function burst(rps: number, p50Ms: number) {
  return { requests: rps, rps, p50Ms, p99Ms: p50Ms * 3, cpuUsPerRequest: 1e6 / rps };
}

const ROUNDS: BurstRound[] = [
  {
    floor: { 1: burst(100, 0.04), 64: burst(200, 1) },
    toolshed: { 1: burst(90, 0.05), 64: burst(180, 2) },
  },
  {
    floor: { 1: burst(100, 0.05), 64: burst(100, 1) },
    toolshed: { 1: burst(80, 0.05), 64: burst(95, 2) },
  },
  {
    floor: { 1: burst(100, 0.02), 64: burst(400, 1) },
    toolshed: { 1: burst(70, 0.05), 64: burst(320, 2) },
  },
  // A round where toolshed gave nothing at 64 connections is left out of that figure's ratios.
  { floor: { 1: burst(100, 0.05), 64: burst(400, 1) }, toolshed: { 1: burst(60, 0.06) } },
];

Deno.test("roundRatios() divides within each round, at the named figure and connections", () => {
  assert.deepEqual(roundRatios(ROUNDS, "toolshed", "floor", figureOf(64, "rps")), [0.9, 0.95, 0.8]);
  assert.deepEqual(
    roundRatios(ROUNDS, "toolshed", "floor", figureOf(1, "p50Ms")).map((x) => x.toFixed(3)),
    ["1.250", "1.000", "2.500", "1.200"],
  );
  assert.deepEqual(roundRatios(ROUNDS, "toolshed", "nobody", figureOf(1, "rps")), []);
});

Deno.test("formatRatio() and ratioTable() give the median with its spread, alone when one", () => {
  assert.equal(formatRatio(spreadOf([0.9, 0.95, 0.8])), "0.90× (0.80–0.95; IQR 0.85–0.93)");
  assert.equal(formatRatio(spreadOf([1.234])), "1.23×");
  assert.equal(
    ratioTable(
      [{ label: "toolshed ÷ floor", after: "toolshed", before: "floor" }, {
        label: "floor ÷ toolshed",
        after: "floor",
        before: "toolshed",
      }],
      [
        {
          name: "req/s, 64",
          ratios: (after, before) => roundRatios(ROUNDS, after, before, figureOf(64, "rps")),
        },
        { name: "nothing", ratios: () => [] },
      ],
    ),
    [
      "| figure | toolshed ÷ floor | floor ÷ toolshed |",
      "|---|---|---|",
      "| req/s, 64 | 0.90× (0.80–0.95; IQR 0.85–0.93) | 1.11× (1.05–1.25; IQR 1.08–1.18) |",
      "| nothing | — | — |",
    ].join("\n"),
  );
});

Deno.test("verdictOf() judges the median ratio and counts the rounds that meet the target", () => {
  const target: RatioTarget = { figure: "req/s", wanted: "≥ 0.9×", meets: (x) => x >= 0.9 };
  const holds = verdictOf(target, [0.85, 0.95, 0.92]);
  assert.equal(holds.holds, true);
  assert.equal(holds.met, 2);
  assert.equal(
    verdictLine(target, holds),
    "req/s: 0.92× (0.85–0.95; IQR 0.89–0.94), wanted ≥ 0.9×: ✓ holds (met in 2 of 3 rounds)",
  );
  // The best and worst rounds do not decide: the middle one does.
  const missed = verdictOf(target, [0.85, 0.99, 0.88]);
  assert.equal(missed.holds, false);
  assert.equal(missed.met, 1);
  assert.match(verdictLine(target, missed), /: 0\.88× .*✗ missed \(met in 1 of 3 rounds\)$/);
});

/**
 * An echo server in this process that notes each new connection (one per burst at 1
 * connection) in `seen`, and counts the requests of each connection.
 */
function echoServer(name: string, seen: string[], right = true) {
  const requests = new Map<number, number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request, info) => {
      const { port } = info.remoteAddr;
      if (!requests.has(port)) seen.push(name);
      requests.set(port, (requests.get(port) ?? 0) + 1);
      const { id, params } = await request.json();
      const text = right ? params.arguments.text : "something else";
      return Response.json({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
    },
  );
  return {
    target: { key: name, label: `server ${name}`, url: `http://127.0.0.1:${server.addr.port}/mcp` },
    /** The requests of each connection, in the order the connections came. */
    perConnection: () => [...requests.values()],
    close: () => server.shutdown(),
  };
}

Deno.test("runBursts() loads each server in turn, reversing the order every other round", async () => {
  const seen: string[] = [];
  const [a, b] = [echoServer("a", seen), echoServer("b", seen)];
  try {
    const rounds = await runBursts([a.target, b.target], {
      rounds: 2,
      seconds: 1,
      connections: [1],
    });
    // One uncounted burst each, then a, b in the first round and b, a in the second.
    assert.deepEqual(seen, ["a", "b", "a", "b", "b", "a"]);
    assert.equal(rounds.length, 2);
    for (const [server, name] of [[a, "a"], [b, "b"]] as const) {
      // wrk counts the answers it received; the server may have answered a few more in flight.
      const [, first, second] = server.perConnection();
      const counted = rounds.map((round) => round[name][1].requests);
      assert.ok(counted[0] > 0 && counted[0] <= first, `${name}: ${counted[0]} of ${first}`);
      assert.ok(counted[1] > 0 && counted[1] <= second, `${name}: ${counted[1]} of ${second}`);
      assert.ok(rounds.every((round) => round[name][1].p50Ms > 0));
    }
  } finally {
    await removeScript();
    await Promise.all([a.close(), b.close()]);
  }
});

Deno.test("runBursts() fails at a server whose answers lack the echoed text, naming it", async () => {
  const seen: string[] = [];
  const [wrong, right] = [echoServer("wrong", seen, false), echoServer("right", seen)];
  try {
    await assert.rejects(
      () => runBursts([wrong.target, right.target], { rounds: 1, seconds: 1, connections: [1] }),
      (error: Error) => {
        assert.match(
          error.message,
          /^server wrong: (\d+) of \1 answers were wrong or failed in a burst at 1 connections$/,
        );
        return true;
      },
    );
    assert.deepEqual(seen, ["wrong"]);
  } finally {
    await removeScript();
    await Promise.all([wrong.close(), right.close()]);
  }
});

Deno.test("runBursts() refuses rounds, seconds and connections wrk cannot run, before any burst", async () => {
  const target = { key: "a", label: "a", url: "http://127.0.0.1:9/mcp" };
  const refused = [
    [
      { rounds: 0, seconds: 1, connections: [1] },
      'Cannot run "0" rounds of bursts: give a whole number ≥ 1',
    ],
    [
      { rounds: 1, seconds: 0.5, connections: [1] },
      'Cannot run bursts of "0.5" s: wrk takes whole seconds ≥ 1',
    ],
    [
      { rounds: 1, seconds: 1, connections: [1, 0] },
      'Cannot run bursts at "1,0" connections: give whole numbers ≥ 1',
    ],
  ] as const;
  for (const [options, message] of refused) {
    await assert.rejects(() => runBursts([target], options), new Error(message));
  }
  await assert.rejects(
    () => runBursts([target, target], { rounds: 1, seconds: 1, connections: [1] }),
    new Error('Cannot run bursts against servers "a,a": give distinct keys'),
  );
});
