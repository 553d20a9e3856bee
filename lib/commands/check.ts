// toolshed check: everything start-up checks, what start-up would pass over in silence (the
// survey), the type errors of TypeScript files, what common model APIs would refuse in the
// tools' names and schemas, and what MCP clients refuse, cut or truncate (hints, the number of
// tools, descriptions), and for each API in tools/ what it serves and what all of it would cost
// the hosts (adr/0072), and for each endpoint (`/mcp`, each toolset's, and code mode's view of
// each) what its tools/list costs and which hosts' caps on tools it fits (adr/0073), reported
// together with an exit code for CI.
import { EXIT, type Io } from "./command.ts";
import { DIR_FLAGS, DIR_FLAGS_HELP, openServer, parseCommandArgs } from "./open_server.ts";
import { type FolderKind, type ServerFolders, serverFolders } from "../discovery/server_dir.ts";
import { folderOf } from "../discovery/folder.ts";
import { counted, KINDS } from "../discovery/kinds.ts";
import { surveyServer } from "../discovery/survey.ts";
import { lintForModels } from "../schema/model_lint.ts";
import { lintForClients } from "../schema/client_lint.ts";
import { messageOf } from "../util/json.ts";
import { SERVER_META_FILE } from "../primitives/server_meta.ts";
import { unfinishedFields } from "./scaffold_meta.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Mount } from "../mounts/mount.ts";
import { MOUNT_SUFFIX, PINS_SUFFIX } from "../mounts/names.ts";
import { API_SUFFIX, OPENAPI_FILE } from "../openapi/file_names.ts";
import type { ApiSize } from "../openapi/size.ts";
import { statelessTool } from "../methods/results.ts";
import { parseToolsets } from "../primitives/toolsets.ts";
import { checkEndpoints, type EndpointCost } from "./check_endpoints.ts";
import { TOKENS_ESTIMATED } from "../schema/list_cost.ts";

export const USAGE = `Usage: toolshed check [--dir DIR] [options]

Checks a server directory: loads it as serve does (every problem that stops start-up is an
error), warns about files it would pass over (a tool in a subdirectory, a ".tsx" module, a
script without its executable bit, a folder that serves nothing), type-checks its TypeScript
tools, resources and prompts, checks skills/ as the skills extension (SEP-2640) and the
Agent Skills specification say (names, descriptions, front matter), lints the tools for what the
Anthropic, OpenAI and Gemini APIs refuse (names, descriptions, inputSchema keywords), checks
server.meta.json (who the server is: its fields, and TODOs \`new server\` left), and warns
about what MCP clients refuse, cut or truncate (a tool without readOnlyHint or destructiveHint,
a description Claude Code truncates), naming the client.
For each API in tools/ (<name>.openapi.json, .yaml or .yml) it says how many operations are
served and left out, and the bytes and estimated tokens of tools/list for them and for all of
them, against each host's cap on tools; an operation toolshed cannot serve is a warning (an
error when the sidecar's "operations" names it).
For each endpoint (/mcp, /mcp/<set> for each toolset, and code mode's view of each, /mcp/code
and /mcp/<set>/code, which --code-mode serves) it says how many tools tools/list carries, their
bytes and estimated tokens, and which hosts' caps on tools (Cursor 40, VS Code 128, OpenAI 128)
it fits; an endpoint over a cap is a warning naming the host.

Exits 0 when there are no errors, 1 when there are (with --strict, warnings too), 2 when
the command line is wrong.

Options:
${DIR_FLAGS_HELP}
  --toolsets SET,SET         Only these toolsets (folders of tools/) and the top-level
                             tools, as serve --toolsets serves them
  --read-only                Only tools marked readOnlyHint, as serve --read-only
  --code-destructive         Code mode's views as serve --code-mode --code-destructive
                             serves them (code may call destructive tools that opt in)
  --no-types                 Skip type checking
  --update-pins              Write each mounted server's pins (tools/<name>.pins.json) from
                             what its upstream lists now, after reviewing what changed
  --strict                   Fail on warnings too
  --json                     Print the findings as one JSON object`;

