// Test helper: `toolshed dev` as a real process (main.ts dev --dir DIR --port 0), its URL read
// from the line it prints, and a scratch copy of examples/hello for it to serve and edit.
import { spawnMain, withHangGuard } from "./_server_process.ts";

const HELLO = decodeURIComponent(new URL("../examples/hello/", import.meta.url).pathname);

/** A dev server being run. */
export interface DevProcess {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly origin: string;
  readonly pid: number;
  /** What it wrote on stderr so far, a line each. */
  stderr(): string[];
  alive(): boolean;
  /** Sends `signal` (default SIGTERM) and waits for the exit: its code and all of stderr. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stderr: string[] }>;
}

const DEV_LINE = /^toolshed dev: (http:\/\/127\.0\.0\.1:\d+)\/ \(MCP endpoint \1\/mcp\)$/;

/** Starts `main.ts dev --dir DIR --port 0 ARGS` and waits for its URL line. */
export async function spawnDev(
  dir: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<DevProcess> {
  const { child, status, stderr, alive, drained } = await spawnMain(
    ["dev", "--dir", dir, "--port", "0", ...args],
    (line) => DEV_LINE.test(line),
    "the dev server's URL line",
    { env },
  );
  return {
    origin: stderr().map((line) => DEV_LINE.exec(line)?.[1]).find((url) => url !== undefined)!,
    pid: child.pid,
    stderr,
    alive,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* it has exited already */ }
      const { code } = await withHangGuard(status, "the dev server exiting");
      await drained;
      return { code, stderr: stderr() };
    },
  };
}

/** A scratch copy of examples/hello (tools/add.ts, prompts/code_review.md, server.meta.json). */
export async function helloCopy(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_dev_" });
  const copy = async (from: string, to: string) => {
    for await (const entry of Deno.readDir(from)) {
      if (entry.isDirectory) {
        await Deno.mkdir(`${to}/${entry.name}`);
        await copy(`${from}/${entry.name}`, `${to}/${entry.name}`);
      } else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
    }
  };
  await copy(HELLO.replace(/\/$/, ""), dir);
  return dir;
}

/** One event of /dev/events. */
export interface DevEvent {
  event: string;
  data: Record<string, unknown>;
}

/** The events of GET /dev/events as they arrive; `close()` ends the subscription. */
export async function subscribeDev(origin: string) {
  const controller = new AbortController();
  const response = await fetch(`${origin}/dev/events`, { signal: controller.signal });
  if (response.status !== 200) throw new Error(`/dev/events answered ${response.status}`);
  const named = namedEvents(response.body!);
  return {
    response,
    /** The next event that `wanted` holds of (the others before it are passed over). */
    async next(wanted: (event: DevEvent) => boolean, what: string): Promise<DevEvent> {
      const found = (async () => {
        for (;;) {
          const next = await named.next();
          if (next.done) throw new Error(`/dev/events ended before ${what}`);
          if (wanted(next.value)) return next.value;
        }
      })();
      return await withHangGuard(found, what, 90_000);
    },
    close: () => controller.abort(),
  };
}

/** The named events of an SSE body (`event:` then `data:`), as they arrive. */
async function* namedEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<DevEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}
