// A mount file (adr/0071 §1–2): `tools/<stem>.mcp.json` holds ONE server entry as a client's
// `.mcp.json` writes it (Claude Code, Cursor and VS Code share the shape), so an entry is copied
// as it is, plus an optional "toolshed" block of toolshed's own that clients ignore. This module
// reads the text into a checked `MountFile`: the transport with `${NAME}` expanded, the block with
// its defaults filled. Pure: the environment arrives as a function, nothing is spawned or fetched.
//
// Decisions where the ADR is silent (each is what a person copying an entry would expect):
// - A whole client file (`{"mcpServers": {…}}`, VS Code's `{"servers": {…}}`) is refused, even
//   with one entry: the message names the entries and says to copy one entry's object into its
//   own `<name>.mcp.json`. One shape per file, and the stem, never an entry's key, is the name.
// - Strict JSON (no comments): VS Code's JSONC comments are refused by JSON.parse with its
//   position.
// - `${NAME}` and `${NAME:-default}` as Claude Code expands them, plus `${env:NAME}` (how Cursor
//   and VS Code write the same thing). `:-` takes the default when NAME is unset or empty (the
//   shell's meaning of the colon). A default is literal text: `${A:-${B}}` is refused. `$${`
//   writes a literal `${`; any other `$` is itself (`$HOME` is not expanded, as in Claude Code).
//   VS Code's `${input:…}` (a prompt toolshed cannot show) and its predefined variables
//   (`${workspaceFolder}`, `${userHome}` …) are refused naming the variable.
// - Messages quote the text as written, never an expanded value: a value may be a secret.
// - The secret rule also refuses a non-empty default where a secret goes (`${TOKEN:-abc}` puts
//   `abc` in the directory) and an argument `--api-key=literal`; an empty literal is allowed.
// - URLs: http: or https: only; plain http: only to this machine (localhost, 127.0.0.0/8, ::1),
//   since elsewhere headers, descriptions and results would cross the network readable and
//   changeable by anyone on the way (which would also defeat the pins). No userinfo, ever (fetch
//   refuses such a URL; a header carries a credential).
// - Headers the transport owns (Host, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version,
//   Mcp-Method, Mcp-Name, Mcp-Param-*, …) are refused: setting one would break the protocol.
// - Client-only keys: those that only steer the client's own screen or approval step
//   ("autoApprove", "alwaysAllow", "description", "icon", "dev", "gallery", "trust",
//   "disabled": false) are ignored; those whose intent toolshed would silently not honour
//   ("disabled": true, "envFile", "timeout", "oauth", "headersHelper", "includeTools",
//   "excludeTools", "disabledTools", "sandbox", "sandboxEnabled") are refused saying what to do
//   instead; any other key is refused with "did you mean".
// - `tools` and `rename` keys that include/exclude leave out are refused (a typo would do
//   nothing); names the upstream turns out not to have are found by `unmatchedNames` once its
//   list is known. A rename key is one name, not a glob.
// - "jobAfterMs" does not need "task" here (unlike a local tool): the upstream's own task
//   support may make a mounted tool a task.
// - "cwd" and a relative "command" are kept as written: relative to toolshed's working directory,
//   as a spawned program takes them (as a client takes them relative to where it runs).
// - The stem "toolshed" is refused: `toolshed_*` names are toolshed's own (toolshed_job).
import { didYouMean } from "../util/suggest.ts";
import { isObject, type JsonObject, MAX_TIMER_MS } from "../util/json.ts";
import { checkScopes } from "../primitives/scopes.ts";
import { checkRateLimit } from "../primitives/rate.ts";
import { PRIMITIVE_NAME } from "../primitives/json_wire.ts";
import { ENDPOINT_ROUTES, TOOLSET_NAME } from "../primitives/toolsets.ts";
import type { ToolAnnotations } from "../primitives/types.ts";
import { checkAnnotations } from "../schema/mcp_shapes.ts";

import { MOUNT_SUFFIX } from "./names.ts";

/** How toolshed reaches the upstream, every `${…}` expanded. */
type Transport =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | {
    kind: "http";
    url: string;
    headers: Record<string, string>;
    /** The URL without its query or fragment: what messages show (a query may hold a secret). */
    shownUrl: string;
  };

