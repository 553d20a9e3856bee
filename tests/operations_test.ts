// Where issue 25's features meet: a rate limit's refusal as metrics count it (the outcome and the
// limit), as the log says it (--log-format json with --log-requests: a 429 line naming the tool),
// and over HTTP with both at once, through a real main.ts.
import assert, { deepStrictEqual, strictEqual } from "node:assert/strict";
import { ProtocolError, rateLimited } from "../lib/wire/errors.ts";
import { createServer } from "../lib/server/create_server.ts";
import { spawnHttpServer } from "./_server_process.ts";
import { modernHeaders } from "./_http_server.ts";
import { recorder } from "./_diagnostics.ts";

const TOOLS = new URL("./fixtures/tools", import.meta.url).pathname;

/** The value of one sample line of a text exposition (0 when absent). */
function sample(text: string, line: string): number {
  const found = text.split("\n").find((each) => each.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

Deno.test("a caller over --rate-limit is counted by metrics as rate_limited, by the limit that refused it", async () => {
  const server = await createServer({
    tools: TOOLS,
    rateLimit: "2/min",
    metrics: { hostname: "127.0.0.1", port: 0 },
    diagnostics: recorder(),
  });
  try {
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(await server.request("tools/call", { name: "echo", arguments: { text: "x" } }));
    }
    strictEqual(answers[2].error !== undefined, true, JSON.stringify(answers[2]));
    strictEqual((answers[2].error as { code: number }).code, -32031);
    const text = await (await fetch(server.metrics!.url)).text();
    strictEqual(
      sample(text, 'toolshed_requests_total{method="tools/call",tool="echo",outcome="ok"}'),
      2,
    );
    strictEqual(
      sample(
        text,
        'toolshed_requests_total{method="tools/call",tool="echo",outcome="rate_limited"}',
      ),
      1,
      text,
    );
    strictEqual(sample(text, 'toolshed_rate_limited_total{limit="2/min"}'), 1, text);
  } finally {
    await server.close();
  }
});

Deno.test("main.ts --rate-limit --metrics --log-format json --log-requests: the refused request is a 429 with Retry-After, a JSON line with its status and tool, and a count", async () => {
  const server = await spawnHttpServer([
    "--tools",
    TOOLS,
    "--rate-limit",
    "1/h",
    "--metrics",
    "127.0.0.1:0",
    "--log-format",
    "json",
    "--log-requests",
  ], { npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" });
  try {
    const call = () =>
      fetch(server.url, {
        method: "POST",
        headers: modernHeaders("tools/call", "echo"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "echo",
            arguments: { text: "hi" },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
    const first = await call();
    strictEqual(first.status, 200);
    await first.body?.cancel();
    const second = await call();
    strictEqual(second.status, 429);
    assert(Number(second.headers.get("retry-after")) >= 1, second.headers.get("retry-after")!);
    const refusal = await second.json();
    strictEqual(refusal.error.code, -32031);

    const lines = () => server.stderr().map((line) => JSON.parse(line) as Record<string, unknown>);
    let logged: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 200 && logged === undefined; tries++) {
      logged = lines().find((line) => line.status === 429);
      if (logged === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert(logged, server.stderr().join("\n"));
    strictEqual(logged.tool, "echo");
    strictEqual(logged.method, "tools/call");
    const metricsUrl = lines().find((line) => String(line.message).startsWith("metrics on "))?.url;
    strictEqual(typeof metricsUrl, "string", server.stderr().join("\n"));
    const text = await (await fetch(metricsUrl as string)).text();
    strictEqual(sample(text, 'toolshed_http_responses_total{status="429"}'), 1, text);
    strictEqual(
      sample(
        text,
        'toolshed_requests_total{method="tools/call",tool="echo",outcome="rate_limited"}',
      ),
      1,
      text,
    );
  } finally {
    await server.stop();
  }
});

Deno.test("rateLimited() is a ProtocolError like any other (made without an Error's ~6 µs: no stack), answered with its code, message and data", () => {
  const error = rateLimited('this caller\'s limit of "1/h"', "1/h", 1_500);
  assert(error instanceof ProtocolError && error instanceof Error);
  strictEqual(error.name, "ProtocolError");
  deepStrictEqual(error.toRpcError(), {
    code: -32031,
    message: 'Rate limited: this caller\'s limit of "1/h" is used up; retry after 2 s',
    data: { retryAfterSeconds: 2, limit: "1/h" },
  });
});
