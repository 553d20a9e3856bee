// What a server composes for a request, read from the server itself (adr/0074 step 5): the HTTP
// endpoint's steps and the core's built-in middleware. A feature that is off adds no step and no
// middleware; on, it adds its own. Structure, not time: the benchmarks (bench:http, bench:floor)
// say what the path costs.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { createServer, type ServerConfig } from "../lib/server/create_server.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";
import { modernHeaders } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function tool(name: string, scopes?: string[]): Tool {
  return checkDefinition(
    {
      description: name,
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      ...(scopes === undefined ? {} : { scopes }),
      handler: () => `${name} ran`,
    },
    name,
    `tools/${name}.ts`,
  );
}

/**
 * Serves `config` over HTTP on loopback, calls `echo` once (with `headers` added) and gives the
 * endpoint's steps, the core's built-ins for what is served, and the call's status and text.
 */
async function composed(config: Partial<ServerConfig>, headers: Record<string, string> = {}) {
  const server = await createServer({
    primitives: { tools: [tool("echo")] },
    diagnostics: recorder(),
    shutdownGraceMs: 2_000,
    http: true,
    ...config,
  });
  const http = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  try {
    const response = await fetch(http.url, {
      method: "POST",
      headers: { ...modernHeaders("tools/call", "echo"), ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: {}, _meta: META },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = await response.json();
    return {
      steps: http.steps,
      builtins: server.core.builtins(server.registry.current()),
      status: response.status,
      text: answer.result?.content?.[0]?.text,
    };
  } finally {
    await withHangGuard(http.shutdown("the test is over"), "shutdown");
    await withHangGuard(http.done, "the server closing");
    await server.close();
  }
}

Deno.test("a server with every feature off composes no step and no middleware of any feature", async () => {
  const off = await composed({});
  deepStrictEqual(off.steps, ["guard", "methodAndType", "body", "admission"]);
  // No OAuth scope asked anywhere, no metrics, telemetry or rate limit: authorize is not there.
  deepStrictEqual(off.builtins, ["stamp", "channels", "rounds"]);
  strictEqual(off.status, 200);
  strictEqual(off.text, "echo ran");
});

Deno.test("each feature on composes its own step or middleware, in its place", async () => {
  const on = await composed({
    metrics: { hostname: "127.0.0.1", port: 0 },
    corsOrigins: ["https://app.example.com"],
    bearerToken: "s3cret",
    readOnly: true,
    rateLimit: "1000/s",
  }, { authorization: "Bearer s3cret" });
  deepStrictEqual(on.steps, [
    "outer",
    "cors",
    "guard",
    "bearer",
    "toolsets",
    "methodAndType",
    "body",
    "admission",
  ]);
  deepStrictEqual(on.builtins, ["metrics", "rateLimit", "stamp", "channels", "rounds"]);
  strictEqual(on.status, 200);
  strictEqual(on.text, "echo ran");
});

Deno.test("authorize is composed for what is served once a primitive there asks for scopes", async () => {
  const scoped = await composed({
    primitives: { tools: [tool("echo"), tool("deploy", ["deploy:run"])] },
  });
  deepStrictEqual(scoped.builtins, ["authorize", "stamp", "channels", "rounds"]);
  strictEqual(scoped.text, "echo ran");
});
