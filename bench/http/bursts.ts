// HTTP ratios that hold on a noisy box (issue 42, adr/0074 step 2). On 2 shared cores one
// program's rate swings between 10k and 17k requests/s within seconds, so two servers measured
// one after the other, seconds apart, disagree by more than a target's margin. Here the servers
// are all up side by side for the whole measurement; each round loads each in turn with one
// short wrk burst per connection count, the order reversed every other round (A, B then B, A:
// with two servers a round is a pair), so that what the machine does in one second weighs on
// both sides of a ratio. A server's figure is divided by the baseline's of the same round, and
// what is reported is the median of those per-round ratios with their spread (min–max and the
// interquartile range), beside the medians of the absolute figures. Each server gets one
// uncounted burst first (the JIT, the connections). Every answer of every burst is checked
// (bench/http/wrk.ts: status 200 and the echoed text); one bad answer fails the run.
import { cpuSeconds } from "./server.ts";
import { wrk } from "./wrk.ts";

/** A server already started (bench/http/server.ts `start`), by the key its figures go under. */
export interface BurstServer {
  key: string;
  /** Named in errors and progress. */
  label: string;
  url: string;
  /** The `Authorization` value of every request, if the server asks for one. */
  authorization?: string;
  /** The process, whose CPU time is read around each burst; without it the CPU figure is NaN. */
  pid?: number;
}

/** One burst's figures. */
export interface Burst {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** The server's user + system CPU time over the burst ÷ its requests, in µs. */
  cpuUsPerRequest: number;
}

/** One round: each server's burst at each connection count, by key, then by connections. */
export type BurstRound = Record<string, Record<number, Burst>>;

export interface BurstOptions {
  /** Rounds of bursts; consecutive rounds run the servers in opposite orders. */
  rounds: number;
  /** The length of one burst, in whole seconds (wrk takes no fraction). */
  seconds: number;
  /** The connection counts of each round's bursts, in this order. */
  connections: readonly number[];
  /** Told what runs next. */
  progress?: (message: string) => void;
}

/** The order of round `round` (from 0): as given in even rounds, reversed in odd ones. */
export function burstOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}

/**
 * Loads each server in turn, round after round, and returns every round's bursts; throws at
 * the first burst with a wrong answer or none.
 */
export async function runBursts(
  servers: readonly BurstServer[],
  options: BurstOptions,
): Promise<BurstRound[]> {
  const { rounds, seconds, connections } = options;
  const whole = (value: number) => Number.isInteger(value) && value >= 1;
  if (!whole(rounds)) {
    throw new Error(`Cannot run "${rounds}" rounds of bursts: give a whole number ≥ 1`);
  }
  if (!whole(seconds)) {
    throw new Error(`Cannot run bursts of "${seconds}" s: wrk takes whole seconds ≥ 1`);
  }
  if (connections.length === 0 || !connections.every(whole)) {
    throw new Error(
      `Cannot run bursts at "${connections.join(",")}" connections: give whole numbers ≥ 1`,
    );
  }
  const keys = servers.map((server) => server.key);
  if (servers.length === 0 || new Set(keys).size !== keys.length) {
    throw new Error(`Cannot run bursts against servers "${keys.join(",")}": give distinct keys`);
  }
  const most = Math.max(...connections);
  for (const server of servers) {
    options.progress?.(`Warming ${server.label}: one uncounted ${seconds} s burst`);
    await burst(server, most, seconds);
  }
  const results: BurstRound[] = [];
  for (let round = 0; round < rounds; round++) {
    options.progress?.(`Round ${round + 1}/${rounds} of ${seconds} s bursts`);
    const byKey: BurstRound = Object.fromEntries(keys.map((key) => [key, {}]));
    for (const count of connections) {
      for (const server of burstOrder(servers, round)) {
        byKey[server.key][count] = await burst(server, count, seconds);
      }
    }
    results.push(byKey);
  }
  return results;
}

