// Telemetry (adr/0041), end to end: main.ts with Deno's OpenTelemetry on (OTEL_DENO=true)
// exports OTLP/JSON to a receiver this test serves on 127.0.0.1, and the test reads what
// arrives: the span of the HTTP request (Deno's), of the MCP method and of the tool, with the
// semantic conventions' attributes, in the trace the client named in `_meta`; a tool's `fetch`
// inside it; an executable's TRACEPARENT; the duration histograms. Over stdio too. What arrives
// is awaited by polling until it is there, within a generous bound; nothing measures time.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  events,
  openSession,
  spawnHttpServer,
  spawnServer,
  withHangGuard,
} from "./_server_process.ts";
import { otelEnv, randomHex, type ReceivedSpan, startReceiver } from "./_otlp.ts";
import { formatTraceparent, parseTraceparent } from "../lib/core/telemetry.ts";
import { builtinsOf, type CoreOptions } from "../lib/core/handle.ts";
import type { CoreMiddleware } from "../lib/core/chain.ts";
import { createKeyRing } from "../lib/rounds/key_ring.ts";
import { contentsOf, createRegistry } from "../lib/primitives/registry.ts";

const TOOLS = new URL("./fixtures/telemetry/tools", import.meta.url).pathname;
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "telemetry-test", version: "1.0.0" },
};
/** The semantic conventions' buckets for both MCP duration histograms. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** OTLP's span kinds as its JSON numbers them. */
const KIND = { internal: 1, server: 2, client: 3 } as const;

function one<T>(items: T[], what: string, test: (item: T) => boolean): T {
  const found = items.filter(test);
  strictEqual(found.length, 1, `${what}: ${found.length} found`);
  return found[0];
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ response: Response; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    for await (const message of events(response.body!)) {
      await response.body?.cancel().catch(() => {});
      return { response, json: message as Record<string, unknown> };
    }
  }
  return { response, json: await response.json() };
}

function textOf(json: Record<string, unknown>): string {
  const result = json.result as { content: { text: string }[] };
  return result.content[0].text;
}