/** A mount file, read and checked. */
export interface MountFile {
  /** The file name without ".mcp.json": the namespace and the toolset. */
  stem: string;
  /** As shown in messages, e.g. "tools/github.mcp.json". */
  file: string;
  transport: Transport;
  /** The optional "toolshed" block, defaults filled. */
  block: MountBlock;
}

/** Toolshed's own fields, applied to an upstream tool. */
interface ToolCorrection {
  title?: string;
  description?: string;
  /** Merged over the upstream's annotations. */
  annotations?: ToolAnnotations;
  scopes?: string[];
  rateLimit?: string;
  timeoutMs?: number;
  task?: "optional" | "required";
  jobAfterMs?: number;
  jobReuseMs?: number;
}

/** How the upstream is signed in to: nothing, or a token exchanged per caller (RFC 8693). */
type MountAuth =
  | { kind: "none" }
  | {
    kind: "exchange";
    audience: string;
    resource: string | undefined;
    scopes: string[];
    clientId: string;
    clientSecret: string;
  };

/** The "toolshed" block of a mount file. */
interface MountBlock {
  /** Upstream tool and prompt names or globs ("*", "?"); undefined: all. */
  include: string[] | undefined;
  /** Globs, applied after include. */
  exclude: string[];
  /** Upstream name → the part after the namespace: {"create_issue": "new_issue"}. */
  rename: Record<string, string>;
  /** "scopes", "rateLimit", "timeoutMs", … at the block's top level: for every tool. */
  defaults: ToolCorrection;
  /** Per upstream tool name, over the defaults. */
  tools: Record<string, ToolCorrection>;
  auth: MountAuth;
  /** Default true; false serves the upstream unpinned. */
  pins: boolean;
}

type Env = (name: string) => string | undefined;

/** Reads a mount file's text, or throws one sentence naming the problem (without the file). */
export function parseMountFile(text: string, stem: string, file: string, env: Env): MountFile {
  checkStem(stem);
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch (error) {
    throw new Error(`the file is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(entry)) {
    throw new Error("the file must hold one server entry, a JSON object such as " + EXAMPLE);
  }
  refuseWholeClientFile(entry);
  const transport = transportOf(entry, env);
  const block = blockOf(entry.toolshed, env);
  if (block.auth.kind === "exchange") {
    if (transport.kind === "stdio") {
      throw new Error(
        'toolshed.auth "exchange" needs a remote upstream ("url"): a stdio upstream is one ' +
          "process for every caller, so a per-caller token cannot reach it",
      );
    }
    const own = Object.keys(transport.headers).find((name) =>
      name.toLowerCase() === "authorization"
    );
    if (own !== undefined) {
      throw new Error(
        `headers has "${own}" and toolshed.auth is "exchange", which sets it per caller: keep one`,
      );
    }
  }
  return { stem, file, transport, block };
}

/** Whether `name` matches one of `globs` ("*": any run of characters, "?": one). */
function namesMatch(globs: readonly string[], name: string): boolean {
  return globs.some((glob) => globPattern(glob).test(name));
}

/** Whether the block serves the upstream tool or prompt `upstreamName`. */
export function selected(block: MountBlock, upstreamName: string): boolean {
  if (block.include !== undefined && !namesMatch(block.include, upstreamName)) return false;
  return !namesMatch(block.exclude, upstreamName);
}

/** The name a mount serves an upstream tool or prompt under: "<stem>_<renamed or upstream>". */
export function servedName(mount: MountFile, upstreamName: string): string {
  return `${mount.stem}_${mount.block.rename[upstreamName] ?? upstreamName}`;
}

/** The block's corrections of one upstream tool: its own entry over the defaults. */
export function correctionFor(block: MountBlock, upstreamName: string): ToolCorrection {
  const own = block.tools[upstreamName];
  if (own === undefined) return block.defaults;
  const merged: ToolCorrection = { ...block.defaults, ...own };
  if (block.defaults.annotations !== undefined && own.annotations !== undefined) {
    merged.annotations = { ...block.defaults.annotations, ...own.annotations };
  }
  return merged;
}

/**
 * Sentences for names the block gives that the upstream does not have, once its names are known:
 * a "tools" or "rename" key, or an include entry without a wildcard. Each would do nothing.
 */
export function unmatchedNames(block: MountBlock, upstreamNames: readonly string[]): string[] {
  const known = new Set(upstreamNames);
  const found: string[] = [];
  const literalIncludes = (block.include ?? []).filter((name) => !/[*?]/.test(name));
  for (
    const [field, names] of [
      ["include", literalIncludes],
      ["tools", Object.keys(block.tools)],
      ["rename", Object.keys(block.rename)],
    ] as const
  ) {
    for (const name of names) {
      if (known.has(name)) continue;
      found.push(
        `toolshed.${field} names "${name}", which the upstream does not have` +
          didYouMean(name, known),
      );
    }
  }
  return found;
}

const EXAMPLE = '{"command": "npx", "args": ["-y", "@scope/server"]} or ' +
  '{"type": "http", "url": "https://example.com/mcp"}';

function checkStem(stem: string): void {
  if (!TOOLSET_NAME.test(stem)) {
    throw new Error(
      `the name "${stem}" cannot be a namespace and toolset: use 1 to 64 letters, digits, "_" ` +
        `or "-", starting with a letter or digit`,
    );
  }
  const route = ENDPOINT_ROUTES.get(stem);
  if (route !== undefined) {
    throw new Error(`the name "${stem}" is the route of ${route}: give the file another name`);
  }
  if (stem === "toolshed") {
    throw new Error('the name "toolshed" is toolshed\'s own namespace: give the file another name');
  }
}

function refuseWholeClientFile(entry: JsonObject): void {
  for (const key of ["mcpServers", "servers"]) {
    const servers = entry[key];
    if (!isObject(servers)) continue;
    const names = Object.keys(servers);
    const which = names.length === 0 ? "none" : names.map((name) => `"${name}"`).join(", ");
    const first = names[0] ?? "name";
    throw new Error(
      `the file holds a client's whole configuration ("${key}" with ${which}): a mount is one ` +
        `entry; copy the object under "${first}" into its own file, e.g. ` +
        `"${safeStem(first)}${MOUNT_SUFFIX}"`,
    );
  }
}

