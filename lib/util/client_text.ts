// Text a client wrote (a JSON-RPC method, a tool's name, a token's subject, a URI), as a log line
// carries it (adr/0057): cut to a bound, and in a line for people either a plain word or a JSON
// string, so that nothing a client sends can end a line, begin another or pose as a word of the
// server's. Like Go's log/slog TextHandler, a value is quoted when it needs to be: `tools/call`
// reads as it is, `"tools/call by \"admin\"\ntoolshed: …"` cannot be mistaken for anything else.

/** The most characters of one client value a log line carries (a tool name may have 128). */
const CLIENT_TEXT_CHARS = 128;

/**
 * `text` when it has at most `most` characters, else its first `most` (a surrogate pair kept
 * whole), `…` and how long it was: `tools/ca… (1000032 characters)`.
 */
export function clientText(text: string, most: number = CLIENT_TEXT_CHARS): string {
  if (text.length <= most) return text;
  const code = text.charCodeAt(most - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? most - 1 : most;
  return `${text.slice(0, cut)}… (${text.length} characters)`;
}

/** `text` cut as `clientText` cuts it, as a JSON string (`"tools/call"`, `"a\nb"`). */
export function quotedClientText(text: string, most: number = CLIENT_TEXT_CHARS): string {
  return JSON.stringify(clientText(text, most));
}

/**
 * A plain word: a letter or `/` first, then printable ASCII without spaces, quotes or
 * backslashes, at most CLIENT_TEXT_CHARS in all. It cannot end the line, span two fields or
 * read as `-` (nothing), a number or a quoted value.
 */
const PLAIN_WORD = new RegExp(`^[A-Za-z/][!#-\\[\\]-~]{0,${CLIENT_TEXT_CHARS - 1}}$`);

/** `text` as one word of a line for people: as it is when a plain word, else quoted and cut. */
export function clientWord(text: string): string {
  return PLAIN_WORD.test(text) ? text : quotedClientText(text);
}