Deno.test("telemetry over HTTP: the HTTP, method and tool spans of one call in the client's trace, a tool's fetch within it, TRACEPARENT, the duration metrics", async () => {
  const receiver = startReceiver();
  const target = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("fetched"),
  );
  const server = await spawnHttpServer(["--tools", TOOLS], otelEnv(receiver));
  const traceId = randomHex(16);
  const httpParent = randomHex(8); // the client's HTTP span, in the traceparent header
  const mcpParent = randomHex(8); // the client's MCP span, in _meta
  const ambientTraceId = randomHex(16);
  const ambientParent = randomHex(8);
  let sessionId: string | null = null;
  let programParent = "";
  let programState = "";
  try {
    const fetched = await post(server.url, {
      jsonrpc: "2.0",
      id: "call-1",
      method: "tools/call",
      params: {
        name: "fetcher",
        arguments: { url: `http://127.0.0.1:${target.addr.port}/thing` },
        _meta: {
          ...META,
          traceparent: `00-${traceId}-${mcpParent}-01`,
          tracestate: "rojo=00f067aa0ba902b7",
        },
      },
    }, {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "fetcher",
      traceparent: `00-${traceId}-${httpParent}-01`,
    });
    strictEqual(textOf(fetched.json), "status 200");

    const program = await post(server.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "traceparent",
        arguments: {},
        _meta: {
          ...META,
          traceparent: `00-${traceId}-${mcpParent}-01`,
          tracestate: "rojo=00f067aa0ba902b7",
        },
      },
    }, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "traceparent" });
    [programParent, programState] = textOf(program.json).split(" ");

    // No trace context in _meta: the method's span is the child of the HTTP request's.
    await post(server.url, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: META },
    }, {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/list",
      traceparent: `00-${ambientTraceId}-${ambientParent}-01`,
    });

    // A 2025-era session: its calls carry its id; its end is a session duration.
    const initialized = await post(server.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "telemetry-test", version: "1.0.0" },
      },
    }, {});
    sessionId = initialized.response.headers.get("mcp-session-id");
    ok(sessionId !== null, "initialize opened a session");
    const session = { "mcp-session-id": sessionId, "mcp-protocol-version": LEGACY };
    await post(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
      .catch(() => {});
    await post(server.url, { jsonrpc: "2.0", id: 2, method: "ping" }, session);
    const deleted = await fetch(server.url, { method: "DELETE", headers: session });
    await deleted.body?.cancel();
  } finally {
    await server.stop();
    await target.shutdown();
  }
  try {
    const { spans, points } = receiver;
    const ours = (name: string) => (span: ReceivedSpan) =>
      span.scope === "toolshed" && span.name === name;
    await receiver.until(
      "the spans of the calls and the session's duration",
      () =>
        ["tools/call fetcher", "execute_tool fetcher", "tools/call traceparent", "ping"]
          .every((name) => spans.some(ours(name))) &&
        spans.some((span) => span.scope === "deno" && span.kind === KIND.client) &&
        points.some((point) => point.metric === "mcp.server.session.duration"),
    );

    // The HTTP request: Deno's server span, continuing the traceparent header.
    const http = one(
      spans,
      "the HTTP span of the call",
      (span) => span.scope === "deno" && span.parentSpanId === httpParent,
    );
    strictEqual(http.kind, KIND.server);
    strictEqual(http.traceId, traceId);
    strictEqual(http.attributes["http.request.method"], "POST");

    // The method: a child of the client's span named in _meta, linked to the HTTP span.
    const method = one(spans, "the method span", ours("tools/call fetcher"));
    strictEqual(method.kind, KIND.server);
    strictEqual(method.traceId, traceId);
    strictEqual(method.parentSpanId, mcpParent);
    deepStrictEqual(method.links.map((link) => [link.traceId, link.spanId]), [
      [traceId, http.spanId],
    ]);
    deepStrictEqual(method.attributes, {
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "call-1",
      "gen_ai.tool.name": "fetcher",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });

    // The tool: inside the method's span, the current one while its handler ran.
    const tool = one(spans, "the tool span", ours("execute_tool fetcher"));
    strictEqual(tool.kind, KIND.internal);
    strictEqual(tool.traceId, traceId);
    strictEqual(tool.parentSpanId, method.spanId);
    deepStrictEqual(tool.attributes, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "fetcher",
    });

    // The tool's own fetch: Deno's client span, in the same trace, under the tool's span.
    const fetchSpan = one(
      spans,
      "the tool's fetch",
      (span) => span.scope === "deno" && span.kind === KIND.client,
    );
    strictEqual(fetchSpan.traceId, traceId);
    strictEqual(fetchSpan.parentSpanId, tool.spanId);
    strictEqual(fetchSpan.attributes["url.path"], "/thing");

    // An executable: TRACEPARENT is its tool span's, in the client's trace; TRACESTATE is theirs.
    const programTool = one(spans, "the executable's tool span", ours("execute_tool traceparent"));
    strictEqual(programParent, `00-${traceId}-${programTool.spanId}-01`);
    strictEqual(programState, "rojo=00f067aa0ba902b7");
    const programMethod = one(
      spans,
      "the executable's method span",
      ours("tools/call traceparent"),
    );
    strictEqual(programTool.parentSpanId, programMethod.spanId);
    strictEqual(programMethod.parentSpanId, mcpParent);

    // Without _meta's context, the method is a child of the HTTP request's span.
    const list = one(spans, "the tools/list span", ours("tools/list"));
    const listHttp = one(spans, "its HTTP span", (span) => span.spanId === list.parentSpanId);
    strictEqual(listHttp.scope, "deno");
    strictEqual(listHttp.traceId, ambientTraceId);
    strictEqual(listHttp.parentSpanId, ambientParent);
    deepStrictEqual(list.links, []);

    // A 2025-era session's call carries its id and version.
    const ping = one(spans, "the session's ping", ours("ping"));
    strictEqual(ping.attributes["mcp.session.id"], sessionId);
    strictEqual(ping.attributes["mcp.protocol.version"], LEGACY);

    // The operation histogram: seconds, the conventions' buckets, low-cardinality attributes.
    const operation = one(
      points,
      "the tools/call fetcher duration",
      (point) =>
        point.metric === "mcp.server.operation.duration" &&
        point.attributes["gen_ai.tool.name"] === "fetcher",
    );
    strictEqual(operation.unit, "s");
    deepStrictEqual(operation.explicitBounds, BUCKETS);
    strictEqual(operation.count, 1);
    deepStrictEqual(operation.attributes, {
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": MODERN,
      "gen_ai.tool.name": "fetcher",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    const sessionPoint = one(
      points,
      "the session's duration",
      (point) => point.metric === "mcp.server.session.duration",
    );
    strictEqual(sessionPoint.unit, "s");
    deepStrictEqual(sessionPoint.explicitBounds, BUCKETS);
    deepStrictEqual(sessionPoint.attributes, {
      "mcp.protocol.version": LEGACY,
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
  } finally {
    await receiver.close();
  }
});

Deno.test("telemetry over stdio: a span per method in the trace of _meta, the tool's span, a failed call's error.type, the connection's duration", async () => {
  const receiver = startReceiver();
  const traceId = randomHex(16);
  const parent = randomHex(8);
  // With --log-format json, so that the log's lines can be seen naming their spans (adr/0044).
  const server = spawnServer(["--tools", TOOLS, "--log-format", "json"], otelEnv(receiver));
  let programParent = "";
  let stderr = "";
  let unknown: Record<string, unknown> = {};
  try {
    await openSession(server, "telemetry-test", {}, LEGACY);
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "traceparent",
        arguments: {},
        _meta: { traceparent: `00-${traceId}-${parent}-01` },
      },
    }));
    const answer = JSON.parse((await withHangGuard(server.nextLine(), "the call"))!);
    programParent = textOf(answer).split(" ")[0];
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "no-such-tool", arguments: {} },
    }));
    unknown = JSON.parse((await withHangGuard(server.nextLine(), "the unknown tool"))!);
  } finally {
    const finished = await server.finish();
    strictEqual(finished.code, 0);
    stderr = finished.stderr;
  }
  try {
    const { spans, points } = receiver;
    const ours = (name: string) => (span: ReceivedSpan) =>
      span.scope === "toolshed" && span.name === name;
    await receiver.until(
      "the spans of the calls and the connection's duration",
      () =>
        spans.some(ours("execute_tool traceparent")) && spans.some(ours("tools/call")) &&
        points.some((point) => point.metric === "mcp.server.session.duration"),
    );
    const method = one(spans, "the method span", ours("tools/call traceparent"));
    strictEqual(method.kind, KIND.server);
    strictEqual(method.traceId, traceId);
    strictEqual(method.parentSpanId, parent);
    strictEqual(method.attributes["network.transport"], "pipe");
    strictEqual(method.attributes["mcp.protocol.version"], LEGACY);
    strictEqual(method.attributes["jsonrpc.request.id"], "2");
    const tool = one(spans, "the tool span", ours("execute_tool traceparent"));
    strictEqual(tool.parentSpanId, method.spanId);
    strictEqual(programParent, `00-${traceId}-${tool.spanId}-01`);
    // The program's stderr line, as JSON, names the tool span it was written in.
    const said = stderr.split("\n").filter((line) => line.startsWith("{")).map((line) =>
      JSON.parse(line)
    ).find((line) => line.message === "handing over the trace context");
    ok(said, stderr);
    deepStrictEqual([said.tool, said.trace_id, said.span_id], [
      "traceparent",
      traceId,
      tool.spanId,
    ]);

    // A refusal: error.type is its JSON-RPC code, the status an error with its message; an
    // unknown tool's name, the client's to choose, names neither the span nor the histogram.
    const error = unknown.error as { code: number; message: string };
    const refused = one(spans, "the refused call", ours("tools/call"));
    strictEqual(refused.attributes["error.type"], String(error.code));
    strictEqual(refused.attributes["rpc.response.status_code"], String(error.code));
    strictEqual(refused.attributes["gen_ai.tool.name"], undefined);
    deepStrictEqual(refused.status, { code: 2, message: error.message });
    ok(
      points.some((point) =>
        point.metric === "mcp.server.operation.duration" &&
        point.attributes["error.type"] === String(error.code) &&
        !("gen_ai.tool.name" in point.attributes)
      ),
      "the refused call's duration, by its error.type",
    );

    const connection = one(
      points,
      "the connection's duration",
      (point) => point.metric === "mcp.server.session.duration",
    );
    deepStrictEqual(connection.attributes, {
      "mcp.protocol.version": LEGACY,
      "network.transport": "pipe",
    });
  } finally {
    await receiver.close();
  }
});

