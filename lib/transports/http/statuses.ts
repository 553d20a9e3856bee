// The HTTP status and headers of every refusal, one table keyed by outcome (adr/0061 §3): each
// row its JSON-RPC code (where it has one of its own), its status and its headers. A step
// refuses by naming its row (`refuse("bodyTooLarge", id, error)`); a refusal the core decided
// is written on the request's context (`ctx.outcome`), and the answer to a request the core
// gave at once takes the row of its code (CORE_CODES), so nothing reads `error.data` back.
// Codes and statuses follow the 2026-07-28 Streamable HTTP transport; where the spec names no
// status, the TypeScript SDK's (adr/0012). Plain-text answers of routes (a path not served, the
// card's 405) stay with their routes; answers that succeed are not refusals.
import { isObject, type JsonObject } from "../../util/json.ts";
import { ErrorCode } from "../../wire/errors.ts";
import type { RequestId, RpcError } from "../../wire/types.ts";
import type { Outcome } from "../../methods/context.ts";
import { jsonAnswer } from "./answer.ts";
import { errorMessage, HttpErrorCode } from "./errors.ts";

type Headers = Readonly<Record<string, string>>;

/** One outcome over HTTP. */
interface Row {
  /** The JSON-RPC code its answer carries; absent where the step's error says (several). */
  readonly code?: number;
  readonly status: number;
  /** Its headers: fixed, or made from what the refusing step knew (DetailOf). */
  readonly headers?: Headers | ((detail: never) => Headers);
  /**
   * A refusal the core answers with `code` (a routing error, a decision of its middleware):
   * answered with this status in a 2026-07-28 request, and in a 2025-era session too when
   * "always" (else in band there: a 404 would tell the client its session is gone).
   */
  readonly core?: "stateless" | "always";
  /**
   * The core's refusal's headers, from what the core decided (`ctx.outcome`; undefined when
   * the code came without one, from an author's error) and what the HTTP side knows; null:
   * answered in band after all.
   */
  readonly coreHeaders?: (decided: Outcome | undefined, http: HttpSide) => Headers | null;
}

/** What the HTTP side knows that the core's refusals may need. */
interface HttpSide {
  /** OAuth's challenge naming the scopes required; undefined without OAuth. */
  readonly challengeOf: ((required: readonly string[]) => string) | undefined;
}

/** Retry-After in whole seconds, at least 1. */
const retryAfter = (seconds: number): Headers => ({
  "retry-after": String(seconds >= 1 ? Math.ceil(seconds) : 1),
});
const challenge = (challenge: string): Headers => ({ "www-authenticate": challenge });

export const STATUSES = {
  // The core's routing errors, raised before any handler runs: a 2026-07-28 request's own
  // statuses (a 2025-era session answers them in band).
  methodNotFound: { code: ErrorCode.MethodNotFound, status: 404, core: "stateless" },
  unsupportedVersion: {
    code: ErrorCode.UnsupportedProtocolVersion,
    status: 400,
    core: "stateless",
  },
  headerMismatch: { code: ErrorCode.HeaderMismatch, status: 400, core: "stateless" },
  missingCapability: { code: ErrorCode.MissingClientCapability, status: 400, core: "stateless" },
  // The core's refusals, in either era: the status and header are what make a client act.
  insufficientScope: {
    code: ErrorCode.InsufficientScope,
    status: 403,
    headers: challenge,
    core: "always",
    // Only OAuth has a challenge to send: without one the refusal travels in band.
    coreHeaders: (decided, http) =>
      http.challengeOf === undefined
        ? null
        : challenge(http.challengeOf(decided?.row === "insufficientScope" ? decided.required : [])),
  },
  rateLimited: {
    code: ErrorCode.RateLimited,
    status: 429,
    headers: retryAfter,
    core: "always",
    coreHeaders: (decided) =>
      retryAfter(decided?.row === "rateLimited" ? decided.retryAfterSeconds : 1),
  },
  // A 2025-era session's.
  /** An `initialize` answered with an error (the TypeScript SDK's 400 for a second one). */
  initializeRefused: { status: 400 },
  sessionRequired: { code: HttpErrorCode.Refused, status: 400 },
  sessionNotFound: { code: HttpErrorCode.SessionNotFound, status: 404 },
  sessionVersionMismatch: { code: HttpErrorCode.Refused, status: 400 },
  notAcceptable: { code: HttpErrorCode.Refused, status: 406 },
  streamConflict: { code: HttpErrorCode.Refused, status: 409 },
  cannotResume: { code: HttpErrorCode.Refused, status: 400 },
  // The transport's own, in the order of its steps.
  originRefused: { code: HttpErrorCode.Refused, status: 403 },
  hostRefused: { code: HttpErrorCode.Refused, status: 403 },
  unauthorized: { code: HttpErrorCode.Refused, status: 401, headers: challenge },
  tokenInQuery: { code: HttpErrorCode.Refused, status: 400, headers: challenge },
  tokenRefused: { code: HttpErrorCode.Refused, status: 401, headers: challenge },
  tokenUncheckable: { code: HttpErrorCode.Refused, status: 503, headers: retryAfter(5) },
  baseScopeMissing: { code: HttpErrorCode.Refused, status: 403, headers: challenge },
  proofsTooMany: { code: HttpErrorCode.Refused, status: 429, headers: retryAfter },
  proofsUnavailable: { code: HttpErrorCode.Refused, status: 503, headers: retryAfter },
  methodNotAllowed: {
    code: HttpErrorCode.Refused,
    status: 405,
    headers: (allow: string): Headers => ({ allow }),
  },
  unsupportedMediaType: { code: HttpErrorCode.Refused, status: 415 },
  bodyUnreadable: { code: ErrorCode.ParseError, status: 400 },
  bodyTooLarge: { code: ErrorCode.InvalidRequest, status: 413 },
  bodiesFull: { code: ErrorCode.InternalError, status: 503, headers: retryAfter(1) },
  bodyTimeout: { code: ErrorCode.InvalidRequest, status: 408 },
  /** The admission ladder's other refusals (a body that is no message to take, -32700 to -32602). */
  badMessage: { status: 400 },
  shuttingDown: { code: ErrorCode.InternalError, status: 503 },
  /** The listen streams the server may hold open are all open. */
  full: { code: ErrorCode.InternalError, status: 503 },
  /** A request whose handling threw: a fault of the server's. */
  failed: { code: ErrorCode.InternalError, status: 500 },
} as const satisfies Record<string, Row>;