function safeStem(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^[-_]+/, "");
  return cleaned === "" ? "name" : cleaned.slice(0, 64);
}

// ---- the entry and its transport ----

const STDIO_KEYS = ["type", "command", "args", "env", "cwd", "toolshed"];
const HTTP_KEYS = ["type", "url", "headers", "toolshed"];

/** Keys clients keep for their own screen or approval step: nothing for toolshed to do. */
const CLIENT_ONLY = new Set([
  "autoApprove",
  "alwaysAllow",
  "description",
  "icon",
  "dev",
  "gallery",
  "trust",
]);

/** Keys whose intent toolshed would not honour: refused, saying what to do instead. */
const NOT_HONOURED: Readonly<Record<string, string>> = {
  envFile:
    'toolshed reads variables from its own environment only: set them there and write "${NAME}"',
  timeout: 'write "toolshed": {"timeoutMs": …} instead, whose unit is said (clients differ)',
  oauth: 'toolshed signs in to an upstream through "toolshed": {"auth": …}',
  headersHelper: 'toolshed runs no program to make headers: write "headers" with "${NAME}"',
  includeTools: 'write "toolshed": {"include": […]} instead',
  excludeTools: 'write "toolshed": {"exclude": […]} instead',
  disabledTools: 'write "toolshed": {"exclude": […]} instead',
  sandbox: "toolshed does not sandbox an upstream: remove it, and sandbox toolshed itself",
  sandboxEnabled: "toolshed does not sandbox an upstream: remove it, and sandbox toolshed itself",
};

const TRANSPORT_TYPES = ["stdio", "http", "streamable-http", "streamableHttp"];

