// Who a request's caller is, as what it may reach is bound to: a 2025-era HTTP session, a task, a
// sealed requestState (issue 24; the spec's "session hijacking" guidance: a session id, a task id
// or a state is not a credential). Only callers a server verified (OAuth) have one.
import type { AuthInfo } from "../primitives/types.ts";

/**
 * The caller's key: the subject (else the client, for a token a client got for itself) at its
 * issuer; undefined for an unauthenticated request (stdio, a shared bearer token), which then
 * matches only what was made without one.
 */
export function callerOf(auth: AuthInfo | undefined): string | undefined {
  if (auth === undefined) return undefined;
  return JSON.stringify([auth.issuer ?? "", auth.subject ?? auth.clientId ?? ""]);
}
