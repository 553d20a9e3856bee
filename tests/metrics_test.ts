// Prometheus metrics (--metrics; adr/0042): the text exposition as the format says it, what the
// request middleware counts (by method, tool and outcome, over HTTP, stdio and in process), the
// bound on the tool label, the gauges read from the transports, the listener's 404 and 405, the
// middleware absent from the chain without metrics, and, of main.ts processes, the listeners
// each opens (none for metrics without --metrics). tests/prometheus_test.ts has a real
// Prometheus scrape it.
import { deepStrictEqual, match, ok, strictEqual, throws } from "node:assert/strict";
import { createMetricRegistry, EXPOSITION_CONTENT_TYPE } from "../lib/util/metrics.ts";
import { MAX_TOOL_LABELS, requestMetrics } from "../lib/core/metrics.ts";
import { builtinsOf } from "../lib/core/handle.ts";
import { createKeyRing } from "../lib/rounds/key_ring.ts";
import { createServer, type Server } from "../lib/server/create_server.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import type { Tool } from "../lib/primitives/tools.ts";
import type { Middleware, ToolContext } from "../lib/primitives/types.ts";
import { ProtocolError } from "../lib/wire/errors.ts";
import { parseCommand } from "../lib/host/cli.ts";
import { recorder } from "./_diagnostics.ts";
import { collector, feed } from "./_memory_streams.ts";
import { modernHeaders, openLegacySession } from "./_http_server.ts";
import { readLines, spawnHttpServer, withHangGuard } from "./_server_process.ts";
import { RUN_REDIS, startRedis, until } from "./_redis.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const FIXTURE_TOOLS = new URL("./fixtures/tools", import.meta.url).pathname;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const ON_LOOPBACK = { hostname: "127.0.0.1", port: 0 };

/** The samples of an exposition, by `name{labels}` as written. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

/** `toolshed_requests_total` of one method, tool and outcome (0 when absent). */
function requests(text: string, method: string, tool: string, outcome: string): number {
  return samples(text).get(
    `toolshed_requests_total{method="${method}",tool="${tool}",outcome="${outcome}"}`,
  ) ?? 0;
}

function define(
  name: string,
  handler: (args: unknown, ctx: ToolContext) => unknown,
  fields: Record<string, unknown> = {},
): Tool {
  return checkDefinition(
    { description: name, inputSchema: { type: "object" }, handler, ...fields },
    name,
    name,
  );
}

/** A promise and its resolve, for a test to drive a tool with. */
function latch() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => resolve = done);
  return { promise, resolve };
}

Deno.test("the exposition writes HELP, TYPE, escaped labels, cumulative buckets, +Inf, _sum and _count", () => {
  const registry = createMetricRegistry();
  const counter = registry.counter("demo_total", 'Things\\counted\nhere, "quoted"', ["kind"]);
  counter.labels('a"b\\c\nd').inc();
  counter.labels("plain").inc(2);
  const histogram = registry.histogram("demo_seconds", "Durations", ["op"], [1, 0.5]);
  const series = histogram.labels("read");
  for (const value of [0.2, 0.5, 0.7, 3]) series.observe(value);
  registry.gauge("demo_up", "Up", [], () => 1);
  registry.gauge("demo_absent", "Never there", [], () => undefined);
  registry.gauge("demo_odd", "Odd values", ["v"], () => [
    { labels: ["nan"], value: NaN },
    { labels: ["inf"], value: Infinity },
    { labels: ["minus"], value: -Infinity },
  ]);
  strictEqual(
    registry.text(),
    [
      '# HELP demo_total Things\\\\counted\\nhere, "quoted"',
      "# TYPE demo_total counter",
      'demo_total{kind="a\\"b\\\\c\\nd"} 1',
      'demo_total{kind="plain"} 2',
      "# HELP demo_seconds Durations",
      "# TYPE demo_seconds histogram",
      'demo_seconds_bucket{op="read",le="0.5"} 2',
      'demo_seconds_bucket{op="read",le="1"} 3',
      'demo_seconds_bucket{op="read",le="+Inf"} 4',
      'demo_seconds_sum{op="read"} 4.4',
      'demo_seconds_count{op="read"} 4',
      "# HELP demo_up Up",
      "# TYPE demo_up gauge",
      "demo_up 1",
      "# HELP demo_odd Odd values",
      "# TYPE demo_odd gauge",
      'demo_odd{v="nan"} NaN',
      'demo_odd{v="inf"} +Inf',
      'demo_odd{v="minus"} -Inf',
      "",
    ].join("\n"),
  );
});