function transportOf(entry: JsonObject, env: Env): Transport {
  const type = entry.type;
  if (type === "sse") {
    throw new Error(
      'type "sse" is the 2024 HTTP+SSE transport, which is gone from MCP: give the upstream\'s ' +
        'Streamable HTTP URL with "type": "http"',
    );
  }
  if (type !== undefined && (typeof type !== "string" || !TRANSPORT_TYPES.includes(type))) {
    throw new Error(
      `type ${JSON.stringify(type)} is not a transport toolshed speaks: use "stdio" or "http"` +
        (typeof type === "string" ? didYouMean(type, TRANSPORT_TYPES) : ""),
    );
  }
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand && hasUrl) {
    throw new Error(
      'the entry has both "command" and "url": keep "command" for a program, "url" for HTTP',
    );
  }
  const remote = type === undefined ? hasUrl : type !== "stdio";
  if (!hasCommand && !hasUrl) {
    throw new Error(
      'the entry needs "command" (a program to run) or "url" (a Streamable HTTP endpoint), e.g. ' +
        EXAMPLE,
    );
  }
  if (remote && !hasUrl) throw new Error(`type "${type}" needs "url", not "command"`);
  if (!remote && !hasCommand) throw new Error('type "stdio" needs "command", not "url"');
  checkEntryKeys(entry, remote ? HTTP_KEYS : STDIO_KEYS, remote ? "a remote" : "a stdio");
  return remote ? httpOf(entry, env) : stdioOf(entry, env);
}

function checkEntryKeys(entry: JsonObject, keys: readonly string[], kind: string): void {
  for (const key of Object.keys(entry)) {
    if (keys.includes(key) || CLIENT_ONLY.has(key)) continue;
    if (key === "disabled") {
      if (entry.disabled === false) continue;
      throw new Error(
        'the entry says "disabled": true: remove the key to mount it, or the file not to',
      );
    }
    const instead = NOT_HONOURED[key];
    if (instead !== undefined) throw new Error(`"${key}" is a client's setting: ${instead}`);
    const other = keys === HTTP_KEYS ? STDIO_KEYS : HTTP_KEYS;
    if (other.includes(key)) {
      throw new Error(`"${key}" does not belong in ${kind} entry`);
    }
    throw new Error(
      `"${key}" is not a field of ${kind} entry (${keys.join(", ")})` + didYouMean(key, keys),
    );
  }
}

function stdioOf(entry: JsonObject, env: Env): Transport {
  if (typeof entry.command !== "string" || entry.command.trim() === "") {
    throw new Error('command must be a non-empty string, the program to run (e.g. "npx")');
  }
  const command = expand(entry.command, "command", env).text;
  if (command === "") throw new Error(`command "${entry.command}" is empty once expanded`);
  const rawArgs = entry.args ?? [];
  if (!Array.isArray(rawArgs) || !rawArgs.every((arg) => typeof arg === "string")) {
    throw new Error('args must be a list of strings, e.g. ["-y", "@scope/server"]');
  }
  const args = (rawArgs as string[]).map((arg, i) => {
    const where = `args[${i}]`;
    refuseLiteralSecretArgument(arg, where);
    const expanded = expand(arg, where, env);
    const flag = /^--?([A-Za-z0-9_.-]+)=/.exec(arg);
    if (flag !== null && SECRET_NAME.test(flag[1])) {
      refuseLiteralSecret(expanded, arg, where, flag[1]);
    }
    return expanded.text;
  });
  const rawEnv = entry.env ?? {};
  if (!isObject(rawEnv)) {
    throw new Error('env must be an object of strings, e.g. {"API_KEY": "${API_KEY}"}');
  }
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawEnv)) {
    const where = `env "${name}"`;
    if (name === "" || name.includes("=") || name.includes("\0")) {
      throw new Error(
        `env has the name ${JSON.stringify(name)}, which cannot be a variable's name`,
      );
    }
    if (typeof value !== "string") {
      throw new Error(`${where} must be a string (write numbers and booleans in quotes)`);
    }
    const expanded = expand(value, where, env);
    if (SECRET_NAME.test(name)) refuseLiteralSecret(expanded, value, where, name);
    if (expanded.text.includes("\0")) {
      throw new Error(`${where} holds a NUL character once expanded`);
    }
    variables[name] = expanded.text;
  }
  const transport: Transport = { kind: "stdio", command, args, env: variables };
  if (entry.cwd !== undefined) {
    if (typeof entry.cwd !== "string" || entry.cwd === "") {
      throw new Error("cwd must be a non-empty string, the folder the program starts in");
    }
    transport.cwd = expand(entry.cwd, "cwd", env).text;
  }
  return transport;
}

