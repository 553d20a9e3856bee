// Rates of the rate limits (issue 25, adr/0043): `--rate-limit RATE` per caller, and a tool's
// `rateLimit` per caller of that tool. RATE is a count per period, `"60/min"`, `"5/s"`,
// `"1000/h"`, optionally with a burst, `"60/min burst 10"`: a token bucket that holds the burst
// (else the count) and refills evenly over the period. Checked at load (a bad rate stops start-up
// naming its file) and by the flag's parser.

/** A rate as the buckets use it. */
export interface Rate {
  /** As written: what refusals name (`"60/min"`). */
  readonly text: string;
  /** Tokens a full bucket holds: the burst, else the count. */
  readonly capacity: number;
  /** Milliseconds one token takes to come back: the period divided by the count. */
  readonly intervalMs: number;
}

const PERIODS_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/** `<count>/<period>[ burst <n>]`, spaces around the parts allowed. */
const RATE = /^\s*(\d+)\s*\/\s*([a-z]+)\s*(?:burst\s+(\d+)\s*)?$/;
/** The largest count or burst: far above any sensible limit, far below float trouble. */
const MAX_RATE_COUNT = 1_000_000_000;
const EXAMPLES = '"60/min", "5/s", "1000/h" or "60/min burst 10"';

/** Reads a rate, or throws one sentence saying what is wrong with it. */
export function parseRate(text: string): Rate {
  const match = RATE.exec(text);
  if (match === null) {
    throw new Error(`${JSON.stringify(text)} is not a rate: write it as ${EXAMPLES}`);
  }
  const [, count, unit, burst] = match;
  const periodMs = PERIODS_MS[unit];
  if (periodMs === undefined) {
    throw new Error(
      `${JSON.stringify(text)} has the period "${unit}": use s, min, h or d (${EXAMPLES})`,
    );
  }
  const n = Number(count);
  const b = burst === undefined ? n : Number(burst);
  for (const [what, value] of [["count", n], ["burst", b]] as const) {
    if (!(value >= 1 && value <= MAX_RATE_COUNT)) {
      throw new Error(
        `${JSON.stringify(text)} has the ${what} ${value}: it must be from 1 to ${MAX_RATE_COUNT}`,
      );
    }
  }
  return Object.freeze({ text: text.trim(), capacity: b, intervalMs: periodMs / n });
}

/** A definition's `rateLimit` field: undefined when absent, else its rate, or throws. */
export function checkRateLimit(value: unknown): Rate | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new Error(`rateLimit must be a string such as ${EXAMPLES}`);
  }
  try {
    return parseRate(value);
  } catch (error) {
    throw new Error(`rateLimit ${(error as Error).message}`);
  }
}
