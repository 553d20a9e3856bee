// Test helper: the server in this process, built by createServer exactly as main.ts builds it
// (the same flags parser, loader, composition and stdio transport), with input and output in
// memory instead of stdin and stdout, and diagnostics recorded instead of printed. A
// transcript runs here in milliseconds; what only a real process has (exit codes,
// signals, the stdout and process guards of lib/host/) is left to tests/_server_process.ts.
import { parseCommand } from "../lib/host/cli.ts";
import { resolveSettings } from "../lib/settings/rules.ts";
import { OUTPUT_BOUND_CHARS, WAITING_BOUND_BYTES } from "../lib/transports/stdio/stdio.ts";
import {
  createServer,
  type Server as ComposedServer,
  type ServerConfig,
} from "../lib/server/create_server.ts";
import type { OtherPrimitives, Registry } from "../lib/primitives/registry.ts";
import type { ByteSource, Server } from "../lib/transports/stdio/stdio.ts";
import type { ByteSink } from "../lib/transports/stdio/writer.ts";
import { type LoadedTools, type LoadOptions, loadTools } from "../lib/discovery/tools_dir.ts";
import {
  type LoadedServer,
  loadServerDir,
  type ServerLoadOptions,
} from "../lib/discovery/server_dir.ts";
import type { ToolSet } from "../lib/primitives/tools.ts";
import type { Diagnostics } from "../lib/util/diagnostics.ts";
import { type Recorder, recorder } from "./_diagnostics.ts";
import { collector, feed } from "./_memory_streams.ts";
import { FIXTURE_TOOLS, withHangGuard } from "./_server_process.ts";

/** The settings a server has when nothing is said. */
const DEFAULTS = resolveSettings({});

export { OUTPUT_BOUND_CHARS, WAITING_BOUND_BYTES };

/**
 * Fixture tools (tests/fixtures/tools/) that must not be called inside a test process:
 * only main.ts's process and stdout guards (lib/host/) tame them.
 */
export const NOT_IN_PROCESS: ReadonlySet<string> = new Set([
  "quitter", // calls Deno.exit: only the process guard turns that into an isError result
  "careless", // throws from a timer, closes Deno.stdout and writes to descriptor 1
  "chatty", // prints to the test runner's stdout
]);

/** What main.ts's flags and constants set, for serveTools(). */
export interface Settings {
  pageSize: number;
  toolTimeoutMs: number;
  maxMessageBytes: number;
  shutdownGraceMs: number;
  maxConcurrency: number;
  outputBoundChars: number;
  waitingBoundBytes: number;
}

/** What main.ts sets when given no flags. */
export const DEFAULT_SETTINGS: Settings = {
  pageSize: DEFAULTS.pageSize,
  toolTimeoutMs: DEFAULTS.toolTimeoutMs,
  maxMessageBytes: DEFAULTS.maxMessageBytes,
  shutdownGraceMs: DEFAULTS.shutdownGraceMs,
  maxConcurrency: DEFAULTS.maxConcurrency,
  outputBoundChars: OUTPUT_BOUND_CHARS,
  waitingBoundBytes: WAITING_BOUND_BYTES,
};

/** What a harness may set of the server: any option of createServer but the primitives. */
export type HarnessConfig = Omit<ServerConfig, "primitives">;

/**
 * The one door of the test harnesses (serveTools, serveForTest, startInProcess): createServer,
 * given the whole configuration, with the harness's troubles recorded unless it names a place.
 * There is no other way in, so an option a test sets reaches the server as the same option
 * reaches main.ts's (tests/create_server_test.ts sets each one and sees its effect).
 */
export function composeForTest(config: ServerConfig): Promise<ComposedServer> {
  return createServer({ diagnostics: recorder(), ...config });
}

/**
 * The server of `tools` (and `others`), reading `io.input` and writing `io.output`, as
 * createServer composes it for main.ts, with main.ts's defaults unless `config` says otherwise,
 * reporting to `diagnostics`; `listChanged` says lists may change (a test swaps the server's
 * registry to reload). `composed` is what createServer built.
 */
