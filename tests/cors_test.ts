// CORS (adr/0039), the step alone as tests/http_steps_test.ts tests the others: what it answers
// itself (a preflight), what it adds to the answers of the steps after it, and what it leaves
// alone; the origins' parsing; and the guard agreeing with it on what an allowed origin is.
// (Over real HTTP: tests/http_transcripts/cors*.txt; in a real browser: tests/cors_browser_test.ts.)
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { serveForTest } from "./_http_server.ts";
import { compose } from "../lib/util/compose.ts";
import type { Exchange, HttpHandler } from "../lib/transports/http/exchange.ts";
import type { Connection } from "../lib/transports/http/listener.ts";
import { allowsOrigin, corsOriginsOf, corsStep } from "../lib/transports/http/cors.ts";
import { parseCorsOrigin } from "../lib/settings/values.ts";
import { bearerStep } from "../lib/transports/http/auth.ts";
import { guardStep } from "../lib/transports/http/guard.ts";

const APP = "https://app.example";

const connection: Connection = {
  close() {},
  closeWhenAnswered() {},
  bodyDeadline: () => () => {},
  readingStarted() {},
  readingEnded() {},
};

function exchangeOf(method: string, headers: Record<string, string>): Exchange {
  const request = new Request("http://127.0.0.1/mcp", {
    method,
    headers: { host: "127.0.0.1:8080", ...headers },
    body: method === "POST" ? "{}" : undefined,
  });
  return { request, connection, note: undefined };
}

/** A `next` that says it was reached, answering with `answer` (a 299 by default). */
function reach(answer: () => Response | Promise<Response> = () =>
  new Response("reached", {
    status: 299,
  })): { next: HttpHandler; seen: Exchange[] } {
  const seen: Exchange[] = [];
  return {
    seen,
    next: (exchange) => {
      seen.push(exchange);
      return answer();
    },
  };
}

/** The headers a page may read of every answer: the ones an MCP client needs. */
const EXPOSED = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate";

const preflight = (origin: string, extra: Record<string, string> = {}) =>
  exchangeOf("OPTIONS", {
    origin,
    "access-control-request-method": "POST",
    ...extra,
  });

