// toolshed: serves the tools, resources and prompts of a server directory to MCP clients
// over stdio, or over Streamable HTTP with --http.
//
//   deno run -A main.ts [serve] [--dir DIR] [--http HOST:PORT] [options]   (--help for options)
//   deno run -A main.ts list|call|check|new|config …                     (lib/commands/)
//   deno run -A --lock=DIR/deno.lock main.ts --dir DIR   (a directory of one's own: its own lock)
//
// main.ts only wires the stages; each one lives in lib/ with one concern.
import { type Options, parseCommand, STATE_KEY_ENV, usage } from "./lib/host/cli.ts";
import type { ListenAddress } from "./lib/host/listen_address.ts";
import { type Core, createCore } from "./lib/core/handle.ts";
import { createTasks, type Tasks } from "./lib/tasks/tasks.ts";
import { randomInstanceName } from "./lib/util/instance.ts";
import { createMemoryTaskStore } from "./lib/tasks/task_store.ts";
import { createMemoryBus } from "./lib/tasks/bus.ts";
import { createKeyRing, type KeyRing } from "./lib/rounds/key_ring.ts";
import { contentsOf, createRegistry, type Registry } from "./lib/primitives/registry.ts";
import { logError, showStacks, stderrDiagnostics, stderrLog } from "./lib/host/stderr_log.ts";
import { SERVER_INFO } from "./lib/wire/protocol.ts";
import { serve } from "./lib/transports/stdio/stdio.ts";
import { type HttpServer, serveHttp } from "./lib/transports/http/server.ts";
import { messageOf } from "./lib/util/json.ts";
import { guardProcess } from "./lib/host/process_guard.ts";
import { guardStdout } from "./lib/host/stdout_guard.ts";
import { DirectoryLoadError } from "./lib/discovery/load_error.ts";
import {
  type LoadedServer,
  loadServerDir,
  type ServerFolders,
  serverFolders,
  type ServerLoadOptions,
} from "./lib/discovery/server_dir.ts";
import { watchAndReload } from "./lib/discovery/reload.ts";
import { surveyServer } from "./lib/discovery/survey.ts";
import { chooseCommand, commandsHelp, type Entry } from "./lib/commands/table.ts";
import type { ByteSink } from "./lib/transports/stdio/writer.ts";

/** Serialized responses waiting for a slow reader, past which toolshed stops reading. */
const OUTPUT_BOUND_CHARS = 16 * 1024 * 1024;
/** With --watch, how long a 2026-07-28 client may cache a list: changes show within it. */
const WATCHED_LIST_TTL_MS = 5_000;
/** How long diagnostics may take to reach stderr before the process exits anyway. */
const FLUSH_STDERR_MS = 1_000;
/** Bytes of requests waiting for a free slot, past which toolshed stops reading. */
const WAITING_BOUND_BYTES = 1024 * 1024;

