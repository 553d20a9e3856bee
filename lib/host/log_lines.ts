// What one line of the server's stderr says, for people (`toolshed: …`, the default) or for
// machines (`--log-format json`: one JSON object a line, docs/operating/logs.md). The queue
// that carries the lines to stderr (stderr_log.ts) knows nothing of either.
import { diagnosticText, type LogFields } from "../util/diagnostics.ts";
import { withoutModuleVersions } from "../discovery/import_module.ts";
import { activeSpan } from "../util/active_span.ts";

export type LogFormat = "text" | "json";

export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

/** How bad it is: a failure, something probably wrong, or news. */
export type LogLevel = "error" | "warn" | "info";

/** One thing to say on stderr. */
export interface LogRecord {
  readonly level: LogLevel;
  readonly message: string;
  /** An error whose stack (or first line, without `stack`) goes with the message. */
  readonly error?: unknown;
  /** Whether the error's whole stack is shown (else its first line). */
  readonly stack?: boolean;
  readonly fields?: LogFields;
  /** For people, the line as it is, without `toolshed: ` (it begins with the name already). */
  readonly plain?: boolean;
}

/** The record as stderr takes it: one line of JSON, or `toolshed: …` with a stack below. */
export function logLine(format: LogFormat, record: LogRecord): string {
  if (format === "text") {
    if (record.plain) return `${record.message}\n`;
    return withoutModuleVersions(diagnosticText(record.message, record.error, record.stack));
  }
  return jsonLine(record, Date.now());
}

/**
 * One JSON object and a newline: time, level, message, the active span's ids, the fields, then
 * the error; `at` is the time in epoch milliseconds. One object, stringified once (a stringify
 * per key costs six times as much: bench/log_bench.ts).
 */
export function jsonLine(record: LogRecord, at: number): string {
  const line: Record<string, unknown> = {
    time: isoTime(at),
    level: record.level,
    message: record.message,
  };
  const span = activeSpan();
  if (span !== undefined) {
    line.trace_id = span.traceId;
    line.span_id = span.spanId;
  }
  const fields = record.fields;
  if (fields !== undefined) {
    for (const key in fields) {
      const value = fields[key];
      if (value !== undefined && !(key in RESERVED)) line[key] = value;
    }
  }
  if (record.error !== undefined) line.error = errorText(record.error, record.stack !== false);
  return `${JSON.stringify(line)}\n`;
}

/** The second `secondPrefix` is of, and its ISO 8601 text up to the milliseconds. */
let second = Number.NaN;
let secondPrefix = "";

/**
 * `at` as ISO 8601 in UTC (`2026-12-02T09:14:03.112Z`): a Date is made once a second, the
 * milliseconds appended (toISOString per line was a third of a line's cost).
 */
function isoTime(at: number): string {
  const whole = Math.floor(at / 1000);
  if (whole !== second) {
    second = whole;
    secondPrefix = new Date(whole * 1000).toISOString().slice(0, 20);
  }
  return `${secondPrefix}${String(at - whole * 1000).padStart(3, "0")}Z`;
}

/** Keys a record's fields cannot take over. */
const RESERVED = { time: 1, level: 1, message: 1, error: 1 };

/** An error as a log shows it: its stack (module versions taken out), or its first line. */
function errorText(error: unknown, stack: boolean): string {
  try {
    if (error instanceof Error) {
      const text = stack ? error.stack ?? error.message : `${error.name}: ${error.message}`;
      return withoutModuleVersions(text);
    }
    return typeof error === "string" ? error : Deno.inspect(error);
  } catch {
    return "(an error that cannot be shown)";
  }
}

/**
 * A program's stderr text (`[tool] ` before each line when `tool` is given), as lines of
 * JSON: one per line, the prefix taken off and the tool named.
 */
export function forwardedJsonLines(
  text: string,
  source: string,
  tool: string | undefined,
): string {
  const prefix = tool === undefined ? undefined : `[${tool}] `;
  const at = Date.now();
  let out = "";
  for (const raw of text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n")) {
    const message = prefix !== undefined && raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
    out += jsonLine({ level: "info", message, fields: { source, tool } }, at);
  }
  return out;
}
