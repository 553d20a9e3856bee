// Who a request's caller is, as what it may reach is bound to: a 2025-era HTTP session, a task, a
// sealed requestState (issue 24; the spec's "session hijacking" guidance: a session id, a task id
// or a state is not a credential). Only callers a server verified (OAuth) have one.
import type { Facts } from "./facts.ts";

/**
 * The caller's key: the subject (else the client, for a token a client got for itself: RFC 9068
 * §2.2 makes its `sub` the client's id too) at its issuer; undefined for an unauthenticated
 * request (stdio, a shared bearer token), which then matches only what was made without one.
 * The verifier refuses a token naming neither (adr/0054); one that reaches here anyway is a bug,
 * said loudly rather than made one caller with every other such token.
 */
export function callerOf(caller: Facts["caller"] | undefined): string | undefined {
  if (caller === undefined) return undefined;
  const who = caller.subject || caller.clientId;
  if (!who) {
    throw new Error(
      'Cannot bind to a caller: the verified token has no subject ("sub") and no client ("client_id")',
    );
  }
  return JSON.stringify([caller.issuer ?? "", who]);
}
