// What the server tells a person, as opposed to what it tells the client. The layers below
// the host receive a Diagnostics and never touch stderr themselves: the host gives them
// stderr (host/stderr_log.ts), tests give them a recorder, so a green test run prints
// nothing but its results.

export interface Diagnostics {
  /** One diagnostic: what went wrong, with the error's stack when there is one. */
  error(message: string, error?: unknown): void;
  /**
   * Forwards `lines` line(s) of a program's stderr, named by `source` (for example
   * `stderr from tool "x"`). A promise means "wait before reading more" (backpressure);
   * undefined means the text was dealt with at once.
   */
  forward(text: string, lines: number, source: string): Promise<void> | undefined;
}

/**
 * The text of one diagnostic: `toolshed: <message>`, then the error's stack when there is
 * one, or with `stack` false only its first line (`: Error: division by zero`).
 */
export function diagnosticText(message: string, error?: unknown, stack = true): string {
  let detail = "";
  try {
    if (error instanceof Error) {
      detail = stack
        ? `\n${error.stack ?? error.message}`
        : `: ${(error.stack ?? "").split("\n")[0] || `${error.name}: ${error.message}`}`;
    }
  } catch {
    // A tool's error object with a throwing `stack` getter: the message alone will do.
  }
  return `toolshed: ${message}${detail}\n`;
}
