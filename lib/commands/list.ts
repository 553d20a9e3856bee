// toolshed list: what a server directory serves, as a client would be told it. The lists
// come from the real request core (tools/list, resources/list, resources/templates/list,
// prompts/list, every page), so nothing here can disagree with what a client sees.
import { isObject, type JsonObject } from "../util/json.ts";
import { EXIT, type Io } from "./command.ts";
import {
  ask,
  codeModeOf,
  DIR_FLAGS,
  DIR_FLAGS_HELP,
  openServer,
  parseCommandArgs,
} from "./open_server.ts";
import type { Folder } from "../discovery/server_dir.ts";
import type { Server } from "../server/create_server.ts";
import { promptText, resourceText, toolText } from "./render.ts";
import { parseToolsets } from "../primitives/toolsets.ts";
import { TASKS_EXTENSION } from "../tasks/tasks.ts";

const FLAGS = {
  ...DIR_FLAGS,
  "code-mode": { type: "boolean" },
  "code-destructive": { type: "boolean" },
  json: { type: "boolean" },
  toolsets: { type: "string" },
  "read-only": { type: "boolean" },
} as const;

/** The four lists, by the field each result carries them in. */
const LISTS = [
  { method: "tools/list", field: "tools" },
  { method: "resources/list", field: "resources" },
  { method: "resources/templates/list", field: "resourceTemplates" },
  { method: "prompts/list", field: "prompts" },
] as const;

type Field = typeof LISTS[number]["field"];

/** JSON-RPC's "method not found": the core's answer for a kind the server has none of. */
const METHOD_NOT_FOUND = -32601;

export const command = {
  usage: `Usage: toolshed list [options]

Shows what a server directory serves: its tools (with their arguments, output and
annotations), resources, resource templates and prompts, as an MCP client would see them.

Options:
${DIR_FLAGS_HELP}
  --toolsets SET,SET         Only these toolsets (folders of tools/) and the top-level
                             tools, as serve --toolsets serves them
  --read-only                Only tools marked readOnlyHint, as serve --read-only
  --code-mode                Code mode's tools (search_tools, describe_tools, run_code)
                             instead of the catalog, as serve --code-mode
  --code-destructive         With --code-mode: code may call destructive tools that opt in
  --json                     Print the tools/list, resources/list, resources/templates/list
                             and prompts/list results as one JSON object:
                             {"tools":[…],"resources":[…],"resourceTemplates":[…],"prompts":[…]}

Examples:
  toolshed list
  toolshed list --dir ./my-server --json`,

  async run(args: string[], io: Io): Promise<number> {
    const parsed = parseCommandArgs(args, FLAGS, io, "list", command.usage);
    if (typeof parsed === "number") return parsed;
    const { values, positionals } = parsed;
    if (positionals.length > 0) {
      io.err(
        `toolshed: Unexpected argument "${positionals[0]}": list takes no arguments ` +
          `(use --dir DIR to name a directory)\n`,
      );
      return EXIT.usage;
    }
    const opened = await openServer(values, io, {
      toolsets: values.toolsets === undefined ? undefined : parseToolsets(values.toolsets),
      readOnly: values["read-only"] === true,
      codeMode: codeModeOf(values),
    });
    if (typeof opened === "number") return opened;
    // Whichever way the command ends, the server's mounted upstreams are stopped.
    await using _closing = { [Symbol.asyncDispose]: () => opened.server.close() };
    const { server } = opened;
    const snapshot = server.registry.current();
    const lists = {} as Record<Field, JsonObject[]>;
    for (const { method, field } of LISTS) {
      const items = await listAll(server, method, field);
      if (typeof items === "string") {
        io.err(`toolshed: Cannot list ${field}: ${items}\n`);
        return EXIT.failed;
      }
      lists[field] = items;
    }
    if (values.json) {
      io.out(`${JSON.stringify(lists, null, 2)}\n`);
      return EXIT.ok;
    }
    const { folders } = opened;
    const byName = snapshot.tools.byKey;
    const sections = [
      section(
        "tool(s)",
        "tools",
        folders.tools,
        lists.tools.map((tool) => {
          const found = byName.get(String(tool.name));
          return toolText(tool, found?.task, found?.toolset);
        }),
      ),
      section(
        "resource(s)",
        "resources",
        folders.resources,
        lists.resources.map((resource) => resourceText(resource, "uri")),
      ),
      section(
        "resource template(s)",
        "resource templates",
        folders.resources,
        lists.resourceTemplates.map((template) => resourceText(template, "uriTemplate")),
      ),
      section("prompt(s)", "prompts", folders.prompts, lists.prompts.map(promptText)),
    ];
    io.out(`${sections.join("\n\n")}\n`);
    return EXIT.ok;
  },
};

/**
 * Every item of one list, page after page, or what went wrong. A kind the server has none
 * of is an empty list (the core answers -32601 for it, as it would a client).
 */
async function listAll(
  server: Server,
  method: string,
  field: string,
): Promise<JsonObject[] | string> {
  const items: JsonObject[] = [];
  let cursor: string | undefined;
  // A cursor seen twice would loop forever; the core never gives one, but say so if it did.
  const seen = new Set<string>();
  do {
    // As a client that declares tasks (as `call` does) sees it: the directory as it is, with
    // no job tool and every outputSchema (adr/0070).
    const response = await ask(server, method, cursor === undefined ? {} : { cursor }, {
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    if (isObject(response.error)) {
      if (response.error.code === METHOD_NOT_FOUND) return [];
      return String(response.error.message);
    }
    const result = isObject(response.result) ? response.result : {};
    const page = result[field];
    if (!Array.isArray(page)) return `the ${method} result has no "${field}" array`;
    items.push(...page.filter(isObject));
    cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
    if (cursor !== undefined && seen.has(cursor)) {
      return `${method} gave the cursor "${cursor}" twice`;
    }
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return items;
}

/** One kind: a heading with the count and where it comes from, then its items (or none). */
function section(
  kind: string,
  plural: string,
  folder: Folder | undefined,
  items: string[],
): string {
  const where = folder === undefined ? "" : ` from "${locationText(folder.location)}"`;
  if (items.length === 0) {
    return folder === undefined
      ? `No ${plural}: no folder for them is served`
      : `No ${plural} in "${locationText(folder.location)}"`;
  }
  return `${items.length} ${kind}${where}:\n${items.join("\n")}`;
}

function locationText(location: string | URL): string {
  return typeof location === "string" ? location : decodeURIComponent(location.pathname);
}
