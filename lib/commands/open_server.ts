// What `list`, `call` and `check` share: the flags that say where the server directory is,
// and loading it exactly as `toolshed serve` does, with every problem reported the same way.
import { type ToolView, UnknownToolsetError } from "../primitives/toolsets.ts";
import { parseArgs } from "../host/args.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import type { LoadedServer, ServerFolders } from "../discovery/server_dir.ts";
import { ENV_NAME } from "../programs/limits.ts";
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { EXIT, type Io } from "./command.ts";
import type { FlagSpec } from "../host/args.ts";
import {
  createServer,
  type EmbeddedHttp,
  type Server,
  type ServerConfig,
} from "../server/create_server.ts";
import { SERVER_INFO } from "../wire/protocol.ts";
import { helpOf } from "../host/cli.ts";
import { ROWS } from "../settings/table.ts";
import type { JsonObject } from "../util/json.ts";

/**
 * The flags naming a server directory, as `toolshed serve` takes them: the settings table's rows
 * marked `commands` (written here for their types; tests/settings_test.ts holds them to the rows).
 */
export const DIR_FLAGS = {
  dir: { type: "string" },
  tools: { type: "string" },
  resources: { type: "string" },
  prompts: { type: "string" },
  "pass-env": { type: "string", multiple: true },
  "allow-outside-symlinks": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, FlagSpec>;

/** Their lines in a command's help: the rows the commands take, and -h. */
export const DIR_FLAGS_HELP = `${
  helpOf(ROWS.filter((row) => row.commands), (row) => row.commandHelp ?? row.help)
}
  -h, --help                 Show this help`;

/**
 * Parses a command's arguments (its own flags besides DIR_FLAGS); or, for --help, writes
 * `usage` and gives EXIT.ok; or writes the usage error, with the flag meant when one is
 * mistyped, and gives EXIT.usage. Every flag set passed here has `help`.
 */
export function parseCommandArgs<Specs extends Record<string, FlagSpec>>(
  args: string[],
  flags: Specs,
  io: Io,
  name: string,
  usage: string,
) {
  try {
    const parsed = parseArgs({ args, options: flags, allowPositionals: true });
    if ((parsed.values as { help?: boolean }).help) {
      io.out(`${usage}\n`);
      return EXIT.ok;
    }
    return parsed;
  } catch (error) {
    const message = messageOf(error);
    const unknown = /^Unknown option ['"]--?([^'"]+)['"]/.exec(message)?.[1];
    const meant = unknown === undefined ? undefined : closest(unknown, Object.keys(flags));
    io.err(
      `toolshed: ${message}${meant === undefined ? "" : `; did you mean --${meant}?`}\n` +
        `(toolshed ${name} --help shows its options)\n`,
    );
    return EXIT.usage;
  }
}

interface OpenedServer {
  readonly folders: ServerFolders;
  readonly loaded: LoadedServer;
  /** The server createServer builds for `serve`, so that a command sees what a client sees. */
  readonly server: Server;
}

/** How a command's server reports, and what else differs from serve's defaults. */
interface OpenOptions {
  /** Where the server's troubles go (default: the command's stderr). */
  readonly diagnostics?: Diagnostics;
  /** Takes the directory's problems instead of their being written (`check` reports them). */
  readonly onProblems?: (problems: readonly string[]) => void;
  /** As `--tool-timeout`. */
  readonly toolTimeoutMs?: number;
  /** As `--toolsets`: serve only these toolsets and the top-level tools (adr/0045). */
  readonly toolsets?: readonly string[];
  /** As `--read-only`. */
  readonly readOnly?: boolean;
  /** As `--code-mode` and `--code-destructive` (adr/0073): no processes started ahead. */
  readonly codeMode?: { readonly destructive: boolean };
  /** As `--watch` (`toolshed dev`). */
  readonly watch?: boolean;
  /** With `watch`: told of each reload's outcome (`toolshed dev`). */
  readonly onReload?: ServerConfig["onReload"];
  /** How `fetch` serves it over HTTP (`toolshed dev`); without it, it is not served over HTTP. */
  readonly http?: EmbeddedHttp;
  /** As TOOLSHED_STATE_KEY and the previous ones; empty: a random key of this process, meant. */
  readonly stateKeys?: readonly string[];
}

/**
 * Loads the server directory the flags name, as serve would, into the server serve would
 * build; on problems writes them (all of them, as start-up does) and gives EXIT.failed instead.
 */
export async function openServer(
  values: {
    dir?: string;
    tools?: string;
    resources?: string;
    prompts?: string;
    "pass-env"?: string[];
    "allow-outside-symlinks"?: boolean;
  },
  io: Io,
  options: OpenOptions = {},
): Promise<OpenedServer | number> {
  for (const flag of ["dir", "tools", "resources", "prompts"] as const) {
    if (values[flag] === "") {
      io.err(`toolshed: --${flag} needs a directory\n`);
      return EXIT.usage;
    }
  }
  const passEnv = values["pass-env"] ?? [];
  const badName = passEnv.find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) {
    io.err(
      `toolshed: Invalid value for --pass-env: "${badName}" is not an environment variable name\n`,
    );
    return EXIT.usage;
  }
  try {
    const server = await createServer({
      dir: values.dir,
      tools: values.tools,
      resources: values.resources,
      prompts: values.prompts,
      passEnv,
      allowOutsideSymlinks: values["allow-outside-symlinks"] === true,
      toolTimeoutMs: options.toolTimeoutMs,
      toolsets: options.toolsets,
      readOnly: options.readOnly,
      ...options.codeMode === undefined ? {} : {
        codeMode: true,
        codeDestructive: options.codeMode.destructive,
        codePool: 0,
      },
      watch: options.watch,
      onReload: options.onReload,
      http: options.http,
      stateKeys: options.stateKeys,
      diagnostics: options.diagnostics ?? ioDiagnostics(io),
    });
    return { folders: server.folders!, loaded: server.loaded, server };
  } catch (error) {
    if (error instanceof UnknownToolsetError) {
      io.err(`toolshed: ${error.message}\n`);
      return EXIT.usage;
    }
    if (!(error instanceof DirectoryLoadError)) throw error;
    if (options.onProblems !== undefined) options.onProblems(error.problems);
    else {
      io.err(
        `toolshed: ${error.problems.length} problem(s) in the server directory\n  ${
          error.problems.join("\n  ")
        }\n`,
      );
    }
    return EXIT.failed;
  }
}