async function main(args: string[], exit: (code: number) => never): Promise<number> {
  const stdout = guardStdout();
  const choice = chooseCommand(args);
  switch (choice.kind) {
    case "unknown":
      logError(`${choice.message}\n(toolshed --help lists the commands)`);
      return 2;
    case "help":
      return await runCommand(choice.entry, ["--help"], stdout);
    case "command":
      return await runCommand(choice.entry, choice.args, stdout);
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

  // A compiled binary serves the folders embedded beside main.ts unless told otherwise.
  const base = Deno.build.standalone && options.dir === undefined
    ? new URL("./", import.meta.url)
    : undefined;
  const folders = serverFolders(options, base);
  // The files a compiled binary embeds are not on disk: no program among them can run.
  const embedded = base !== undefined && options.tools === undefined;
  const loadOptions: ServerLoadOptions = {
    passEnv: options.passEnv,
    maxOutputBytes: options.maxOutputBytes,
    maxPrograms: options.maxPrograms,
    maxResourceBytes: options.maxResourceBytes,
    allowOutsideSymlinks: options.allowOutsideSymlinks,
    skipExecutables: embedded,
    diagnostics: stderrDiagnostics,
  };
  let loaded: LoadedServer;
  try {
    loaded = await loadServerDir(folders, loadOptions);
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    logError(
      `Cannot start: ${error.problems.length} problem(s) in the server directory\n  ${
        error.problems.join("\n  ")
      }`,
    );
    return 1;
  }
  // What loads but is probably a mistake (a tool in a subdirectory, a ".tsx" module …).
  for (const warning of await surveyServer(folders, loaded)) logError(warning.message);
  const { skipped } = loaded.tools;
  if (skipped.length > 0) {
    logError(
      `Not serving the ${skipped.length} executable tool(s) embedded in this binary ` +
        `(${skipped.join(", ")}): a compiled binary cannot run programs it embeds; ` +
        `serve them from a directory on disk with --tools DIR`,
    );
  }
  const registry = createRegistry(contentsOf(loaded.tools.tools, loaded));
  if (options.watch) {
    if (base !== undefined) {
      logError(
        "Cannot watch: this compiled binary serves the folders embedded in it, which never " +
          "change; serve folders on disk with --dir DIR to watch them",
      );
      return 2;
    }
    watchAndReload({ folders, load: loadOptions, registry, diagnostics: stderrDiagnostics });
  }
  // Over HTTP, the name that begins the ids of sessions and tasks (instance.ts), chosen once.
  const instance = options.http ? options.instanceName ?? randomInstanceName() : undefined;
  let shared: Awaited<ReturnType<typeof sharedState>> | undefined;
  if (options.redis !== undefined) {
    try {
      shared = await sharedState(options.redis, options.stateSecret === undefined, instance);
    } catch (error) {
      logError(`Cannot start: ${messageOf(error)}`);
      return 1;
    }
  } else if (options.http) {
    if (options.stateSecret === undefined) {
      logError(
        `${STATE_KEY_ENV} is not set: the requestState of input_required answers is sealed ` +
          "with a random key of this process, which no other instance can open (set it to the " +
          "same secret on every instance behind a load balancer, or give them --redis)",
      );
    }
    if (loaded.tools.tools.some((tool) => tool.task !== undefined)) {
      logError(
        "Tasks are kept in this process's memory: no other instance can answer for them " +
          "(pass --redis URL to every instance behind a load balancer)",
      );
    }
  }
  const keyRing = shared?.keyRing ??
    (options.stateSecret === undefined
      ? undefined
      : createKeyRing([options.stateSecret, ...options.previousStateSecrets ?? []]));
  // The tasks that calls become (adr/0016): in Redis with --redis, else in this process.
  const tasks = shared?.tasks ??
    createTasks(createMemoryTaskStore(), createMemoryBus(), Date.now, instance);
  // At shutdown, tasks running here get the grace to end; the rest are failed, not left to
  // their lease.
  const drainTasks = () => tasks.drain(options.shutdownGraceMs);
  const core = createCore({
    tasks,
    keyRing,
    registry,
    pageSize: options.pageSize,
    toolTimeoutMs: options.toolTimeoutMs,
    diagnostics: stderrDiagnostics,
    listChanged: options.watch === true,
    listTtlMs: options.watch ? WATCHED_LIST_TTL_MS : undefined,
  });
  if (options.http) {
    announce(loaded, folders, "HTTP");
    return await serveOverHttp(
      { ...options, instanceName: instance },
      options.http,
      core,
      registry,
      exit,
      drainTasks,
      shared?.health,
    );
  }
  announce(loaded, folders, "stdio");
  if (Deno.stdin.isTerminal()) greet(loaded);

  const server = serve({
    input: Deno.stdin,
    output: stdout,
    core,
    maxMessageBytes: options.maxMessageBytes,
    shutdownGraceMs: options.shutdownGraceMs,
    outputBoundChars: OUTPUT_BOUND_CHARS,
    maxConcurrency: options.maxConcurrency,
    waitingBoundBytes: WAITING_BOUND_BYTES,
    diagnostics: stderrDiagnostics,
    registry: options.watch ? registry : undefined,
  });
  return await runUntilSignal(server, exit, drainTasks);
}

/**
 * Runs a subcommand: its result goes to stdout (which, guarded, nothing else in the process
 * can reach, so a tool's stray print cannot mix into it), diagnostics to stderr.
 */
async function runCommand(entry: Entry, args: string[], stdout: ByteSink): Promise<number> {
  const { command } = await entry.load();
  const out: string[] = [];
  const code = await command.run(args, {
    out: (text) => out.push(text),
    err: (text) => stderrLog.write(text),
    env: (name) => Deno.env.get(name),
    cwd: Deno.cwd(),
  });
  const bytes = new TextEncoder().encode(out.join(""));
  for (let written = 0; written < bytes.length;) {
    written += await stdout.write(bytes.subarray(written));
  }
  return code;
}

/**
 * Tasks kept in Redis at `url` and told between instances through it, and, when no
 * TOOLSHED_STATE_KEY is set, the requestState keys too (imported only here).
 */
async function sharedState(
  url: string,
  shareKeys: boolean,
  instance: string | undefined,
): Promise<
  { tasks: Tasks; keyRing: KeyRing | undefined; health: () => string | undefined }
> {
  const { connectRedis } = await import("./lib/redis/connection.ts");
  const { createRedisTaskStore } = await import("./lib/redis/task_store.ts");
  const { createRedisBus } = await import("./lib/redis/bus.ts");
  const { createRedisKeyRing } = await import("./lib/redis/key_ring.ts");
  const link = await connectRedis(url, stderrDiagnostics);
  const bus = await createRedisBus(link, stderrDiagnostics);
  return {
    tasks: createTasks(createRedisTaskStore(link), bus, Date.now, instance),
    keyRing: shareKeys ? createRedisKeyRing(link) : undefined,
    health: link.health,
  };
}

/** Serves the core on --http's address until a signal drains it; 1 if it cannot listen. */
async function serveOverHttp(
  options: Options,
  address: ListenAddress,
  core: Core,
  registry: Registry,
  exit: (code: number) => never,
  drainTasks: () => Promise<void>,
  degraded?: () => string | undefined,
): Promise<number> {
  let server: HttpServer;
  try {
    server = serveHttp({
      ...address,
      core,
      registry,
      bearerToken: options.bearerToken,
      logRequests: options.logRequests,
      instanceName: options.instanceName,
      allowedHosts: options.allowHosts ?? [],
      maxMessageBytes: options.maxMessageBytes,
      maxConcurrency: options.maxConcurrency,
      shutdownGraceMs: options.shutdownGraceMs,
      maxConnections: options.maxConnections,
      idleTimeoutMs: options.idleTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs,
      maxBodyBytes: options.maxBodyBytes,
      maxUnsentBytes: options.maxUnsentBytes,
      maxSessions: options.maxSessions,
      diagnostics: stderrDiagnostics,
      degraded,
    });
  } catch (error) {
    logError(`Cannot listen on "${address.hostname}" port ${address.port}: ${messageOf(error)}`);
    return 1;
  }
  logError(`listening on ${server.url}`);
  return await runUntilSignal(server, exit, drainTasks);
}

/**
 * Waits for a server to finish: its input ends (stdio), or a signal shuts it down, after
 * which the process exits 0 once stderr is flushed. A second signal exits 1 at once. The
 * tasks running here drain meanwhile, within the same grace.
 */
async function runUntilSignal(
  server: { done: Promise<void>; shutdown(reason: string): Promise<void> },
  exit: (code: number) => never,
  drainTasks: () => Promise<void>,
): Promise<number> {
  onTerminationSignal(exit, async (signal) => {
    await Promise.all([server.shutdown(`received ${signal}`), drainTasks()]);
    await stderrLog.flush(FLUSH_STDERR_MS);
    exit(0);
  });
  await server.done;
  await drainTasks();
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
  const count = (n: number, kind: string) => `${n} ${kind}${n === 1 ? "" : "s"}`;
  const parts: string[] = [];
  const part = (location: string | URL | undefined, counts: string) => {
    if (location !== undefined) parts.push(`${counts} from "${where(location)}"`);
  };
  if (loaded.tools.tools.length > 0) {
    part(folders.tools?.location, count(loaded.tools.tools.length, "tool"));
  }
  const resources = loaded.resources.length;
  const templates = loaded.templates.length;
  if (resources + templates > 0) {
    part(
      folders.resources?.location,
      templates === 0
        ? count(resources, "resource")
        : `${count(resources, "resource")} and ${count(templates, "template")}`,
    );
  }
  if (loaded.prompts.length > 0) {
    part(folders.prompts?.location, count(loaded.prompts.length, "prompt"));
  }
  stderrLog.write(
    `${SERVER_INFO.name} ${SERVER_INFO.version}: serving ${
      parts.length === 0 ? "nothing" : parts.join(", ")
    } over ${over}\n`,
  );
}

/** Tells a person who started the server in a terminal what it is and how to use it. */
function greet(loaded: LoadedServer): void {
  const names = [
    ...loaded.tools.tools.map((tool) => tool.name),
    ...loaded.prompts.map((prompt) => prompt.name),
  ];
  logError(
    `${names.length === 0 ? "" : `Names: ${names.join(", ")}\n`}This is an MCP server ` +
      "speaking JSON-RPC on stdin/stdout: connect a client (toolshed config CLIENT prints its\n" +
      "configuration), try a tool with toolshed call NAME, or type JSON-RPC lines here. " +
      "Ctrl+D quits.",
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

if (import.meta.main) {
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
  exit(code);
}
