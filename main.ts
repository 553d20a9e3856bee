// toolshed: serves the tools, resources and prompts of a server directory to MCP clients
// over stdio, or over Streamable HTTP with --http.
//
//   deno run -A main.ts [serve] [--dir DIR] [--http HOST:PORT] [options]   (--help for options)
//   deno run -A main.ts list|call|check|new|config …                     (lib/commands/)
//   deno run -A --lock=DIR/deno.lock main.ts --dir DIR   (a directory of one's own: its own lock)
//
// main.ts is the process: flags, signals, stderr; lib/server/create_server.ts puts the
// server together, as it does for tests, commands and benches.
import { type Options, parseCommand, requestedLogFormat, usage } from "./lib/host/cli.ts";
import type { ListenAddress } from "./lib/settings/values.ts";
import {
  logError,
  logInfo,
  logWarning,
  setLogFormat,
  showStacks,
  stderrDiagnostics,
  stderrLog,
  writeRecord,
} from "./lib/host/stderr_log.ts";
import { guardProcess } from "./lib/host/process_guard.ts";
import { guardStdout } from "./lib/host/stdout_guard.ts";
import { createServer, type Server } from "./lib/server/create_server.ts";
import { SERVER_INFO } from "./lib/wire/protocol.ts";
import type { HttpServer } from "./lib/transports/http/server.ts";
import type { ByteSink } from "./lib/transports/stdio/writer.ts";
import { messageOf } from "./lib/util/json.ts";
import { DirectoryLoadError } from "./lib/discovery/load_error.ts";
import type { LoadedServer, ServerFolders } from "./lib/discovery/server_dir.ts";
import { KINDS } from "./lib/discovery/kinds.ts";
import { chooseCommand, commandsHelp, type Entry } from "./lib/commands/table.ts";
import { CODE_RUNNER_COMMAND } from "./lib/code/runner_command.ts";

/** How long diagnostics may take to reach stderr before the process exits anyway. */
const FLUSH_STDERR_MS = 1_000;

async function main(args: string[], exit: (code: number) => never): Promise<number> {
  const stdout = guardStdout();
  const choice = chooseCommand(args);
  // The log's format is known before anything is said, a mistake in the arguments included;
  // a format that is not one is that mistake, said for people.
  if (choice.kind === "serve") {
    const format = requestedLogFormat(choice.args);
    if (format === "json") {
      setLogFormat(format);
      // What a tool module prints with console.* becomes lines of JSON too.
      const { consoleAsRecords } = await import("./lib/host/json_console.ts");
      consoleAsRecords();
    }
  }
  switch (choice.kind) {
    case "unknown":
      logError(`${choice.message}\n(toolshed --help lists the commands)`);
      return 2;
    case "help":
      return await runCommand(choice.entry, ["--help"], stdout, exit);
    case "command":
      return await runCommand(choice.entry, choice.args, stdout, exit);
  }
  const command = parseCommand(choice.args, (name) => Deno.env.get(name));
  switch (command.kind) {
    case "help":
      // deno-lint-ignore no-console
      console.error(usage(commandsHelp()));
      return 0;
    case "version":
      // deno-lint-ignore no-console
      console.error(`${SERVER_INFO.name} ${SERVER_INFO.version}`);
      return 0;
    case "usage-error":
      logError(`${command.message}\n(toolshed --help lists every option)`);
      return 2;
    case "refused":
      logError(command.message);
      return 2;
  }
  const { options } = command;
  showStacks(options.verbose === true);

  // A compiled binary serves the folders embedded beside its entry module unless told
  // otherwise: main.ts for `deno task compile`, the entry `toolshed publish` generates in a
  // staging directory beside copies of the server directory's folders (adr/0049).
  const embedded = Deno.build.standalone && options.dir === undefined
    ? new URL("./", Deno.mainModule)
    : undefined;
  if (options.watch && embedded !== undefined) {
    logError(
      "Cannot watch: this compiled binary serves the folders embedded in it, which never " +
        "change; serve folders on disk with --dir DIR to watch them",
    );
    return 2;
  }
  let server: Server;
  try {
    server = await createServer({
      ...options,
      embedded,
      // The files a compiled binary embeds are not on disk: no program among them can run.
      skipExecutables: embedded !== undefined && options.tools === undefined,
      // The settings go as the flags gave them; `http` says whether the server is reached over
      // HTTP (--http's address is where serveOverHttp listens).
      http: options.http !== undefined,
      diagnostics: stderrDiagnostics,
    });
  } catch (error) {
    if (error instanceof DirectoryLoadError) {
      logError(
        `Cannot start: ${error.problems.length} problem(s) in the server directory\n  ${
          error.problems.join("\n  ")
        }`,
        undefined,
        { problems: error.problems.length },
      );
    } else logError(`Cannot start: ${messageOf(error)}`);
    return 1;
  }
  const { loaded, folders } = server;
  if (server.metrics !== undefined) {
    logInfo(`metrics on ${server.metrics.url}`, { url: server.metrics.url });
  }
  // What loads but is probably a mistake (a tool in a subdirectory, a ".tsx" module …).
  const { surveyServer } = await import("./lib/discovery/survey.ts");
  for (const warning of surveyServer(folders!, loaded)) logWarning(warning.message);
  const { skipped } = loaded.tools;
  if (skipped.length > 0) {
    logWarning(
      `Not serving the ${skipped.length} executable tool(s) embedded in this binary ` +
        `(${skipped.join(", ")}): a compiled binary cannot run programs it embeds; ` +
        `serve them from a directory on disk with --tools DIR`,
    );
  }
  if (options.http) {
    announce(loaded, folders!, "HTTP");
    return await serveOverHttp(server, options, options.http, exit);
  }
  announce(loaded, folders!, "stdio");
  if (Deno.stdin.isTerminal()) await greet(loaded);
  return await runUntilSignal(
    server.serveStdio({ input: Deno.stdin, output: stdout }),
    exit,
    server,
  );
}