/** The CORS headers of an answer, by name, the others left out. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith("access-control-") || name === "vary"),
  );
}

Deno.test("corsStep() answers a preflight of a listed origin with 204 and what it may send, before next", async () => {
  const { next, seen } = reach();
  const handler = corsStep(corsOriginsOf([APP]))(next);
  const response = await handler(preflight(APP, {
    "access-control-request-headers": "content-type,mcp-protocol-version,mcp-method,mcp-name",
  }));
  strictEqual(response.status, 204);
  strictEqual(response.body, null);
  deepStrictEqual(corsHeaders(response), {
    "access-control-allow-origin": APP,
    "access-control-allow-methods": "POST, GET, DELETE",
    "access-control-allow-headers": "authorization, content-type, last-event-id, mcp-method, " +
      "mcp-name, mcp-protocol-version, mcp-session-id",
    "access-control-max-age": "7200",
    vary: "Origin, Access-Control-Request-Headers",
  });
  strictEqual(seen.length, 0, "a preflight never reaches the steps after CORS");
});

Deno.test("corsStep() allows in a preflight each Mcp-* header asked for, in any case, and leaves out any other", async () => {
  const handler = corsStep(corsOriginsOf([APP]))(reach().next);
  const allowedHeaders = async (requested?: string) =>
    (await handler(
      preflight(
        APP,
        requested === undefined ? {} : { "access-control-request-headers": requested },
      ),
    )).headers.get("access-control-allow-headers")!;
  strictEqual(
    await allowedHeaders(
      "Content-Type, MCP-PARAM-Region ,mcp-param-region, X-Custom, Cookie, Mcp-Future",
    ),
    "authorization, content-type, last-event-id, mcp-method, mcp-name, mcp-protocol-version, " +
      "mcp-session-id, mcp-param-region, mcp-future",
  );
  strictEqual(await allowedHeaders(), await allowedHeaders(""));
  // Not a header name: never echoed.
  ok(!(await allowedHeaders("mcp-a b, mcp-\u00e9")).includes("mcp-a"));
  ok(!(await allowedHeaders("mcp-a b, mcp-\u00e9")).includes("\u00e9"));
});

Deno.test("corsStep() refuses a preflight of an origin not listed with 403 and no CORS header, before next", async () => {
  const { next, seen } = reach();
  const handler = corsStep(corsOriginsOf([APP]))(next);
  // Another scheme, port or host of the same name is another origin.
  for (const origin of ["http://app.example", "https://app.example:8443", "https://evil.example"]) {
    const response = await handler(preflight(origin));
    strictEqual(response.status, 403, origin);
    deepStrictEqual(corsHeaders(response), {}, origin);
    deepStrictEqual(await response.json(), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: `Forbidden: pages of the origin "${origin}" may not call this server ` +
          "(see --cors-origin)",
      },
    });
  }
  strictEqual(seen.length, 0);
});

Deno.test("corsStep() adds Allow-Origin, Expose-Headers and Vary to every answer of the steps after it for a listed origin", async () => {
  const handler = compose(
    [corsStep(corsOriginsOf([APP])), bearerStep("s3cret")],
    () => new Response("ok", { headers: { vary: "Accept" } }),
  );
  const unauthorized = await handler(exchangeOf("POST", { origin: APP }));
  strictEqual(unauthorized.status, 401);
  deepStrictEqual(corsHeaders(unauthorized), {
    "access-control-allow-origin": APP,
    "access-control-expose-headers": EXPOSED,
    vary: "Origin",
  });
  ok(unauthorized.headers.has("www-authenticate"));
  const answered = await handler(
    exchangeOf("POST", { origin: APP, authorization: "Bearer s3cret" }),
  );
  strictEqual(answered.status, 200);
  strictEqual(answered.headers.get("vary"), "Accept, Origin", "a Vary of the answer's is kept");
  strictEqual(answered.headers.get("access-control-allow-origin"), APP);
  // An OPTIONS that is not a preflight goes on like any other request.
  const { next, seen } = reach();
  const options = await corsStep(corsOriginsOf([APP]))(next)(
    exchangeOf("OPTIONS", { origin: APP }),
  );
  strictEqual(options.status, 299);
  strictEqual(seen.length, 1);
  strictEqual(options.headers.get("access-control-allow-origin"), APP);
});

Deno.test("corsStep() adds its headers to an event stream's answer without reading its body", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode("data: {}\n\n"));
      controller.close();
    },
  }, { highWaterMark: 0 });
  const { next } = reach(() =>
    Promise.resolve(
      new Response(stream, { headers: { "content-type": "text/event-stream" } }),
    )
  );
  const response = await corsStep(corsOriginsOf([APP]))(next)(
    exchangeOf("POST", { origin: APP }),
  );
  strictEqual(pulled, 0);
  strictEqual(response.headers.get("access-control-allow-origin"), APP);
  strictEqual(await response.text(), "data: {}\n\n");
});

Deno.test("corsStep() answers with headers of its own when the answer's cannot change", async () => {
  const { next } = reach(() => Response.redirect("http://127.0.0.1/elsewhere", 307));
  const response = await corsStep(corsOriginsOf([APP]))(next)(
    exchangeOf("POST", { origin: APP }),
  );
  strictEqual(response.status, 307);
  strictEqual(response.headers.get("location"), "http://127.0.0.1/elsewhere");
  strictEqual(response.headers.get("access-control-allow-origin"), APP);
});

Deno.test("corsStep() adds nothing when the request has no Origin, or one not listed, and lets it through", async () => {
  const { next, seen } = reach();
  const handler = corsStep(corsOriginsOf([APP]))(next);
  for (
    const headers of [
      {},
      { origin: "" },
      { origin: "https://evil.example" },
      { origin: "null" },
    ] as Record<string, string>[]
  ) {
    const response = await handler(exchangeOf("POST", headers));
    strictEqual(response.status, 299);
    deepStrictEqual(corsHeaders(response), {}, JSON.stringify(headers));
  }
  // An OPTIONS without Origin is not a preflight either.
  strictEqual(
    (await handler(exchangeOf("OPTIONS", { "access-control-request-method": "POST" }))).status,
    299,
  );
  strictEqual(seen.length, 5);
});

Deno.test("corsStep() with * answers any origin, null included, with * and no Vary: Origin", async () => {
  const { next } = reach();
  const handler = corsStep(corsOriginsOf(["*"]))(next);
  for (const origin of ["https://anything.example", "null", "chrome-extension://abc"]) {
    const answered = await handler(preflight(origin));
    strictEqual(answered.status, 204, origin);
    strictEqual(answered.headers.get("access-control-allow-origin"), "*");
    strictEqual(answered.headers.get("vary"), "Access-Control-Request-Headers");
    const response = await handler(exchangeOf("POST", { origin }));
    deepStrictEqual(corsHeaders(response), {
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSED,
    });
  }
});

Deno.test("parseCorsOrigin() writes an origin as browsers send it, and refuses what is not one", () => {
  const cases: [string, string][] = [
    ["https://App.Example.com", "https://app.example.com"],
    ["https://app.example.com/", "https://app.example.com"],
    ["https://app.example.com:443", "https://app.example.com"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["http://127.0.0.1:80", "http://127.0.0.1"],
    ["http://[::1]:5173", "http://[::1]:5173"],
    ["http://b\u00fccher.example", "http://xn--bcher-kva.example"],
    ["chrome-extension://AbCdEf", "chrome-extension://abcdef"],
    ["*", "*"],
  ];
  for (const [value, origin] of cases) strictEqual(parseCorsOrigin(value), origin, value);
  for (
    const value of [
      "",
      "app.example.com",
      "https://app.example.com/mcp",
      "https://app.example.com?x",
      "https://app.example.com#x",
      "https://user@app.example.com",
      "https://app.example.com:99999",
      "https://",
      "file:///tmp",
      "null",
      "**",
      "https://*.example.com",
    ]
  ) {
    strictEqual(parseCorsOrigin(value), undefined, value);
  }
});

Deno.test("corsOriginsOf() names the value it cannot read", () => {
  throws(
    () => corsOriginsOf([APP, "app.example"]),
    { message: 'Invalid CORS origin "app.example": it is not scheme://host[:port] or "*"' },
  );
  const origins = corsOriginsOf(["HTTPS://APP.EXAMPLE:443/"]);
  ok(allowsOrigin(origins, APP));
  ok(!allowsOrigin(origins, "https://APP.EXAMPLE"), "Origin is compared as browsers write it");
});

Deno.test("serveHttp() throws on an origin that is not one, before it listens", async () => {
  // A port free a moment ago, asked for: if serveHttp had listened before it threw, the port
  // would be taken now. (The process's descriptors are no measure: other test files run in it.)
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = probe.addr as Deno.NetAddr;
  probe.close();
  await rejects(
    () => serveForTest([], { port, corsOrigins: ["https://app.example/mcp"] }),
    {
      message:
        'Invalid CORS origin "https://app.example/mcp": it is not scheme://host[:port] or "*"',
    },
  );
  const again = Deno.listen({ hostname: "127.0.0.1", port });
  again.close();
});

Deno.test("guardStep() lets a listed origin through the Origin check, and with * any, but never a Host it does not know", async () => {
  const loopback = ["localhost", "127.0.0.1", "[::1]"];
  const listed = guardStep(loopback, corsOriginsOf([APP]))(() => new Response("ok"));
  const status = async (handler: HttpHandler, headers: Record<string, string>) =>
    (await handler(exchangeOf("POST", headers))).status;
  strictEqual(await status(listed, { origin: APP }), 200);
  strictEqual(await status(listed, { origin: "http://localhost:3000" }), 200, "a loopback name");
  const refused = await listed(exchangeOf("POST", { origin: "https://evil.example" }));
  strictEqual(refused.status, 403);
  strictEqual(
    (await refused.json()).error.message,
    'Forbidden: the Origin header "https://evil.example" names no allowed host (see ' +
      "--allow-host) and is not an allowed origin (see --cors-origin)",
  );
  strictEqual(await status(listed, { origin: APP, host: "app.example" }), 403, "the Host check");

  const any = guardStep(loopback, corsOriginsOf(["*"]))(() => new Response("ok"));
  strictEqual(await status(any, { origin: "https://evil.example" }), 200);
  strictEqual(await status(any, { origin: "null" }), 200);
  strictEqual(
    await status(any, { origin: "http://evil.example", host: "evil.example:8080" }),
    403,
    "a rebinding's Host is still refused",
  );

  // Without CORS, as before: the Origin's name decides.
  const plain = guardStep(loopback)(() => new Response("ok"));
  strictEqual(await status(plain, { origin: APP }), 403);
});
