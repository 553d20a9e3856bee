// What tests of mounted servers (adr/0071) share: the pinned reference server, a server
// directory of mount files made in a temporary folder, and upstreams started from it.
import { withHangGuard } from "./_server_process.ts";

/** The reference server of the MCP project (2025 era), pinned. */
export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** A toolshed upstream's tools: `echo` and `wait_for_cancel`. */
export const UPSTREAM_TOOLS = new URL("./fixtures/mount_upstream/tools", import.meta.url).pathname;

let everythingCached: Promise<void> | undefined;
/** Fetches the reference server once, so that no handshake waits on the registry. */
export function cacheEverything(): Promise<void> {
  everythingCached ??= new Deno.Command(Deno.execPath(), {
    args: ["cache", EVERYTHING],
    stdout: "null",
    stderr: "null",
  }).output().then(() => {});
  return withHangGuard(everythingCached, "deno cache of server-everything", 180_000);
}

/** What a child deno needs to find the cache the tests use, as a mount's `env`. */
function denoEnv(): Record<string, string> {
  const dir = Deno.env.get("DENO_DIR");
  return dir === undefined ? {} : { DENO_DIR: dir };
}

/** A mount entry of the reference server over stdio. */
export function everythingEntry(): Record<string, unknown> {
  return { command: Deno.execPath(), args: ["run", "-A", EVERYTHING, "stdio"], env: denoEnv() };
}

/** A mount entry of toolshed itself over stdio (a 2026-07-28 upstream) serving `tools`. */
export function toolshedEntry(
  tools = UPSTREAM_TOOLS,
  flags: string[] = [],
): Record<string, unknown> {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "--tools", tools, ...flags],
    env: denoEnv(),
  };
}

/** A server directory in a temporary folder: `files` by path under it (objects as JSON). */
export async function serverDir(files: Record<string, string | object>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-mounts-" });
  for (const [path, content] of Object.entries(files)) {
    const at = `${dir}/${path}`;
    await Deno.mkdir(at.slice(0, at.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(
      at,
      typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`,
    );
  }
  return dir;
}

/** Polls `condition` every 50 ms, at most 600 times; fails naming `what` after. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Never: ${what}`);
}

/** The pids of processes whose command line holds `marker` (a path unique to a test). */
export async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      if (cmdline.includes(marker) && !/^\d+ \(.*\) Z /.test(stat)) pids.push(Number(entry.name));
    } catch { /* gone meanwhile */ }
  }
  return pids;
}

/** The reference server over Streamable HTTP on a free loopback port, once it listens. */
export async function everythingOverHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  await cacheEverything();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", EVERYTHING, "streamableHttp"],
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  await withHangGuard(
    (async () => {
      while (!printed.includes("listening on port")) {
        const { value, done } = await stderr.read();
        if (done) throw new Error(`server-everything exited: ${printed}`);
        printed += value;
      }
    })(),
    "server-everything listening",
  );
  // The rest of its stderr is read, so that it never blocks on a full pipe.
  const drained = (async () => {
    while (!(await stderr.read()).done) { /* dropped */ }
  })();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained.catch(() => {});
    },
  };
}