/**
 * Runs a subcommand: its result goes to stdout (which, guarded, nothing else in the process
 * can reach, so a tool's stray print cannot mix into it), diagnostics to stderr.
 */
async function runCommand(
  entry: Entry,
  args: string[],
  stdout: ByteSink,
  exit: (code: number) => never,
): Promise<number> {
  const { command } = await entry.load();
  const out: string[] = [];
  // A command that runs until stopped asks for this; only then do signals stop being fatal.
  let stop: AbortController | undefined;
  const code = await command.run(args, {
    out: (text) => out.push(text),
    err: (text) => stderrLog.write(text),
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
    stopped() {
      if (stop === undefined) {
        const controller = stop = new AbortController();
        onTerminationSignal(exit, (signal) => controller.abort(signal));
      }
      return stop.signal;
    },
  });
  const bytes = new TextEncoder().encode(out.join(""));
  for (let written = 0; written < bytes.length;) {
    written += await stdout.write(bytes.subarray(written));
  }
  return code;
}

/** Serves on --http's address until a signal drains it; 1 if it cannot listen. */
async function serveOverHttp(
  server: Server,
  options: Options,
  address: ListenAddress,
  exit: (code: number) => never,
): Promise<number> {
  let http: HttpServer;
  try {
    // The HTTP settings are the server's (createServer took them from the flags).
    http = server.serveHttp({ ...address });
  } catch (error) {
    logError(`Cannot listen on "${address.hostname}" port ${address.port}: ${messageOf(error)}`);
    return 1;
  }
  logInfo(`listening on ${http.url}`, { url: http.url });
  if (options.oauth !== undefined) {
    logInfo(`callers sign in with OAuth: access tokens from ${options.oauth.issuer}`, {
      issuer: options.oauth.issuer,
    });
  }
  return await runUntilSignal(http, exit, server);
}

/**
 * Waits for a server to finish: its input ends (stdio), or a signal shuts it down, after
 * which the process exits 0 once stderr is flushed. A second signal exits 1 at once. The
 * tasks running here drain meanwhile, within the same grace.
 */
