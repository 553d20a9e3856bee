// What each endpoint of a server costs a host (adr/0073 step 3), for `toolshed check`: `/mcp`,
// each toolset's `/mcp/<set>`, and code mode's view of each (`/mcp/code`, `/mcp/<set>/code`,
// served with --code-mode): the tools its tools/list carries, their bytes and estimated tokens,
// and which hosts' caps on tools it fits (schema/list_cost.ts); past a cap, a warning naming the
// endpoint and the host, and the code view when that fits. The lists are the core's own answers,
// every page, asked with the view the endpoint's path sets (transports/http/toolsets.ts), so
// the figures are what a 2026-07-28 client that declares no extension receives.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";
import { ErrorCode } from "../wire/errors.ts";
import type { Client } from "../schema/client_limits.ts";
import {
  CAPS_NAMED,
  capsFor,
  costFigures,
  hostsOf,
  type ListCost,
  listCost,
} from "../schema/list_cost.ts";
import { CODE_ROUTE, toolsetsOf, type ToolView, toolView } from "../primitives/toolsets.ts";
import { MCP_PATH } from "../transports/http/handler.ts";
import type { Server } from "../server/create_server.ts";
import { counted } from "../discovery/kinds.ts";
import { ask } from "./open_server.ts";

/** The figures of one endpoint, as `check --json` gives them. */
export interface EndpointCost extends ListCost {
  /** Its HTTP path under the default endpoint: "/mcp", "/mcp/<set>", and each one's "/code". */
  readonly path: string;
  /** The toolset it serves (with the top-level tools); undefined: the endpoint itself. */
  readonly toolset: string | undefined;
  /** Code mode's view (search_tools, describe_tools, run_code), served with --code-mode. */
  readonly code: boolean;
  /** The hosts whose cap on tools its count fits, smallest cap first. */
  readonly fits: readonly Client[];
  /** The hosts whose cap it is over. */
  readonly exceeds: readonly Client[];
}

/** One thing the report says of an endpoint. */
interface EndpointFinding {
  /** "info" for the figures; a warning for each host's cap the endpoint is over. */
  readonly severity: "info" | "warning";
  readonly message: string;
  /** Undefined on the warning that an endpoint's tools could not be listed. */
  readonly endpoint?: EndpointCost;
  /** On a warning: the host's rule (schema/client_limits.ts) and the host. */
  readonly rule?: string;
  readonly clients?: readonly Client[];
}

/** What the server serves, as serve's flags narrow it (`--toolsets`, `--read-only`). */
interface Served {
  readonly toolsets: readonly string[] | undefined;
  readonly readOnly: boolean;
  /** As `--code-destructive`: code may call destructive tools that opt in. */
  readonly destructive: boolean;
}

/** More pages than this is a server that never ends its list. */
const MAX_PAGES = 10_000;

/**
 * The report on each endpoint of `server` (opened with code mode, so that its code views can be
 * asked for): `/mcp` and `/mcp/code`, then each toolset's two, each with its figures, then a
 * warning for each host's cap it is over; nothing for a server without tools.
 */
export async function checkEndpoints(server: Server, served: Served): Promise<EndpointFinding[]> {
  const snapshot = server.registry.current();
  if (snapshot.tools.items.length === 0) return []; // no tools, nothing listed: nothing to cost
  const held = toolsetsOf(snapshot);
  const sets = served.toolsets === undefined
    ? held
    : held.filter((set) => served.toolsets!.includes(set));
  const findings: EndpointFinding[] = [];
  try {
    for (const set of [undefined, ...sets]) {
      const path = set === undefined ? MCP_PATH : `${MCP_PATH}/${set}`;
      const chosen = set === undefined ? served.toolsets : [set];
      const view = (mode: "tools" | "code") =>
        toolView(chosen, served.readOnly, mode, served.destructive);
      const catalog = await measure(server, view("tools"), path, set, false);
      const code = await measure(server, view("code"), `${path}/${CODE_ROUTE}`, set, true);
      findings.push(
        { severity: "info", message: catalogMessage(catalog), endpoint: catalog },
        ...overCaps(catalog, code),
        { severity: "info", message: codeMessage(code, catalog), endpoint: code },
        ...overCaps(code, undefined),
      );
    }
  } catch (error) {
    // A middleware of the directory's that refuses check's request, say: the rest is unmeasured.
    findings.push({ severity: "warning", message: messageOf(error) });
  }
  return findings;
}

