// Diagnostics for humans go to stderr, never stdout (which carries protocol only).

/** Writes one diagnostic line to stderr, with the error's stack when there is one. */
export function logError(message: string, error?: unknown): void {
  let detail = "";
  try {
    if (error instanceof Error) detail = `\n${error.stack ?? error.message}`;
  } catch {
    // A tool's error object with a throwing `stack` getter: the message alone will do.
  }
  // deno-lint-ignore no-console
  console.error(`toolshed: ${message}${detail}`);
}
