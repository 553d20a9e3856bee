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
import { isObject, type JsonObject } from "../util/json.ts";
import { PRIMITIVE_NAME } from "../primitives/json_wire.ts";
import { ENDPOINT_ROUTES, TOOLSET_NAME } from "../primitives/toolsets.ts";
import {
  authOf,
  CORRECTION_KEYS,
  correctionOf,
  type MountAuth,
  type ToolCorrection,
  toolCorrectionOf,
} from "./corrections.ts";
import { type Env, expand, refuseLiteralSecret, SECRET_NAME } from "./env_values.ts";
import { isGlob, namesMatch } from "./globs.ts";
import { remoteUrl, staticHeaders } from "./remote.ts";
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
  const literalIncludes = (block.include ?? []).filter((name) => !isGlob(name));
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

function httpOf(entry: JsonObject, env: Env): Transport {
  if (typeof entry.url !== "string" || entry.url === "") {
    throw new Error("url must be a non-empty string, the upstream's Streamable HTTP endpoint");
  }
  const parsed = remoteUrl(entry.url, "url", env, "headers, tool descriptions and results");
  const headers = staticHeaders(
    entry.headers ?? {},
    env,
    (lower) =>
      OWN_HEADERS.has(lower) || lower.startsWith("mcp-param-")
        ? "is set by toolshed's transport: remove it"
        : undefined,
  );
  return { kind: "http", url: parsed.href, headers, shownUrl: parsed.origin + parsed.pathname };
}

// ---- secrets ----

/** `--api-key=literal` in args: the same rule as env and headers. */
function refuseLiteralSecretArgument(arg: string, where: string): void {
  const match = /^--?([A-Za-z0-9_.-]+)=(.+)$/s.exec(arg);
  if (match === null || !SECRET_NAME.test(match[1]) || match[2].includes("${")) return;
  throw new Error(
    `${where} "${arg.slice(0, arg.indexOf("=") + 1)}…" has a literal secret: secrets live in the ` +
      `environment, never in the directory; write "${match[0].split("=")[0]}=\${NAME}"`,
  );
}

// ---- the "toolshed" block ----

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
    defaults: correctionOf(value, "toolshed", false),
    tools: {},
    auth: authOf(value.auth, env, "toolshed.auth"),
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
      block.tools[name] = toolCorrectionOf(correction, where);
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
    if (isGlob(name)) {
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
