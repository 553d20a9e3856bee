// toolshed dev: the author's loop. The server directory is served with hot reload over HTTP on
// 127.0.0.1 only, through the same createServer every transport uses, and never restarted: an
// edit is reloaded in place (a bad one refused, the last good version kept), so a connected
// client (the page, the MCP Inspector) keeps its connection. `check` runs at start and after
// each save, its findings on stderr and on the page. Routes, one origin:
//
//   GET /            the page (dev_page.ts)
//   *   /mcp         the MCP endpoint, as `toolshed --http` serves it (and the rest of what it
//                    serves: /mcp/server-card, /healthz, /readyz; anything else 404)
//   GET /dev/events  text/event-stream of `checked` and `reloaded` (dev_events.ts)
//   GET /dev/state   where it serves from, its version and the last check
import { EXIT, type Io } from "./command.ts";
import {
  DIR_FLAGS,
  DIR_FLAGS_HELP,
  ioDiagnostics,
  openServer,
  parseCommandArgs,
} from "./open_server.ts";
import { checkDirectory, type Checked, report } from "./check.ts";
import { createDevEvents } from "./dev_events.ts";
import { checkLoop } from "./dev_checks.ts";
import { INSPECTOR_ENV, INSPECTOR_VERSION, launchInspector } from "./dev_inspector.ts";
import { devRoutes, text } from "./dev_routes.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { messageOf } from "../util/json.ts";
import { SERVER_INFO } from "../wire/protocol.ts";

/** Where dev listens when --port does not say. */
const DEFAULT_PORT = 6280;
/** The only address dev listens on. */
const LOOPBACK = "127.0.0.1";

export const USAGE = `Usage: toolshed dev [--dir DIR] [--port N] [--inspector] [--no-types]

Serves the server directory for its author, on ${LOOPBACK} only: the MCP endpoint at /mcp
(as toolshed --http serves it, both protocol eras), and a page at / that lists what is served
and shows the findings of check. Each save is reloaded in place (a bad edit is refused and the
last good version kept; the server never restarts, so connections live on), and check runs
again, its findings on stderr. Runs until Ctrl+C (SIGINT) or SIGTERM.

Options:
${DIR_FLAGS_HELP}
  --port N                   The port on ${LOOPBACK} (default: ${DEFAULT_PORT}; 0 picks a free one)
  --inspector                Start the official MCP Inspector (npx -y
                             @modelcontextprotocol/inspector@${INSPECTOR_VERSION}, or the command
                             ${INSPECTOR_ENV} names) against the endpoint; stopped with dev
  --no-types                 Check without type checking`;

const FLAGS = {
  ...DIR_FLAGS,
  port: { type: "string" },
  inspector: { type: "boolean" },
  "no-types": { type: "boolean" },
  // Taken only to refuse them clearly: dev listens on loopback only.
  host: { type: "string" },
  http: { type: "string" },
} as const;

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost"]);

export const command = {
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const parsed = parseCommandArgs(args, FLAGS, io, "dev", USAGE);
    if (typeof parsed === "number") return parsed;
    const { values, positionals } = parsed;
    if (positionals.length > 0) {
      io.err(
        `toolshed: Unexpected argument "${positionals[0]}": toolshed dev takes no positional ` +
          "arguments (--dir DIR names the server directory)\n" +
          "(toolshed dev --help shows its options)\n",
      );
      return EXIT.usage;
    }
    const refused = values.http !== undefined
      ? `--http "${values.http}"`
      : values.host !== undefined && !LOOPBACK_NAMES.has(values.host)
      ? `--host "${values.host}"`
      : undefined;
    if (refused !== undefined) {
      io.err(
        `toolshed: Cannot serve ${refused}: toolshed dev listens on ${LOOPBACK} only (its page ` +
          "and endpoint are for this machine; --port N chooses the port, and toolshed --http " +
          "ADDRESS serves elsewhere)\n",
      );
      return EXIT.usage;
    }
    const port = values.port === undefined ? DEFAULT_PORT : portOf(values.port);
    if (port === undefined) {
      io.err(`toolshed: Invalid value for --port: "${values.port}" is not a port (0 to 65535)\n`);
      return EXIT.usage;
    }
    const stopped = io.stopped?.();
    if (stopped === undefined) {
      io.err("toolshed: Cannot run toolshed dev here: nothing could stop it\n");
      return EXIT.usage;
    }
    return await serveDev(values, port, values.inspector === true, values["no-types"] !== true, {
      io,
      stopped,
    });
  },
};

