// Diagnostics for humans go to stderr, never stdout (which carries protocol only).

/** Writes one diagnostic line to stderr, with the error's stack when there is one. */
export function logError(message: string, error?: unknown): void {
  const detail = error instanceof Error ? `\n${error.stack ?? error.message}` : "";
  // deno-lint-ignore no-console
  console.error(`toolshed: ${message}${detail}`);
}
