// A request body read within bounds (the HTTP twin of stdio's longest line, adr/0021): one
// that announces more than the limit is refused before a byte is read, and one that streams
// past it is cancelled there. Nothing is allocated from a declared length beyond a small
// body: a large one is read as its bytes arrive. Every byte read counts in a budget shared
// by all requests until the request is answered (`release`), so that clients together cannot
// make the server hold more request text than the budget; and a body must arrive within a
// deadline, so that a client cannot hold a connection and its bytes by sending slowly.
import { concatBytes } from "../../util/bytes.ts";
import { allocated } from "../../util/collect.ts";
import { messageOf } from "../../util/json.ts";
import { ErrorCode, internalError, oversizeLine } from "../../wire/errors.ts";
import type { Body, HttpStep } from "./exchange.ts";
import { refuse } from "./statuses.ts";

/**
 * A body that declares at most this many bytes is read in one piece (Deno sizes its buffer
 * from the declared length; arrayBuffer() on the stream is ~15% of a call slower, bench:http).
 */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * What requests cost parsed, held at once by all requests together (adr/0058): a body whose
 * parsed cost (parsedCost) does not fit beside the others' is refused as the byte budget
 * refuses one (503), and one alone is always admitted. The worst shapes cost ~30 times their
 * bytes: 8 MiB of them, as the byte budget admits, held ~0.25 GB.
 */
const MAX_PARSED_BYTES = 96 * 1024 * 1024;
/** A body costing this much parsed tells the collector (util/collect.ts). */
const COLLECTED_COST = 1024 * 1024;

/**
 * Request bytes held at once by all requests together, from their first byte to their answer,
 * and what they cost once parsed.
 */
export interface BodyBudget {
  /** Counts `size` more bytes; false, counting nothing, when they do not fit. */
  take(size: number): boolean;
  give(size: number): void;
  held(): number;
  readonly limit: number;
  /** Counts a body's parsed cost; false, counting nothing, when it does not fit beside others. */
  takeParsed(cost: number): boolean;
  giveParsed(cost: number): void;
  /** Parsed cost held now. */
  parsed(): number;
}

export function createBodyBudget(limit: number, parsedLimit = MAX_PARSED_BYTES): BodyBudget {
  let held = 0;
  let parsed = 0;
  return {
    take(size) {
      if (held + size > limit) return false;
      held += size;
      return true;
    },
    give(size) {
      held -= size;
    },
    held: () => held,
    limit,
    takeParsed(cost) {
      if (parsed > 0 && parsed + cost > parsedLimit) return false;
      parsed += cost;
      return true;
    },
    giveParsed(cost) {
      parsed -= cost;
    },
    parsed: () => parsed,
  };
}

/**
 * Counts what `bytes` will cost parsed; the body's release then gives it back too. False, with
 * nothing counted, when it does not fit.
 */
function counted(bytes: Uint8Array, budget: BodyBudget): (() => void) | false {
  const cost = parsedCost(bytes);
  if (!budget.takeParsed(cost)) return false;
  return () => {
    budget.giveParsed(cost);
    // Garbage now that it is answered: the collector hears of it (adr/0058).
    if (cost >= COLLECTED_COST) allocated(cost);
  };
}

/**
 * Why a body was not read: longer than the limit, no room in the budget (of bytes, or of
 * parsed cost), or not arrived within the deadline.
 */
type Unread = "too large" | "busy" | "busy parsed" | "late";

/** The body deadline, as the connection keeps it (listener.ts). */
interface BodyClock {
  /** Arms a deadline for a large body and returns its disarm; `expire` ends the read "late". */
  bodyDeadline(expire: () => void): () => void;
  /** A small body is being read; past the deadline the connection closes. */
  readingStarted(): void;
  readingEnded(): void;
}

/** Reads `request`'s body within the limit, the budget and the connection's body deadline. */
function readBody(
  request: Request,
  limitBytes: number,
  budget: BodyBudget,
  clock: BodyClock,
): Promise<Body | Unread> | Body | Unread {
  const header = request.headers.get("content-length");
  const declared = header === null ? undefined : Number(header);
  if (declared !== undefined && declared > limitBytes) return "too large";
  if (declared === 0) return { bytes: new Uint8Array(0), release() {} };
  if (declared !== undefined && declared <= SMALL_BODY_BYTES) {
    if (!budget.take(declared)) return "busy";
    return readWhole(request, declared, budget, clock);
  }
  if (request.body === null) return { bytes: new Uint8Array(0), release() {} };
  return readChunks(request.body, limitBytes, budget, clock.bodyDeadline);
}

/**
 * A small body, its declared bytes already counted, read in one piece. One that does not
 * arrive in time closes the connection (the read then fails): the client sent at most 64 KiB
 * more slowly than any honest one, and racing each read for a 408 costs every request.
 */
function readWhole(
  request: Request,
  declared: number,
  budget: BodyBudget,
  clock: BodyClock,
): Promise<Body | Unread> {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    budget.give(declared);
  };
  clock.readingStarted();
  // Chained rather than awaited: an async function's frame and its turns cost every request.
  let reading: Promise<Uint8Array>;
  try {
    reading = request.bytes();
  } catch (error) {
    clock.readingEnded();
    release();
    return Promise.reject(error);
  }
  return reading.then((bytes): Body | Unread => {
    clock.readingEnded();
    const parsed = counted(bytes, budget);
    if (parsed === false) {
      release();
      return "busy parsed";
    }
    return {
      bytes,
      release() {
        if (released) return;
        release();
        parsed();
      },
    };
  }, (error) => {
    clock.readingEnded();
    release();
    throw error;
  });
}

