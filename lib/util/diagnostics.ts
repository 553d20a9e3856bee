// What the server tells a person, as opposed to what it tells the client. The layers below
// the host receive a Diagnostics and never touch stderr themselves: the host gives them
// stderr (host/stderr_log.ts), tests give them a recorder, so a green test run prints
// nothing but its results.

export interface Diagnostics {
  /**
   * One diagnostic: what went wrong, with the error's stack when there is one, and `fields`
   * (the tool, the method) that a structured log (`--log-format json`) carries as its own keys.
   */
  error(message: string, error?: unknown, fields?: LogFields): void;
  /**
   * Forwards `lines` line(s) of a program's stderr, named by `source` (for example
   * `stderr from tool "x"`), each line begun with `[tool] ` when `tool` is given (a structured
   * log takes the prefix off and names the tool in a key). A promise means "wait before reading more" (backpressure);
   * undefined means the text was dealt with at once.
   */
  forward(
    text: string,
    lines: number,
    source: string,
    tool?: string,
  ): Promise<void> | undefined;
  /**
   * Something that went as it should, worth a line (a request served, `--log-requests`): as
   * `error` where it is not given, so that every Diagnostics has it.
   */
  info?(message: string, fields?: LogFields): void;
  /** Something probably wrong that does not stop anything (a missing shared key): as `error`
   * where it is not given. */
  warning?(message: string, fields?: LogFields): void;
}

/**
 * What a log line knows besides its message, as a structured log names it: `method`, `tool`,
 * `subject`, `status`, `duration_ms`, `trace_id`, `span_id` (docs/operating/logs.md). Keys
 * whose value is undefined are left out.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** Reports `message` as a warning, through `warning` where there is one, else as a diagnostic. */
export function warn(diagnostics: Diagnostics, message: string, fields?: LogFields): void {
  if (diagnostics.warning !== undefined) diagnostics.warning(message, fields);
  else diagnostics.error(message, undefined, fields);
}

/** Reports `message` as information, through `info` where there is one, else as a diagnostic. */
export function inform(diagnostics: Diagnostics, message: string, fields?: LogFields): void {
  if (diagnostics.info !== undefined) diagnostics.info(message, fields);
  else diagnostics.error(message, undefined, fields);
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
