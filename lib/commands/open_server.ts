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
export const DIR_FLAGS_HELP = `  --dir DIR                  The server directory (default: the working directory)
  --tools DIR                The tools folder, instead of DIR/tools
  --resources DIR            The resources folder, instead of DIR/resources
  --prompts DIR              The prompts folder, instead of DIR/prompts
  --pass-env NAME            Pass this environment variable on to executable tools
                             (repeatable)
  --allow-outside-symlinks   Load files that are symlinks to outside their folder
  -h, --help                 Show this help`;

/**
 * Parses a command's arguments (its own flags besides DIR_FLAGS), or writes the usage
 * error, with the flag meant when one is mistyped, and gives the exit code.
 */
export function parseCommandArgs<Specs extends Record<string, FlagSpec>>(
  args: string[],
  flags: Specs,
  io: Io,
  name: string,
) {
  try {
    return parseArgs({ args, options: flags, allowPositionals: true });
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
    diagnostics,
  };
  try {
    return { folders, loaded: await loadServerDir(folders, load), load };
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    io.err(
      `toolshed: ${error.problems.length} problem(s) in the server directory\n  ${
        error.problems.join("\n  ")
      }\n`,
    );
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
