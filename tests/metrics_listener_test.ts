// The metrics listener is a listener like the MCP endpoint's (adr/0056), against real main.ts
// processes, over HTTP and over stdio (where it is the only listener): a flood of idle
// connections under a low open-file limit is refused past its cap and never ends it, idle and
// half-sent connections are closed after --idle-timeout, and a Host that names no allowed host
// (DNS rebinding) gets 403, as the MCP endpoint answers it, and never the exposition. Nothing
// here measures time: waits are events or bounded polls.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { parseCommand } from "../lib/host/cli.ts";
import { listenForMetrics } from "../lib/server/metrics_listener.ts";
import { resolveSettings } from "../lib/settings/rules.ts";
import { recorder } from "./_diagnostics.ts";
import { readToEnd } from "./_http_server.ts";
import { FIXTURE_TOOLS, spawnHttpServer, spawnMain, withHangGuard } from "./_server_process.ts";

const encoder = new TextEncoder();
/** Connections a flood opens: ~1,000, as the report of issue 34. */
const FLOOD = 1_000;
/** The open-file limit the flooded server runs under: far fewer than the flood. */
const OPEN_FILES = 256;

/** What a read of the exposition takes at most. */
const EXPOSITION_BYTES = 1024 * 1024;

/** The URL of the "metrics on" line among `lines`. */
function metricsUrlIn(lines: string[]): string | undefined {
  return lines.map((line) => /metrics on (\S+)$/.exec(line)?.[1]).find((url) => url);
}

/**
 * One GET on a connection of its own (`connection: close`), with the headers given verbatim:
 * its status (0 when the connection was refused or closed without an answer) and its text.
 */
