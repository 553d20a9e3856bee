// The steps of the HTTP endpoint, each alone (adr/0025): a step is given the rest of the chain
// and returns a handler, so a test composes it with a `next` of its own and sees what it lets
// through, what it answers itself, and what it leaves on the exchange for the steps after it.
// (Together, over real HTTP, they are held to exact text by tests/http_transcript_test.ts.)
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { compose } from "../lib/util/compose.ts";
import type { Exchange, HttpHandler } from "../lib/transports/http/exchange.ts";
import type { Connection } from "../lib/transports/http/listener.ts";
import { guardStep } from "../lib/transports/http/guard.ts";
import { bearerStep } from "../lib/transports/http/auth.ts";
import { methodAndTypeStep } from "../lib/transports/http/method_and_type.ts";
import { bodyStep, createBodyBudget } from "../lib/transports/http/body.ts";
import { admissionStep } from "../lib/transports/http/admission.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A connection that records what a step asked of it. */
function connection(): Connection & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    close: () => asked.push("close"),
    closeWhenAnswered: () => asked.push("closeWhenAnswered"),
    bodyDeadline: () => () => {},
    readingStarted: () => asked.push("readingStarted"),
    readingEnded: () => asked.push("readingEnded"),
  };
}

/** The exchange of `request`, and a `next` that says it was reached (and what it saw). */
function reach(): { next: HttpHandler; seen: Exchange[] } {
  const seen: Exchange[] = [];
  return {
    seen,
    next: (exchange) => {
      seen.push(exchange);
      return new Response("reached", { status: 299 });
    },
  };
}

function exchangeOf(request: Request): Exchange {
  return { request, connection: connection(), note: undefined };
}

const post = (headers: Record<string, string>, body = "{}") =>
  new Request("http://127.0.0.1/mcp", { method: "POST", headers, body });

Deno.test("guardStep() lets an allowed Host through and answers another with 403 before next", async () => {
  const { next, seen } = reach();
  const handler = guardStep(["127.0.0.1", "tools.example.com"])(next);
  strictEqual((await handler(exchangeOf(post({ host: "tools.example.com:8080" })))).status, 299);
  const refused = await handler(exchangeOf(post({ host: "evil.example.com" })));
  strictEqual(refused.status, 403);
  const answer = await refused.json();
  strictEqual(answer.error.code, -32000);
  strictEqual(seen.length, 1, "the refused request never reached next");
});

Deno.test("bearerStep() answers a missing or wrong token with 401 and its challenge, and lets the right one through", async () => {
  const { next, seen } = reach();
  const handler = bearerStep("s3cret")(next);
  const missing = await handler(exchangeOf(post({})));
  strictEqual(missing.status, 401);
  strictEqual(missing.headers.get("www-authenticate"), 'Bearer realm="toolshed"');
  const wrong = await handler(exchangeOf(post({ authorization: "Bearer nope" })));
  strictEqual(
    wrong.headers.get("www-authenticate"),
    'Bearer realm="toolshed", error="invalid_token"',
  );
  strictEqual((await handler(exchangeOf(post({ authorization: "bearer  s3cret" })))).status, 299);
  strictEqual(seen.length, 1);
});

Deno.test("methodAndTypeStep() sends GET and DELETE to the session streams, refuses what is not JSON, and lets a POST of JSON through", async () => {
  const { next, seen } = reach();
  const streams: string[] = [];
  const handler = methodAndTypeStep({
    open: () => (streams.push("open"), new Response(null, { status: 200 })),
    end: () => (streams.push("end"), new Response(null, { status: 200 })),
  })(next);
  const request = (method: string, headers: Record<string, string> = {}) =>
    handler(exchangeOf(new Request("http://127.0.0.1/mcp", { method, headers })));
  await request("GET", { accept: "text/event-stream" });
  await request("DELETE");
  deepStrictEqual(streams, ["open", "end"]);
  // A 2026-07-28 client has only POST.
  const stateless = await request("DELETE", { "mcp-protocol-version": "2026-07-28" });
  deepStrictEqual([stateless.status, stateless.headers.get("allow")], [405, "POST"]);
  const put = await request("PUT");
  deepStrictEqual([put.status, put.headers.get("allow")], [405, "GET, POST, DELETE"]);
  strictEqual((await handler(exchangeOf(post({ "content-type": "text/plain" })))).status, 415);
  strictEqual(
    (await handler(exchangeOf(post({ "content-type": "application/json; charset=utf-8" }))))
      .status,
    299,
  );
  strictEqual(seen.length, 1);
});

Deno.test("bodyStep() leaves the body on the exchange within the limit and the budget, counted until it is released", async () => {
  const budget = createBodyBudget(1_000);
  const { next, seen } = reach();
  const handler = bodyStep({ limitBytes: 100, budget, bodyTimeoutMs: 30_000 })(next);
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  strictEqual(
    (await handler(exchangeOf(post({ "content-length": String(body.length) }, body))))
      .status,
    299,
  );
  const [reached] = seen;
  strictEqual(new TextDecoder().decode(reached.body!.bytes), body);
  strictEqual(budget.held(), body.length, "its bytes count until it is answered");
  reached.body!.release();
  strictEqual(budget.held(), 0);
  // Announced past the limit: 413 before a byte is read, and the connection closes once answered.
  const large = exchangeOf(post({ "content-length": "101" }, "x".repeat(101)));
  strictEqual((await handler(large)).status, 413);
  deepStrictEqual((large.connection as ReturnType<typeof connection>).asked, [
    "closeWhenAnswered",
  ]);
  strictEqual(seen.length, 1);
});

Deno.test("admissionStep() answers refusals and notifications itself, giving the body back, and leaves a request to dispatch on the exchange", async () => {
  const budget = createBodyBudget(1_000);
  const { next, seen } = reach();
  const handler = compose([
    bodyStep({ limitBytes: 10_000, budget, bodyTimeoutMs: 30_000 }),
    admissionStep(() => undefined),
  ], next);
  const stateless = {
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
  };
  const notification = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { _meta: META },
  });
  strictEqual((await handler(exchangeOf(post(stateless, notification)))).status, 202);
  const refused = await handler(exchangeOf(post(stateless, "{not json")));
  strictEqual(refused.status, 400);
  strictEqual((await refused.json()).error.code, -32700);
  strictEqual(budget.held(), 0, "a refused or accepted body is given back at once");
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/list",
    params: { _meta: META },
  });
  strictEqual(
    (await handler(exchangeOf(post({ ...stateless, "mcp-method": "tools/list" }, call)))).status,
    299,
  );
  const [reached] = seen;
  ok(reached.admission?.kind === "dispatch");
  deepStrictEqual([reached.admission.request.id, reached.admission.request.method], [
    7,
    "tools/list",
  ]);
  strictEqual(budget.held(), call.length, "the dispatched request's body counts until answered");
});
