// One server set in the text of a YAML file (Continue's config.yaml, or a block file under
// .continue/mcpServers/): an item of the list under KEY whose "name" is the server's, replaced
// where it stands or added at the list's end. The `yaml` package (npm, already locked; adr/0064)
// edits the document's tree, so comments and the other entries stay; js-yaml, which toolshed
// reads prompts with, would drop every comment on the way back. Nothing is written unless the
// new text reads back as the old document with this one server changed. Imported only by
// `config continue`.
import { isMap, isSeq, parseDocument, stringify } from "npm:yaml@2.9.1";
import type { ServerEdit } from "./json_edit.ts";

/** The block file Continue reads from .continue/mcpServers/, holding one server. */
export function yamlBlock(name: string, entry: Record<string, unknown>): string {
  const block = { name, version: "0.0.1", schema: "v1", mcpServers: [{ name, ...entry }] };
  return stringify(block, { lineWidth: 0 });
}

/** `text` with the item named `name` under `listKey` holding `entry`, everything else kept. */
export function setListItem(
  text: string,
  listKey: string,
  name: string,
  entry: Record<string, unknown>,
): ServerEdit {
  const document = parseDocument(text, { uniqueKeys: true });
  const problem = document.errors[0];
  if (problem !== undefined) {
    const [line, column] = problem.linePos?.[0]
      ? [problem.linePos[0].line, problem.linePos[0].col]
      : [];
    return {
      kind: "refused",
      problem: `it is not valid YAML (${problem.code}` +
        (line === undefined ? "" : ` at line ${line} column ${column}`) +
        "): fix it, or add the entry by hand",
    };
  }
  const before = document.toJS();
  const root = document.contents;
  if (!isMap(root)) return { kind: "refused", problem: "it does not hold a YAML mapping" };
  const item = { name, ...entry };
  const list = root.get(listKey, true);
  let kind: "added" | "replaced" = "added";
  let previous: unknown;
  if (list === undefined || list === null) {
    document.set(listKey, document.createNode([item]));
  } else if (!isSeq(list)) {
    return { kind: "refused", problem: `its "${listKey}" is not a list of servers` };
  } else {
    const named = list.items.flatMap((node, index) =>
      isMap(node) && node.get("name") === name ? [index] : []
    );
    if (named.length > 1) {
      return {
        kind: "refused",
        problem: `its "${listKey}" has the server "${name}" ${named.length} times: keep one, ` +
          "then run this again",
      };
    }
    if (named.length === 1) {
      previous = before[listKey][named[0]];
      if (JSON.stringify(sorted(previous)) === JSON.stringify(sorted(item))) {
        return { kind: "unchanged" };
      }
      list.items[named[0]] = document.createNode(item);
      kind = "replaced";
    } else {
      list.items.push(document.createNode(item));
    }
  }
  const edited = document.toString({ lineWidth: 0 });
  const expected = structuredClone(before);
  const servers: unknown[] = expected[listKey] ?? (expected[listKey] = []);
  const at = servers.findIndex((server) => (server as { name?: unknown })?.name === name);
  if (at >= 0) servers[at] = item;
  else servers.push(item);
  const reread = parseDocument(edited);
  if (
    reread.errors.length > 0 ||
    JSON.stringify(sorted(reread.toJS())) !== JSON.stringify(sorted(expected))
  ) {
    return {
      kind: "refused",
      problem: `its layout leaves no place for the server that changes nothing else: add ` +
        "the entry by hand",
    };
  }
  return kind === "added" ? { kind, text: edited } : { kind, text: edited, previous };
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, sorted(record[key])]));
  }
  return value;
}
