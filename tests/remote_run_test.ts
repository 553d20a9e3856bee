// Running toolshed from a URL: `deno run -A http://host/main.ts --tools ./tools`.
//
// The repository is served read-only by a loopback HTTP server, so every module of the
// server (main.ts, lib/, deno.json) is fetched over HTTP while the tools still come from a
// local directory. What this relies on, checked with Deno 2.9:
// - `-A` covers imports; without any --allow-import flag the entry point's own origin
//   is allowed too, and plain http: to 127.0.0.1 is accepted.
// - A remote module may dynamically import file: tool modules.
// - The served deno.json is not read as configuration, so its import map (if it had
//   one) would not apply: every import must be relative, `npm:` or `node:`.
// - `--reload=<origin>` (no trailing slash) re-fetches only the served modules; npm
//   packages stay in the shared cache instead of being downloaded again.
import { serveStatic } from "./_static_server.ts";
import assert from "node:assert/strict";
import { exampleTools } from "./_examples.ts";
import { readLines } from "./_server_process.ts";

const REPO = new URL("../", import.meta.url);
/** The example tools of tools/ (links to them: not what a user added there). */
const TOOLS_DIR = await exampleTools();
const MODERN = "2026-07-28";

const CONTENT_TYPES: Record<string, string> = {
  ".ts": "application/typescript",
  ".mts": "application/typescript",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".json": "application/json",
};

/** The repository, read-only, each file with the Content-Type of its extension. */
function serveRepository() {
  return serveStatic((path) => {
    const dot = path.lastIndexOf(".");
    const type = dot === -1 ? undefined : CONTENT_TYPES[path.slice(dot)];
    return type === undefined ? undefined : { file: new URL(`.${path}`, REPO), type };
  });
}

/** Splits a byte stream into lines; `next()` resolves with the next line or null at EOF. */
function lineReader(stream: ReadableStream<Uint8Array>): {
  next(): Promise<string | null>;
  done: Promise<void>;
} {
  const lines: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  let ended = false;
  const push = (line: string | null) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else if (line !== null) lines.push(line);
  };
  const done = (async () => {
    for await (const line of readLines(stream)) push(line);
    ended = true;
    while (waiters.length > 0) waiters.shift()!(null);
  })();
  return {
    next() {
      if (lines.length > 0) return Promise.resolve(lines.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiters.push(resolve));
    },
    done,
  };
}

function modernMeta(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "remote_run_test", version: "0.0.0" },
  };
}

/** The longest a run may take before the test gives up on a hung server (not a timing assertion). */
const HANG_GUARD_MS = 180_000;

Deno.test("remote run: main.ts served over loopback HTTP answers a 2026-07-28 echo call with local tools", async () => {
  const { origin, requested, server } = serveRepository();
  // Run from an empty directory so that no local deno.json is discovered.
  const cwd = await Deno.makeTempDir({ prefix: "toolshed_remote_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--reload=${origin}`,
      `${origin}/main.ts`,
      "--tools",
      TOOLS_DIR,
      "--allow-outside-symlinks",
    ],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const stdout = lineReader(child.stdout);
  const stdin = child.stdin.getWriter();
  let stdinOpen = true;
  const closeStdin = async () => {
    if (stdinOpen) {
      stdinOpen = false;
      await stdin.close().catch(() => {});
    }
  };
  const stop = () => {
    try {
      child.kill();
    } catch {
      // It has exited already.
    }
  };
  const guard = setTimeout(stop, HANG_GUARD_MS);
  try {
    const request = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hello over http" }, _meta: modernMeta() },
    };
    await stdin.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));

    let response: Record<string, unknown> | undefined;
    for (let line = await stdout.next(); line !== null; line = await stdout.next()) {
      const message = JSON.parse(line);
      if (message.id === 1) {
        response = message;
        break;
      }
    }
    if (response === undefined) {
      await closeStdin();
      stop();
      assert.fail(`no response to the echo call; stderr:\n${await stderr}`);
    }
    assert.equal(response.jsonrpc, "2.0");
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    const result = response.result as { content: unknown[]; isError?: boolean };
    assert.notEqual(result.isError, true);
    assert.deepEqual(result.content, [{ type: "text", text: "hello over http" }]);

    // End of input is the client going away: the server exits cleanly.
    await closeStdin();
    const status = await child.status;
    assert.equal(status.code, 0, `the server exited with ${status.code}; stderr:\n${await stderr}`);
  } finally {
    clearTimeout(guard);
    await closeStdin();
    stop();
    await child.status;
    await stdout.done;
    await stderr;
    await server.shutdown();
    await Deno.remove(cwd, { recursive: true });
  }

  // The server itself came over HTTP; the tools came from the local directory.
  const fetched = requested.join(", ");
  assert.ok(requested.includes("/main.ts"), `fetched: ${fetched}`);
  assert.ok(requested.some((path) => path.startsWith("/lib/")), `fetched: ${fetched}`);
  assert.ok(!requested.some((path) => path.startsWith("/tools/")), `fetched: ${fetched}`);
});

Deno.test("remote run: every import of the server is relative, npm: or node:, so it needs no import map", async () => {
  // A served deno.json is not read as configuration: a bare specifier mapped there would
  // resolve locally but fail when main.ts is run from a URL.
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: decodeURIComponent(REPO.pathname),
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, decoder.decode(stderr));
  const graph = JSON.parse(decoder.decode(stdout)) as {
    modules: { specifier: string; dependencies?: { specifier: string }[] }[];
  };
  const bare: string[] = [];
  for (const module of graph.modules) {
    if (!module.specifier.startsWith(REPO.href)) continue;
    for (const { specifier } of module.dependencies ?? []) {
      if (!/^(\.\.?\/|npm:|node:)/.test(specifier)) {
        bare.push(`${module.specifier.slice(REPO.href.length)} imports "${specifier}"`);
      }
    }
  }
  assert.deepEqual(bare, []);
});