Deno.test("parseTraceparent() reads W3C traceparent values and refuses what is not one", () => {
  const id = "4bf92f3577b34da6a3ce929d0e0e4736";
  deepStrictEqual(parseTraceparent(`00-${id}-00f067aa0ba902b7-01`), {
    traceId: id,
    spanId: "00f067aa0ba902b7",
    traceFlags: 1,
    isRemote: true,
  });
  // A later version may add fields; version 00 may not.
  strictEqual(parseTraceparent(`01-${id}-00f067aa0ba902b7-00-extra`)?.traceFlags, 0);
  for (
    const bad of [
      `00-${id}-00f067aa0ba902b7-01-extra`,
      `ff-${id}-00f067aa0ba902b7-01`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-${id}-0000000000000000-01`,
      `00-${id.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${id}-00f067aa0ba902b7`,
      42,
      undefined,
    ]
  ) {
    strictEqual(parseTraceparent(bad), undefined, String(bad));
  }
  strictEqual(
    formatTraceparent({ traceId: id, spanId: "00f067aa0ba902b7", traceFlags: 1 }),
    `00-${id}-00f067aa0ba902b7-01`,
  );
  strictEqual(
    formatTraceparent({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
    undefined,
  );
});

Deno.test("builtinsOf() composes telemetry in, outermost, only when it is given", () => {
  const options: CoreOptions = {
    registry: createRegistry(contentsOf([], {})),
    pageSize: 10,
    toolTimeoutMs: 1_000,
    diagnostics: { error() {}, forward: () => undefined },
  };
  const ring = createKeyRing();
  const off = builtinsOf(options, ring, () => {});
  strictEqual(off.length, 4, "authorize, stamp, channels, rounds");
  const middleware: CoreMiddleware = (next) => next;
  const on = builtinsOf(
    { ...options, telemetry: { middleware, tool: (_name, run) => run() } },
    ring,
    () => {},
  );
  strictEqual(on.length, 5);
  strictEqual(on[0], middleware);
  ok(!off.includes(middleware));
});

Deno.test("only server/features.ts imports core/telemetry.ts, and lazily: a server without telemetry loads none of it", async () => {
  const lib = new URL("../lib/", import.meta.url);
  const importers: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const code = await Deno.readTextFile(url);
        // Static imports and re-exports, `import type` left out (erased: nothing is loaded).
        for (const match of code.matchAll(/^(?:import|export)(?! type)[^;]*?from\s+"([^"]+)"/gm)) {
          if (match[1].endsWith("core/telemetry.ts") || match[1] === "./telemetry.ts") {
            importers.push(url.pathname.slice(lib.pathname.length));
          }
        }
      }
    }
  };
  await walk(lib);
  deepStrictEqual(importers, []);
  const loaders = await Deno.readTextFile(new URL("server/features.ts", lib));
  ok(loaders.includes(`await import("../core/telemetry.ts")`));
});

Deno.test({
  name:
    "createServer({ telemetry: true }) refuses to start, saying why, where Deno's OpenTelemetry is off",
  ignore: Deno.env.get("OTEL_DENO")?.toLowerCase() === "true",
  async fn() {
    const { createServer } = await import("../lib/server/create_server.ts");
    await rejects(
      () => createServer({ primitives: { tools: [] }, telemetry: true }),
      /^Error: Cannot record telemetry: Deno's OpenTelemetry is off in this process \(start it with OTEL_DENO=true\)/,
    );
  },
});
