// The rate limits (issue 25, adr/0043): a built-in middleware after authorize and before stamp,
// composed in only when a limit is configured (this module is imported only then). Each request
// but `ping` takes a token from its caller's bucket (`--rate-limit`); a `tools/call` of a tool
// with `rateLimit` also takes one from that caller's bucket of that tool; both or neither. Over
// a limit it is refused with -32031 and `data.retryAfterSeconds` (HTTP: 429 with Retry-After).
//
// The caller is the OAuth subject at its issuer, else the 2025-era session, else the client's
// address (HTTP), else the transport ("stdio": its one client). Local buckets answer at once;
// shared ones (Redis) answer after a round trip. A refusal is written on the request's context
// (`outcome`), as a promise while Redis decides, so that HTTP holds its status until then.
import { isThenable, type MaybePromise } from "../util/maybe.ts";
import type { JsonObject } from "../util/json.ts";
import { boundedKey, type BucketLimit, type Buckets, type Refusal } from "../util/token_buckets.ts";
import { rateLimited, retryAfterSecondsOf } from "../wire/errors.ts";
import type { Rate } from "../primitives/rate.ts";
import type { Snapshot } from "../primitives/registry.ts";
import type { MethodCall } from "../methods/call.ts";
import type { Outcome } from "../methods/context.ts";
import { callerOf } from "../methods/caller.ts";
import type { CoreMiddleware } from "./chain.ts";

/** What the core composes in when some limit is configured. */
export interface RateLimiter {
  readonly middleware: CoreMiddleware;
  /** Whether a snapshot's chain needs it: a per-caller limit, or a tool of it with its own. */
  applies(snapshot: Snapshot): boolean;
}

interface RateLimitOptions {
  /** Every caller's limit across its requests (`--rate-limit`); undefined: none. */
  readonly perCaller: Rate | undefined;
  /** Where the buckets are: this process's memory, or Redis. */
  readonly buckets: Buckets;
}

/** Methods never limited: a liveness check refused would make a client drop a sound connection. */
const UNLIMITED = "ping";

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const { perCaller, buckets } = options;
  const middleware: CoreMiddleware = (next) => (call) => {
    if (call.method === UNLIMITED) return next(call);
    const tool = call.method === "tools/call" ? toolLimitOf(call) : undefined;
    if (tool === undefined && perCaller === undefined) return next(call);
    const caller = boundedKey(callerKeyOf(call));
    const limits: BucketLimit[] = [];
    if (perCaller !== undefined) limits.push(limitOf(`c ${caller}`, perCaller));
    if (tool !== undefined) limits.push(limitOf(`t ${tool.name} ${caller}`, tool.rate));
    const verdict = buckets.take(limits);
    const { ctx } = call;
    if (!isThenable(verdict)) {
      if (verdict !== undefined) {
        ctx.outcome = outcomeOf(verdict);
        throw refusalOf(verdict, perCaller, tool);
      }
      return next(call);
    }
    const decided = verdict as Promise<Refusal | undefined>;
    // Registered first, so the outcome is decided before the refusal below is thrown.
    ctx.outcome = decided.then((refusal) => ctx.outcome = refusal && outcomeOf(refusal));
    return decided.then((refusal): MaybePromise<JsonObject> => {
      if (refusal !== undefined) throw refusalOf(refusal, perCaller, tool);
      return next(call);
    });
  };
  return {
    middleware,
    applies: (snapshot) =>
      perCaller !== undefined || snapshot.tools.items.some((tool) => tool.rateLimit !== undefined),
  };
}

/**
 * Who the caller is, as the buckets count it: the OAuth subject at its issuer, else the 2025-era
 * session, else the client's address, else the transport (one stdio client; an embedded server
 * that was not given an address).
 */
export function callerKeyOf(call: MethodCall): string {
  const facts = call.ctx.facts;
  if (facts?.caller !== undefined) return `sub ${callerOf(facts.caller)}`;
  if (call.sessionId !== undefined) return `session ${call.sessionId}`;
  const address = facts?.address;
  if (address !== undefined) return `address ${address}`;
  return call.transport;
}

interface ToolLimit {
  readonly name: string;
  readonly rate: Rate;
}

function toolLimitOf(call: MethodCall): ToolLimit | undefined {
  const name = call.params.name;
  if (typeof name !== "string") return undefined;
  const rate = call.snapshot.tools.byKey.get(name)?.rateLimit;
  return rate === undefined ? undefined : { name, rate };
}

function limitOf(key: string, rate: Rate): BucketLimit {
  return { key, capacity: rate.capacity, intervalMs: rate.intervalMs };
}

/** The refusal as the transport answers it: 429 with Retry-After. */
function outcomeOf(refusal: Refusal): Outcome {
  return { row: "rateLimited", retryAfterSeconds: retryAfterSecondsOf(refusal.retryAfterMs) };
}

function refusalOf(refusal: Refusal, perCaller: Rate | undefined, tool: ToolLimit | undefined) {
  if (perCaller !== undefined && refusal.index === 0) {
    return rateLimited(
      `this caller's limit of ${JSON.stringify(perCaller.text)}`,
      perCaller.text,
      refusal.retryAfterMs,
    );
  }
  return rateLimited(
    `this caller's limit of ${JSON.stringify(tool!.rate.text)} on tool ${
      JSON.stringify(tool!.name)
    }`,
    tool!.rate.text,
    refusal.retryAfterMs,
  );
}
