// An API in tools/ (adr/0072 §1–2): the document `<stem>.openapi.{json,yaml,yml}` and its
// optional sidecar `<stem>.api.json`, read into the operations to serve and their tools. What
// the sidecar names that the document lacks stops the load (a typo would do nothing); an
// operation that cannot be served is left out and said on stderr, and `check` reports it.
import { isObject, messageOf } from "../util/json.ts";
import { type Diagnostics, warn } from "../util/diagnostics.ts";
import type { Tool } from "../primitives/tools.ts";
import type { TokenExchange } from "../primitives/front_token.ts";
import { type OpenApiDocument, parseDocument, type Route, routes } from "./document.ts";
import { toolNames } from "./names.ts";
import {
  API_DEFAULTS,
  type ApiFile,
  credentialProblems,
  operationSelected,
  parseApiFile,
  unmatchedEntries,
} from "./api_file.ts";
import { API_SUFFIX, OPENAPI_FILE } from "./file_names.ts";
import { operationTool } from "./operation_tool.ts";
import { isLoopback } from "../mounts/remote.ts";

type Env = (name: string) => string | undefined;

/** A document and its sidecar, read and checked: every operation, named, and which are served. */
export interface ReadApi {
  doc: OpenApiDocument;
  api: ApiFile;
  /** Where requests go. */
  base: URL;
  /** Every operation, in fastmcp-ts's order. */
  routes: Route[];
  /** Each operation's tool name, by index. */
  names: string[];
  /** Whether each operation is served (the sidecar's `operations`, else GET and HEAD). */
  selected: boolean[];
}

/** Reads `tools/<stem>.openapi.*` at `url` (shown as `file`) and its sidecar beside it. */
export async function readApi(url: URL, file: string, env: Env): Promise<ReadApi> {
  const doc = await parseDocument(await Deno.readTextFile(url), file);
  const fileName = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  const stem = OPENAPI_FILE.exec(decodeURIComponent(fileName))?.[1] ?? fileName;
  const sidecarName = `${stem}${API_SUFFIX}`;
  const sidecarShown = `${file.slice(0, file.lastIndexOf("/") + 1)}${sidecarName}`;
  let api = API_DEFAULTS;
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(new URL(sidecarName, url));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new Error(`cannot read "${sidecarShown}": ${messageOf(error)}`);
    }
  }
  if (text !== undefined) {
    try {
      api = parseApiFile(text, sidecarShown, env);
    } catch (error) {
      throw new Error(`"${sidecarShown}": ${messageOf(error)}`);
    }
  }
  const all = routes(doc);
  const names = toolNames(all, api.names);
  const unmatched = [...unmatchedEntries(api, all, names), ...credentialProblems(api, doc)];
  if (unmatched.length > 0) throw new Error(`"${sidecarShown}": ${unmatched.join("; ")}`);
  const selected = all.map((route, index) => operationSelected(api, route, names[index]));
  return { doc, api, base: baseUrl(doc, api, sidecarShown), routes: all, names, selected };
}

/** What serving an API needs from the server. */
interface ApiOptions {
  env: Env;
  /** The largest answer body one call reads (`--max-output-bytes`). */
  maxBodyBytes: number;
  /** With `--auth-issuer`: tokens for callers by exchange. */
  exchange?: TokenExchange;
  diagnostics: Diagnostics;
}

/**
 * The tools of the API whose document is at `url`. Throws when the document or its sidecar is
 * wrong; an operation toolshed cannot serve is left out with a warning naming it and why.
 */
export async function loadApiTools(
  url: URL,
  file: string,
  stem: string,
  options: ApiOptions,
): Promise<Tool[]> {
  const read = await readApi(url, file, options.env);
  const context = {
    doc: read.doc,
    api: read.api,
    base: read.base,
    file,
    stem,
    maxBodyBytes: options.maxBodyBytes,
    exchange: options.exchange,
  };
  const tools: Tool[] = [];
  for (const [index, route] of read.routes.entries()) {
    if (!read.selected[index]) continue;
    try {
      tools.push(await operationTool(context, route, read.names[index]));
    } catch (error) {
      // operationSchemas' reasons begin with the operation: said once.
      const operation = `${route.method} ${route.path}`;
      const reason = messageOf(error).replace(`${operation}: `, "");
      warn(options.diagnostics, `"${file}": the operation "${operation}" is left out: ${reason}`, {
        api: file,
      });
    }
  }
  return tools;
}

/**
 * The sidecar's `baseUrl`, else the document's first server with its variables' defaults. It
 * must be absolute, https: or http: to this machine (as a mount's URL, adr/0071).
 */
function baseUrl(doc: OpenApiDocument, api: ApiFile, sidecar: string): URL {
  if (api.baseUrl !== undefined) return new URL(api.baseUrl);
  const servers = Array.isArray(doc.root.servers) ? doc.root.servers : [];
  const first = servers[0];
  if (!isObject(first) || typeof first.url !== "string") {
    throw new Error(
      `the document has no servers[0].url: set "baseUrl" in "${sidecar}"`,
    );
  }
  let text = first.url;
  const variables = isObject(first.variables) ? first.variables : {};
  text = text.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    if (isObject(variable) && typeof variable.default === "string") return variable.default;
    throw new Error(
      `servers[0].url "${first.url}" has "${whole}" without a default: set ` +
        `"baseUrl" in "${sidecar}"`,
    );
  });
  const parsed = URL.parse(text);
  if (parsed === null) {
    throw new Error(
      `servers[0].url "${text}" is not an absolute URL: set "baseUrl" in ` +
        `"${sidecar}"`,
    );
  }
  if (
    parsed.protocol !== "https:" && !(parsed.protocol === "http:" && isLoopback(parsed.hostname))
  ) {
    throw new Error(
      `servers[0].url "${text}" is not https (plain http only to this machine): ` +
        `set "baseUrl" in "${sidecar}"`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new Error(`servers[0].url "${text}" carries a user name or password`);
  }
  return parsed;
}