Deno.test("the registry refuses names the format does not allow, a histogram's le, and twice a name", () => {
  const registry = createMetricRegistry();
  throws(() => registry.counter("2bad", "x"), /invalid name/);
  throws(() => registry.counter("ok_total", "x", ["__reserved"]), /invalid label name/);
  throws(() => registry.counter("ok_total", "x", ["bad-label"]), /invalid label name/);
  throws(() => registry.histogram("h_seconds", "x", ["le"], [1]), /invalid label name/);
  registry.counter("twice_total", "x");
  throws(() => registry.counter("twice_total", "x"), /defined already/);
  throws(() => registry.counter("three_total", "x", ["a"]).labels(), /has 1 label/);
});

Deno.test("builtinsOf() composes the metrics middleware first, and nothing of it without metrics", () => {
  const ring = createKeyRing();
  const off = builtinsOf({}, ring, () => {});
  const metrics = requestMetrics(createMetricRegistry());
  const on = builtinsOf({ metrics }, ring, () => {});
  strictEqual(off.includes(metrics), false);
  strictEqual(on.length, off.length + 1);
  strictEqual(on[0], metrics);
  // With telemetry too: telemetry outermost, then metrics, then authorize and the rest.
  const telemetry = { middleware: requestMetrics(createMetricRegistry()) };
  const both = builtinsOf(
    { metrics, telemetry: telemetry as unknown as Parameters<typeof builtinsOf>[0]["telemetry"] },
    ring,
    () => {},
  );
  deepStrictEqual(both.slice(0, 2), [telemetry.middleware, metrics]);
  strictEqual(both.length, off.length + 2);
});