const FLAGS = {
  ...DIR_FLAGS,
  toolsets: { type: "string" },
  "read-only": { type: "boolean" },
  "code-destructive": { type: "boolean" },
  "no-types": { type: "boolean" },
  "update-pins": { type: "boolean" },
  strict: { type: "boolean" },
  json: { type: "boolean" },
} as const;

/** One thing check found. */
export interface Finding {
  /** "info" says what is, and counts toward neither the errors nor the warnings. */
  readonly severity: "error" | "warning" | "info";
  /** Which step found it. */
  readonly source:
    | "load"
    | "survey"
    | "types"
    | "models"
    | "clients"
    | "meta"
    | "mounts"
    | "openapi"
    | "endpoints";
  /** The file (or folder) it is about, as messages show it; undefined for the directory. */
  readonly file: string | undefined;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  /** For a model-API finding: the tool, the field and the JSON pointer in its schema. */
  readonly tool?: string;
  readonly field?: string;
  readonly pointer?: string;
  readonly apis?: readonly string[];
  /**
   * For a client finding, and an endpoint's over a host's cap on tools: the rule
   * (lib/schema/client_limits.ts) and the clients it names.
   */
  readonly rule?: string;
  readonly clients?: readonly string[];
  /** For an API's first finding: what it serves and what all of it would cost (adr/0072). */
  readonly size?: ApiSize;
  /**
   * For an endpoint's finding: its path, its tools/list's tools, bytes and estimated tokens, and
   * the hosts whose caps on tools it fits and exceeds (commands/check_endpoints.ts).
   */
  readonly endpoint?: EndpointCost;
}

export const command = {
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const parsed = parseCommandArgs(args, FLAGS, io, "check", USAGE);
    if (typeof parsed === "number") return parsed;
    const { values, positionals } = parsed;
    if (positionals.length > 0) {
      io.err(
        `toolshed: Unexpected argument "${positionals[0]}": toolshed check takes no ` +
          `positional arguments (--dir DIR names the server directory)\n` +
          `(toolshed check --help shows its options)\n`,
      );
      return EXIT.usage;
    }

    const checked = await checkDirectory(values, io, {
      types: values["no-types"] !== true,
      updatePins: values["update-pins"] === true,
      served: {
        toolsets: values.toolsets === undefined ? undefined : parseToolsets(values.toolsets),
        readOnly: values["read-only"] === true,
        destructive: values["code-destructive"] === true,
      },
    });
    if (typeof checked === "number") return checked;
    const { findings, notes, errors, warnings, served } = checked;
    const failed = errors > 0 || (values.strict === true && warnings > 0);
    if (values.json) {
      io.out(`${JSON.stringify({ ok: !failed, errors, warnings, served, notes, findings })}\n`);
    } else {
      io.out(report(checked));
    }
    return failed ? EXIT.failed : EXIT.ok;
  },
};

/** What one run of check found: the findings, notes, their tally and what the directory serves. */
export interface Checked {
  readonly findings: readonly Finding[];
  readonly notes: readonly string[];
  readonly errors: number;
  readonly warnings: number;
  /** Undefined when the directory did not load. */
  readonly served: Served | undefined;
}

/** How checkDirectory runs: with or without type checking, and what stops the type checker. */
interface CheckOptions {
  readonly types: boolean;
  /** Writes each mount's pins from its upstream instead of comparing them (adr/0071). */
  readonly updatePins?: boolean;
  /** Aborting it kills `deno check` (its findings are then one error saying so). */
  readonly signal?: AbortSignal;
  /** What serve's flags narrow the server to (`--toolsets`, `--read-only`); default: all. */
  readonly served?: Parameters<typeof checkEndpoints>[1];
}

/**
 * Runs every check of `toolshed check` on the directory the flags name and gives what it found,
 * or EXIT.usage when the flags are wrong (said on `io`). `toolshed dev` runs it after each save.
 */