/** A port number from its text, or undefined. */
function portOf(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

type DirValues = Parameters<typeof openServer>[0];

/** Serves until `stopped` aborts; the exit code. */
async function serveDev(
  values: DirValues,
  port: number,
  inspector: boolean,
  types: boolean,
  { io, stopped }: { io: Io; stopped: AbortSignal },
): Promise<number> {
  const say = (line: string) => io.err(`toolshed dev: ${line}\n`);
  const events = createDevEvents();
  let lastChecked: CheckedEvent | null = null;

  const checks = checkLoop(
    (signal) => runCheck(values, io, types, signal),
    (checked) => {
      io.err(report(checked));
      lastChecked = {
        errors: checked.errors,
        warnings: checked.warnings,
        findings: checked.findings,
        at: new Date().toISOString(),
      };
      events.publish("checked", lastChecked);
    },
  );

  // The reloader says what it refused on the diagnostics, just after swapping in what it kept.
  const reloaded = (problems: readonly string[]) => {
    const at = new Date().toISOString();
    if (problems.length === 0) say("reloaded");
    events.publish(
      "reloaded",
      problems.length === 0 ? { ok: true, at } : {
        ok: false,
        problems: [...problems],
        at,
      },
    );
    checks.schedule();
  };
  let refusedNow: readonly string[] | undefined;
  const base = ioDiagnostics(io);
  const diagnostics: Diagnostics = {
    error(message, error) {
      base.error(message, error);
      const refusal = refusedProblems(message);
      if (refusal === undefined) return;
      // "Not reloading": nothing was swapped; "Reloaded, but": the swap just told us.
      if (refusal.swapped) refusedNow = refusal.problems;
      else reloaded(refusal.problems);
    },
    forward: base.forward,
  };

  const opened = await openServer(values, io, {
    watch: true,
    http: { path: "/mcp" },
    // One process, never behind a load balancer: requestState sealed with a key of its own.
    stateKeys: [],
    diagnostics,
  });
  if (typeof opened === "number") {
    events.close();
    return opened;
  }
  const { server } = opened;
  server.registry.onChange(() =>
    queueMicrotask(() => {
      const problems = refusedNow ?? [];
      refusedNow = undefined;
      reloaded(problems);
    })
  );

  const dir = absolute(values.dir ?? ".", io.cwd);
  const route = devRoutes({
    bound: LOOPBACK,
    events,
    state: () => ({ dir, endpoint: "/mcp", version: SERVER_INFO.version, checked: lastChecked }),
    mcp: (request) => server.fetch(request),
  });

  let listener: Deno.HttpServer<Deno.NetAddr>;
  try {
    listener = Deno.serve({
      hostname: LOOPBACK,
      port,
      onListen: () => {},
      onError: (error) => {
        base.error("toolshed dev could not answer a request", error);
        return text(500, "toolshed dev could not answer this request\n");
      },
    }, route);
  } catch (error) {
    await server.close();
    events.close();
    io.err(
      `toolshed: Cannot listen on "${LOOPBACK}" port ${port}: ${messageOf(error)}` +
        `${port === 0 ? "" : " (--port 0 picks a free port)"}\n`,
    );
    return EXIT.failed;
  }
  const origin = `http://${LOOPBACK}:${listener.addr.port}`;
  io.err(`toolshed dev: ${origin}/ (MCP endpoint ${origin}/mcp)\n`);
  checks.runNow();
  const running = inspector
    ? launchInspector(`${origin}/mcp`, io.env(INSPECTOR_ENV), say)
    : undefined;

  await new Promise<void>((resolve) => {
    if (stopped.aborted) resolve();
    else stopped.addEventListener("abort", () => resolve(), { once: true });
  });
  say(`stopping (${messageOf(stopped.reason)})`);
  events.close();
  await Promise.all([running?.stop(), checks.close(), server.close()]);
  await listener.shutdown();
  return EXIT.ok;
}

/** What a `checked` event says (and /dev/state's `checked`). */
interface CheckedEvent {
  readonly errors: number;
  readonly warnings: number;
  readonly findings: Checked["findings"];
  readonly at: string;
}

/** One check run as `toolshed check` would, never rejecting. */
async function runCheck(
  values: DirValues,
  io: Io,
  types: boolean,
  signal: AbortSignal,
): Promise<Checked> {
  // What openServer would write about the flags was said at start already.
  const quiet: Io = { ...io, err: () => {} };
  try {
    const checked = await checkDirectory(values, quiet, { types, signal });
    if (typeof checked !== "number") return checked;
    throw new Error(`the flags were refused (exit code ${checked})`);
  } catch (error) {
    return {
      findings: [{
        severity: "error",
        source: "load",
        file: undefined,
        message: `Cannot check: ${messageOf(error)}`,
      }],
      notes: [],
      errors: 1,
      warnings: 0,
      served: undefined,
    };
  }
}

/**
 * What the reloader refused, from the line it said: "Not reloading: …" (nothing swapped) or
 * "Reloaded, but … N problem(s)" and a problem a line (what was good swapped in); undefined for
 * anything else it says.
 */
function refusedProblems(
  message: string,
): { swapped: boolean; problems: string[] } | undefined {
  if (message.startsWith("Not reloading: ")) {
    return { swapped: false, problems: [message.slice("Not reloading: ".length)] };
  }
  if (message.startsWith("Reloaded, but ")) {
    // One problem a line, indented; a problem of several lines (a syntax error's excerpt) makes
    // the count disagree, and then they are one.
    const [first, ...lines] = message.split("\n  ");
    const count = Number(/: (\d+) problem\(s\)$/.exec(first)?.[1]);
    return {
      swapped: true,
      problems: lines.length === count ? lines : [lines.join("\n") || message],
    };
  }
  return undefined;
}

function absolute(path: string, cwd: string): string {
  const joined = path.startsWith("/") ? path : `${cwd.replace(/\/+$/, "")}/${path}`;
  return joined.replace(/\/\.$/, "").replace(/(.)\/+$/, "$1");
}