/** Diagnostics that go to the command's stderr. */
export function ioDiagnostics(io: Io): Diagnostics {
  return {
    error: (message, error) => {
      const detail = error instanceof Error ? `: ${error.message}` : "";
      io.err(`toolshed: ${message}${detail}\n`);
    },
    forward: (text) => {
      io.err(text);
      return undefined;
    },
  };
}

/** How a command's request presents itself to the core. */
interface AskOptions {
  /** The client capabilities it declares (default: none). */
  readonly capabilities?: JsonObject;
  /** The least severe log level it wants notified. */
  readonly logLevel?: string;
  /** Asks for progress notifications under this token. */
  readonly progressToken?: string;
  /** Receives the notifications the request is sent (progress, log messages). */
  readonly notify?: (message: JsonObject) => void;
  /** The tools it is served, as an HTTP path would choose them; default: the server's view. */
  readonly view?: ToolView;
}

/** Who a command's requests say they come from. */
const CLI_CLIENT = { name: `${SERVER_INFO.name}-cli`, version: SERVER_INFO.version };

/**
 * Sends one 2026-07-28 request to the server, as a line from a client would go, and gives its
 * JSON-RPC response (`result` or `error`), never throwing.
 */
export function ask(
  server: Server,
  method: string,
  params: JsonObject,
  options: AskOptions = {},
): Promise<JsonObject> {
  return server.request(method, params, { ...options, clientInfo: CLI_CLIENT, id: 1 });
}

/** `--code-mode` and `--code-destructive` as openServer takes them (list, call). */
export function codeModeOf(
  values: { "code-mode"?: boolean; "code-destructive"?: boolean },
): OpenOptions["codeMode"] {
  return values["code-mode"] === true
    ? { destructive: values["code-destructive"] === true }
    : undefined;
}