async function runUntilSignal(
  served: { done: Promise<void>; shutdown(reason: string): Promise<void> },
  exit: (code: number) => never,
  server: Server,
): Promise<number> {
  onTerminationSignal(exit, async (signal) => {
    await Promise.all([served.shutdown(`received ${signal}`), server.drainTasks()]);
    await server.close(); // metrics, Redis, mounted upstreams
    await stderrLog.flush(FLUSH_STDERR_MS);
    exit(0);
  });
  await served.done;
  await server.drainTasks();
  await server.close();
  return 0;
}

/**
 * The one line every start prints on stderr: what is served, how many of each, from where,
 * and over what. In a terminal, a second line says what to do next.
 */
function announce(loaded: LoadedServer, folders: ServerFolders, over: string): void {
  const where = (location: string | URL) => {
    if (typeof location !== "string") return decodeURIComponent(location.pathname);
    return location.startsWith("/") ? location : `${Deno.cwd()}/${location}`;
  };
  const parts: string[] = [];
  const fields: Record<string, number> = {};
  for (const kind of KINDS) {
    const { said, fields: its } = kind.count(loaded);
    const location = folders[kind.folder]?.location;
    if (said !== undefined && location !== undefined) {
      parts.push(`${said} from "${where(location)}"`);
    }
    Object.assign(fields, its);
  }
  writeRecord({
    level: "info",
    message: `${SERVER_INFO.name} ${SERVER_INFO.version}: serving ${
      parts.length === 0 ? "nothing" : parts.join(", ")
    } over ${over}`,
    plain: true,
    fields: {
      version: SERVER_INFO.version,
      ...fields,
      transport: over,
    },
  });
}

/** Tells a person who started the server in a terminal what it is and how to use it. */
async function greet(loaded: LoadedServer): Promise<void> {
  const names = [
    ...loaded.tools.tools.map((tool) => tool.name),
    ...loaded.prompts.map((prompt) => prompt.name),
  ];
  // The command as this person types it (a clone's task, a binary, a URL): only in a terminal.
  const { commandLine } = await import("./lib/commands/invocation.ts");
  const toolshed = commandLine();
  logInfo(
    `${names.length === 0 ? "" : `Names: ${names.join(", ")}\n`}This is an MCP server ` +
      "speaking JSON-RPC on stdin/stdout: type JSON-RPC lines here (Ctrl+D quits), or\n" +
      `  ${toolshed} config CLIENT   prints a client's configuration\n` +
      `  ${toolshed} call NAME       calls a tool as a client would`,
  );
}

function onTerminationSignal(
  exit: (code: number) => never,
  handler: (signal: Deno.Signal) => void,
): void {
  let received = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    try {
      Deno.addSignalListener(signal, () => {
        if (received) exit(1); // a second signal: stop now
        received = true;
        handler(signal);
      });
    } catch {
      // Not every platform supports every signal (Windows has no SIGTERM listener).
    }
  }
}

/**
 * Runs toolshed as a process (flags from Deno.args) and exits with its code. The entry module
 * `toolshed publish` compiles calls it, so that the binary serves the folders beside that entry.
 */
export async function start(): Promise<never> {
  // A child of code mode's sandbox, as a compiled toolshed starts one (lib/code/sandbox.ts): a
  // hidden subcommand, never a person's; the runner revokes every permission before it reads.
  if (Deno.args[0] === CODE_RUNNER_COMMAND) {
    const { runSandboxChild } = await import("./lib/code/sandbox_runner.ts");
    await runSandboxChild(Deno);
    return Deno.exit(0);
  }
  const exit = guardProcess();
  // The process guard logs and survives unhandled rejections, so a fault of the server's
  // own must be caught here, or the process would end quietly with 0.
  let code: number;
  try {
    code = await main(Deno.args, exit);
  } catch (error) {
    logError("Cannot go on: the server itself failed", error);
    code = 1;
  }
  await stderrLog.flush(FLUSH_STDERR_MS);
  return exit(code);
}

if (import.meta.main) await start();
