// Rate-limit buckets shared by every instance through Redis (adr/0043): the arithmetic of
// lib/util/token_buckets.ts in one Lua script, one EVALSHA per check (EVAL when Redis does not
// have the script: after a restart, or the first time), on Redis's clock (TIME, so instances'
// clocks do not matter), each bucket one key holding the moment it is full again, expiring then
// (an idle caller leaves nothing behind). Key names are a SHA-256 of the bucket's name: bounded
// in length, and no subject or address is readable in Redis.
//
// Faults (adr/0055): a check that gets no answer within RATE_CHECK_DEADLINE_MS, or fails, is
// decided by this instance's own buckets instead (each instance then enforces the limit alone),
// and so is every check for the next FALLBACK_MS: a paused, slow or unreachable Redis never
// holds a request longer than the deadline, and never turns into refusals. The request's answer
// never waits for Redis after that: Redis's late answer is dropped (its tokens stay taken there).
// Checks Redis has not answered are bounded: at most MAX_PENDING_CHECKS at once, none while one
// of them is overdue (Redis is stalled: asking more would only pile commands up on the link),
// and after a fallback one at a time until one is answered in time.
import type { Diagnostics } from "../util/diagnostics.ts";
import { messageOf } from "../util/json.ts";
import type { BucketLimit, Buckets, LocalBuckets, Refusal } from "../util/token_buckets.ts";
import type { RedisLink } from "./connection.ts";

/** The longest a request waits for Redis's decision before its instance decides alone. */
const RATE_CHECK_DEADLINE_MS = 100;
/** After a check Redis did not answer, checks stay local this long before Redis is tried again. */
const FALLBACK_MS = 1_000;
/** Checks sent to Redis and not answered yet, past which more are decided locally. */
export const MAX_PENDING_CHECKS = 64;

/**
 * KEYS: the buckets; ARGV: for each, its interval and its capacity's span (capacity × interval),
 * in microseconds. Returns {0, 0} when a token was taken from each, else {index, wait in µs} of
 * the bucket that waits longest (and takes nothing).
 */
const TAKE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local refused, longest = 0, 0
local after = {}
for i = 1, #KEYS do
  local interval, span = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local full = tonumber(redis.call('GET', KEYS[i]) or '0')
  if full < now then full = now end
  after[i] = full + interval
  local wait = after[i] - now - span
  if wait > 0 and wait > longest then refused, longest = i, wait end
end
if refused > 0 then return {refused, math.ceil(longest)} end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], string.format('%.0f', after[i]), 'PX', math.ceil((after[i] - now) / 1000))
end
return {0, 0}`;

export function createRedisBuckets(
  link: RedisLink,
  local: LocalBuckets,
  diagnostics: Diagnostics,
  deadlineMs = RATE_CHECK_DEADLINE_MS,
  maxPending = MAX_PENDING_CHECKS,
): Buckets {
  const prefix = `${link.prefix}:rate:`;
  const sha = digest("SHA-1", TAKE_SCRIPT).then(hex);
  const hashed = new Map<string, string>();
  /** Until when checks are local (ms since the epoch), after Redis failed one. */
  let localUntil = 0;
  /** Said on stderr once per run of local checks. */
  let saidLocal = false;
  /** Checks sent to Redis and not answered yet. */
  let pending = 0;
  /** Of those, the ones past their deadline: while any is, Redis is stalled. */
  let overdue = 0;
  /** Since a fallback, until a check is answered in time: one check at a time asks Redis. */
  let probing = false;

  function fallBack(why: string, limits: readonly BucketLimit[]): Refusal | undefined {
    localUntil = Date.now() + FALLBACK_MS;
    probing = true;
    if (!saidLocal) {
      saidLocal = true;
      diagnostics.error(
        `Rate limits are kept by this instance alone until Redis answers again (${why}): ` +
          "a caller may get the limit once per instance meanwhile",
      );
    }
    return local.take(limits);
  }

  /** Redis's answer in time: it decides again. */
  function answered(reply: [number, number]): Refusal | undefined {
    probing = false;
    if (saidLocal) {
      saidLocal = false;
      diagnostics.error("Rate limits are shared through Redis again");
    }
    const [index, waitUs] = reply;
    return index === 0 ? undefined : { index: index - 1, retryAfterMs: waitUs / 1000 };
  }

  async function shared(limits: readonly BucketLimit[]): Promise<[number, number]> {
    const keys = await Promise.all(limits.map((limit) => keyOf(hashed, prefix, limit.key)));
    const args: string[] = [];
    for (const { capacity, intervalMs } of limits) {
      const interval = Math.round(intervalMs * 1000);
      args.push(String(interval), String(interval * capacity));
    }
    const script = await sha;
    return await link.run(async (client) => {
      try {
        return await client.evalSha(script, { keys, arguments: args });
      } catch (error) {
        if (!messageOf(error).startsWith("NOSCRIPT")) throw error;
        return await client.eval(TAKE_SCRIPT, { keys, arguments: args });
      }
    }) as unknown as [number, number];
  }

  return {
    take(limits) {
      if (
        Date.now() < localUntil || overdue > 0 || pending >= (probing ? 1 : maxPending)
      ) return local.take(limits);
      pending++;
      const asked = shared(limits);
      // Settled by whichever comes first; the other finds `decided` and changes nothing.
      return new Promise<Refusal | undefined>((resolve) => {
        let decided = false;
        const timer = setTimeout(() => {
          decided = true;
          overdue++;
          resolve(fallBack(`no answer within ${deadlineMs} ms`, limits));
        }, deadlineMs);
        const settle = (): boolean => {
          pending--;
          if (decided) {
            overdue--;
            return false;
          }
          decided = true;
          clearTimeout(timer);
          return true;
        };
        asked.then(
          (reply) => {
            if (settle()) resolve(answered(reply));
          },
          (error) => {
            if (settle()) resolve(fallBack(messageOf(error), limits));
          },
        );
      });
    },
  };
}

/** Bucket names whose key is remembered, past which the memory starts over. */
const MAX_HASHED = 4096;

/** `<prefix><base64url of the first 16 bytes of SHA-256(name)>`, remembered in `hashed`. */
async function keyOf(
  hashed: Map<string, string>,
  prefix: string,
  name: string,
): Promise<string> {
  let key = hashed.get(name);
  if (key === undefined) {
    const bytes = new Uint8Array(await digest("SHA-256", name)).subarray(0, 16);
    key = prefix + bytes.toBase64({ alphabet: "base64url", omitPadding: true });
    if (hashed.size >= MAX_HASHED) hashed.clear();
    hashed.set(name, key);
  }
  return key;
}

function digest(algorithm: string, text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
