// `toolshed dev --inspector`: the official MCP Inspector (npm @modelcontextprotocol/inspector,
// pinned) started against the dev server's MCP endpoint, its output on stderr line by line
// behind "inspector: ", and stopped when dev stops. Since toolshed reloads in place and never
// restarts, the Inspector's connection lives through every edit.
//
// It is started with `npx -y @modelcontextprotocol/inspector@VERSION`, or with the command
// TOOLSHED_INSPECTOR names instead (words split on spaces; the Inspector's arguments follow):
// an installed `mcp-inspector`, or `node /path/to/launcher/build/index.js`. It runs in a process
// group of its own, so that stopping it stops what npx started under it.
import { messageOf } from "../util/json.ts";

/** The Inspector release `--inspector` runs (Node.js 22.19 or later). */
export const INSPECTOR_VERSION = "2.12.0";
/** Names the command that starts the Inspector in place of npx (words split on spaces). */
export const INSPECTOR_ENV = "TOOLSHED_INSPECTOR";
/** Past this, a line of the Inspector's output is said without waiting for its end. */
const MAX_LINE_CHARS = 8_192;
/** How long the Inspector has to end on SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;

interface RunningInspector {
  /** Stops it (SIGTERM to its process group, SIGKILL after a grace) and waits for its end. */
  stop(): Promise<void>;
}

/**
 * Starts the Inspector against `endpoint` (the dev server's MCP URL), its lines going to `say`;
 * gives undefined after saying why when it cannot be started.
 */
export function launchInspector(
  endpoint: string,
  launcher: string | undefined,
  say: (line: string) => void,
): RunningInspector | undefined {
  const words = launcher?.trim().split(/\s+/).filter((word) => word !== "") ?? [];
  const [program, ...before] = words.length > 0
    ? words
    : ["npx", "-y", `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`];
  const args = [...before, "--transport", "http", "--server-url", endpoint];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    say(
      error instanceof Deno.errors.NotFound
        ? `Cannot start the MCP Inspector: "${program}" was not found (install Node.js 22.19 ` +
          `or later, which brings npx, or set ${INSPECTOR_ENV} to a command that runs the ` +
          "Inspector)"
        : `Cannot start the MCP Inspector with "${program}": ${messageOf(error)}`,
    );
    return undefined;
  }
  say(`Starting the MCP Inspector: ${[program, ...args].join(" ")}`);
  const forward = async (stream: ReadableStream<Uint8Array>) => {
    let pending = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const lines = `${pending}${text}`.split("\n");
      pending = lines.pop()!;
      for (const line of lines) say(`inspector: ${line}`);
      // A line that never ends is said in pieces rather than held.
      if (pending.length > MAX_LINE_CHARS) {
        say(`inspector: ${pending}`);
        pending = "";
      }
    }
    if (pending !== "") say(`inspector: ${pending}`);
  };
  const output = Promise.all([forward(child.stdout), forward(child.stderr)]).catch(() => {});
  let stopping = false;
  const ended = child.status.then((status) => {
    if (!stopping) {
      say(
        `The MCP Inspector exited with ${
          status.signal === null ? `code ${status.code}` : status.signal
        }; toolshed dev goes on serving`,
      );
    }
    return status;
  });
  const signalGroup = (signal: Deno.Signal) => {
    try {
      Deno.kill(-child.pid, signal);
    } catch { /* the group has ended */ }
  };
  return {
    async stop() {
      stopping = true;
      signalGroup("SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          signalGroup("SIGKILL");
          resolve();
        }, STOP_GRACE_MS);
      });
      await Promise.race([ended, grace]);
      clearTimeout(timer);
      await ended;
      // What npx started under it may hold the pipes a moment longer.
      signalGroup("SIGKILL");
      await output;
    },
  };
}
