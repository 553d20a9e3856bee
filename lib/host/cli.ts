// Command-line flags, parsed by lib/host/args.ts (node:util costs ~5 ms of start-up, adr/0008)
// from the rows of lib/settings/table.ts, checked by lib/settings/rules.ts.
import { type FlagSpec, parseArgs } from "./args.ts";
import { LOG_FORMATS, type LogFormat } from "./log_lines.ts";
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import {
  type Given,
  type OAuthFlags,
  type Row,
  ROWS,
  type SettingKey,
  type Settings,
} from "../settings/table.ts";
import { brokenRule, needsMet } from "../settings/rules.ts";

/** What the command line says: the settings it gives (createServer applies the defaults). */
export type Options = Settings;

export type Command =
  | { kind: "serve"; options: Options }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "usage-error"; message: string }
  /** Flags that parse but must not run together as given: one line, exit 2, no usage. */
  | { kind: "refused"; message: string };

/** The help of toolshed and of serve; `commands` lists the subcommands (lib/commands/). */
export function usage(commands: string): string {
  return `Usage: toolshed [serve] [options]
       toolshed COMMAND [options]     (toolshed COMMAND --help for its options)

Serves the tools, resources and prompts of a server directory to MCP clients over stdio
(newline-delimited JSON-RPC), or over Streamable HTTP with --http.

Commands:
${commands}

Options of serve:
${helpOf(ROWS.filter((row) => row.flag !== undefined))}
  -h, --help                 Show this help
  -V, --version              Show the version

Environment:
${helpOf(ROWS.filter((row) => row.flag === undefined))}`;
}

/** Where help text begins on each line (after the flag or the variable). */
const HELP_COLUMN = 29;
/** How wide the help's lines are. */
const HELP_WIDTH = 92;

/** What the help names a row by: `--flag VALUE`, `-v, --verbose`, or its variable. */
export function labelOf(row: Row<unknown>): string {
  if (row.label !== undefined) return row.label;
  if (row.flag === undefined) return row.env!;
  return `${row.short === undefined ? "" : `-${row.short}, `}--${row.flag}${
    row.value === undefined ? "" : ` ${row.value}`
  }`;
}

/**
 * The help of these rows, each its label and its lines in a column; a label too long for the
 * column is followed by one space, or, if its first line would then not fit, by a line break.
 */
export function helpOf(
  rows: readonly Row<unknown>[],
  linesOf: (row: Row<unknown>) => readonly string[] = (row) => row.help,
): string {
  const out: string[] = [];
  for (const row of rows) {
    const lines = linesOf(row).map((line) => line.replace("{default}", String(row.default)));
    if (lines.length === 0) continue;
    const head = `  ${labelOf(row)}`;
    const indent = " ".repeat(HELP_COLUMN);
    if (head.length < HELP_COLUMN) out.push(head.padEnd(HELP_COLUMN) + lines[0]);
    else if (head.length + 1 + lines[0].length <= HELP_WIDTH) out.push(`${head} ${lines[0]}`);
    else out.push(head, indent + lines[0]);
    for (const line of lines.slice(1)) out.push(indent + line);
  }
  return out.join("\n");
}

/** How parseArgs reads a row's flag. */
function flagSpecOf(row: Row<unknown>): FlagSpec {
  return {
    type: row.type.takes === "switch" ? "boolean" : "string",
    ...(row.short === undefined ? {} : { short: row.short }),
    ...(row.type.takes === "many" ? { multiple: true } : {}),
  };
}

/** The flags parseArgs knows, by their names without the dashes: a row's each, -h and -V. */
export const FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...Object.fromEntries(
    ROWS.flatMap((row) => row.flag === undefined ? [] : [[row.flag, flagSpecOf(row)]]),
  ),
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
};

/**
 * Reads the command line; `env` reads the environment ($TOOLSHED_STATE_KEY, $OTEL_DENO, and
 * $TOOLSHED_HTTP_TOKEN only with --http): every row's value, then the rules between them.
 */
export function parseCommand(
  args: string[],
  env: (name: string) => string | undefined = () => undefined,
): Command {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args, options: FLAGS }));
  } catch (error) {
    return { kind: "usage-error", message: withSuggestion(messageOf(error)) };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  // What each row's type read, typed by the row (Given) once the loop is over.
  const read: Partial<Record<SettingKey, unknown>> = {};
  const given = read as Given;
  for (const row of ROWS) {
    let raw: readonly string[] | undefined;
    if (row.flag !== undefined) {
      const value = values[row.flag];
      raw = value === undefined ? undefined : typeof value === "boolean" ? [] : [value].flat();
    } else if (needsMet(row.needs, given)) {
      const value = env(row.env!);
      raw = value === undefined ? undefined : [value];
    }
    if (raw === undefined) continue;
    const parsed = row.type.parse(raw, row.flag === undefined ? row.env! : `--${row.flag}`);
    if ("problem" in parsed) {
      // A flag's mistake is a usage error; the environment's, a refusal to start.
      return { kind: row.flag === undefined ? "refused" : "usage-error", message: parsed.problem };
    }
    // A switch that is off (OTEL_DENO=false) is not given.
    if (parsed.value !== false) read[row.key] = parsed.value;
  }
  const refusal = brokenRule(given, (flag) => {
    const value = values[flag];
    return typeof value === "string" ? value : undefined;
  });
  if (refusal !== undefined) return refusal;
  return { kind: "serve", options: settingsOf(given) };
}

/** The settings the rows' values make: a group's rows make one field (`oauth`, `stateKeys`). */
function settingsOf(given: Given): Settings {
  const settings: Record<string, unknown> = {};
  for (const row of ROWS) {
    if (row.group === undefined && given[row.key] !== undefined) settings[row.key] = given[row.key];
  }
  if (given.issuer !== undefined) settings.oauth = oauthOf(given);
  if (given.stateSecret !== undefined) {
    settings.stateKeys = [given.stateSecret, ...given.previousStateSecrets ?? []];
  }
  return settings as Settings;
}

/** What the OAuth rows make (ServerConfig.oauth), given --auth-issuer. */
function oauthOf(given: Given): OAuthFlags {
  const { publicUrl, scopes, lists, introspectionClientId, introspectionClientSecret } = given;
  return {
    issuer: given.issuer!,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(lists === undefined ? {} : { lists }),
    ...(introspectionClientId === undefined ? {} : {
      introspection: { clientId: introspectionClientId, clientSecret: introspectionClientSecret! },
    }),
  };
}

/** parseArgs's message, with the flag meant when an unknown one is a typo of it. */
function withSuggestion(message: string): string {
  const unknown = /^Unknown option ['"]--?([^'"]+)['"]/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const meant = closest(unknown, Object.keys(FLAGS));
  return meant === undefined ? message : `${message}; did you mean --${meant}?`;
}

/**
 * The --log-format the arguments ask for, read before anything else so that even a mistake in
 * them is said in that format: "text" when none, undefined when the value is not a format (the
 * parse says so). The last one given wins, as in the parse.
 */
export function requestedLogFormat(args: readonly string[]): LogFormat | undefined {
  let named: string | undefined = "text";
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if (args[i] === "--log-format") named = args[++i];
    else if (args[i].startsWith("--log-format=")) named = args[i].slice("--log-format=".length);
  }
  return named === undefined ? undefined : logFormatNamed(named);
}

function logFormatNamed(name: string): LogFormat | undefined {
  return (LOG_FORMATS as readonly string[]).includes(name) ? name as LogFormat : undefined;
}
