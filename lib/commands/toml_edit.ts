// One server's table set in the text of a TOML file (Codex's config.toml), and nothing else
// changed: the table [KEY.NAME] (with any [KEY.NAME.…] below it) is replaced where it stands,
// or a new one added at the end; every other line stays as written, comments included. The
// edit is made on lines, and smol-toml (npm, parse only; adr/0064) checks both ends: the file
// must parse before, and what is written must parse to exactly the old document with this one
// server changed, or nothing is written. Imported only by `config codex --write`.
import { parse } from "npm:smol-toml@1.9.1";
import { messageOf } from "../util/json.ts";
import type { ServerEdit } from "./json_edit.ts";
import { tomlTable } from "./toml_text.ts";

/** `text` with the table [`serversKey`.`name`] holding `entry`, everything else as it was. */
export function setTable(
  text: string,
  serversKey: string,
  name: string,
  entry: Record<string, unknown>,
): ServerEdit {
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch (error) {
    return {
      kind: "refused",
      problem: `it is not valid TOML (${firstLine(messageOf(error))}${whereOf(error)}): fix ` +
        "it, or add the entry by hand",
    };
  }
  const servers = document[serversKey];
  if (servers !== undefined && !isTable(servers)) {
    return { kind: "refused", problem: `its "${serversKey}" is not a table of servers` };
  }
  const previous = servers?.[name];
  if (previous !== undefined && canonical(previous) === canonical(entry)) {
    return { kind: "unchanged" };
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const table = tomlTable([serversKey, name], entry, eol);
  const lines = text.split(/(?<=\n)/);
  const sections = sectionsOf(lines);
  const ours = sections.filter((section) =>
    section.path.length >= 2 && section.path[0] === serversKey && section.path[1] === name
  );
  let edited: string;
  if (previous === undefined) {
    const ending = text === "" || text.endsWith("\n") ? "" : eol;
    edited = `${text}${ending}${text.trim() === "" ? "" : eol}${table}`;
  } else if (ours.length === 0) {
    return {
      kind: "refused",
      problem: `it defines the server "${name}" other than as a [${serversKey}.${name}] ` +
        "table (dotted keys or an inline table): change it by hand",
    };
  } else {
    const kept = lines.slice();
    // Each of its tables goes, but the blank lines and comments that end one stay when what
    // follows is not another of its tables: they belong to what follows.
    const isOurs = (section: Section | undefined) =>
      section !== undefined && ours.includes(section);
    for (const [index, section] of ours.entries()) {
      let end = section.end;
      if (!isOurs(sections[sections.indexOf(section) + 1])) {
        while (end > section.start + 1 && /^\s*(#.*)?\r?\n?$/.test(lines[end - 1])) end--;
      }
      for (let line = section.start; line < end; line++) kept[line] = "";
      if (index === 0) kept[section.start] = table;
    }
    edited = kept.join("");
  }
  // The proof: the new text says what the old said, but for this one server.
  const expected = { ...document, [serversKey]: { ...(servers ?? {}), [name]: entry } };
  let reread: unknown;
  try {
    reread = parse(edited);
  } catch {
    reread = undefined;
  }
  if (reread === undefined || canonical(reread) !== canonical(expected)) {
    return {
      kind: "refused",
      problem: `its layout leaves no place for a [${serversKey}.${name}] table that changes ` +
        "nothing else: add the entry by hand",
    };
  }
  return previous === undefined
    ? { kind: "added", text: edited }
    : { kind: "replaced", text: edited, previous: plain(previous) };
}

interface Section {
  /** The table's key, as its header names it. */
  readonly path: readonly string[];
  /** Its header's line, and the line after its last. */
  readonly start: number;
  readonly end: number;
}

/**
 * The file's tables, header by header. A line that looks like a header inside a multi-line
 * string is taken for one only when the strings before it are closed.
 */
function sectionsOf(lines: readonly string[]): Section[] {
  const headers: { path: string[]; start: number }[] = [];
  let open: string | undefined; // the delimiter of a multi-line string still open
  for (const [index, line] of lines.entries()) {
    if (open === undefined) {
      const path = headerPath(line);
      if (path !== undefined) headers.push({ path, start: index });
    }
    for (const match of line.matchAll(/"""|'''/g)) {
      if (open === undefined) open = match[0];
      else if (open === match[0]) open = undefined;
    }
  }
  return headers.map((header, index) => ({
    ...header,
    end: headers[index + 1]?.start ?? lines.length,
  }));
}

/** The key path of a line that is a table header ([a.b] or [[a.b]]), else undefined. */
function headerPath(line: string): string[] | undefined {
  const header = line.match(/^\s*\[\[?(.*?)\]\]?\s*(#.*)?\r?\n?$/);
  if (header === null) return undefined;
  const path: string[] = [];
  const inner = header[1];
  let at = 0;
  while (at <= inner.length) {
    const rest = inner.slice(at).match(/^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/);
    if (rest === null) return undefined;
    const key = rest[1];
    try {
      path.push(
        key.startsWith('"') ? JSON.parse(key) : key.startsWith("'") ? key.slice(1, -1) : key,
      );
    } catch {
      return undefined;
    }
    at += rest[0].length;
    if (rest[2] === "") break;
  }
  return path;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    !(value instanceof Date);
}

/** A value as JSON with its tables' keys sorted, for comparing documents. */
function canonical(value: unknown): string {
  return JSON.stringify(plain(value));
}

function plain(value: unknown): unknown {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Date) {
    try {
      return value.toISOString();
    } catch {
      return String(value); // a local time, which is no instant
    }
  }
  if (Array.isArray(value)) return value.map(plain);
  if (isTable(value)) {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, plain(value[key])]),
    );
  }
  return value;
}

/** " at line L column C", from smol-toml's error, where it says. */
function whereOf(error: unknown): string {
  const { line, column } = (error ?? {}) as { line?: unknown; column?: unknown };
  return typeof line === "number" && typeof column === "number"
    ? ` at line ${line} column ${column}`
    : "";
}

function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text;
}