/** Header names the transport sets itself, lower case; "mcp-param-" is a prefix. */
const OWN_HEADERS = new Set([
  "host",
  "content-type",
  "content-length",
  "accept",
  "connection",
  "transfer-encoding",
  "last-event-id",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function httpOf(entry: JsonObject, env: Env): Transport {
  if (typeof entry.url !== "string" || entry.url === "") {
    throw new Error("url must be a non-empty string, the upstream's Streamable HTTP endpoint");
  }
  const raw = entry.url;
  refuseLiteralSecretQuery(raw);
  const parsed = URL.parse(expand(raw, "url", env).text);
  if (parsed === null) throw new Error(`url "${raw}" is not a URL`);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new Error(`url "${raw}" has the scheme "${parsed.protocol.slice(0, -1)}": use https`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new Error(
      `url "${raw}" carries a user name or password: send a credential in "headers" with ` +
        `"\${NAME}" instead (a URL is logged and shown)`,
    );
  }
  if (parsed.protocol === "http:" && !isLoopback(parsed.hostname)) {
    throw new Error(
      `url "${raw}" is plain HTTP to "${parsed.hostname}", which is not this machine: use https ` +
        "(headers, tool descriptions and results would cross the network readable and changeable " +
        "by anyone on the way)",
    );
  }
  const rawHeaders = entry.headers ?? {};
  if (!isObject(rawHeaders)) {
    throw new Error(
      'headers must be an object of strings, e.g. {"Authorization": "Bearer ${TOKEN}"}',
    );
  }
  const headers: Record<string, string> = {};
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(rawHeaders)) {
    const where = `header "${name}"`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      throw new Error(`headers has "${name}", which is not a header name`);
    }
    if (OWN_HEADERS.has(lower) || lower.startsWith("mcp-param-")) {
      throw new Error(`${where} is set by toolshed's transport: remove it`);
    }
    const twin = seen.get(lower);
    if (twin !== undefined) throw new Error(`headers has both "${twin}" and "${name}": keep one`);
    seen.set(lower, name);
    if (typeof value !== "string") throw new Error(`${where} must be a string`);
    const expanded = expand(value, where, env);
    if (SECRET_NAME.test(name)) refuseLiteralSecret(expanded, value, where, name);
    if (/[\r\n\0]/.test(expanded.text)) {
      throw new Error(
        `${where} holds a line break or NUL once expanded, which a header cannot carry`,
      );
    }
    headers[name] = expanded.text;
  }
  return { kind: "http", url: parsed.href, headers, shownUrl: parsed.origin + parsed.pathname };
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

// ---- secrets ----

/** Names that hold a secret: their values must come from the environment. */
const SECRET_NAME = /token|key|secret|password|passwd|auth|credential|cookie|session/i;

function refuseLiteralSecret(expanded: Expanded, raw: string, where: string, name: string): void {
  if (raw === "") return;
  const variable = name.replace(/[^A-Za-z0-9_]+/g, "_").toUpperCase();
  if (expanded.references === 0) {
    throw new Error(
      `${where} has a literal value where a secret goes: secrets live in the environment, ` +
        `never in the directory; write "\${${variable}}" and set ${variable} in toolshed's ` +
        "environment",
    );
  }
  if (expanded.literalDefault !== undefined) {
    throw new Error(
      `${where} has a default for "\${${expanded.literalDefault}}" where a secret goes: the ` +
        "default would be a secret in the directory; drop it and set the variable",
    );
  }
}

/** `--api-key=literal` in args: the same rule as env and headers. */
function refuseLiteralSecretArgument(arg: string, where: string): void {
  const match = /^--?([A-Za-z0-9_.-]+)=(.+)$/s.exec(arg);
  if (match === null || !SECRET_NAME.test(match[1]) || match[2].includes("${")) return;
  throw new Error(
    `${where} "${arg.slice(0, arg.indexOf("=") + 1)}…" has a literal secret: secrets live in the ` +
      `environment, never in the directory; write "${match[0].split("=")[0]}=\${NAME}"`,
  );
}

/** A query parameter named like a secret with a literal value (`?api_key=abc`). */
function refuseLiteralSecretQuery(raw: string): void {
  const start = raw.indexOf("?");
  if (start === -1) return;
  const end = raw.indexOf("#", start);
  const query = raw.slice(start + 1, end === -1 ? undefined : end);
  for (const part of query.split("&")) {
    const equals = part.indexOf("=");
    if (equals === -1) continue;
    let name = part.slice(0, equals);
    try {
      name = decodeURIComponent(name);
    } catch { /* kept as written */ }
    const value = part.slice(equals + 1);
    if (!SECRET_NAME.test(name) || value === "" || value.includes("${")) continue;
    throw new Error(
      `url has the query parameter "${name}" with a literal value where a secret goes: secrets ` +
        `live in the environment, never in the directory; write "${name}=\${NAME}"`,
    );
  }
}

// ---- ${NAME} expansion ----

interface Expanded {
  text: string;
  /** How many `${…}` the text had. */
  references: number;
  /** The first variable given a non-empty default, if any. */
  literalDefault?: string;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** VS Code's and Cursor's predefined variables: not the environment's. */
const EDITOR_VARIABLES = new Set([
  "workspaceFolder",
  "workspaceFolderBasename",
  "workspaceRoot",
  "userHome",
  "pathSeparator",
  "cwd",
  "file",
  "/",
]);

function expand(text: string, where: string, env: Env): Expanded {
  let out = "";
  let references = 0;
  let literalDefault: string | undefined;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$${", i)) {
      out += "${";
      i += 3;
      continue;
    }
    if (!text.startsWith("${", i)) {
      out += text[i++];
      continue;
    }
    const close = text.indexOf("}", i + 2);
    if (close === -1) throw new Error(`${where} has "\${" without its closing "}"`);
    const inner = text.slice(i + 2, close);
    const reference = text.slice(i, close + 1);
    const dash = inner.indexOf(":-");
    let name = dash === -1 ? inner : inner.slice(0, dash);
    const fallback = dash === -1 ? undefined : inner.slice(dash + 2);
    if (name.startsWith("env:")) name = name.slice(4);
    if (fallback?.includes("${")) {
      throw new Error(`${where} nests "\${" in a default: a default is literal text`);
    }
    if (name.startsWith("input:")) {
      throw new Error(
        `${where} has "${reference}", a prompt for a value that toolshed cannot show: set a ` +
          `variable in toolshed's environment and write "\${NAME}"`,
      );
    }
    if (EDITOR_VARIABLES.has(name)) {
      throw new Error(
        `${where} has "${reference}", an editor's variable, not the environment's: write the ` +
          `value, or "\${NAME}" for a variable of toolshed's environment`,
      );
    }
    if (!VARIABLE.test(name)) {
      throw new Error(
        `${where} has "${reference}", which is not a variable: write "\${NAME}" or ` +
          `"\${NAME:-default}" with NAME of letters, digits and "_"`,
      );
    }
    const value = env(name);
    references++;
    if (fallback !== undefined && (value === undefined || value === "")) {
      out += fallback;
      if (fallback !== "") literalDefault ??= name;
    } else if (value === undefined) {
      throw new Error(`${where} needs the variable "${name}", which is not set`);
    } else {
      out += value;
      if (fallback !== undefined && fallback !== "") literalDefault ??= name;
    }
    i = close + 1;
  }
  return { text: out, references, ...literalDefault === undefined ? {} : { literalDefault } };
}

// ---- the "toolshed" block ----

const CORRECTION_KEYS = [
  "annotations",
  "scopes",
  "rateLimit",
  "timeoutMs",
  "task",
  "jobAfterMs",
  "jobReuseMs",
];
const TOOL_KEYS = ["title", "description", ...CORRECTION_KEYS];
const BLOCK_KEYS = ["include", "exclude", "rename", "tools", "auth", "pins", ...CORRECTION_KEYS];

function blockOf(value: unknown, env: Env): MountBlock {
  if (value === undefined) value = {};
  if (!isObject(value)) throw new Error('"toolshed" must be an object, e.g. {"include": ["*"]}');
  for (const key of Object.keys(value)) {
    if (key === "title" || key === "description") {
      throw new Error(
        `toolshed.${key} would give every tool the same ${key}: put it under ` +
          `"tools": {"<upstream name>": {"${key}": …}}`,
      );
    }
    if (!BLOCK_KEYS.includes(key)) {
      throw new Error(
        `toolshed has "${key}", which is not one of its fields (${BLOCK_KEYS.join(", ")})` +
          didYouMean(key, BLOCK_KEYS),
      );
    }
  }
  const include = value.include === undefined ? undefined : globsOf(value.include, "include");
  const exclude = value.exclude === undefined ? [] : globsOf(value.exclude, "exclude");
  const block: MountBlock = {
    include,
    exclude,
    rename: {},
    defaults: correctionOf(value, "toolshed"),
    tools: {},
    auth: authOf(value.auth, env),
    pins: true,
  };
  if (value.pins !== undefined) {
    if (typeof value.pins !== "boolean") {
      throw new Error("toolshed.pins must be true (the default) or false (serve unpinned)");
    }
    block.pins = value.pins;
  }
  block.rename = renameOf(value.rename, block);
  if (value.tools !== undefined) {
    if (!isObject(value.tools)) {
      throw new Error(
        'toolshed.tools must be an object by upstream tool name, e.g. {"create_issue": {…}}',
      );
    }
    for (const [name, correction] of Object.entries(value.tools)) {
      const where = `toolshed.tools "${name}"`;
      refuseLeftOut(block, name, where);
      if (!isObject(correction)) {
        throw new Error(`${where} must be an object of fields (${TOOL_KEYS.join(", ")})`);
      }
      for (const key of Object.keys(correction)) {
        if (!TOOL_KEYS.includes(key)) {
          throw new Error(
            `${where} has "${key}", which is not one of its fields (${TOOL_KEYS.join(", ")})` +
              didYouMean(key, TOOL_KEYS),
          );
        }
      }
      block.tools[name] = correctionOf(correction, where);
    }
  }
  return block;
}

function globsOf(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((glob) => typeof glob === "string" && glob !== "")) {
    throw new Error(
      `toolshed.${field} must be a list of upstream names or globs, e.g. ["create_*"]`,
    );
  }
  return [...value] as string[];
}