export async function checkDirectory(
  values: DirValues,
  io: Io,
  options: CheckOptions,
): Promise<Checked | number> {
  const findings: Finding[] = [];
  const notes: string[] = [];
  /** While the endpoints are measured: what goes wrong then is the endpoints' warning. */
  let measuring = false;
  const loadNotes: Diagnostics = {
    error: (message, error, fields) => {
      if (measuring) return;
      if (fields?.mount !== undefined) return; // a mount's own findings are checkMount's
      if (fields?.api !== undefined) return; // an API's left-out operations are checkApis'
      const detail = error instanceof Error ? `: ${error.message}` : "";
      findings.push(finding("warning", "load", `${message}${detail}`));
    },
    forward: () => undefined,
    info: () => {}, // what went as it should (an upstream connected) is no finding
  };
  // Load problems are reported with the rest, not written by openServer.
  const loadErrors: string[] = [];
  const served = options.served ?? { toolsets: undefined, readOnly: false, destructive: false };
  const opened = await openServer(values, io, {
    diagnostics: loadNotes,
    onProblems: (problems) => loadErrors.push(...problems),
    toolsets: served.toolsets,
    readOnly: served.readOnly,
    // Code mode's views are reported whether or not the server is served with --code-mode.
    codeMode: { destructive: served.destructive },
  });
  if (opened === EXIT.usage) return EXIT.usage;
  let counts: Served | undefined;
  let folders: ServerFolders;
  if (typeof opened === "number") {
    for (const problem of loadErrors) findings.push(finding("error", "load", problem));
    folders = serverFolders(values);
  } else {
    const { loaded } = opened;
    folders = opened.folders;
    counts = {};
    for (const kind of KINDS) {
      const count = kind.check.summary?.count(loaded);
      if (count !== undefined) counts[kind.folder] = count;
    }
    for (const warning of surveyServer(folders, loaded)) {
      findings.push({ ...finding("warning", "survey", warning.message), file: warning.path });
    }
    const meta = opened.server.meta;
    const metaFile = values.dir === undefined
      ? SERVER_META_FILE
      : `${values.dir.replace(/(.)\/+$/, "$1")}/${SERVER_META_FILE}`;
    for (const field of meta === undefined ? [] : unfinishedFields(meta)) {
      findings.push({
        severity: "warning",
        source: "meta",
        file: metaFile,
        message: `${field} still holds the TODO that toolshed new wrote: the server card, ` +
          "serverInfo and what publish writes show it as it is",
      });
    }
    for (const mount of opened.server.mounts()) {
      const found = await checkMount(mount, options.updatePins === true, options.signal);
      findings.push(...found.findings);
      notes.push(...found.notes);
    }
    measuring = true;
    for (const found of await checkEndpoints(opened.server, served)) {
      findings.push({ ...found, source: "endpoints", file: undefined });
    }
    measuring = false;
    await opened.server.close(); // its mounted upstreams
  }

  const apis = folders.tools === undefined ? [] : await checkApis(folderOf(folders.tools.location));
  findings.push(...apis);

  if (!options.types) {
    notes.push("Type checking skipped (--no-types)");
  } else if (Deno.build.standalone) {
    notes.push(
      "Type checking skipped: a compiled toolshed has no TypeScript type checker (run " +
        "toolshed check with deno to type-check, or pass --no-types to say so)",
    );
  } else {
    findings.push(...await typeCheck(await typeScriptFiles(folders), io.cwd, options.signal));
  }

  if (typeof opened !== "number") {
    for (const tool of opened.loaded.tools.tools) {
      const { description, inputSchema } = tool.definition;
      for (const found of lintForModels({ name: tool.name, description, inputSchema })) {
        const where = found.field === "inputSchema"
          ? `inputSchema at ${found.pointer === "" ? "its root" : `"${found.pointer}"`}: `
          : "";
        findings.push({
          severity: found.severity,
          source: "models",
          file: tool.file,
          message: `${where}${found.message}`,
          tool: tool.name,
          field: found.field,
          pointer: found.pointer,
          apis: found.apis,
        });
      }
    }
    const { tools, byName } = opened.loaded.tools;
    const linted = tools.map(({ name, definition: { description, annotations } }) => ({
      name,
      description,
      annotations,
    }));
    for (const found of lintForClients(linted)) {
      findings.push({
        severity: found.severity,
        source: "clients",
        file: byName.get(found.tool)?.file,
        message: found.message,
        tool: found.tool,
        rule: found.rule,
        clients: found.clients,
      });
    }
  }

  const errors = findings.filter((found) => found.severity === "error").length;
  const warnings = findings.filter((found) => found.severity === "warning").length;
  return { findings, notes, errors, warnings, served: counts };
}

