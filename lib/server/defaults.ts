// What a server is given when its configuration (or the command line) says nothing: the
// defaults of lib/settings/table.ts's rows, read by createServer and the commands.
import type { Diagnostics } from "../util/diagnostics.ts";
import { STATE_KEY_ENV, TABLE } from "../settings/table.ts";

export const DEFAULTS = {
  maxMessageBytes: TABLE.maxMessageBytes.default,
  pageSize: TABLE.pageSize.default,
  toolTimeoutMs: TABLE.toolTimeoutMs.default,
  shutdownGraceMs: TABLE.shutdownGraceMs.default,
  maxConcurrency: TABLE.maxConcurrency.default,
  maxOutputBytes: TABLE.maxOutputBytes.default,
  maxPrograms: TABLE.maxPrograms.default,
  maxResourceBytes: TABLE.maxResourceBytes.default,
  passEnv: TABLE.passEnv.default,
  allowOutsideSymlinks: TABLE.allowOutsideSymlinks.default,
} as const;

/** With --watch, how long a 2026-07-28 client may cache a list: changes show within it. */
export const WATCHED_LIST_TTL_MS = 5_000;
/** Serialized responses waiting for a slow stdio reader, past which toolshed stops reading. */
export const OUTPUT_BOUND_CHARS = 16 * 1024 * 1024;
/** Bytes of stdio requests waiting for a free slot, past which toolshed stops reading. */
export const WAITING_BOUND_BYTES = 1024 * 1024;

export { STATE_KEY_ENV };

/**
 * Where an embedded server's troubles go when its configuration names no place: the
 * console of the program it is embedded in (main.ts gives its own stderr log).
 */
export const CONSOLE_DIAGNOSTICS: Diagnostics = {
  error(message, error) {
    // deno-lint-ignore no-console -- an embedded server reports on its host program's console
    console.error(`toolshed: ${message}`, ...(error === undefined ? [] : [error]));
  },
  forward(text) {
    // deno-lint-ignore no-console -- a program's stderr, forwarded as the host program's
    console.error(text.replace(/\n$/, ""));
    return undefined;
  },
};