async function burst(server: BurstServer, connections: number, seconds: number): Promise<Burst> {
  const cpuBefore = server.pid === undefined ? NaN : cpuSeconds(server.pid);
  const run = await wrk({
    url: server.url,
    authorization: server.authorization,
    connections,
    seconds,
  });
  const cpuAfter = server.pid === undefined ? NaN : cpuSeconds(server.pid);
  if (run.bad > 0 || run.requests === 0) {
    throw new Error(
      `${server.label}: ${run.bad} of ${run.requests} answers were wrong or failed in a burst at ${connections} connections`,
    );
  }
  return {
    requests: run.requests,
    rps: run.rps,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    cpuUsPerRequest: (cpuAfter - cpuBefore) * 1e6 / run.requests,
  };
}

/** The middle and the spread of some figures. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** The first and third quartiles (linear between the closest ranks). */
  q1: number;
  q3: number;
  count: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("Cannot take the spread of no figures");
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    count: sorted.length,
  };
}

/** The median (of an even count, the mean of the two middle figures). */
export function median(values: readonly number[]): number {
  return spreadOf(values).median;
}

/** The q-quantile of sorted figures, linear between the closest ranks. */
function quantile(sorted: readonly number[], q: number): number {
  const at = q * (sorted.length - 1);
  const below = Math.floor(at);
  const above = Math.ceil(at);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - below);
}

/** One figure of a round: a number, or undefined when the server gave none. */
export type RoundFigure = (round: BurstRound, key: string) => number | undefined;

/** A figure of a burst at a number of connections. */
export function figureOf(connections: number, name: keyof Burst): RoundFigure {
  return (round, key) => round[key]?.[connections]?.[name];
}

/**
 * Each round's `after` ÷ `before`, for the rounds where both gave the figure; rounds of bursts by
 * default, or any benchmark's rounds with a figure of them (bench:e2e's).
 */
export function roundRatios<Round = BurstRound>(
  rounds: readonly Round[],
  after: string,
  before: string,
  of: (round: Round, key: string) => number | undefined,
): number[] {
  return rounds.flatMap((round) => {
    const [a, b] = [of(round, after), of(round, before)];
    return a === undefined || b === undefined || b === 0 || Number.isNaN(a / b) ? [] : [a / b];
  });
}

/** `0.86× (0.81–0.93; IQR 0.84–0.88)`: a ratio's median with its spread (alone when one). */
export function formatRatio(spread: Spread): string {
  const x = (value: number) => value.toFixed(2);
  return spread.count === 1
    ? `${x(spread.median)}×`
    : `${x(spread.median)}× (${x(spread.min)}–${x(spread.max)}; IQR ${x(spread.q1)}–${
      x(spread.q3)
    })`;
}

/**
 * A Markdown table of ratios: for each figure (a row) and pair (a column), the median of the
 * pair's ratios with their spread.
 */
export function ratioTable(
  pairs: readonly { label: string; after: string; before: string }[],
  figures: readonly { name: string; ratios(after: string, before: string): number[] }[],
): string {
  const lines = [
    `| figure | ${pairs.map((pair) => pair.label).join(" | ")} |`,
    `|---|${pairs.map(() => "---|").join("")}`,
  ];
  for (const { name, ratios } of figures) {
    const cells = pairs.map(({ after, before }) => {
      const values = ratios(after, before);
      return values.length === 0 ? "—" : formatRatio(spreadOf(values));
    });
    lines.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** A target on a ratio: what it is, what is wanted, and whether a ratio meets it. */
export interface RatioTarget {
  figure: string;
  /** As printed: `≥ 0.9×`. */
  wanted: string;
  meets(ratio: number): boolean;
}

export interface Verdict {
  spread: Spread;
  /** Whether the median ratio meets the target. */
  holds: boolean;
  /** How many of the ratios meet it. */
  met: number;
}

export function verdictOf(target: RatioTarget, ratios: readonly number[]): Verdict {
  const spread = spreadOf(ratios);
  return {
    spread,
    holds: target.meets(spread.median),
    met: ratios.filter((ratio) => target.meets(ratio)).length,
  };
}

/** One line: the target, the median ratio with its spread, and whether it holds. */
export function verdictLine(target: RatioTarget, verdict: Verdict): string {
  const { spread, holds, met } = verdict;
  return `${target.figure}: ${formatRatio(spread)}, wanted ${target.wanted}: ${
    holds ? "✓ holds" : "✗ missed"
  } (met in ${met} of ${spread.count} rounds)`;
}