async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const { hostname, port, pathname } = new URL(url);
  let conn: Deno.Conn;
  try {
    conn = await Deno.connect({ hostname, port: Number(port) });
  } catch {
    return { status: 0, text: "" };
  }
  try {
    const lines = Object.entries({ host: `${hostname}:${port}`, ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`).join("");
    await conn.write(
      encoder.encode(`GET ${pathname} HTTP/1.1\r\n${lines}connection: close\r\n\r\n`),
    )
      .catch(() => {});
    const text = await withHangGuard(readToEnd(conn, EXPOSITION_BYTES), `GET ${url}`);
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
    return { status: status === undefined ? 0 : Number(status), text };
  } finally {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

/**
 * Polls /metrics until it answers 200 with the exposition, within a bounded number of tries; a
 * 503 or a refused connection meanwhile is the cap doing its work.
 */
async function answersAgain(url: string, when: string): Promise<void> {
  const seen = new Set<number>();
  for (let attempt = 0; attempt < 300; attempt++) {
    const { status, text } = await get(url);
    if (status === 200) {
      match(text, /^toolshed_build_info\{version="/m);
      return;
    }
    seen.add(status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/metrics never answered ${when} (statuses seen: ${[...seen].join(", ")})`);
}

/** Opens `count` connections to `url`'s port and sends nothing on them. */
async function flood(url: string, count: number): Promise<Deno.Conn[]> {
  const { hostname, port } = new URL(url);
  const held: Deno.Conn[] = [];
  for (let opened = 0; opened < count; opened++) {
    try {
      held.push(await Deno.connect({ hostname, port: Number(port) }));
    } catch { /* refused: nothing listens there any more */ }
  }
  return held;
}

function release(held: Deno.Conn[]): void {
  for (const conn of held) {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

/** The flood, then /metrics answering while it is held and after it left. */
async function survivesFlood(url: string, stderr: () => string[], alive: () => boolean) {
  const held = await withHangGuard(flood(url, FLOOD), "opening the flood's connections");
  try {
    // The idle deadline frees what the cap let in: /metrics answers while the flood holds on.
    await answersAgain(url, "while the flood's connections were held");
    ok(
      stderr().some((line) => line.includes("Refused a connection for the metrics listener")),
      `the cap refused none:\n${stderr().join("\n")}`,
    );
  } finally {
    release(held);
  }
  await answersAgain(url, "after the flood left");
  ok(alive(), "the server is still running");
}

Deno.test({
  name:
    "main.ts --http --metrics: 1,000 idle connections to the metrics port under ulimit -n 256 are refused past its cap, and /metrics answers while they are held and after they leave",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await spawnHttpServer(
      ["--tools", FIXTURE_TOOLS, "--metrics", "127.0.0.1:0", "--idle-timeout", "2000"],
      {},
      { openFiles: OPEN_FILES },
    );
    try {
      const url = metricsUrlIn(server.stderr());
      ok(url, `no "metrics on" line in:\n${server.stderr().join("\n")}`);
      await survivesFlood(url, server.stderr, server.alive);
      // The MCP endpoint's share of descriptors was never touched.
      strictEqual((await get(new URL("/readyz", server.url).href)).status, 200);
    } finally {
      strictEqual((await server.stop()).code, 0);
    }
  },
});

/** main.ts over stdio with `args` under `ulimit -n`, once it has said where metrics are. */
async function spawnStdio(args: string[], openFiles: number) {
  // The start-up line comes after the metrics line: both have been said once it is.
  const { child, status, stderr, alive, drained } = await spawnMain(
    args,
    (line) => line.includes(" over stdio"),
    "the start-up line",
    { launch: { openFiles }, stdin: "piped" },
  );
  return {
    url: metricsUrlIn(stderr()),
    stderr,
    alive,
    /** Ends its input (the client leaves) and waits for the exit. */
    async finish(): Promise<number> {
      await child.stdin.close().catch(() => {});
      const { code } = await withHangGuard(status, "the server exiting");
      await drained;
      return code;
    },
  };
}

Deno.test({
  name:
    "main.ts over stdio with --metrics: 1,000 idle connections to its only listener under ulimit -n 256 leave /metrics answering while held and after",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await spawnStdio(
      ["--tools", FIXTURE_TOOLS, "--metrics", "127.0.0.1:0", "--idle-timeout", "2000"],
      OPEN_FILES,
    );
    try {
      ok(server.url, `no "metrics on" line in:\n${server.stderr().join("\n")}`);
      await survivesFlood(server.url, server.stderr, server.alive);
    } finally {
      strictEqual(await server.finish(), 0);
    }
  },
});

Deno.test({
  name:
    "main.ts --metrics closes a silent connection, one still sending its headers, and one idle after its answer, after --idle-timeout",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await spawnHttpServer([
      "--tools",
      FIXTURE_TOOLS,
      "--metrics",
      "127.0.0.1:0",
      "--idle-timeout",
      "1000",
    ]);
    const open: Deno.Conn[] = [];
    try {
      const url = new URL(metricsUrlIn(server.stderr())!);
      const connect = async () => {
        const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
        open.push(conn);
        return conn;
      };
      const silent = await connect();
      const halfSent = await connect();
      await halfSent.write(encoder.encode(`GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: `));
      const answered = await connect();
      await answered.write(encoder.encode(`GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`));
      // Each read ends only once the server closes the connection (the hang guard: it never did).
      const [nothing, nothingEither, served] = await Promise.all(
        [silent, halfSent, answered].map((conn, at) =>
          withHangGuard(readToEnd(conn, EXPOSITION_BYTES), `connection ${at} being closed`)
        ),
      );
      deepStrictEqual([nothing, nothingEither], ["", ""]);
      match(served, /^HTTP\/1\.1 200 OK/);
      match(served, /^toolshed_build_info\{version="/m);
    } finally {
      release(open);
      strictEqual((await server.stop()).code, 0);
    }
  },
});

Deno.test({
  name:
    "main.ts --metrics refuses a rebound Host with 403 as the MCP endpoint does, never with the exposition, and serves loopback, --allow-host names and IP addresses",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const server = await spawnHttpServer([
      "--tools",
      FIXTURE_TOOLS,
      "--metrics",
      "127.0.0.1:0",
      "--allow-host",
      "metrics.example.com",
    ]);
    try {
      const metrics = metricsUrlIn(server.stderr())!;
      const port = new URL(metrics).port;
      for (const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example`]) {
        const refused = await get(metrics, { host });
        strictEqual(refused.status, 403, `Host ${host}: ${refused.text}`);
        ok(!refused.text.includes("toolshed_"), `Host ${host} was shown metrics:\n${refused.text}`);
        // The MCP endpoint answers the same Host the same way.
        strictEqual((await get(server.url, { host })).status, 403, `MCP with Host ${host}`);
      }
      // A page whose Origin names another host is refused too, as by the MCP endpoint.
      const page = await get(metrics, { origin: "http://evil.example" });
      strictEqual(page.status, 403);
      ok(!page.text.includes("toolshed_"), page.text);
      for (
        const host of [`127.0.0.1:${port}`, `localhost:${port}`, "metrics.example.com", "10.0.0.7"]
      ) {
        const served = await get(metrics, { host });
        strictEqual(served.status, 200, `Host ${host}: ${served.text}`);
        match(served.text, /^toolshed_build_info\{version="/m);
      }
    } finally {
      strictEqual((await server.stop()).code, 0);
    }
  },
});

Deno.test("--allow-host and --idle-timeout hold for --metrics alone (stdio), and need --http or --metrics", () => {
  const parsed = parseCommand([
    "--metrics",
    "9464",
    "--allow-host",
    "metrics.example.com",
    "--idle-timeout",
    "5000",
  ]);
  ok(parsed.kind === "serve");
  deepStrictEqual(parsed.options.allowedHosts, ["metrics.example.com"]);
  strictEqual(parsed.options.idleTimeoutMs, 5000);
  for (const flag of [["--allow-host", "metrics.example.com"], ["--idle-timeout", "5000"]]) {
    const refused = parseCommand(flag);
    ok(refused.kind === "usage-error");
    strictEqual(refused.message, `${flag[0]} needs --http or --metrics`);
  }
  // The other connection flags are the MCP endpoint's alone.
  const capped = parseCommand(["--metrics", "9464", "--max-connections", "10"]);
  ok(capped.kind === "usage-error");
  strictEqual(capped.message, "--max-connections needs --http");
});

Deno.test("listenForMetrics() lets a Host pass for being an IP address, never an Origin", async () => {
  const listener = listenForMetrics(
    { hostname: "127.0.0.1", port: 0 },
    () => "toolshed_up 1\n",
    recorder(),
    resolveSettings({}),
  );
  try {
    const { url } = listener;
    strictEqual((await get(url, { host: "10.0.0.7:9464" })).status, 200);
    strictEqual((await get(url, { host: "[fd00::7]:9464" })).status, 200);
    // A page served from an address is anyone's page: its Origin names no allowed host.
    strictEqual((await get(url, { host: "10.0.0.7:9464", origin: "http://10.0.0.7" })).status, 403);
    // The rebinding's own shape: an attacker's name that resolves to loopback.
    const rebound = await get(url, { host: "127.0.0.1.nip.io" });
    strictEqual(rebound.status, 403);
    match(rebound.text, /Forbidden: the Host header "127\.0\.0\.1\.nip\.io" names no allowed host/);
  } finally {
    await listener.close();
  }
});
