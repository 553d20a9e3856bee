// Stdio pipelined ratios that hold on a noisy box (issue 42, adr/0074 step 2, as bench/http/
// bursts.ts does it for HTTP). bench:e2e's rounds run each contestant whole, one after another, so
// two pipelined figures of one round are taken seconds to a minute apart and their ratio swings
// with the machine. Here the servers are all up side by side, as real processes over pipes, for
// the whole measurement; each is warmed by one uncounted burst, then each round loads each in turn
// with one pipelined burst (64 in flight, as the rounds' pipelined figure), the order reversed
// every other round, so that what the machine does in one second weighs on both sides of a ratio
// taken within the round. Every answer of every burst is checked; one wrong answer fails the run.
//
// A burst lasts a fixed time rather than a fixed count of requests: each server is then exposed
// to the machine for the same window whatever its speed (a fixed count would give the SDK a
// window four times the bare loop's), a round's length does not depend on who is fastest, and
// no size has to be tuned to the slowest server of the day.
import { type Connection, type Contestant, spawn } from "./client.ts";
import { pipeline } from "./pipeline.ts";
import { burstOrder } from "../http/bursts.ts";

export interface StdioBurstOptions {
  /** Rounds of bursts; consecutive rounds run the servers in opposite orders. */
  rounds: number;
  /** How long one burst keeps sending, in ms; the answers in flight then are waited for. */
  ms: number;
  /**
   * How long each server's uncounted first burst keeps sending, in ms: longer than a burst, since
   * a server's JIT is still at work on its hot path after one short burst (the SDK's first 750 ms
   * round ran at two thirds of its later ones).
   */
  warmMs: number;
  /** Requests kept outstanding during a burst. */
  inFlight: number;
  /** Told what runs next. */
  progress?: (message: string) => void;
}

/** One burst's figures. */
export interface StdioBurst {
  /** When it started, in ms on `performance.now()`'s clock: the order of a round. */
  startedMs: number;
  requests: number;
  seconds: number;
  rps: number;
}

/** One round: each server's burst, by key. */
export type StdioBurstRound = Record<string, StdioBurst>;

/** Throws at options no burst can run with, so a run can refuse them before it starts. */
export function checkBurstOptions(options: StdioBurstOptions): void {
  const { rounds, ms, warmMs, inFlight } = options;
  const whole = (value: number) => Number.isInteger(value) && value >= 1;
  if (!whole(rounds)) {
    throw new Error(`Cannot run "${rounds}" rounds of bursts: give a whole number ≥ 1`);
  }
  if (!whole(ms)) {
    throw new Error(`Cannot run bursts of "${ms}" ms: give a whole number of ms ≥ 1`);
  }
  if (!whole(warmMs)) {
    throw new Error(`Cannot warm with a burst of "${warmMs}" ms: give a whole number of ms ≥ 1`);
  }
  if (!whole(inFlight)) {
    throw new Error(`Cannot keep "${inFlight}" requests in flight: give a whole number ≥ 1`);
  }
}

/**
 * Starts the contestants side by side, warms each with one uncounted burst, then loads each in
 * turn, round after round, and returns every round's bursts; throws at the first wrong answer.
 * The servers are closed however it ends.
 */
export async function runStdioBursts(
  contestants: readonly Contestant[],
  options: StdioBurstOptions,
): Promise<StdioBurstRound[]> {
  checkBurstOptions(options);
  const keys = contestants.map((contestant) => contestant.key);
  if (keys.length === 0 || new Set(keys).size !== keys.length) {
    throw new Error(`Cannot run bursts against servers "${keys.join(",")}": give distinct keys`);
  }
  const { ms, warmMs, inFlight } = options;
  const servers: { contestant: Contestant; connection: Connection }[] = [];
  try {
    for (const contestant of contestants) {
      const connection = spawn(contestant);
      servers.push({ contestant, connection });
      await connection.open();
    }
    let nextId = 1;
    const burst = async ({ contestant, connection }: (typeof servers)[number], length: number) => {
      const startedMs = performance.now();
      const { answered, seconds } = await pipeline(connection, contestant.label, nextId, {
        inFlight,
        ms: length,
      });
      nextId += answered;
      if (answered === 0) {
        throw new Error(`${contestant.label}: no request sent in a ${ms} ms burst`);
      }
      return { startedMs, requests: answered, seconds, rps: answered / seconds };
    };
    for (const server of servers) {
      options.progress?.(`Warming ${server.contestant.label}: one uncounted ${warmMs} ms burst`);
      await burst(server, warmMs);
    }
    const results: StdioBurstRound[] = [];
    for (let round = 0; round < options.rounds; round++) {
      options.progress?.(`Round ${round + 1}/${options.rounds} of ${ms} ms pipelined bursts`);
      const byKey: StdioBurstRound = {};
      for (const server of burstOrder(servers, round)) {
        byKey[server.contestant.key] = await burst(server, ms);
      }
      results.push(byKey);
    }
    return results;
  } finally {
    await Promise.all(servers.map(({ connection }) => connection.close()));
  }
}
