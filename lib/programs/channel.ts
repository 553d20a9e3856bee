// The channel from a program back to the server (adr/0035): stdout is
// the program's result, so a line of its stderr that starts with `toolshed:` is a message to the
// server instead of diagnostics. There are exactly two forms:
//
//   toolshed:progress <progress>[/<total>] [message]   → ctx.progress(progress, total, message)
//   toolshed:log <level> <message>                     → ctx.log(level, message)
//
// Anything else that starts with `toolshed:` is not understood, and the caller forwards it as
// ordinary stderr. This file only reads lines; executable.ts splits them and delivers.
import { LOG_LEVELS } from "../wire/protocol.ts";
import type { LogLevel, ToolContext } from "../primitives/types.ts";

/** What starts a line of a program's stderr that is meant for the server. */
const CHANNEL_PREFIX = "toolshed:";

/** The longest channel line, in UTF-8 bytes (without its newline); a longer one is not understood. */
export const CHANNEL_LINE_BYTES = 4096;

/** The two forms, as a person reads them in the README and in the note about a bad line. */
const CHANNEL_FORMS =
  '"toolshed:progress <progress>[/<total>] [message]" and "toolshed:log <level> <message>"';

/** What one line of a program's stderr is. */
export type ChannelLine =
  | { readonly kind: "ordinary" }
  | { readonly kind: "not understood" }
  | { readonly kind: "progress"; progress: number; total?: number; message?: string }
  | { readonly kind: "log"; level: LogLevel; message: string };

/** A line that is not meant for the server. */
export const ORDINARY_LINE: ChannelLine = Object.freeze({ kind: "ordinary" });
const NOT_UNDERSTOOD: ChannelLine = Object.freeze({ kind: "not understood" });

/** A JSON number (RFC 8259: no `+`, no leading zeros, no bare `.5` or `5.`). */
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
// `[^]` rather than `.`: a message may hold a lone `\r` or U+2028; a line never holds `\n`.
const PROGRESS = new RegExp(`^toolshed:progress (${NUMBER})(?:/(${NUMBER}))?(?: ([^]*))?$`);
const LOG = /^toolshed:log ([a-z]+)(?: ([^]*))?$/;

/**
 * Reads one line of a program's stderr (split on `\n`, without its `\r`): a channel message,
 * a line that starts with `toolshed:` but is not one, or an ordinary line. Cheap for ordinary
 * lines (one `startsWith`); a channel line costs at most one bounded regular expression.
 */
export function readChannelLine(line: string): ChannelLine {
  if (!line.startsWith(CHANNEL_PREFIX)) return ORDINARY_LINE;
  if (!withinBytes(line, CHANNEL_LINE_BYTES)) return NOT_UNDERSTOOD;
  const progress = PROGRESS.exec(line);
  if (progress !== null) {
    const [, done, total, message] = progress;
    const value = Number(done);
    const of = total === undefined ? undefined : Number(total);
    if (!Number.isFinite(value) || (of !== undefined && !Number.isFinite(of))) {
      return NOT_UNDERSTOOD; // 1e999
    }
    const read: ChannelLine = { kind: "progress", progress: value };
    if (of !== undefined) read.total = of;
    if (message !== undefined && message !== "") read.message = message;
    return read;
  }
  const log = LOG.exec(line);
  if (log !== null && LOG_LEVELS.has(log[1])) {
    return { kind: "log", level: log[1] as LogLevel, message: log[2] ?? "" };
  }
  return NOT_UNDERSTOOD;
}

/** Hands a channel message to the request's context; progress and log do nothing unless asked. */
export function deliver(
  read: ChannelLine,
  ctx: Pick<ToolContext, "progress" | "log">,
): void {
  if (read.kind === "progress") ctx.progress(read.progress, read.total, read.message);
  else if (read.kind === "log") ctx.log(read.level, read.message);
}

/** The note that precedes the first line of a call that starts with `toolshed:` but is not understood. */
export function notUnderstoodNote(toolName: string): string {
  return `Tool "${toolName}" printed a stderr line that starts with "${CHANNEL_PREFIX}" but is ` +
    `not a message to the server, so it and any like it in this call are forwarded as they ` +
    `are: the forms are ${CHANNEL_FORMS}, at most ${CHANNEL_LINE_BYTES} bytes, with <level> ` +
    `one of ${[...LOG_LEVELS].join(", ")}`;
}

/** Whether `text` takes at most `limit` bytes in UTF-8, counted only as far as needed. */
function withinBytes(text: string, limit: number): boolean {
  if (text.length > limit) return false; // a UTF-16 code unit is at least one byte
  if (text.length * 3 <= limit) return true; // and at most three (a pair is four for two)
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdfff ? 2 : 3;
    if (bytes > limit) return false;
  }
  return true;
}
