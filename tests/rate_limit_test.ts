// Rate limits (issue 25, adr/0043) through the server createServer builds: refused over stdio
// with the JSON-RPC error whose data says when to retry, over HTTP with 429 and Retry-After in
// both eras; per caller (--rate-limit) and per caller of a tool (`rateLimit`); one caller over
// its limit does not refuse another. Through a real Redis: tests/rate_limit_redis_test.ts.
// Nothing here asserts how long anything takes.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import type { AuthInfo } from "../lib/primitives/types.ts";
import { extract } from "../lib/wire/extract.ts";
import { IN_PROCESS } from "../lib/methods/context.ts";
import { collector, feed } from "./_memory_streams.ts";
import { callOf, httpServer, LEGACY, type Message, serverWith } from "./_rate_limited.ts";
import { withHangGuard } from "./_server_process.ts";
import { callerNamed } from "./_oauth_tools.ts";

Deno.test("rate limit over stdio: the request over the caller's limit is a -32031 error whose data says when to retry; initialize counts, notifications and ping do not", async () => {
  const { server } = await serverWith({ rateLimit: "3/min" });
  const input = feed();
  const output = collector();
  const stdio = server.serveStdio({ input, output });
  const send = (message: Message) =>
    input.push(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  const call = (id: number) => ({
    id,
    method: "tools/call",
    params: { name: "echo", arguments: {} },
  });
  try {
    send({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    send({ method: "notifications/initialized" });
    for (let id = 2; id <= 4; id++) send(call(id));
    send({ id: 5, method: "ping" });
    await withHangGuard(output.untilLines(5), "five answers");
    const [initialized, a, b, refused, ping] = output.lines() as Message[];
    strictEqual(initialized.result?.protocolVersion, LEGACY);
    for (const answer of [a, b]) strictEqual(answer.result?.content?.[0]?.text, "echo ran");
    strictEqual(refused.id, 4);
    strictEqual(refused.error.code, -32031);
    strictEqual(
      refused.error.message,
      `Rate limited: this caller's limit of "3/min" is used up; retry after 20 s`,
    );
    deepStrictEqual(refused.error.data, { retryAfterSeconds: 20, limit: "3/min" });
    deepStrictEqual([ping.id, ping.result], [5, {}]);
  } finally {
    input.end();
    await withHangGuard(stdio.done, "the end of input");
    await server.close();
  }
});

Deno.test("rate limit of a tool: each caller may call it that often, other tools are not counted, and another caller is not refused", async () => {
  const { server } = await serverWith();
  const as = (subject: string): AuthInfo => callerNamed(subject);
  let id = 0;
  /** One tools/call through the core, as the OAuth step hands it over (its `caller` fact). */
  const call = async (name: string, auth?: AuthInfo) => {
    const request = extract(new TextEncoder().encode(JSON.stringify(callOf(++id, name))));
    if (request.kind !== "request") throw new Error(request.kind);
    return await server.core.handle({
      request,
      controller: new AbortController(),
      closing: undefined,
      session: undefined,
      outlet: { notify() {}, outbound: undefined },
      origin: IN_PROCESS,
      facts: auth && { caller: auth },
    }) as Message;
  };
  try {
    const alice = as("alice");
    for (let i = 0; i < 2; i++) {
      strictEqual((await call("deploy", alice)).result?.isError, undefined);
    }
    const refused = await call("deploy", alice);
    strictEqual(refused.error?.code, -32031, JSON.stringify(refused));
    strictEqual(
      refused.error.message,
      `Rate limited: this caller's limit of "2/min" on tool "deploy" is used up; retry after 30 s`,
    );
    for (let i = 0; i < 10; i++) {
      strictEqual((await call("echo", alice)).result?.content?.[0]?.text, "echo ran", "no limit");
    }
    const bob = as("bob");
    strictEqual((await call("deploy", bob)).result?.content?.[0]?.text, "deploy ran", "bob");
    // The same subject at another issuer is another caller.
    const elsewhere = { ...alice, issuer: "https://other.example" };
    strictEqual((await call("deploy", elsewhere)).result?.content?.[0]?.text, "deploy ran");
    // In process (no token, no session, no address): one caller, the transport.
    strictEqual((await call("deploy")).result?.content?.[0]?.text, "deploy ran");
    strictEqual((await call("deploy")).result?.content?.[0]?.text, "deploy ran");
    strictEqual((await call("deploy")).error?.code, -32031);
    strictEqual((await call("deploy", alice)).error?.code, -32031, "alice still refused");
  } finally {
    await server.close();
  }
});

Deno.test("rate limit over HTTP, 2026-07-28: 429 with Retry-After, the body the JSON-RPC error", async () => {
  const peer = await httpServer({ rateLimit: "2/min burst 1" });
  try {
    const first = await peer.call("echo");
    deepStrictEqual([first.status, first.retryAfter], [200, null]);
    const refused = await peer.call("echo");
    strictEqual(refused.status, 429);
    strictEqual(refused.retryAfter, "30");
    strictEqual(refused.body.error.code, -32031);
    deepStrictEqual(refused.body.error.data, { retryAfterSeconds: 30, limit: "2/min burst 1" });
  } finally {
    await peer.close();
  }
});

Deno.test("rate limit over HTTP, 2025-era sessions: each session is a caller (429 with Retry-After in the session), initialize counts against the address", async () => {
  const peer = await httpServer({ rateLimit: "3/min" });
  const post = async (body: Message, session?: string) => {
    const response = await fetch(peer.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session === undefined
          ? {}
          : { "mcp-session-id": session, "mcp-protocol-version": LEGACY }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      session: response.headers.get("mcp-session-id"),
      body: text === "" ? undefined : JSON.parse(text),
    };
  };
  const initialize = (id: number) => ({
    id,
    method: "initialize",
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const call = (id: number) => ({
    id,
    method: "tools/call",
    params: { name: "echo", arguments: {} },
  });
  try {
    const a = await post(initialize(1));
    const b = await post(initialize(2));
    ok(a.session && b.session, "two sessions");
    for (let i = 0; i < 3; i++) {
      const answer = await post(call(10 + i), a.session!);
      strictEqual(answer.status, 200, JSON.stringify(answer.body));
    }
    const refused = await post(call(20), a.session!);
    deepStrictEqual([refused.status, refused.retryAfter], [429, "20"]);
    strictEqual(refused.body.error.code, -32031);
    const other = await post(call(21), b.session!);
    strictEqual(other.status, 200, "the other session is another caller");
    strictEqual(other.body.result.content[0].text, "echo ran");
    // The address has opened two sessions; a third initialize takes its last token, a fourth
    // is refused with 429 (no session is opened).
    strictEqual((await post(initialize(3))).status, 200);
    const fourth = await post(initialize(4));
    deepStrictEqual([fourth.status, fourth.retryAfter, fourth.session], [429, "20", null]);
  } finally {
    await peer.close();
  }
});