Deno.test("--metrics reads an address as --http does, on 127.0.0.1 when only a port is given", () => {
  const parsed = parseCommand(["--metrics", "9464"]);
  ok(parsed.kind === "serve");
  deepStrictEqual(parsed.options.metrics, { hostname: "127.0.0.1", port: 9464 });
  const wildcard = parseCommand(["--metrics", "0.0.0.0:9464"]);
  ok(wildcard.kind === "serve");
  deepStrictEqual(wildcard.options.metrics, { hostname: "0.0.0.0", port: 9464 });
  const bad = parseCommand(["--metrics", "here"]);
  ok(bad.kind === "usage-error");
  match(bad.message, /Invalid value for --metrics: "here"/);
  const same = parseCommand(["--http", "8080", "--metrics", "127.0.0.1:8080"]);
  ok(same.kind === "usage-error");
  match(same.message, /is --http's address/);
  ok(parseCommand(["--http", "127.0.0.1:0", "--metrics", ":0"]).kind === "serve");
  const none = parseCommand([]);
  ok(none.kind === "serve");
  strictEqual(none.options.metrics, undefined);
});

/** A server in process with metrics on, its tools and middleware as given. */
function serverWith(
  tools: Tool[],
  more: { middleware?: Middleware[]; http?: boolean } = {},
): Promise<Server> {
  return createServer({
    primitives: { tools },
    metrics: ON_LOOPBACK,
    diagnostics: recorder(),
    toolTimeoutMs: 10_000,
    ...more,
  });
}

Deno.test("toolshed_requests_total counts each outcome: ok, tool error, JSON-RPC error, forbidden, rate limited, cancelled, timeout", async () => {
  const started = latch();
  const refusing: Middleware = (next) => (call) => {
    if (call.params.name === "guarded") {
      throw new ProtocolError(-32030, "Forbidden", { requiredScopes: ["admin"] });
    }
    if (call.params.name === "limited") {
      throw new ProtocolError(-32031, "Rate limited", { retryAfterSeconds: 1, limit: "caller" });
    }
    return next(call);
  };
  const server = await serverWith([
    define("echo", () => "echoed"),
    define("fails", () => {
      throw new Error("it broke");
    }),
    define("guarded", () => "never"),
    define("limited", () => "never"),
    define("held", (_args, ctx) =>
      new Promise((_, reject) => {
        started.resolve();
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
      })),
    define("stuck", () => new Promise(() => {}), { timeoutMs: 20 }),
  ], { middleware: [refusing] });
  try {
    const call = (name: string, signal?: AbortSignal) =>
      server.request("tools/call", { name, arguments: {} }, { signal });
    strictEqual((await call("echo")).error, undefined);
    await call("echo");
    await call("fails");
    await call("nope");
    await call("guarded");
    await call("limited");
    const cancelling = new AbortController();
    const cancelled = call("held", cancelling.signal);
    await started.promise;
    cancelling.abort("the test cancels");
    await cancelled;
    await call("stuck");
    await server.request("tools/list");

    const text = server.metrics!.text();
    strictEqual(requests(text, "tools/call", "echo", "ok"), 2);
    strictEqual(requests(text, "tools/call", "fails", "tool_error"), 1);
    strictEqual(requests(text, "tools/call", "_unknown", "error"), 1);
    strictEqual(requests(text, "tools/call", "guarded", "forbidden"), 1);
    strictEqual(requests(text, "tools/call", "limited", "rate_limited"), 1);
    strictEqual(requests(text, "tools/call", "held", "cancelled"), 1);
    strictEqual(requests(text, "tools/call", "stuck", "timeout"), 1);
    strictEqual(requests(text, "tools/list", "", "ok"), 1);
    const all = samples(text);
    strictEqual(all.get('toolshed_rate_limited_total{limit="caller"}'), 1);
    strictEqual(
      all.get('toolshed_request_duration_seconds_count{method="tools/call",tool="echo"}'),
      2,
    );
    strictEqual(
      all.get(
        'toolshed_request_duration_seconds_bucket{method="tools/call",tool="echo",le="+Inf"}',
      ),
      2,
    );
    strictEqual(all.get("toolshed_requests_running"), 0);
  } finally {
    await server.close();
  }
});

Deno.test("the tool label takes only names of tools that exist, and at most MAX_TOOL_LABELS of them", async () => {
  const names = Array.from({ length: MAX_TOOL_LABELS + 2 }, (_, i) => `tool_${i}`);
  const server = await serverWith(names.map((name) => define(name, () => "done")));
  try {
    for (const name of names) await server.request("tools/call", { name, arguments: {} });
    for (let i = 0; i < 25; i++) {
      await server.request("tools/call", { name: `made_up_${i}`, arguments: {} });
    }
    const text = server.metrics!.text();
    const labels = new Set(
      [...samples(text).keys()]
        .filter((key) => key.startsWith("toolshed_requests_total{"))
        .map((key) => /tool="([^"]*)"/.exec(key)![1]),
    );
    strictEqual(labels.size, MAX_TOOL_LABELS + 2); // the names, _other, _unknown
    strictEqual(requests(text, "tools/call", "tool_0", "ok"), 1);
    strictEqual(requests(text, "tools/call", "_other", "ok"), 2);
    strictEqual(requests(text, "tools/call", "_unknown", "error"), 25);
    strictEqual(labels.has("made_up_0"), false);
  } finally {
    await server.close();
  }
});