/**
 * What each API of the tools folder serves and would cost (openapi/size.ts): the code of
 * openapi/ loads only when there is one. A document or sidecar that does not read is the load's
 * error, said there.
 */
async function checkApis(tools: { url: URL; shown: string }): Promise<Finding[]> {
  let names: string[];
  try {
    names = (await Array.fromAsync(Deno.readDir(tools.url)))
      .filter((entry) => !/^[_.]/.test(entry.name) && OPENAPI_FILE.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return []; // no tools folder: the load says so when it matters
  }
  if (names.length === 0) return [];
  const [{ readApi }, { apiSize }] = await Promise.all([
    import("../openapi/load_api.ts"),
    import("../openapi/size.ts"),
  ]);
  const findings: Finding[] = [];
  for (const name of names) {
    const file = `${tools.shown}/${name}`;
    const stem = OPENAPI_FILE.exec(name)![1];
    let api;
    try {
      // The environment the load reads, so that the tools are the ones served.
      api = await readApi(
        new URL(encodeURIComponent(name), tools.url),
        file,
        (key) => Deno.env.get(key),
      );
    } catch {
      continue;
    }
    const sidecar = `${tools.shown}/${stem}${API_SUFFIX}`;
    for (const found of await apiSize(api, { file, stem, sidecar, render: statelessTool })) {
      findings.push({ ...found, source: "openapi", file });
    }
  }
  return findings;
}
/**
 * A mounted server against its pins (adr/0071): each tool withheld is an error with what moved,
 * and an upstream out of reach is one; with `update` the pins are written instead.
 */
async function checkMount(
  mount: Mount,
  update: boolean,
  signal: AbortSignal | undefined,
): Promise<{ findings: Finding[]; notes: string[] }> {
  const pinsFile = `${mount.file.slice(0, -MOUNT_SUFFIX.length)}${PINS_SUFFIX}`;
  try {
    if (update) {
      const count = await mount.updatePins(signal);
      return {
        findings: [],
        notes: [`Wrote the pins of ${counted(count, "tool")} to "${pinsFile}"`],
      };
    }
    await mount.verify(signal);
  } catch (error) {
    return {
      findings: [{
        severity: "error",
        source: "mounts",
        file: mount.file,
        message: `"${mount.file}": the upstream server cannot be reached, so its tools cannot be ` +
          `checked against "${pinsFile}": ${messageOf(error)}`,
      }],
      notes: [],
    };
  }
  const findings = mount.served().withheld.map((held): Finding => ({
    severity: "error",
    source: "mounts",
    file: mount.file,
    ...(held.kind === "tool" ? { tool: held.name } : {}),
    message: held.why === "refused"
      ? `the upstream ${held.kind} "${held.name}" is withheld: ${held.detail}`
      : `the upstream ${held.kind} "${held.name}" is withheld: ${
        WITHHELD_BECAUSE[held.why]
      }; after ` +
        `reviewing it, toolshed check --update-pins pins it${
          held.detail === "" ? "" : `\n${indented(held.detail, "      ")}`
        }`,
  }));
  return { findings, notes: [] };
}

/** `text`'s lines, each begun with `indent`. */
function indented(text: string, indent: string): string {
  return text.split("\n").map((line) => `${indent}${line}`).join("\n");
}

const WITHHELD_BECAUSE = {
  changed: "its definition changed since it was pinned",
  new: "it is not pinned",
  gone: "the upstream no longer lists it",
} as const;

function finding(severity: Finding["severity"], source: Finding["source"], message: string) {
  // A message names the file it is about first, in double quotes.
  const file = /^[^"]*"([^"]+)"/.exec(message)?.[1];
  return { severity, source, file, message } satisfies Finding;
}

/** The heading of the endpoints' findings in the text report. */
const ENDPOINTS_HEADING = "Endpoints (tools/list as a 2026-07-28 client that declares no " +
  `extension receives it; ${TOKENS_ESTIMATED})`;

/**
 * The text report: findings grouped by file, then the endpoints' (check_endpoints.ts), notes,
 * then one summary line.
 */
export function report({ findings, notes, errors, warnings, served }: Checked): string {
  const groups = new Map<string, Finding[]>();
  const endpoints = findings.filter((found) => found.source === "endpoints");
  for (const found of findings) {
    if (found.source === "endpoints") continue;
    const key = found.file ?? "";
    groups.set(key, [...groups.get(key) ?? [], found]);
  }
  const lines: string[] = [];
  const group = (heading: string, grouped: readonly Finding[]) => {
    lines.push(heading);
    for (const found of grouped) {
      const at = found.line === undefined ? "" : `line ${found.line}: `;
      lines.push(`  ${found.severity}: ${at}${found.message}`);
    }
  };
  for (const key of [...groups.keys()].sort()) {
    group(key === "" ? "The server directory" : key, groups.get(key)!);
  }
  if (endpoints.length > 0) group(ENDPOINTS_HEADING, endpoints);
  lines.push(...notes);
  const tally = `${counted(errors, "error")}, ${counted(warnings, "warning")}`;
  const counts = KINDS.flatMap((kind) => {
    const count = served?.[kind.folder];
    return count === undefined ? [] : [counted(count, kind.check.summary!.noun)];
  });
  lines.push(
    served === undefined
      ? `${tally}: the server directory did not load`
      : `${tally} in ${counts.join(", ")}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The flags naming the directory, as openServer takes them. */
type DirValues = Parameters<typeof openServer>[0];

/** What a directory that loaded serves, as each kind's summary counts it (KINDS' `check`). */
type Served = { [K in FolderKind]?: number };

/** A TypeScript file to check: its URL and its path as messages show it. */
interface SourceFile {
  url: URL;
  shown: string;
}

const TYPESCRIPT = /\.(ts|mts)$/;
const HIDDEN = /^[_.]/;

/**
 * The TypeScript modules the folders serve: those of each kind whose modules are checked
 * (KINDS' `check.types`: tools/, prompts/ and middleware/ without their subdirectories,
 * resources/ with them). Helpers (`_x.ts`) are checked through the modules that import them.
 */
async function typeScriptFiles(folders: ServerFolders): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  const visit = async (url: URL, shown: string, deep: boolean) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(url));
    } catch {
      return; // Not there: the loader says so when it matters.
    }
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const entry of entries) {
      if (HIDDEN.test(entry.name)) continue;
      const name = encodeURIComponent(entry.name);
      if (entry.isDirectory) {
        if (deep) await visit(new URL(`${name}/`, url), `${shown}/${entry.name}`, deep);
      } else if (TYPESCRIPT.test(entry.name)) {
        files.push({ url: new URL(name, url), shown: `${shown}/${entry.name}` });
      }
    }
  };
  for (const kind of KINDS) {
    const folder = folders[kind.folder];
    if (folder === undefined || kind.check.types === undefined) continue;
    const { url, shown } = folderOf(folder.location);
    await visit(url, shown, kind.check.types === "deep");
  }
  return files;
}

/** One diagnostic of `deno check`: `TS2322 [ERROR]: …` (or `error: …`), then `at URL:L:C`. */
const DIAGNOSTIC = /^(?:error: )?(?:(TS\d+) \[ERROR\]: )?(.+)$/;
const LOCATION = /^\s+at (\S+):(\d+):(\d+)$/;
const NOT_A_DIAGNOSTIC = /^(Found \d+ errors?\.|error: Type checking failed\.)$/;

/**
 * Type-checks `files` with this runtime's `deno check`, against toolshed's own deno.json
 * when there is one beside this module (it maps "@toolshed/toolshed" to mod.ts), and
 * without touching any lock file.
 */
async function typeCheck(
  files: readonly SourceFile[],
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<Finding[]> {
  if (files.length === 0) return [];
  const manifest = new URL("../../deno.json", import.meta.url);
  const config: string[] = [];
  let scratch: string | undefined;
  try {
    if (manifest.protocol === "file:") {
      if (await isFile(manifest)) config.push("--config", decodeURIComponent(manifest.pathname));
    } else {
      // Run from a URL: map the specifier to that URL's mod.ts in a config of our own.
      scratch = await Deno.makeTempDir({ prefix: "toolshed_check_" });
      const imports = { "@toolshed/toolshed": new URL("../../mod.ts", import.meta.url).href };
      await Deno.writeTextFile(`${scratch}/deno.json`, JSON.stringify({ imports }));
      config.push("--config", `${scratch}/deno.json`);
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--no-lock", ...config, ...files.map((file) => file.url.href)],
      cwd,
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).output();
    signal?.throwIfAborted(); // killed: what it said is cut short
    if (output.success) return [];
    const decoder = new TextDecoder();
    const text = `${decoder.decode(output.stdout)}${decoder.decode(output.stderr)}`;
    const found = typeErrors(text, files, cwd);
    return found.length > 0 ? found : [{
      severity: "error",
      source: "types",
      file: undefined,
      message: `Type checking failed: ${text.trim() || `deno check exited with ${output.code}`}`,
    }];
  } catch (error) {
    return [{
      severity: "error",
      source: "types",
      file: undefined,
      message: `Cannot type-check: ${messageOf(signal?.aborted ? signal.reason : error)}`,
    }];
  } finally {
    if (scratch !== undefined) await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

/** The errors in `deno check`'s output, each at the first location given for it. */
export function typeErrors(text: string, files: readonly SourceFile[], cwd: string): Finding[] {
  const shownOf = new Map(files.map((file) => [file.url.href, file.shown]));
  const found: Finding[] = [];
  let current: { code: string | undefined; message: string } | undefined;
  for (const line of text.split("\n")) {
    const location = LOCATION.exec(line);
    if (location !== null) {
      if (current === undefined) continue; // related information of the error before
      const [, href, row, column] = location;
      found.push({
        severity: "error",
        source: "types",
        file: shownOf.get(href) ?? shownPath(href, cwd),
        message: `${current.message}${current.code === undefined ? "" : ` (${current.code})`}`,
        line: Number(row),
        column: Number(column),
      });
      current = undefined;
      continue;
    }
    if (/^(error: |TS\d+ \[ERROR\]: )/.test(line) && !NOT_A_DIAGNOSTIC.test(line)) {
      const [, code, message] = DIAGNOSTIC.exec(line)!;
      // House style: no trailing period (TypeScript ends its messages with one).
      current = { code, message: message.replace(/\.$/, "") };
    }
  }
  return found;
}

/** A file URL as a path relative to `cwd` when it is under it, else as the absolute path. */
function shownPath(href: string, cwd: string): string {
  if (!href.startsWith("file://")) return href;
  const path = decodeURIComponent(new URL(href).pathname);
  const base = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

async function isFile(url: URL): Promise<boolean> {
  try {
    return (await Deno.stat(url)).isFile;
  } catch {
    return false;
  }
}
