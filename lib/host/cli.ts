// Command-line flags, parsed by lib/host/args.ts (node:util costs ~5 ms of start-up, adr/0008).
import { parseArgs } from "./args.ts";
import { MAX_TIMER_MS, messageOf } from "../util/json.ts";
import { ENV_NAME, MAX_OUTPUT_BYTES } from "../programs/executable.ts";
import { MAX_PROGRAMS } from "../programs/program_slots.ts";

export interface Options {
  /** The tools directory as given, or undefined for the default. */
  tools: string | undefined;
  maxMessageBytes: number;
  pageSize: number;
  toolTimeoutMs: number;
  shutdownGraceMs: number;
  /** Requests that may run at once; more wait their turn. */
  maxConcurrency: number;
  /** Most bytes an executable tool may print on stdout in one call. */
  maxOutputBytes: number;
  /** Most executable-tool programs alive at once, running or stopping; more calls wait. */
  maxPrograms: number;
  /** Environment variables passed through to every executable tool (when set). */
  passEnv: readonly string[];
  /** Serve executables and sidecars that are symlinks to files outside the tools directory. */
  allowOutsideSymlinks: boolean;
}

export type Command =
  | { kind: "serve"; options: Options }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "usage-error"; message: string };

export const DEFAULTS = {
  maxMessageBytes: 4 * 1024 * 1024,
  pageSize: 100,
  toolTimeoutMs: 60_000,
  shutdownGraceMs: 5_000,
  maxConcurrency: 64,
  maxOutputBytes: MAX_OUTPUT_BYTES,
  maxPrograms: MAX_PROGRAMS,
  passEnv: [],
  allowOutsideSymlinks: false,
} as const;

export const USAGE = `Usage: toolshed [options]

Serves every tool in a directory to MCP clients over stdio (newline-delimited JSON-RPC).

Options:
  --tools DIR                The tools directory (default: ./tools; in a compiled
                             binary, the tools embedded at compile time)
  --max-message-bytes N      Longest accepted input line, in bytes (default: ${DEFAULTS.maxMessageBytes})
  --page-size N              Tools per tools/list page (default: ${DEFAULTS.pageSize})
  --tool-timeout MS          Time a tool call may run unless the tool sets timeoutMs
                             (default: ${DEFAULTS.toolTimeoutMs})
  --shutdown-grace MS        Time in-flight requests may finish after input ends or on
                             SIGTERM/SIGINT (default: ${DEFAULTS.shutdownGraceMs})
  --max-concurrency N        Requests that may run at once; more wait their turn
                             (default: ${DEFAULTS.maxConcurrency})
  --max-output-bytes N       Most bytes an executable tool may print on stdout in one
                             call (default: ${DEFAULTS.maxOutputBytes})
  --max-programs N           Executable-tool programs alive at once (running, or stopping
                             after a cancel or timeout); more calls wait their turn
                             (default: ${DEFAULTS.maxPrograms})
  --pass-env NAME            Pass this environment variable on to executable tools
                             (repeatable; PATH, HOME, LANG, LC_ALL, TZ, TMPDIR always are)
  --allow-outside-symlinks   Serve executables and sidecars that are symlinks to files
                             outside the tools directory
  -h, --help                 Show this help
  -V, --version              Show the version`;

/** Numeric flags are timers or sizes; setTimeout's limit bounds them all. */
export const MAX_FLAG_VALUE = MAX_TIMER_MS;

const NUMERIC_FLAGS = {
  "max-message-bytes": "maxMessageBytes",
  "page-size": "pageSize",
  "tool-timeout": "toolTimeoutMs",
  "shutdown-grace": "shutdownGraceMs",
  "max-concurrency": "maxConcurrency",
  "max-output-bytes": "maxOutputBytes",
  "max-programs": "maxPrograms",
} as const;

export function parseCommand(args: string[]): Command {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        tools: { type: "string" },
        "max-message-bytes": { type: "string" },
        "page-size": { type: "string" },
        "tool-timeout": { type: "string" },
        "shutdown-grace": { type: "string" },
        "max-concurrency": { type: "string" },
        "max-output-bytes": { type: "string" },
        "max-programs": { type: "string" },
        "pass-env": { type: "string", multiple: true },
        "allow-outside-symlinks": { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    }));
  } catch (error) {
    return { kind: "usage-error", message: messageOf(error) };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  if (values.tools === "") {
    return { kind: "usage-error", message: "--tools needs a directory" };
  }
  const options: Options = { tools: values.tools, ...DEFAULTS };
  for (const [flag, key] of Object.entries(NUMERIC_FLAGS)) {
    const raw = values[flag as keyof typeof NUMERIC_FLAGS];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < 1 || value > MAX_FLAG_VALUE) {
      return {
        kind: "usage-error",
        message:
          `Invalid value for --${flag}: "${raw}" is not an integer from 1 to ${MAX_FLAG_VALUE}`,
      };
    }
    options[key] = value;
  }
  const passEnv = values["pass-env"] ?? [];
  const badName = passEnv.find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) {
    return {
      kind: "usage-error",
      message: `Invalid value for --pass-env: "${badName}" is not an environment variable name`,
    };
  }
  if (passEnv.length > 0) options.passEnv = passEnv;
  if (values["allow-outside-symlinks"]) options.allowOutsideSymlinks = true;
  return { kind: "serve", options };
}
