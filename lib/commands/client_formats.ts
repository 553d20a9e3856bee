// The MCP clients `toolshed config` knows: where each keeps its configuration, under which key
// its servers live, and what one stdio server entry looks like there. Each was checked against
// the client's documentation (or, where that is not reachable, guides that quote it):
//
// - Claude Desktop: claude_desktop_config.json, servers under "mcpServers" as
//   { command, args }; macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\Claude\,
//   Linux ~/.config/Claude/. https://modelcontextprotocol.io/quickstart/user,
//   https://playwright.dev/mcp/clients/claude-desktop,
//   https://learn.logeshclouduniverse.com/MasteringMCP/day-14.html (the Linux path)
// - Claude Code: .mcp.json at the project root (project scope, shared through version
//   control), servers under "mcpServers", each with "type" or "command".
//   https://code.claude.com/docs/en/mcp, https://hasmcp.com/glossary/mcp.json,
//   https://tryglen.com/mcp/clients/claude-code
// - VS Code: .vscode/mcp.json in the workspace, servers under "servers", a stdio one as
//   { type: "stdio", command, args }.
//   https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
// - Cursor: .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project),
//   servers under "mcpServers" as { command, args }. https://cursor.com/docs/mcp,
//   https://www.developersdigest.tech/mcp-servers/clients/cursor
//
// The hosts after them were read from their own code where it installs from npm (what their
// `mcp add` writes, what their `mcp list` reads), and from their documentation; adr/0064 has
// each one's file, format and source.

/** How a client starts the server: a program and its arguments, all absolute. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

export interface Client {
  /** The name on the command line. */
  readonly id: string;
  /** The name people know it by. */
  readonly title: string;
  /**
   * The file's language: JSON (with comments) unless said. In TOML the servers are the tables
   * [serversKey.NAME]; in YAML a list under serversKey whose items carry their "name".
   */
  readonly format?: "toml" | "yaml";
  /** The key of the file's object that holds the servers. */
  readonly serversKey: string;
  /** The entry of one stdio server. */
  entry(launch: Launch): Record<string, unknown>;
  /** The entry of a server at `url` over Streamable HTTP; absent when the file has none. */
  remote?(url: string): Record<string, unknown>;
  /**
   * The file it reads by default: a project file under `cwd`, or a per-user file found through
   * the environment; a sentence saying why not when the environment lacks what it needs.
   */
  defaultFile(
    cwd: string,
    env: (name: string) => string | undefined,
    name: string,
  ): string | { problem: string };
  /** What to do once the file holds the entry. */
  readonly afterWrite: string;
  /** The host's trust or approval step, said with the configuration (the first four say theirs in afterWrite). */
  readonly trust?: string;
  /** The host's own command that adds the server to its file, as words, where it has one. */
  add?(name: string, target: Launch | { url: string }): string[];
}

const plain = (launch: Launch) => ({ command: launch.command, args: [...launch.args] });
const typed = (launch: Launch) => ({ type: "stdio", ...plain(launch) });
const http = (url: string) => ({ type: "http", url });
/** Where the user's files are: HOME, or USERPROFILE on Windows. */
const homeOf = (env: (name: string) => string | undefined) => env("HOME") || env("USERPROFILE");
/** `path` under the user's home (or under `override` when that variable is set). */
function underHome(
  env: (name: string) => string | undefined,
  path: string,
  override?: { variable: string; rest: string },
): string | { problem: string } {
  const set = override === undefined ? undefined : env(override.variable);
  if (set) return `${set}/${override!.rest}`;
  const home = homeOf(env);
  return home ? `${home}/${path}` : { problem: "HOME is not set" };
}
/**
 * A host's `CLI mcp add` as words: a stdio server's launch after `--`, a URL's as `remote` says
 * (`--transport http` before the name unless the host says otherwise).
 */
const mcpAdd = (
  cli: string,
  remote = (name: string, url: string) => ["--transport", "http", name, url],
) =>
(name: string, target: Launch | { url: string }) =>
  "url" in target
    ? [cli, "mcp", "add", ...remote(name, target.url)]
    : [cli, "mcp", "add", name, target.command, "--", ...target.args];