function refuseLeftOut(block: MountBlock, name: string, where: string): void {
  if (name === "") throw new Error(`${where} names no tool`);
  if (!selected(block, name)) {
    throw new Error(`${where} is a tool that include/exclude leave out, so it would do nothing`);
  }
}

function renameOf(value: unknown, block: MountBlock): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    throw new Error('toolshed.rename must be an object, e.g. {"create_issue": "new_issue"}');
  }
  const rename: Record<string, string> = {};
  const targets = new Map<string, string>();
  for (const [name, target] of Object.entries(value)) {
    const where = `toolshed.rename "${name}"`;
    if (/[*?]/.test(name)) {
      throw new Error(`${where} is a glob: rename maps one upstream name to one name`);
    }
    refuseLeftOut(block, name, where);
    if (typeof target !== "string" || target === "") {
      throw new Error(`${where} must be a non-empty string`);
    }
    if (!PRIMITIVE_NAME.test(`x_${target}`) || !PRIMITIVE_NAME.test(target)) {
      throw new Error(
        `${where} gives "${target}", which cannot be part of a name: use letters, digits, ` +
          `"_", "-" or "." (the whole name at most 128 characters)`,
      );
    }
    const twin = targets.get(target);
    if (twin !== undefined) {
      throw new Error(`toolshed.rename gives "${target}" to both "${twin}" and "${name}"`);
    }
    targets.set(target, name);
    rename[name] = target;
  }
  return rename;
}

