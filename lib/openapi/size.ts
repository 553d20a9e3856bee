// What `toolshed check` says of one API in tools/ (adr/0072 decision 2): how many of its
// operations are served and how many are left out, by which rule and how to serve more; what
// `tools/list` carries for them, and would carry for all of them, in bytes and estimated
// tokens; against each host's cap on tools, and, past every cap, where to go instead; and each
// operation toolshed cannot serve, with why.
import { messageOf } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import type { Tool } from "../primitives/tools.ts";
import {
  CAPS_NAMED,
  capsFor,
  costFigures,
  type ListCost,
  listCost,
  TOKENS_ESTIMATED,
  TOOL_CAPS,
} from "../schema/list_cost.ts";
import { operationSelected } from "./api_file.ts";
import type { ReadApi } from "./load_api.ts";
import { operationTool } from "./operation_tool.ts";

/** The figures of one API, as `check --json` gives them. */
export interface ApiSize {
  /** Operations in the document. */
  readonly operations: number;
  /** Which rule chose the operations served: GET and HEAD, or the sidecar's `operations`. */
  readonly chosenBy: "curated default" | "operations";
  /** Operations the rule leaves out. */
  readonly leftOut: number;
  /** Operations toolshed cannot serve, chosen or not. */
  readonly unservable: number;
  /** Of those, the ones the rule chose: left out of what is served. */
  readonly unservedChosen: number;
  /** What tools/list carries for this API now. */
  readonly served: ListCost;
  /** What it would carry with every operation toolshed can serve. */
  readonly all: ListCost;
}

/** One thing the report says. */
interface SizeFinding {
  /** "info" for the figures; a warning or error for an operation toolshed cannot serve. */
  readonly severity: "error" | "warning" | "info";
  readonly message: string;
  /** The operation's tool name, for a finding about one operation. */
  readonly tool?: string;
  /** On the first finding: the figures. */
  readonly size?: ApiSize;
}

/** What the report needs besides the API. */
interface SizeOptions {
  /** The document as messages show it ("tools/pets.openapi.json"). */
  readonly file: string;
  /** The document's stem (its toolset). */
  readonly stem: string;
  /** The sidecar as messages show it, whether or not it exists ("tools/pets.api.json"). */
  readonly sidecar: string;
  /** The function tools/list renders a tool with (methods/results.ts): the bytes are its. */
  readonly render: (tool: Tool) => JsonObject;
}

/**
 * The report on `api`: first what it serves and what all of it would cost (the figures in
 * `size`), then one finding for each operation toolshed cannot serve — an error when the
 * sidecar's `operations` names it without a wildcard, since it asked for what cannot be.
 */
export async function apiSize(api: ReadApi, options: SizeOptions): Promise<SizeFinding[]> {
  const { file, stem, sidecar } = options;
  const context = {
    doc: api.doc,
    api: api.api,
    base: api.base,
    file,
    stem,
    maxBodyBytes: 0, // listed, never called
  };
  const served: Tool[] = [];
  const all: Tool[] = [];
  const problems: SizeFinding[] = [];
  let unservedChosen = 0;
  for (const [index, route] of api.routes.entries()) {
    const name = api.names[index];
    let tool: Tool;
    try {
      tool = await operationTool(context, route, name);
    } catch (error) {
      const operation = `${route.method} ${route.path}`;
      // The document's messages begin with the operation, which this one names already.
      const message = messageOf(error);
      const why = message.startsWith(`${operation}: `)
        ? message.slice(operation.length + 2)
        : message;
      const named = namedLiterally(api, index);
      const chosen = api.selected[index];
      if (chosen) unservedChosen++;
      problems.push(
        named !== undefined
          ? {
            severity: "error",
            tool: name,
            message: `"operations" in "${sidecar}" names "${named}", and toolshed cannot serve ` +
              `the operation "${operation}": ${why}`,
          }
          : {
            severity: "warning",
            tool: name,
            message: `toolshed cannot serve the operation "${operation}" (tool "${name}")` +
              `${chosen ? ", so it is left out" : ", were it chosen"}: ${why}`,
          },
      );
      continue;
    }
    all.push(tool);
    if (api.selected[index]) served.push(tool);
  }
  const chosenBy = api.api.operations === undefined ? "curated default" : "operations";
  const size: ApiSize = {
    operations: api.routes.length,
    chosenBy,
    leftOut: api.selected.filter((chosen) => !chosen).length,
    unservable: problems.length,
    unservedChosen,
    served: listCost(served.map(options.render)),
    all: listCost(all.map(options.render)),
  };
  return [
    { severity: "info", message: countsMessage(size, sidecar), size },
    { severity: "info", message: costMessage(size) },
    { severity: "info", message: capsMessage(size, sidecar) },
    ...problems,
  ];
}

/** The first entry of the sidecar's `operations` without a wildcard that chooses operation `index`. */
function namedLiterally(api: ReadApi, index: number): string | undefined {
  const route = api.routes[index];
  return api.api.operations?.find((entry) =>
    !/[*?]/.test(entry) &&
    operationSelected({ ...api.api, operations: [entry] }, route, api.names[index])
  );
}

function countsMessage(size: ApiSize, sidecar: string): string {
  const cannot = size.unservedChosen === 0
    ? ""
    : size.unservedChosen === 1
    ? "; 1 chosen is left out too, as toolshed cannot serve it (below)"
    : `; ${size.unservedChosen} chosen are left out too, as toolshed cannot serve them (below)`;
  if (size.leftOut === 0) {
    const every = size.unservable === 0 ? "every one" : "every one it can";
    return `serves ${size.served.tools} of its ${counted(size.operations, "operation")} ` +
      `(${every}${size.chosenBy === "operations" ? `, by "operations" in "${sidecar}"` : ""})` +
      cannot;
  }
  const how = size.chosenBy === "curated default"
    ? `by the curated default, which serves GET and HEAD only (list the operations to serve, ` +
      `"*" for all, in "operations" of "${sidecar}")`
    : `by "operations" in "${sidecar}"`;
  return `serves ${size.served.tools} of its ${counted(size.operations, "operation")}: ` +
    `${size.leftOut} left out ${how}${cannot}`;
}

function costMessage(size: ApiSize): string {
  const { served, all } = size;
  const now = `tools/list carries ${costFigures(served)} for the ` +
    `${counted(served.tools, "tool")} served`;
  const estimate = ` (${TOKENS_ESTIMATED})`;
  if (all.tools === served.tools) return `${now}${estimate}`;
  return `${now}; all ${all.tools} would be ${costFigures(all)}${estimate}`;
}

function capsMessage(size: ApiSize, sidecar: string): string {
  const count = size.all.tools;
  const caps = CAPS_NAMED;
  const { over, fit } = capsFor(count);
  const whole = count === size.served.tools ? `the ${count} served` : `all ${count}`;
  if (over.length === 0) {
    return `${whole} ${
      count === 1 ? "fits" : "fit"
    } every host's cap on tools (${caps}), counted with the host's other ` +
      "servers' tools";
  }
  if (over.length === TOOL_CAPS.length) {
    return `${whole} are more tools than any host takes (${caps}): serve a chosen few with ` +
      `"operations" in "${sidecar}", or all of them in code mode (--code-mode, /mcp/code), where ` +
      "a model finds and calls operations through three tools";
  }
  return `${whole} are more than ${
    over.map(({ rule }) => `${rule.client} takes (${rule.limit}: it ${rule.effect})`).join(" and ")
  }; ${fit.map(({ rule }) => `${rule.client} (${rule.limit})`).join(" and ")} would take them`;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