Deno.test("over HTTP: calls, answers by status, sessions and open streams are counted", async () => {
  const server = await serverWith([define("echo", () => "echoed")], { http: true });
  const http = server.serveHttp(ON_LOOPBACK);
  const scrape = async () => {
    const response = await fetch(server.metrics!.url);
    strictEqual(response.headers.get("content-type"), EXPOSITION_CONTENT_TYPE);
    return await response.text();
  };
  try {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(http.url, {
        method: "POST",
        headers: modernHeaders("tools/call", "echo"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "echo", arguments: {}, _meta: META },
        }),
      });
      strictEqual(response.status, 200);
      await response.body?.cancel();
    }
    const refused = await fetch(http.url, { method: "POST", body: "{}" }); // no Accept: 406 …
    await refused.body?.cancel();
    // A 2025-era session, and its GET stream.
    const sessionId = (await openLegacySession(http.url))!;
    ok(sessionId);
    const stream = await fetch(http.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": sessionId },
    });
    strictEqual(stream.status, 200);

    let all = samples(await scrape());
    strictEqual(
      all.get('toolshed_requests_total{method="tools/call",tool="echo",outcome="ok"}'),
      3,
    );
    strictEqual(all.get('toolshed_requests_total{method="initialize",tool="",outcome="ok"}'), 1);
    strictEqual(all.get('toolshed_http_responses_total{status="200"}'), 5);
    ok((all.get(`toolshed_http_responses_total{status="${refused.status}"}`) ?? 0) >= 1);
    strictEqual(all.get("toolshed_sessions"), 1);
    strictEqual(all.get("toolshed_open_streams"), 1);

    await stream.body?.cancel();
    const ended = await fetch(http.url, {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId },
    });
    await ended.body?.cancel();
    for (let tries = 0; tries < 100; tries++) {
      all = samples(await scrape());
      if (all.get("toolshed_open_streams") === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    strictEqual(all.get("toolshed_open_streams"), 0);
    strictEqual(all.get("toolshed_sessions"), 0);
  } finally {
    await http.shutdown("the test is over");
    await http.done;
    await server.close();
  }
});

Deno.test("over stdio: requests running and waiting are gauged, and counted when answered", async () => {
  const first = latch();
  const release = latch();
  let starts = 0;
  const server = await createServer({
    primitives: {
      tools: [define("held", async () => {
        if (++starts === 1) first.resolve();
        await release.promise;
        return "released";
      })],
    },
    metrics: ON_LOOPBACK,
    maxConcurrency: 1,
    diagnostics: recorder(),
  });
  const input = feed();
  const output = collector();
  const served = server.serveStdio({ input, output });
  try {
    // One chunk: both are read before the first has started.
    input.push(
      [1, 2].map((id) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "held", arguments: {}, _meta: META },
        }) + "\n"
      ).join(""),
    );
    await first.promise;
    let all = samples(server.metrics!.text());
    strictEqual(all.get("toolshed_requests_running"), 1);
    strictEqual(all.get("toolshed_requests_waiting"), 1);
    release.resolve();
    await output.untilLines(2);
    all = samples(server.metrics!.text());
    strictEqual(all.get("toolshed_requests_running"), 0);
    strictEqual(all.get("toolshed_requests_waiting"), 0);
    strictEqual(requests(server.metrics!.text(), "tools/call", "held", "ok"), 2);
  } finally {
    release.resolve();
    input.end();
    await served.done;
    await server.close();
  }
});

Deno.test("the metrics listener answers GET and HEAD /metrics, 404 elsewhere, 405 to other methods", async () => {
  const server = await serverWith([]);
  const { url } = server.metrics!;
  try {
    match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const got = await fetch(url);
    strictEqual(got.status, 200);
    strictEqual(got.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    match(await got.text(), /^# TYPE toolshed_build_info gauge$/m);
    const head = await fetch(url, { method: "HEAD" });
    strictEqual(head.status, 200);
    await head.body?.cancel();
    const elsewhere = await fetch(new URL("/mcp", url));
    strictEqual(elsewhere.status, 404);
    await elsewhere.body?.cancel();
    const posted = await fetch(url, { method: "POST", body: "x" });
    strictEqual(posted.status, 405);
    strictEqual(posted.headers.get("allow"), "GET, HEAD");
    await posted.body?.cancel();
  } finally {
    await server.close();
  }
  // Closed with the server: nothing listens there any more.
  const refused = await fetch(url).then(() => false, () => true);
  strictEqual(refused, true);
});

Deno.test("createServer rejects metrics on an address already taken, saying where", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const { port } = taken.addr as Deno.NetAddr;
    const failed = await createServer({
      primitives: { tools: [] },
      metrics: { hostname: "127.0.0.1", port },
      diagnostics: recorder(),
    }).then(() => undefined, (error: Error) => error.message);
    match(failed ?? "", new RegExp(`^Cannot listen for metrics on "127\\.0\\.0\\.1" port ${port}`));
  } finally {
    taken.close();
  }
});