export const CLIENTS: readonly Client[] = [
  {
    id: "claude-desktop",
    title: "Claude Desktop",
    serversKey: "mcpServers",
    entry: plain,
    defaultFile: (_cwd, env) => claudeDesktopFile(Deno.build.os, env),
    afterWrite: "Quit Claude Desktop completely and start it again to load the server.",
  },
  {
    id: "claude-code",
    title: "Claude Code",
    serversKey: "mcpServers",
    entry: typed,
    remote: http,
    defaultFile: (cwd) => `${cwd}/.mcp.json`,
    afterWrite:
      "Start Claude Code in this folder and approve the project server when it asks (/mcp shows it).",
  },
  {
    id: "vscode",
    title: "VS Code",
    serversKey: "servers",
    entry: typed,
    remote: http,
    defaultFile: (cwd) => `${cwd}/.vscode/mcp.json`,
    afterWrite:
      "Open this folder in VS Code and start the server from mcp.json (or MCP: List Servers).",
  },
  {
    id: "cursor",
    title: "Cursor",
    serversKey: "mcpServers",
    entry: plain,
    remote: (url) => ({ url }),
    defaultFile: (cwd) => `${cwd}/.cursor/mcp.json`,
    afterWrite: "Open this folder in Cursor and turn the server on in its MCP settings.",
  },
  {
    id: "gemini",
    title: "Gemini CLI",
    serversKey: "mcpServers",
    entry: plain,
    remote: (url) => ({ url, type: "http" }),
    defaultFile: (cwd) => `${cwd}/.gemini/settings.json`,
    afterWrite: "Start gemini in this folder (/mcp lists the server; so does gemini mcp list).",
    trust: "Gemini CLI starts no MCP server in a folder you have not trusted: trust this one " +
      "when it asks (or start it with --skip-trust); it asks before each tool call until you " +
      'allow it always (or put "trust": true in the entry).',
    add: mcpAdd("gemini"),
  },
  {
    id: "qwen",
    title: "Qwen Code",
    serversKey: "mcpServers",
    entry: plain,
    remote: (url) => ({ httpUrl: url }),
    defaultFile: (_cwd, env) => underHome(env, ".qwen/settings.json"),
    afterWrite: "Start qwen (/mcp lists the server; so does qwen mcp list).",
    trust: "Qwen Code starts MCP servers only in a folder you trust: trust it when it asks; " +
      'it asks before each tool call until you allow it always (or put "trust": true in the ' +
      "entry).",
    add: mcpAdd("qwen"),
  },
  {
    id: "codex",
    title: "Codex",
    format: "toml",
    serversKey: "mcp_servers",
    entry: plain,
    remote: (url) => ({ url }),
    defaultFile: (_cwd, env) =>
      underHome(env, ".codex/config.toml", { variable: "CODEX_HOME", rest: "config.toml" }),
    afterWrite: "Start codex (/mcp lists the server; so does codex mcp list).",
    trust: "Codex asks you to approve toolshed's tool calls as its approval policy says; " +
      'default_tools_approval_mode = "approve" in the table approves them all.',
    add: mcpAdd("codex", (name, url) => [name, "--url", url]),
  },
  {
    id: "opencode",
    title: "opencode",
    serversKey: "mcp",
    entry: (launch) => ({ type: "local", command: [launch.command, ...launch.args] }),
    remote: (url) => ({ type: "remote", url }),
    defaultFile: (cwd) => `${cwd}/opencode.json`,
    afterWrite: "Start opencode in this folder (opencode mcp list connects to the server).",
    trust: 'opencode calls MCP tools as its "permission" setting says: "ask" there makes it ' +
      "ask before each call.",
  },
  {
    id: "copilot",
    title: "Copilot CLI",
    serversKey: "mcpServers",
    entry: (launch) => ({ type: "local", ...plain(launch), tools: ["*"] }),
    remote: (url) => ({ type: "http", url, tools: ["*"] }),
    defaultFile: (_cwd, env) =>
      underHome(env, ".copilot/mcp-config.json", {
        variable: "COPILOT_HOME",
        rest: "mcp-config.json",
      }),
    afterWrite: "Start copilot (/mcp lists the server; so does copilot mcp list).",
    trust: "Copilot CLI asks before each tool call: approve toolshed's for the session, or " +
      "start it with --allow-tool followed by the server's name; it asks once to trust the " +
      "folder it starts in.",
    add: mcpAdd("copilot"),
  },
  {
    id: "cline",
    title: "Cline",
    serversKey: "mcpServers",
    entry: typed,
    remote: (url) => ({ type: "streamableHttp", url }),
    defaultFile: (_cwd, env) => clineFile(env),
    afterWrite: "Start cline (cline config mcp lists the server); the VS Code extension " +
      "keeps its own cline_mcp_settings.json, which --file names.",
    trust: "Cline asks before each MCP tool call unless the tool is in the entry's " +
      '"autoApprove" list.',
  },
  {
    id: "continue",
    title: "Continue",
    format: "yaml",
    serversKey: "mcpServers",
    entry: plain,
    remote: (url) => ({ type: "streamable-http", url }),
    defaultFile: (cwd, _env, name) => `${cwd}/.continue/mcpServers/${fileName(name)}.yaml`,
    afterWrite: "Open this folder in Continue (or start cn here) and pick Agent mode; " +
      "~/.continue/config.yaml, given with --file, serves every workspace.",
    trust: "Continue calls MCP tools only in Agent mode, asking before each call until the " +
      "tool's policy says to run it automatically.",
  },
];

/** Cline's file (its CLI's; the VS Code extension's is under VS Code's globalStorage). */
function clineFile(env: (name: string) => string | undefined): string | { problem: string } {
  const set = env("CLINE_MCP_SETTINGS_PATH");
  if (set) return set;
  const data = env("CLINE_DATA_DIR") ||
    (env("CLINE_DIR") ? `${env("CLINE_DIR")}/data` : undefined);
  if (data) return `${data}/settings/cline_mcp_settings.json`;
  return underHome(env, ".cline/data/settings/cline_mcp_settings.json");
}

/** A server name as a file name: what a file name cannot hold becomes "_". */
function fileName(name: string): string {
  const safe = [...name].map((char) => char < " " || '/\\:*?"<>|'.includes(char) ? "_" : char);
  return safe.join("").replace(/^\.+/, "_");
}

/** Claude Desktop's file on `os`, from the variables that say where the user's files are. */
export function claudeDesktopFile(
  os: typeof Deno.build.os,
  env: (name: string) => string | undefined,
): string | { problem: string } {
  const file = "Claude/claude_desktop_config.json";
  if (os === "windows") {
    const appData = env("APPDATA");
    return appData ? `${appData}\\${file.replace("/", "\\")}` : { problem: "APPDATA is not set" };
  }
  const home = env("HOME");
  if (os === "darwin") {
    return home ? `${home}/Library/Application Support/${file}` : { problem: "HOME is not set" };
  }
  const config = env("XDG_CONFIG_HOME") || (home ? `${home}/.config` : undefined);
  return config ? `${config}/${file}` : { problem: "neither XDG_CONFIG_HOME nor HOME is set" };
}