async function measure(
  server: Server,
  view: ToolView,
  path: string,
  toolset: string | undefined,
  code: boolean,
): Promise<EndpointCost> {
  const cost = listCost(await listed(server, view, path));
  const { over, fit } = capsFor(cost.tools);
  return { path, toolset, code, ...cost, fits: hostsOf(fit), exceeds: hostsOf(over) };
}

/** Every tool `view` lists, every page, as the core answers tools/list for it. */
async function listed(server: Server, view: ToolView, path: string): Promise<JsonObject[]> {
  const tools: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await ask(server, "tools/list", cursor === undefined ? {} : { cursor }, {
      view,
    });
    const { result, error } = answer;
    // No tools in the view: the server says it serves none, as a client is told.
    if (isObject(error) && error.code === ErrorCode.MethodNotFound) return tools;
    if (!isObject(result) || !Array.isArray(result.tools)) {
      const why = isObject(error) && typeof error.message === "string"
        ? error.message
        : JSON.stringify(error ?? answer);
      throw new Error(`Cannot list the tools of "${path}" to measure them: ${why}`);
    }
    tools.push(...result.tools.filter(isObject));
    if (typeof result.nextCursor !== "string") return tools;
    cursor = result.nextCursor;
  }
  throw new Error(
    `Cannot list the tools of "${path}" to measure them: more than ${MAX_PAGES} pages`,
  );
}

function catalogMessage(cost: EndpointCost): string {
  const what = cost.toolset === undefined
    ? `${cost.path} (and stdio)`
    : `${cost.path} (toolset "${cost.toolset}" and the top-level tools)`;
  return `${what} serves ${counted(cost.tools, "tool")}: tools/list carries ` +
    `${costFigures(cost)}; ${capsPhrase(cost.tools)}`;
}

function codeMessage(cost: EndpointCost, catalog: EndpointCost): string {
  const served = catalog.toolset === undefined
    ? "served with --code-mode, on stdio too"
    : "served with --code-mode";
  return `${cost.path} (code mode's view of ${catalog.path}, ${served}) serves ` +
    `${counted(cost.tools, "tool")}: tools/list carries ${costFigures(cost)}` +
    `${share(cost.bytes, catalog)}; ${capsPhrase(cost.tools)}`;
}

/**
 * ", 0.5% of /mcp's 615,261 bytes" (or ", 9.7 times /mcp's 298 bytes"): what the code view
 * costs beside the catalog.
 */
function share(bytes: number, catalog: EndpointCost): string {
  if (catalog.bytes === 0) return "";
  const of = `${catalog.path}'s ${catalog.bytes.toLocaleString("en-US")} bytes`;
  const ratio = bytes / catalog.bytes;
  if (ratio >= 1) return `, ${ratio.toFixed(1)} times ${of}`;
  const percent = 100 * ratio;
  return `, ${percent < 0.1 ? "under 0.1" : percent.toFixed(percent < 10 ? 1 : 0)}% of ${of}`;
}

/** "within every host's cap …", "over Cursor's cap (40), within VS Code's (128) and …". */
function capsPhrase(count: number): string {
  const { over, fit } = capsFor(count);
  if (over.length === 0) return `within every host's cap on tools (${CAPS_NAMED})`;
  if (fit.length === 0) return `over every host's cap on tools (${CAPS_NAMED})`;
  const named = (caps: typeof over) =>
    caps.map(({ rule }, index) => `${rule.client}'s${index === 0 ? " cap" : ""} (${rule.limit})`)
      .join(" and ");
  return `over ${named(over)}, within ${named(fit)}`;
}

/**
 * A warning for each host's cap `cost` is over, naming the endpoint and the host, and `code`,
 * the endpoint's code view, when that host takes it.
 */
function overCaps(cost: EndpointCost, code: EndpointCost | undefined): EndpointFinding[] {
  return capsFor(cost.tools).over.map(({ rule, past }) => {
    const instead = code !== undefined && code.tools <= rule.limit
      ? `${code.path}, its code view (--code-mode), serves ${code.tools}, which ` +
        `${rule.client} takes`
      : "serve fewer, or split them into toolsets (folders of tools/) or across servers";
    return {
      severity: "warning",
      message: `${cost.path} serves ${cost.tools} tools: ${past}; ${instead}`,
      endpoint: cost,
      rule: rule.id,
      clients: [rule.client],
    };
  });
}
