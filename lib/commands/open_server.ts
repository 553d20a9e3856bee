// What `list`, `call` and `check` share: the flags that say where the server directory is,
// and loading it exactly as `toolshed serve` does, with every problem reported the same way.
import { parseArgs } from "../host/args.ts";
import { DEFAULTS } from "../host/cli.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import {
  type LoadedServer,
  loadServerDir,
  type ServerFolders,
  serverFolders,
  type ServerLoadOptions,
} from "../discovery/server_dir.ts";
import { ENV_NAME } from "../programs/executable.ts";
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { EXIT, type Io } from "./command.ts";
import type { FlagSpec } from "../host/args.ts";
import { type Core, createCore } from "../core/handle.ts";
import { contentsOf, createRegistry, type Snapshot } from "../primitives/registry.ts";
import { extract } from "../wire/extract.ts";
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  SERVER_INFO,
} from "../wire/protocol.ts";
import type { JsonObject } from "../util/json.ts";

/** The flags naming a server directory, as `toolshed serve` takes them. */
export const DIR_FLAGS = {
  dir: { type: "string" },
  tools: { type: "string" },
  resources: { type: "string" },
  prompts: { type: "string" },
  "pass-env": { type: "string", multiple: true },
  "allow-outside-symlinks": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, FlagSpec>;

/** Their lines in a command's help. */
export const DIR_FLAGS_HELP =
  `  --dir DIR                  The server directory (default: the working directory)
  --tools DIR                The tools folder, instead of DIR/tools
  --resources DIR            The resources folder, instead of DIR/resources
  --prompts DIR              The prompts folder, instead of DIR/prompts
  --pass-env NAME            Pass this environment variable on to executable tools
                             (repeatable)
  --allow-outside-symlinks   Load files that are symlinks to outside their folder
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

export interface OpenedServer {
  readonly folders: ServerFolders;
  readonly loaded: LoadedServer;
  readonly load: ServerLoadOptions;
}

/**
 * Loads the server directory the flags name, as serve would; on problems writes them (all
 * of them, as start-up does) and gives EXIT.failed instead.
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
  diagnostics: Diagnostics = ioDiagnostics(io),
  /** Takes the directory's problems instead of their being written (`check` reports them). */
  onProblems?: (problems: readonly string[]) => void,
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
  const folders = serverFolders(values);
  const load: ServerLoadOptions = {
    passEnv,
    maxOutputBytes: DEFAULTS.maxOutputBytes,
    maxPrograms: DEFAULTS.maxPrograms,
    maxResourceBytes: DEFAULTS.maxResourceBytes,
    allowOutsideSymlinks: values["allow-outside-symlinks"] === true,
    skipExecutables: false,
    diagnostics,
  };
  try {
    return { folders, loaded: await loadServerDir(folders, load), load };
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    if (onProblems !== undefined) onProblems(error.problems);
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

/** The request core over an opened directory, and the snapshot it serves. */
export interface LocalServer {
  readonly core: Core;
  readonly snapshot: Snapshot;
}

/**
 * The request core of the opened directory, built as main.ts builds it for `serve`, so that
 * a command sees exactly what a client sees. Its diagnostics (a tool's stack, a program's
 * stderr) go to the command's stderr.
 */
export function localServer(
  opened: OpenedServer,
  io: Io,
  options: { toolTimeoutMs?: number; diagnostics?: Diagnostics } = {},
): LocalServer {
  const registry = createRegistry(contentsOf(opened.loaded.tools.tools, opened.loaded));
  const core = createCore({
    registry,
    pageSize: DEFAULTS.pageSize,
    toolTimeoutMs: options.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs,
    diagnostics: options.diagnostics ?? ioDiagnostics(io),
  });
  return { core, snapshot: registry.current() };
}

/** The protocol version commands speak: stateless, every request self-contained. */
export const COMMAND_PROTOCOL_VERSION = "2026-07-28";

/** How a command's request presents itself to the core. */
export interface AskOptions {
  /** The client capabilities it declares (default: none). */
  readonly capabilities?: JsonObject;
  /** The least severe log level it wants notified. */
  readonly logLevel?: string;
  /** Asks for progress notifications under this token. */
  readonly progressToken?: string;
  /** Receives the notifications the request is sent (progress, log messages). */
  readonly notify?: (message: JsonObject) => void;
}

/**
 * Sends one 2026-07-28 request through the extractor and the core, as a line from a client
 * would go, and gives its JSON-RPC response (`result` or `error`), never throwing.
 */
export async function ask(
  core: Core,
  method: string,
  params: JsonObject,
  options: AskOptions = {},
): Promise<JsonObject> {
  const meta: JsonObject = {
    [META_PROTOCOL_VERSION]: COMMAND_PROTOCOL_VERSION,
    [META_CLIENT_CAPABILITIES]: options.capabilities ?? {},
    [META_CLIENT_INFO]: { name: `${SERVER_INFO.name}-cli`, version: SERVER_INFO.version },
  };
  if (options.logLevel !== undefined) meta[META_LOG_LEVEL] = options.logLevel;
  if (options.progressToken !== undefined) meta.progressToken = options.progressToken;
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { ...params, _meta: meta },
  });
  const incoming = extract(new TextEncoder().encode(line));
  if (incoming.kind === "rejected") {
    return { jsonrpc: "2.0", id: incoming.id, error: incoming.error };
  }
  if (incoming.kind !== "request") {
    throw new Error(`Cannot send ${method}: the extractor read it as a ${incoming.kind}`);
  }
  return await core.handle({
    request: incoming,
    controller: new AbortController(),
    closing: undefined,
    session: undefined,
    outlet: { notify: options.notify ?? (() => {}), outbound: undefined },
  });
}
