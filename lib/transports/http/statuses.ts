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
}

/** Retry-After in whole seconds, at least 1. */
const retryAfter = (seconds: number): Headers => ({
  "retry-after": String(seconds >= 1 ? Math.ceil(seconds) : 1),
});
const challenge = (challenge: string): Headers => ({ "www-authenticate": challenge });

export const STATUSES = {
  // The core's routing errors, raised before any handler runs: a 2026-07-28 request's own
  // statuses (a 2025-era session answers them in band).
  methodNotFound: { code: ErrorCode.MethodNotFound, status: 404 },
  unsupportedVersion: { code: ErrorCode.UnsupportedProtocolVersion, status: 400 },
  headerMismatch: { code: ErrorCode.HeaderMismatch, status: 400 },
  missingCapability: { code: ErrorCode.MissingClientCapability, status: 400 },
  // The core's refusals, in either era: the status and header are what make a client act.
  insufficientScope: { code: ErrorCode.InsufficientScope, status: 403, headers: challenge },
  rateLimited: { code: ErrorCode.RateLimited, status: 429, headers: retryAfter },
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

/**
 * The row of each JSON-RPC code the core answers a request with at once: a code of its own
 * status, or "inBand" (200: the error is the answer). A new code must be given one or the other.
 */
const CORE_CODES = {
  ParseError: "inBand",
  InvalidRequest: "inBand",
  MethodNotFound: "methodNotFound",
  InvalidParams: "inBand",
  InternalError: "inBand",
  UnsupportedProtocolVersion: "unsupportedVersion",
  HeaderMismatch: "headerMismatch",
  MissingClientCapability: "missingCapability",
  ResourceNotFound: "inBand",
  InsufficientScope: "insufficientScope",
  RateLimited: "rateLimited",
} as const satisfies Record<keyof typeof ErrorCode, RowName | "inBand">;

const ROW_OF_CODE = new Map<number, (typeof CORE_CODES)[keyof typeof CORE_CODES]>(
  Object.entries(CORE_CODES).map(([name, row]) => [ErrorCode[name as keyof typeof ErrorCode], row]),
);

/** The answer refusing a request: `error` under the row's status and headers. */
export function refuse<K extends RowName>(
  row: K,
  id: RequestId | undefined,
  error: RpcError,
  ...detail: DetailOf<K>
): Response {
  return answerAs(row, errorMessage(id, error), ...detail);
}

/** A JSON-RPC answer (the core's, made already) under a row's status and headers. */
function answerAs<K extends RowName>(
  row: K,
  message: JsonObject,
  ...detail: DetailOf<K>
): Response {
  const { status, headers } = STATUSES[row] as Row;
  return jsonAnswer(
    message,
    status,
    typeof headers === "function"
      ? (headers as (detail: unknown) => Headers)(detail[0])
      : headers as Record<string, string> | undefined,
  );
}

/** How a refusal of the core's is answered: its row and the detail its headers need. */
type CoreRefusal =
  | { readonly row: "insufficientScope"; readonly detail: string }
  | { readonly row: "rateLimited"; readonly detail: number }
  | { readonly row: "methodNotFound" | "unsupportedVersion" | "headerMismatch" }
  | { readonly row: "missingCapability" | "initializeRefused" };

/**
 * The row of an answer the core gave before anything was sent for its request, or undefined
 * for 200. The outcome the core wrote comes first (a refusal for scopes, whose challenge
 * `challengeOf` makes, with OAuth; a rate limit's wait); else the answer's code, for a
 * 2026-07-28 request (a handler's errors, an unknown tool say, travel in band). A 2025-era
 * session answers 200 whatever its answer says (a 404 would tell the client its session is
 * gone), but for an `initialize` refused.
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
  const row = decided?.row ?? ROW_OF_CODE.get(error.code as number);
  switch (row) {
    case "insufficientScope": {
      // Only OAuth has a challenge to send: without one the refusal travels in band.
      if (challengeOf === undefined) break;
      const required = decided?.row === "insufficientScope" ? decided.required : [];
      return { row, detail: challengeOf(required) };
    }
    case "rateLimited":
      return { row, detail: decided?.row === "rateLimited" ? decided.retryAfterSeconds : 1 };
    case undefined:
    case "inBand":
      break;
    default:
      if (!inSession) return { row };
  }
  return inSession && initialize ? { row: "initializeRefused" } : undefined;
}

/** The answer of a refusal of the core's. */
export function coreAnswer(response: JsonObject, refusal: CoreRefusal): Response {
  switch (refusal.row) {
    case "insufficientScope":
      return answerAs(refusal.row, response, refusal.detail);
    case "rateLimited":
      return answerAs(refusal.row, response, refusal.detail);
    default:
      return answerAs(refusal.row, response);
  }
}
