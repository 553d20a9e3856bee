// The optional bearer token (adr/0033): when the operator sets one, every
// request to /mcp must carry `Authorization: Bearer <token>`. The comparison takes the same
// time whatever the token sent: both sides are hashed with SHA-256 and the digests compared
// byte by byte without an early exit, so neither the position of the first wrong byte nor
// the length of the token leaks through timing. A missing or wrong token is 401 with
// `WWW-Authenticate: Bearer` (RFC 6750 §3), never a hint of which it was in the body.
import type { HttpStep } from "./exchange.ts";
import { unauthorized } from "./errors.ts";
import { refuse } from "./statuses.ts";

export { BEARER_TOKEN } from "../../settings/values.ts";

/** `Bearer <token>`, the scheme in any case, with one or more spaces after it. */
const BEARER_CREDENTIALS = /^bearer +(\S+)$/i;

/** Resolves whether a request's headers carry the expected token. */
type BearerCheck = (headers: Headers) => Promise<"ok" | "missing" | "invalid">;

const encoder = new TextEncoder();

function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/** A check against `token`, whose digest is computed once. */
export function createBearerCheck(token: string): BearerCheck {
  const expected = digest(token).then((buffer) => new Uint8Array(buffer));
  return async (headers) => {
    const credentials = headers.get("authorization");
    if (credentials === null) return "missing";
    const sent = BEARER_CREDENTIALS.exec(credentials)?.[1];
    if (sent === undefined) return "invalid";
    return equalDigests(await expected, new Uint8Array(await digest(sent))) ? "ok" : "invalid";
  };
}

/** Compares two SHA-256 digests in constant time: every byte is read, whatever differs. */
export function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false; // both are 32 bytes: never taken
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

/** The `WWW-Authenticate` value for a refusal: RFC 6750 adds the error for a wrong token. */
function challengeOf(outcome: "missing" | "invalid"): string {
  return outcome === "missing"
    ? 'Bearer realm="toolshed"'
    : 'Bearer realm="toolshed", error="invalid_token"';
}

/** The step after the guard: 401 with a challenge when the token is missing or wrong. */
export function bearerStep(token: string): HttpStep {
  const check = createBearerCheck(token);
  return (next) => async (exchange) => {
    const outcome = await check(exchange.request.headers);
    if (outcome === "ok") return next(exchange);
    return refuse("unauthorized", undefined, unauthorized(), challengeOf(outcome));
  };
}
