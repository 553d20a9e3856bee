// What a server is given when its configuration (or the command line) says nothing: one place,
// read by createServer, the flags' help and the commands.
import { MAX_OUTPUT_BYTES, MAX_PROGRAMS } from "../programs/limits.ts";

export const DEFAULTS = {
  maxMessageBytes: 4 * 1024 * 1024,
  pageSize: 100,
  toolTimeoutMs: 60_000,
  shutdownGraceMs: 5_000,
  maxConcurrency: 64,
  maxOutputBytes: MAX_OUTPUT_BYTES,
  maxPrograms: MAX_PROGRAMS,
  maxResourceBytes: 8 * 1024 * 1024,
  passEnv: [],
  allowOutsideSymlinks: false,
} as const;

/** With --watch, how long a 2026-07-28 client may cache a list: changes show within it. */
export const WATCHED_LIST_TTL_MS = 5_000;
/** Serialized responses waiting for a slow stdio reader, past which toolshed stops reading. */
export const OUTPUT_BOUND_CHARS = 16 * 1024 * 1024;
/** Bytes of stdio requests waiting for a free slot, past which toolshed stops reading. */
export const WAITING_BOUND_BYTES = 1024 * 1024;

/** The environment variable holding the secret that seals `requestState` (all instances). */
export const STATE_KEY_ENV = "TOOLSHED_STATE_KEY";