function correctionOf(value: JsonObject, where: string): ToolCorrection {
  const correction: ToolCorrection = {};
  const fail = (message: string): never => {
    throw new Error(`${where}: ${message}`);
  };
  for (const field of ["title", "description"] as const) {
    const text = value[field];
    if (text === undefined || where === "toolshed") continue;
    if (typeof text !== "string" || text.trim() === "") fail(`${field} must be a non-empty string`);
    correction[field] = text as string;
  }
  if (value.annotations !== undefined) {
    const problem = checkAnnotations(value.annotations);
    if (problem !== undefined) fail(`annotations are invalid: ${problem}`);
    correction.annotations = { ...value.annotations as ToolAnnotations };
  }
  try {
    if (value.scopes !== undefined) correction.scopes = [...checkScopes(value.scopes)];
    if (value.rateLimit !== undefined) correction.rateLimit = checkRateLimit(value.rateLimit)!.text;
  } catch (error) {
    fail((error as Error).message);
  }
  for (const [field, least] of [["timeoutMs", 1], ["jobAfterMs", 0], ["jobReuseMs", 1]] as const) {
    const ms = value[field];
    if (ms === undefined) continue;
    if (!(typeof ms === "number" && Number.isInteger(ms) && ms >= least && ms <= MAX_TIMER_MS)) {
      fail(`${field} must be an integer from ${least} to ${MAX_TIMER_MS} (milliseconds)`);
    }
    correction[field] = ms as number;
  }
  if (value.task !== undefined) {
    if (value.task !== "optional" && value.task !== "required") {
      fail('task must be "optional" or "required"');
    }
    correction.task = value.task as "optional" | "required";
  }
  return correction;
}