export async function serveTools(
  tools: ToolSet,
  io: { input: ByteSource; output: ByteSink },
  config: HarnessConfig = {},
  diagnostics: Diagnostics = recorder(),
  others: OtherPrimitives = {},
  listChanged = false,
): Promise<Server & { registry: Registry; composed: ComposedServer }> {
  const composed = await composeForTest({
    ...DEFAULT_SETTINGS,
    diagnostics,
    listChanged,
    ...config,
    primitives: { ...others, tools: tools.tools },
  });
  return { ...composed.serveStdio(io), registry: composed.registry, composed };
}

export interface InProcessServer {
  /** Sends one line (the newline is added). */
  send(line: string): void;
  /** Sends raw bytes. */
  sendBytes(bytes: Uint8Array): void;
  /** The next line the server writes, or null once it is done and has written everything. */
  nextLine(): Promise<string | null>;
  /** Ends input and waits until the server is done; the lines not yet read, and what it reported. */
  end(): Promise<{ rest: string[]; diagnostics: Recorder }>;
  /** Everything the server reported so far (what main.ts would print on stderr). */
  readonly diagnostics: Recorder;
  /** With --watch: resolves once the reload a change started is over. */
  reloaded(): Promise<void>;
}

/**
 * Starts the server as `main.ts <flags>` would, serving tests/fixtures/tools unless the
 * flags name `--tools` or `--dir`.
 */
export async function startInProcess(flags: readonly string[] = []): Promise<InProcessServer> {
  const args = flags.includes("--tools") || flags.includes("--dir")
    ? [...flags]
    : ["--tools", FIXTURE_TOOLS, ...flags];
  const command = parseCommand(args);
  if (command.kind !== "serve") {
    throw new Error(`Not flags to serve with: ${args.join(" ")} (${JSON.stringify(command)})`);
  }
  const { options } = command;
  const diagnostics = recorder();
  const server = await quietly(
    diagnostics,
    () => composeForTest({ ...options, http: false, diagnostics }),
  );
  const input = feed();
  const output = collector();
  const done = server.serveStdio({ input, output }).done.finally(() => {
    server.close();
    output.close();
  });
  return {
    send: (line) => input.push(line + "\n"),
    sendBytes: (bytes) => input.push(bytes),
    nextLine: () => output.nextLine(),
    async end() {
      input.end();
      await withHangGuard(done, "the end of input");
      return { rest: output.drain(), diagnostics };
    },
    diagnostics,
    reloaded: () => server.reloaded(),
  };
}

/**
 * Loads a tools directory as loadTools() does, with the console of the tool modules
 * recorded as forwarded text instead of printed (as main.ts sends it to stderr). A module
 * runs, and prints, only at its first import in an isolate (each test module has its own).
 */
export function loadQuietly(
  dir: string | URL,
  options: Partial<LoadOptions> & Pick<LoadOptions, "diagnostics">,
): Promise<LoadedTools> {
  return quietly(options.diagnostics, () => loadTools(dir, options));
}

/** Loads a server directory as main.ts does, with the console of its modules recorded. */
export function loadServerQuietly(
  folders: Parameters<typeof loadServerDir>[0],
  options: ServerLoadOptions,
): Promise<LoadedServer> {
  return quietly(options.diagnostics, () => loadServerDir(folders, options));
}

async function quietly<T>(diagnostics: Diagnostics, load: () => Promise<T>): Promise<T> {
  const methods = ["log", "info", "debug", "warn", "error", "dir", "dirxml", "table", "trace"];
  const saved = new Map(methods.map((name) => [name, Reflect.get(console, name)]));
  for (const name of methods) {
    Reflect.set(console, name, (...data: unknown[]) => {
      const text = data.map((item) => typeof item === "string" ? item : Deno.inspect(item));
      diagnostics.forward(`${text.join(" ")}\n`, 1, "the console of a tool module");
    });
  }
  try {
    return await load();
  } finally {
    for (const [name, method] of saved) Reflect.set(console, name, method);
  }
}
