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
  /** The key of the file's object that maps server names to entries. */
  readonly serversKey: "mcpServers" | "servers";
  /** The entry of one stdio server. */
  entry(launch: Launch): Record<string, unknown>;
  /**
   * The file it reads by default: a project file under `cwd`, or a per-user file found through
   * the environment; a sentence saying why not when the environment lacks what it needs.
   */
  defaultFile(cwd: string, env: (name: string) => string | undefined): string | { problem: string };
  /** What to do once the file holds the entry. */
  readonly afterWrite: string;
}

const plain = (launch: Launch) => ({ command: launch.command, args: [...launch.args] });
const typed = (launch: Launch) => ({ type: "stdio", ...plain(launch) });

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
    defaultFile: (cwd) => `${cwd}/.mcp.json`,
    afterWrite:
      "Start Claude Code in this folder and approve the project server when it asks (/mcp shows it).",
  },
  {
    id: "vscode",
    title: "VS Code",
    serversKey: "servers",
    entry: typed,
    defaultFile: (cwd) => `${cwd}/.vscode/mcp.json`,
    afterWrite:
      "Open this folder in VS Code and start the server from mcp.json (or MCP: List Servers).",
  },
  {
    id: "cursor",
    title: "Cursor",
    serversKey: "mcpServers",
    entry: plain,
    defaultFile: (cwd) => `${cwd}/.cursor/mcp.json`,
    afterWrite: "Open this folder in Cursor and turn the server on in its MCP settings.",
  },
];

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