const AUTH_EXAMPLE = '"none" or {"exchange": {"audience": "https://upstream.example", ' +
  '"clientId": "toolshed", "clientSecret": "${EXCHANGE_SECRET}"}}';
const EXCHANGE_KEYS = ["audience", "resource", "scopes", "clientId", "clientSecret"];

function authOf(value: unknown, env: Env): MountAuth {
  if (value === undefined || value === "none") return { kind: "none" };
  if (!isObject(value) || Object.keys(value).length !== 1 || !isObject(value.exchange)) {
    throw new Error(`toolshed.auth must be ${AUTH_EXAMPLE}`);
  }
  const exchange = value.exchange;
  for (const key of Object.keys(exchange)) {
    if (!EXCHANGE_KEYS.includes(key)) {
      throw new Error(
        `toolshed.auth.exchange has "${key}", which is not one of its fields ` +
          `(${EXCHANGE_KEYS.join(", ")})` + didYouMean(key, EXCHANGE_KEYS),
      );
    }
  }
  const text = (key: string, required: boolean): string | undefined => {
    const raw = exchange[key];
    const where = `toolshed.auth.exchange.${key}`;
    if (raw === undefined && !required) return undefined;
    if (typeof raw !== "string" || raw === "") {
      throw new Error(`${where} must be a non-empty string`);
    }
    const expanded = expand(raw, where, env);
    if (key === "clientSecret") refuseLiteralSecret(expanded, raw, where, "EXCHANGE_SECRET");
    return expanded.text;
  };
  const resource = text("resource", false);
  if (resource !== undefined) {
    const url = URL.parse(resource);
    if (url === null || url.hash !== "") {
      throw new Error(
        `toolshed.auth.exchange.resource "${exchange.resource}" must be an absolute URI without ` +
          "a fragment (RFC 8707)",
      );
    }
  }
  let scopes: string[];
  try {
    scopes = [...checkScopes(exchange.scopes)];
  } catch (error) {
    throw new Error(`toolshed.auth.exchange: ${(error as Error).message}`);
  }
  return {
    kind: "exchange",
    audience: text("audience", true)!,
    resource,
    scopes,
    clientId: text("clientId", true)!,
    clientSecret: text("clientSecret", true)!,
  };
}

// ---- globs ----

const GLOBS = new Map<string, RegExp>();

function globPattern(glob: string): RegExp {
  let pattern = GLOBS.get(glob);
  if (pattern === undefined) {
    const body = [...glob].map((c) =>
      c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")
    ).join("");
    pattern = new RegExp(`^${body}$`, "s");
    if (GLOBS.size < 1024) GLOBS.set(glob, pattern);
  }
  return pattern;
}