/** A large or chunked body, each chunk counted in the budget as it arrives. */
async function readChunks(
  body: ReadableStream<Uint8Array>,
  limitBytes: number,
  budget: BodyBudget,
  deadline: (expire: () => void) => () => void,
): Promise<Body | Unread> {
  const parts: Uint8Array[] = [];
  let length = 0;
  const release = () => {
    budget.give(length);
    length = 0;
  };
  const reader = body.getReader();
  let late = false;
  const disarm = deadline(() => {
    late = true;
    reader.cancel("the body arrived too slowly").catch(() => {});
  });
  const stop = (why: Unread): Unread => {
    release();
    reader.cancel(`the body is not read further: ${why}`).catch(() => {});
    return why;
  };
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (late) return stop("late");
      if (done) {
        const bytes = concatBytes(parts);
        const parsed = counted(bytes, budget);
        if (parsed === false) return stop("busy parsed");
        return {
          bytes,
          release() {
            if (length === 0) return;
            release();
            parsed();
          },
        };
      }
      if (length + value.length > limitBytes) return stop("too large");
      if (!budget.take(value.length)) return stop("busy");
      length += value.length;
      parts.push(value);
    }
  } catch (error) {
    if (late) return stop("late");
    release();
    throw error;
  } finally {
    disarm();
  }
}

/**
 * What V8 spends, about, on a byte of text, an object or array (`{`, `[`), and a property or
 * element (`,`, `:`), parsed: a table read per byte, no branch.
 */
const COST = new Uint8Array(256).fill(2);
for (const byte of [0x7b, 0x5b]) COST[byte] = 2 + 64;
for (const byte of [0x2c, 0x3a]) COST[byte] = 2 + 16;
/** Bodies longer than this are estimated from SAMPLES bytes picked at random (~0.8 ms a MiB read whole). */
const READ_WHOLE_BYTES = 256 * 1024;
const SAMPLES = 16 * 1024;

/**
 * About what `bytes` of JSON cost once parsed: twice the text (a string may be two bytes a
 * character), and each container and member (commas and colons in strings count too: an
 * estimate that errs high). `[{},{},…]` comes to ~29 times its bytes, as measured (~21 times
 * live, more while parsing); a long string to about twice. A body over 256 KiB is estimated
 * from 16 Ki bytes at random places, which a client cannot aim at.
 */
export function parsedCost(bytes: Uint8Array): number {
  let cost = 0;
  if (bytes.length <= READ_WHOLE_BYTES) {
    for (let i = 0; i < bytes.length; i++) cost += COST[bytes[i]];
    return cost;
  }
  for (let i = 0; i < SAMPLES; i++) cost += COST[bytes[Math.floor(Math.random() * bytes.length)]];
  return Math.ceil(cost * bytes.length / SAMPLES);
}

/**
 * The endpoint's step that reads the body within the limit, the budget and the deadline: 413,
 * 503 or 408 when it is not read (the connection then closes once answered: the client may
 * still be sending), 400 when it cannot be read. Its bytes count until the answer.
 */
export function bodyStep(options: {
  limitBytes: number;
  budget: BodyBudget;
  bodyTimeoutMs: number;
}): HttpStep {
  const { limitBytes, budget } = options;
  return (next) => (exchange) => {
    const { request, connection } = exchange;
    const unreadable = (error: unknown) =>
      refuse("bodyUnreadable", undefined, {
        code: ErrorCode.ParseError,
        message: `Parse error: the body could not be read: ${messageOf(error)}`,
      });
    /** The rest of the steps with the body read, or the answer saying why it was not. */
    const proceed = (body: Body | Unread): Response | Promise<Response> => {
      if (typeof body === "string") {
        connection.closeWhenAnswered();
        return unread(body, limitBytes, budget, options.bodyTimeoutMs);
      }
      exchange.body = body;
      let answer: Response | Promise<Response>;
      try {
        answer = next(exchange);
      } catch (error) {
        body.release();
        throw error;
      }
      if (!(answer instanceof Promise)) return answer;
      return answer.catch((error) => {
        body.release();
        throw error;
      });
    };
    // Chained rather than awaited (no async frame, no turns for what is already there).
    let read: Promise<Body | Unread> | Body | Unread;
    try {
      read = readBody(request, limitBytes, budget, connection);
    } catch (error) {
      return unreadable(error);
    }
    return read instanceof Promise ? read.then(proceed, unreadable) : proceed(read);
  };
}

/** The answer to a body that was not read: 413, 503 or 408. */
function unread(why: Unread, limitBytes: number, budget: BodyBudget, timeoutMs: number): Response {
  switch (why) {
    case "too large":
      return refuse("bodyTooLarge", undefined, oversizeLine(limitBytes));
    case "busy":
      return refuse(
        "bodiesFull",
        undefined,
        internalError(`the server holds ${budget.limit} bytes of requests already; retry shortly`),
      );
    case "busy parsed":
      return refuse(
        "bodiesFull",
        undefined,
        internalError(
          `the server holds requests that cost ${budget.parsed()} bytes parsed already; ` +
            "retry shortly",
        ),
      );
    case "late":
      return refuse("bodyTimeout", undefined, {
        code: ErrorCode.InvalidRequest,
        message: `Request Timeout: the body did not arrive within ${timeoutMs} ms`,
      });
  }
}
