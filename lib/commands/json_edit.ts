// One server's entry set in the text of a client's configuration file, and nothing else
// changed: every other byte stays as written (numbers JSON.parse would round, comments,
// trailing commas, key order, indentation). jsonc-parser finds where things are; the edit
// is written here, since its modify() with formatting re-indents the whole line it inserts
// on, a neighbour's one-line entry included (adr/0023). Imported only by `config --write`.
import {
  applyEdits,
  type Edit,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "npm:jsonc-parser@3.3.1";

/** The file's new text, or that it holds this entry already, or why it cannot be edited. */
type ServerEdit =
  | { kind: "added" | "replaced"; text: string; previous?: unknown }
  | { kind: "unchanged" }
  | { kind: "refused"; problem: string };

/** `text` with `entry` under `serversKey`.`name`, everything else as it was. */
export function setServer(
  text: string,
  serversKey: string,
  name: string,
  entry: unknown,
): ServerEdit {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || root === undefined) {
    const first = errors[0];
    const where = first === undefined
      ? ""
      : ` (${printParseErrorCode(first.error)} at ${lineAndColumn(text, first.offset)})`;
    return {
      kind: "refused",
      problem: `it is not valid JSON, even with comments and trailing commas${where}: fix it, ` +
        "or add the entry by hand",
    };
  }
  if (root.type !== "object") return { kind: "refused", problem: "it does not hold a JSON object" };
  const style = styleOf(text);
  const serversProperties = propertiesNamed(root, serversKey);
  if (serversProperties.length > 1) {
    return { kind: "refused", problem: `it has "${serversKey}" ${twice(serversProperties)}` };
  }
  const servers = serversProperties[0]?.children?.[1];
  if (servers === undefined) {
    const edits = insertProperty(text, root, serversKey, { [name]: entry }, style);
    return { kind: "added", text: applyEdits(text, edits) };
  }
  if (servers.type !== "object") {
    return { kind: "refused", problem: `its "${serversKey}" is not an object of servers` };
  }
  const named = propertiesNamed(servers, name);
  if (named.length > 1) {
    return {
      kind: "refused",
      problem: `its "${serversKey}" has the server "${name}" ${twice(named)}, and clients read ` +
        "only the last: keep one, then run this again",
    };
  }
  const existing = named[0]?.children?.[1];
  if (existing === undefined) {
    return {
      kind: "added",
      text: applyEdits(text, insertProperty(text, servers, name, entry, style)),
    };
  }
  const previous = getNodeValue(existing);
  if (JSON.stringify(previous) === JSON.stringify(entry)) return { kind: "unchanged" };
  const compact = !isMultiLine(text, servers);
  const value = render(entry, compact ? undefined : indentOf(text, named[0].offset), style);
  const edit = { offset: existing.offset, length: existing.length, content: value };
  return { kind: "replaced", text: applyEdits(text, [edit]), previous };
}

/** How the file is written: its line ending, and one level of its indentation. */
interface Style {
  readonly eol: string;
  readonly unit: string;
}

function styleOf(text: string): Style {
  const indented = text.match(/\n([ \t]+)\S/)?.[1];
  return {
    eol: text.includes("\r\n") ? "\r\n" : "\n",
    unit: indented === undefined ? "  " : indented.startsWith("\t") ? "\t" : indented,
  };
}

function propertiesNamed(object: Node, key: string): Node[] {
  return (object.children ?? []).filter((property) => property.children?.[0]?.value === key);
}

function twice(found: readonly Node[]): string {
  return found.length === 2 ? "twice" : `${found.length} times`;
}

/** True when the object's first entry (or its closing brace) is on a line after its "{". */
function isMultiLine(text: string, object: Node): boolean {
  const first = object.children?.[0];
  const end = first === undefined ? object.offset + object.length : first.offset;
  return text.slice(object.offset, end).includes("\n");
}

/** The whitespace that begins the line `offset` is on. */
function indentOf(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return text.slice(start).match(/^[ \t]*/)![0];
}

/** `value` as JSON: on one line, or indented for a place whose line begins with `indent`. */
function render(value: unknown, indent: string | undefined, style: Style): string {
  if (indent === undefined) return JSON.stringify(value);
  return JSON.stringify(value, null, style.unit).split("\n").join(style.eol + indent);
}

/**
 * The edits that add `"key": value` at the end of `object`: on a line of its own in an
 * object written over lines, after what ends its last entry's line (a comma, a comment);
 * on the same line in an object written on one.
 */
function insertProperty(
  text: string,
  object: Node,
  key: string,
  value: unknown,
  style: Style,
): Edit[] {
  const children = object.children ?? [];
  const last = children.at(-1);
  const inside = { offset: object.offset + 1, length: object.length - 2 };
  // An empty object (`{}`, the usual new file) has no style to follow: it gets lines.
  const empty = last === undefined &&
    text.slice(inside.offset, inside.offset + inside.length).trim() === "";
  const multiLine = empty || isMultiLine(text, object);
  const objectIndent = indentOf(text, object.offset);
  const indent = last === undefined ? objectIndent + style.unit : indentOf(text, last.offset);
  const property = `${JSON.stringify(key)}: ${
    render(value, multiLine ? indent : undefined, style)
  }`;
  if (empty) {
    return [{ ...inside, content: `${style.eol}${indent}${property}${style.eol}${objectIndent}` }];
  }
  if (last === undefined) {
    const content = multiLine ? `${style.eol}${indent}${property}` : property;
    return [{ offset: object.offset + 1, length: 0, content }];
  }
  const end = last.offset + last.length;
  const after = text.slice(end).match(/^[ \t]*(,?)[ \t]*(\/\/[^\r\n]*)?/)!;
  const comma = after[1] === "" ? [{ offset: end, length: 0, content: "," }] : [];
  if (!multiLine) return [{ offset: end, length: 0, content: `, ${property}` }];
  return [...comma, {
    offset: end + after[0].length,
    length: 0,
    content: `${style.eol}${indent}${property}`,
  }];
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length} column ${before.at(-1)!.length + 1}`;
}
