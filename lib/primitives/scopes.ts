// The OAuth scopes a primitive asks of its caller's token (`scopes: ["files:read"]` on a tool,
// a resource or template, a prompt, a sidecar): checked at load, compared at each request.
// A scope is a name the authorization server grants; toolshed compares names exactly (no
// hierarchy: a token with `files` does not cover `files:read`), as RFC 6749 §3.3 defines them.
import type { AuthInfo } from "./types.ts";

/** RFC 6749 §3.3 `scope-token`: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Scopes no primitive may ask for: a challenge must never carry it (refresh tokens). */
const NEVER_ASKED = "offline_access";

/** No scopes: what a primitive without the field asks (shared, frozen). */
export const NO_SCOPES: readonly string[] = Object.freeze([]);

/**
 * A definition's `scopes` field as a frozen list without repeats, or throws one sentence
 * saying what is wrong. Absent means none.
 */
export function checkScopes(value: unknown): readonly string[] {
  if (value === undefined) return NO_SCOPES;
  if (!Array.isArray(value)) {
    throw new Error('scopes must be a list of OAuth scope names, e.g. ["files:read"]');
  }
  for (const scope of value) {
    if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
      throw new Error(
        `scopes has ${JSON.stringify(scope)}, which is not an OAuth scope name (printable ` +
          `ASCII without spaces, quotes or backslashes, RFC 6749 §3.3)`,
      );
    }
    if (scope === NEVER_ASKED) {
      throw new Error(
        `scopes has "${NEVER_ASKED}", which asks for refresh tokens, not access to anything: ` +
          `a client decides whether it wants one`,
      );
    }
  }
  return value.length === 0 ? NO_SCOPES : Object.freeze([...new Set(value as string[])]);
}

/** Whether `auth`'s scopes include every one of `required`. */
export function covers(auth: AuthInfo, required: readonly string[]): boolean {
  for (const scope of required) {
    if (!auth.scopes.includes(scope)) return false;
  }
  return true;
}

/** Whether `text` is one OAuth scope name (for flags such as `--auth-scope`). */
export function isScopeName(text: string): boolean {
  return SCOPE_TOKEN.test(text) && text !== NEVER_ASKED;
}
