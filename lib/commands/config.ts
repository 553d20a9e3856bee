// toolshed config: the configuration an MCP client needs to start this toolshed serving a
// directory, printed, or merged into the client's file with --write. Everything in it is
// absolute, since clients start servers with a minimal environment and no telling where.
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import { EXIT, type Io } from "./command.ts";
import { parseCommandArgs } from "./open_server.ts";
import { type Client, CLIENTS, type Launch } from "./client_formats.ts";
import {
  currentSelf,
  findOnPath,
  LAUNCH_KINDS,
  launchFor,
  type LaunchKind,
  npxLaunch,
  type Self,
} from "./client_launch.ts";
import { freshText, mergeServer } from "./client_file.ts";

const FLAGS = {
  dir: { type: "string" },
  name: { type: "string" },
  launch: { type: "string" },
  write: { type: "boolean" },
  file: { type: "string" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const CLIENT_IDS = CLIENTS.map((client) => client.id);

const USAGE =
  `Usage: toolshed config CLIENT [--dir DIR] [--name NAME] [--launch HOW] [--write [--file PATH]]
       toolshed config CLIENT --url URL [--name NAME] [--write [--file PATH]]

Prints the configuration that makes an MCP client start toolshed serving DIR, with absolute
paths (or reach a toolshed serving Streamable HTTP at URL); with --write, merges it into the
client's file instead, changing nothing else there (comments, other servers and their
formatting stay as written; a YAML file's comments may be re-spaced), and says the client's
trust or approval step.

Clients, and the file --write updates by default:
  claude-desktop   claude_desktop_config.json in Claude's folder of your user
                   (macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\\Claude\\,
                   Linux ~/.config/Claude/)
  claude-code      .mcp.json in the working directory (the project)
  vscode           .vscode/mcp.json in the working directory (the workspace)
  cursor           .cursor/mcp.json in the working directory (~/.cursor/mcp.json, given with
                   --file, serves every project)
  gemini           .gemini/settings.json in the working directory (Gemini CLI; the folder
                   must be trusted; ~/.gemini/settings.json serves every folder)
  qwen             ~/.qwen/settings.json (Qwen Code)
  codex            config.toml in CODEX_HOME, or ~/.codex/config.toml (Codex; TOML)
  opencode         opencode.json in the working directory (~/.config/opencode/opencode.json,
                   given with --file, serves every project)
  copilot          mcp-config.json in COPILOT_HOME, or ~/.copilot/mcp-config.json (Copilot CLI)
  cline            ~/.cline/data/settings/cline_mcp_settings.json (Cline's CLI; the VS Code
                   extension's file is in VS Code's globalStorage/saoudrizwan.claude-dev/settings)
  continue         .continue/mcpServers/NAME.yaml in the working directory (Continue; YAML;
                   ~/.continue/config.yaml, given with --file, serves every workspace)

Options:
  --dir DIR        The server directory (default: the working directory)
  --name NAME      The server's name in the client (default: toolshed)
  --launch HOW     How the client starts toolshed:
                     deno     this deno, running main.ts (the default from source)
                     npx      npx --prefer-offline --yes deno@VERSION, for machines with
                              only Node.js
                     binary   a compiled toolshed (the default in one; from source:
                              dist/toolshed, which deno task compile builds)
                     npm      the npm package's installed bin, started by node's absolute
                              path (the default from it; under npx, npx is)
  --url URL        A toolshed already serving Streamable HTTP at URL (toolshed --http),
                   instead of one the client starts
  --write          Merge into the client's file (replacing a server of the same name, after
                   saying so); the file and its folders are created when missing
  --file PATH      The file to merge into, instead of the client's default
  -h, --help       Show this help

Example: toolshed config claude-desktop --dir ~/my-server --write`;

export const command = {
  usage: USAGE,
  run: (args: string[], io: Io) => configure(args, io, currentSelf()),
};

/** The command's body, for a given toolshed (`self`: how it runs, which a test varies). */
export async function configure(args: string[], io: Io, self: Self): Promise<number> {
  const parsed = parseCommandArgs(args, FLAGS, io, "config", USAGE);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const usageError = (message: string) => {
    io.err(`toolshed: ${message}\n(toolshed config --help shows how)\n`);
    return EXIT.usage;
  };
  const [clientId, ...extra] = positionals;
  if (clientId === undefined) {
    return usageError(`toolshed config needs a client: ${CLIENT_IDS.join(", ")}`);
  }
  const client = CLIENTS.find((each) => each.id === clientId);
  if (client === undefined) {
    const meant = closest(clientId, CLIENT_IDS);
    return usageError(
      `Unknown client "${clientId}"${meant === undefined ? "" : `; did you mean ${meant}?`} ` +
        `(the clients: ${CLIENT_IDS.join(", ")})`,
    );
  }
  if (extra.length > 0) {
    return usageError(`toolshed config takes one client, not also "${extra.join(" ")}"`);
  }
  for (const flag of ["dir", "name", "file", "url"] as const) {
    if (values[flag] === "") return usageError(`--${flag} needs a value`);
  }
  if (values.file !== undefined && !values.write) {
    return usageError("--file says where --write merges the configuration: give --write too");
  }
  if (values.url !== undefined) {
    if (values.dir !== undefined || values.launch !== undefined) {
      return usageError(
        `--url names a server already running: --${values.dir !== undefined ? "dir" : "launch"} ` +
          "is for one the client starts",
      );
    }
    if (!/^https?:\/\/[^/]/i.test(values.url) || !URL.canParse(values.url)) {
      return usageError(`--url needs an http:// or https:// URL, not "${values.url}"`);
    }
    if (client.remote === undefined) {
      io.err(
        `toolshed: ${client.title} reads no remote server from its file: add one under its ` +
          "Settings > Connectors, or leave out --url to let it start toolshed\n",
      );
      return EXIT.usage;
    }
    const url = new URL(values.url).href;
    return await deliver(
      client,
      values,
      values.name ?? "toolshed",
      client.remote(url),
      { url },
      io,
    );
  }
  const launchKind = values.launch ??
    (self.standalone
      ? "binary"
      : self.npm === undefined
      ? "deno"
      : self.npm.viaNpx
      ? "npx"
      : "npm");
  if (!LAUNCH_KINDS.includes(launchKind as LaunchKind)) {
    const meant = closest(launchKind, LAUNCH_KINDS);
    return usageError(
      `Unknown launch "${launchKind}": use ${LAUNCH_KINDS.join(", ")}` +
        (meant === undefined ? "" : `; did you mean ${meant}?`),
    );
  }
  const name = values.name ?? "toolshed";

  const dir = resolvePath(io.cwd, values.dir ?? ".");
  const dirInfo = await Deno.stat(dir).catch(() => undefined);
  if (dirInfo === undefined || !dirInfo.isDirectory) {
    io.err(`toolshed: Cannot configure "${dir}": it is not a directory\n`);
    return EXIT.failed;
  }
  const npx = launchKind === "npx" ? await findOnPath("npx", io.env) : undefined;
  // An npx that is npm's script for node starts by node's absolute path, for every client, so
  // that none needs node on its own PATH (adr/0064, adr/0068).
  const npxStart = npx === undefined ? "npx" : await npxLaunch(npx, io.env);
  const node = launchKind === "npm"
    ? self.npm?.node ?? await findOnPath("node", io.env)
    : undefined;
  const launch = launchFor(launchKind as LaunchKind, self, dir, npxStart, node);
  if ("problem" in launch) {
    io.err(`toolshed: Cannot use --launch ${launchKind}: ${launch.problem}\n`);
    return EXIT.usage;
  }
  if (launchKind === "binary" && !self.standalone) {
    const built = await Deno.stat(launch.command).then((info) => info.isFile, () => false);
    if (!built) {
      io.err(
        `toolshed: Cannot use --launch binary: there is no compiled toolshed at ` +
          `"${launch.command}" (deno task compile builds it)\n`,
      );
      return EXIT.failed;
    }
  }
  notes(launchKind as LaunchKind, self, npx, io);
  if (launchKind === "npm" && node === undefined) {
    io.err(
      "toolshed: node is not on the PATH here, so the configuration starts the bin by its path: " +
        "its #!/usr/bin/env node needs node on the client's own PATH\n",
    );
  }
  if (launchKind === "npm" && self.npm?.viaNpx) {
    io.err(
      `toolshed: This toolshed runs from npm's cache ("${self.npm.bin}"), which npm may clean: ` +
        "--launch npx keeps working then\n",
    );
  }
  return await deliver(client, values, name, client.entry(launch), launch, io);
}

/** Prints the entry, or writes it with --write. */
async function deliver(
  client: Client,
  values: { write?: boolean; file?: string },
  name: string,
  entry: Record<string, unknown>,
  target: Launch | { url: string },
  io: Io,
): Promise<number> {
  if (values.write) return await write(client, values.file, name, entry, io);
  const where = client.defaultFile(io.cwd, io.env, name);
  io.out(await freshText(client.format ?? "json", client.serversKey, name, entry));
  io.err(
    typeof where === "string"
      ? `toolshed: For ${client.title}, merge this into "${where}" ` +
        `(toolshed config ${client.id} --write does it)\n`
      : `toolshed: For ${client.title}, merge this into its configuration file\n`,
  );
  const own = client.add?.(name, target);
  if (own !== undefined) {
    io.err(`toolshed: Or let ${client.title} write it: ${own.map(shellWord).join(" ")}\n`);
  }
  if (client.trust !== undefined) io.err(`toolshed: ${client.trust}\n`);
  return EXIT.ok;
}

/** `word` as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

async function write(
  client: Client,
  fileGiven: string | undefined,
  name: string,
  entry: Record<string, unknown>,
  io: Io,
): Promise<number> {
  const where = fileGiven === undefined
    ? client.defaultFile(io.cwd, io.env, name)
    : resolvePath(io.cwd, fileGiven);
  if (typeof where !== "string") {
    io.err(
      `toolshed: Cannot find ${client.title}'s configuration file: ${where.problem} ` +
        `(give it with --file PATH)\n`,
    );
    return EXIT.failed;
  }
  let outcome;
  try {
    outcome = await mergeServer(
      where,
      client.serversKey,
      name,
      entry,
      (previous) =>
        io.err(
          `toolshed: "${where}" already has a server "${name}", which this replaces; it was:\n` +
            `${JSON.stringify(previous, null, 2)}\n`,
        ),
      client.format,
    );
  } catch (error) {
    io.err(`toolshed: Cannot write "${where}": ${messageOf(error)}\n`);
    return EXIT.failed;
  }
  switch (outcome.kind) {
    case "refused":
      io.err(`toolshed: Cannot update "${where}": ${outcome.problem}\n`);
      return EXIT.failed;
    case "unchanged":
      io.out(`"${outcome.file}" already has this server "${name}": nothing to change\n`);
      return EXIT.ok;
    default: {
      const did = outcome.kind === "created"
        ? "Created"
        : outcome.kind === "replaced"
        ? "Replaced the server"
        : "Added the server";
      io.out(
        (outcome.kind === "created"
          ? `Created "${outcome.file}" with the server "${name}"\n`
          : `${did} "${name}" in "${outcome.file}"\n`) +
          `${client.afterWrite}\n` +
          (client.trust === undefined ? "" : `${client.trust}\n`),
      );
      return EXIT.ok;
    }
  }
}

/** Warnings about a launch that works today but may not tomorrow. */
function notes(kind: LaunchKind, self: Self, npx: string | undefined, io: Io): void {
  if (kind === "deno" && /[/\\]_npx[/\\]/.test(self.execPath)) {
    io.err(
      `toolshed: This deno runs from npm's cache ("${self.execPath}"), which npm may clean: ` +
        `--launch npx keeps working then\n`,
    );
  }
  if (kind === "npx" && npx === undefined) {
    io.err(
      'toolshed: npx is not on the PATH here, so the configuration says "npx": the client ' +
        "must find it on its own PATH\n",
    );
  }
  if (!self.main.startsWith("/") && !/^[A-Za-z]:[/\\]/.test(self.main) && kind !== "binary") {
    io.err(
      `toolshed: toolshed runs from "${self.main}", so the client will fetch it from there ` +
        `on each start\n`,
    );
  }
}

/** `path` made absolute against `cwd`, with "." and ".." resolved and no trailing "/". */
function resolvePath(cwd: string, path: string): string {
  const windows = /^[A-Za-z]:[/\\]/;
  const absolute = path.startsWith("/") || windows.test(path) ? path : `${cwd}/${path}`;
  const separator = windows.test(absolute) ? "\\" : "/";
  const parts: string[] = [];
  for (const part of absolute.split(/[/\\]+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length > (windows.test(absolute) ? 1 : 0)) parts.pop();
    } else parts.push(part);
  }
  return separator === "/" ? `/${parts.join("/")}` : parts.join("\\");
}
