// The `WWW-Authenticate` challenges of toolshed as a resource server: RFC 6750 §3 for Bearer,
// RFC 9449 §7.1 for DPoP, each naming the protected resource metadata (RFC 9728 §5.1) and the
// scopes to ask for. A client acts on these: the 401's starts its sign-in, a 403's
// `insufficient_scope` its step-up.

/** How a request presented its token: the challenge answers in the same scheme. */
export type Scheme = "Bearer" | "DPoP";

interface ChallengeOf {
  /** The metadata's URL as clients reach it. */
  readonly metadataUrl: string;
  /** With DPoP: the proof algorithms accepted (`algs`). */
  readonly algorithms: readonly string[];
}

/** One challenge: `scheme error="…", resource_metadata="…", scope="…", error_description="…"`. */
export function challenge(
  of: ChallengeOf,
  scheme: Scheme,
  error: string | undefined,
  description: string | undefined,
  scopes: readonly string[],
): string {
  const parts = [`resource_metadata="${of.metadataUrl}"`];
  if (error !== undefined) parts.unshift(`error="${error}"`);
  if (scopes.length > 0) parts.push(`scope="${scopes.join(" ")}"`);
  if (error !== undefined && description !== undefined) {
    parts.push(`error_description="${quotable(description)}"`);
  }
  if (scheme === "DPoP") parts.push(`algs="${of.algorithms.join(" ")}"`);
  return `${scheme} ${parts.join(", ")}`;
}

/**
 * The challenge of a 403 for an operation needing `required` besides the base scopes: every
 * scope in one challenge, so that a client asks for all of them at once, not one per retry.
 */
export function insufficientScope(
  of: ChallengeOf,
  scheme: Scheme,
  base: readonly string[],
  required: readonly string[],
): string {
  return challenge(of, scheme, "insufficient_scope", undefined, [
    ...new Set([...base, ...required]),
  ]);
}

/**
 * RFC 6750 §3: an error_description holds printable ASCII but `"` and `\`. Our messages quote
 * values in double quotes, which become single ones (`'iss'` reads; `?iss?` did not).
 */
function quotable(text: string): string {
  return text.replaceAll('"', "'").replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "?");
}