export type RowName = keyof typeof STATUSES;

/** What a row's headers are made from, when it makes them. */
type DetailOf<K extends RowName> = (typeof STATUSES)[K] extends
  { readonly headers: (detail: infer D) => Headers } ? [detail: D] : [];

type Statuses = typeof STATUSES;
/** The rows of the core's refusals, and the codes they answer. */
type CoreRowName = { [K in RowName]: Statuses[K] extends { core: string } ? K : never }[RowName];
type CoreCode = Statuses[CoreRowName]["code"];

/**
 * The codes the core answers in band (200: the error is the answer). Every code of ErrorCode is
 * either the code of a core row or here: the check below names a code that is neither.
 */
const IN_BAND = [
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.InvalidParams,
  ErrorCode.InternalError,
  ErrorCode.ResourceNotFound,
] as const;
type Unanswered = Exclude<
  (typeof ErrorCode)[keyof typeof ErrorCode],
  CoreCode | typeof IN_BAND[number]
>;
const _everyCodeAnswered: [Unanswered] extends [never] ? true : Unanswered = true;
// What the core writes on the context names rows of this table.
const _outcomesAreRows: CoreRowName = "" as Outcome["row"];

/** The core row of each code a core row answers. */
const ROW_OF_CODE: ReadonlyMap<number, CoreRowName> = new Map(
  (Object.keys(STATUSES) as RowName[]).flatMap((name) => {
    const row: Row = STATUSES[name];
    return row.core === undefined ? [] : [[row.code!, name as CoreRowName] as const];
  }),
);

/** The answer refusing a request: `error` under the row's status and headers. */
export function refuse<K extends RowName>(
  row: K,
  id: RequestId | undefined,
  error: RpcError,
  ...detail: DetailOf<K>
): Response {
  const { status, headers } = STATUSES[row] as Row;
  return jsonAnswer(
    errorMessage(id, error),
    status,
    typeof headers === "function"
      ? (headers as (detail: unknown) => Headers)(detail[0])
      : headers as Record<string, string> | undefined,
  );
}

/** How a refusal of the core's is answered: its row, and its headers when it has its own. */
interface CoreRefusal {
  readonly row: CoreRowName | "initializeRefused";
  readonly headers: Headers | undefined;
}

/**
 * The row of an answer the core gave before anything was sent for its request, or undefined
 * for 200: the row of the outcome the core wrote, else of the answer's code (a handler's errors,
 * an unknown tool say, travel in band), as its row says for the request's era. A 2025-era
 * session answers 200 for what its rows leave in band, but for an `initialize` refused.
 */
export function coreRefusal(
  response: JsonObject,
  outcome: Outcome | Promise<Outcome | undefined> | undefined,
  inSession: boolean,
  initialize: boolean,
  challengeOf: ((required: readonly string[]) => string) | undefined,
): CoreRefusal | undefined {
  const error = response.error;
  if (!isObject(error)) return undefined;
  const decided = outcome instanceof Promise ? undefined : outcome;
  const name = decided?.row ?? ROW_OF_CODE.get(error.code as number);
  if (name !== undefined) {
    const row: Row = STATUSES[name];
    if (!inSession || row.core === "always") {
      const headers = row.coreHeaders?.(decided, { challengeOf });
      if (headers !== null) return { row: name, headers };
    }
  }
  return inSession && initialize ? { row: "initializeRefused", headers: undefined } : undefined;
}

/** The answer of a refusal of the core's: the core's own answer under the row's status. */
export function coreAnswer(response: JsonObject, refusal: CoreRefusal): Response {
  return jsonAnswer(response, STATUSES[refusal.row].status, refusal.headers);
}