Deno.test({
  name: "toolshed_redis_up is 1 while Redis answers, 0 once it stops, and absent without --redis",
  ignore: !RUN_REDIS,
  async fn() {
    const redis = await startRedis();
    const server = await createServer({
      primitives: { tools: [] },
      redis: redis.url,
      metrics: ON_LOOPBACK,
      diagnostics: recorder(),
    });
    try {
      strictEqual(samples(server.metrics!.text()).get("toolshed_redis_up"), 1);
      await redis.stop();
      const up = await until(
        () => samples(server.metrics!.text()).get("toolshed_redis_up"),
        (value) => value === 0,
      );
      strictEqual(up, 0);
    } finally {
      await server.close();
      await redis.stop();
    }
    const without = await serverWith([]);
    try {
      const text = without.metrics!.text();
      strictEqual(samples(text).has("toolshed_redis_up"), false);
      strictEqual(text.includes("toolshed_redis_up"), false);
    } finally {
      await without.close();
    }
  },
});

/** The TCP ports a process listens on (Linux: its socket fds against /proc/net/tcp{,6}). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      const target = Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch { /* closed meanwhile */ }
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = Deno.readTextFileSync(`/proc/${pid}/net/${table}`).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== "0A") continue; // 0A: LISTEN
      if (inodes.has(fields[9])) ports.push(parseInt(fields[1].split(":")[1], 16));
    }
  }
  return ports.sort((a, b) => a - b);
}

const portOf = (url: string) => Number(new URL(url).port);

Deno.test({
  name: "main.ts --http opens one listener without --metrics, and a second for /metrics with it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const without = await spawnHttpServer(["--tools", FIXTURE_TOOLS]);
    try {
      deepStrictEqual(listeningPorts(without.pid), [portOf(without.url)]);
    } finally {
      await without.stop();
    }
    const withMetrics = await spawnHttpServer([
      "--tools",
      FIXTURE_TOOLS,
      "--metrics",
      "127.0.0.1:0",
    ]);
    try {
      const said = withMetrics.stderr().map((line) => /metrics on (\S+)$/.exec(line)?.[1])
        .find((url) => url !== undefined);
      ok(said, `no "metrics on" line in:\n${withMetrics.stderr().join("\n")}`);
      deepStrictEqual(
        listeningPorts(withMetrics.pid),
        [portOf(withMetrics.url), portOf(said)].sort((a, b) => a - b),
      );
      match(await (await fetch(said)).text(), /^toolshed_build_info\{version="/m);
    } finally {
      await withMetrics.stop();
    }
  },
});

Deno.test({
  name: "main.ts over stdio listens for nothing without --metrics, and serves /metrics with it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    for (const metrics of [false, true]) {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "--tools",
          FIXTURE_TOOLS,
          ...(metrics ? ["--metrics", "127.0.0.1:0"] : []),
        ],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const errors = readLines(child.stderr);
      const out = readLines(child.stdout);
      const writer = child.stdin.getWriter();
      try {
        let url: string | undefined;
        const seen: string[] = [];
        // The start-up line comes after the metrics line: both have been said once it is.
        while (!seen.some((line) => line.includes(" over stdio"))) {
          const next = await withHangGuard(errors.next(), "the start-up line");
          if (next.done) throw new Error(`main.ts ended:\n${seen.join("\n")}`);
          seen.push(next.value);
          url ??= /metrics on (\S+)$/.exec(next.value)?.[1];
        }
        await writer.write(
          new TextEncoder().encode(
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "echo", arguments: { text: "hi" }, _meta: META },
            }) + "\n",
          ),
        );
        const answer = await withHangGuard(out.next(), "the call's answer");
        ok(!answer.done && JSON.parse(answer.value).result, `no result: ${answer.value}`);
        if (!metrics) {
          strictEqual(url, undefined);
          deepStrictEqual(listeningPorts(child.pid), []);
          continue;
        }
        ok(url, `no "metrics on" line in:\n${seen.join("\n")}`);
        deepStrictEqual(listeningPorts(child.pid), [portOf(url)]);
        const text = await (await fetch(url)).text();
        strictEqual(requests(text, "tools/call", "echo", "ok"), 1);
      } finally {
        await writer.close().catch(() => {});
        for await (const _ of out) { /* to the end */ }
        for await (const _ of errors) { /* to the end */ }
        strictEqual((await child.status).code, 0);
      }
    }
  },
});
