// A request's facts (adr/0061 §2): the step that learns a fact writes it in the request's bag,
// the core keeps that bag on the request's context, and its readers find it there. Stdio and a
// plain HTTP request make no bag at all; the OAuth step's caller reaches ctx.auth, the rate
// limit's key, a task's binding and a sealed requestState's binding; a 2025-era session keeps
// the bag of the request that opened it, but for its token. A spy middleware looks at each
// call's context.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import type { Facts } from "../lib/methods/facts.ts";
import type { MethodCall } from "../lib/methods/call.ts";
import { callerOf } from "../lib/methods/caller.ts";
import { callerKeyOf } from "../lib/core/rate_limit.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type {
  Call,
  CompletionContext,
  HandlerContext,
  Middleware,
  ToolContext,
} from "../lib/primitives/types.ts";
import type { TokenVerifier } from "../lib/auth/types.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { composeForTest } from "./_in_process.ts";
import { ASK_TOOL, askAnswered, callerNamed, JOB_TOOL } from "./_oauth_tools.ts";
import { collector, feed } from "./_memory_streams.ts";
import {
  legacyHeaders,
  modernBody,
  modernHeaders,
  postInitialize,
  type TestHttpServer,
  whileServed,
} from "./_http_server.ts";

const TASKS = "io.modelcontextprotocol/tasks";

/** What the spy saw of one call: its context's bag, its public face, its rate key. */
interface Seen {
  method: string;
  facts: MethodCall["ctx"]["facts"];
  session: MethodCall["ctx"]["session"];
  auth: Call["auth"];
  rateKey: string;
}

function spy(seen: Seen[]): Middleware {
  return (next) => (call) => {
    const { ctx } = call as MethodCall;
    seen.push({
      method: call.method,
      facts: ctx.facts,
      session: ctx.session,
      auth: call.auth,
      rateKey: callerKeyOf(call as MethodCall),
    });
    return next(call);
  };
}

const tools: Tool[] = [
  checkDefinition(
    {
      description: "Says who is calling",
      inputSchema: { type: "object" },
      handler: (_args: unknown, ctx: ToolContext) => ({ subject: ctx.auth?.subject ?? null }),
    },
    "whoami",
    "tools/whoami.ts",
  ),
  ASK_TOOL,
  JOB_TOOL,
];

const alice = callerNamed("alice");
const bob = callerNamed("bob");

/** A verifier that knows two tokens, "alice" and "bob", and gives the same object each time. */
const verifier: TokenVerifier = {
  verify: (token) =>
    Promise.resolve(
      token === "alice"
        ? { ok: true, auth: alice }
        : token === "bob"
        ? { ok: true, auth: bob }
        : { ok: false, reason: "invalid", message: "unknown token" },
    ),
  issuerMetadata: () => Promise.resolve({}),
};

/** What Mcp-Name carries for a request: the tool's name, the task's id. */
function nameOf(params: JsonObject): string | undefined {
  const named = params.name ?? params.taskId;
  return typeof named === "string" ? named : undefined;
}

let nextId = 0;
async function post(
  url: string,
  method: string,
  params: JsonObject,
  token?: string,
  capabilities: JsonObject = {},
) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...modernHeaders(method, nameOf(params)),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: modernBody(++nextId, method, params, capabilities),
  });
  return {
    status: response.status,
    body: await response.json() as JsonObject & { result?: JsonObject; error?: JsonObject },
  };
}

function withServer(
  config: Parameters<typeof whileServed>[2],
  listen: Parameters<typeof whileServed>[1],
  run: (server: TestHttpServer) => Promise<void>,
): Promise<void> {
  return whileServed(tools, listen, config, run);
}

Deno.test("facts: the public faces (ctx.auth, a completer's auth, Call.auth) are typed as the caller fact", () => {
  type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;
  const faces: [
    Same<HandlerContext["auth"], Facts["caller"] | undefined>,
    Same<CompletionContext["auth"], Facts["caller"] | undefined>,
    Same<Call["auth"], Facts["caller"] | undefined>,
  ] = [true, true, true];
  deepStrictEqual(faces, [true, true, true]);
});

Deno.test("facts: a stdio request and a plain HTTP request carry no bag (facts undefined)", async () => {
  const seen: Seen[] = [];
  const composed = await composeForTest({ primitives: { tools }, middleware: [spy(seen)] });
  const input = feed();
  const output = collector();
  const done = composed.serveStdio({ input, output }).done;
  input.push(
    modernBody(1, "tools/call", { name: "whoami", arguments: {} }).replace(/\n/g, "") + "\n",
  );
  const line = await output.nextLine();
  match(line!, /"subject":null/);
  input.end();
  await done;
  await composed.close();

  await withServer({ middleware: [spy(seen)] }, {}, async (server) => {
    const answered = await post(server.url, "tools/call", { name: "whoami", arguments: {} });
    strictEqual(answered.status, 200);
  });
  strictEqual(seen.length, 2);
  for (const { facts, auth, rateKey } of seen) {
    strictEqual(facts, undefined);
    strictEqual(auth, undefined);
    ok(rateKey === "stdio" || rateKey === "http", rateKey);
  }
});

Deno.test("facts: with a rate limit the listener's address is a fact, and the rate key reads it", async () => {
  const seen: Seen[] = [];
  await withServer({ middleware: [spy(seen)], rateLimit: "100/min" }, {}, async (server) => {
    strictEqual((await post(server.url, "tools/list", {})).status, 200);
  });
  strictEqual(seen.length, 1);
  deepStrictEqual(seen[0].facts, { address: "127.0.0.1" });
  strictEqual(seen[0].rateKey, "address 127.0.0.1");
});

Deno.test("facts: the OAuth step's caller reaches ctx.auth, the rate key, a task's binding and a sealed state's binding; a session keeps its opener's bag", async () => {
  const seen: Seen[] = [];
  const oauth = { issuer: "https://issuer.example", verifier };
  await withServer({ middleware: [spy(seen)] }, { oauth }, async ({ url }) => {
    // ctx.auth: the very object the verifier gave, through the bag (no copy).
    const who = await post(url, "tools/call", { name: "whoami", arguments: {} }, "alice");
    deepStrictEqual(who.body.result?.structuredContent, { subject: "alice" });
    const first = seen.at(-1)!;
    strictEqual(first.facts?.caller, alice);
    strictEqual(first.auth, alice);
    // The token itself is a fact of the request (for a tool that forwards identity), not a face.
    strictEqual(first.facts?.frontToken, "alice");
    strictEqual(first.rateKey, `sub ${callerOf(alice)}`);

    // A task is bound to the caller that started it.
    const capabilities = { extensions: { [TASKS]: {} } };
    const started = await post(url, "tools/call", { name: "job", arguments: {} }, "alice", {
      ...capabilities,
    });
    const { taskId } = started.body.result as { taskId: string };
    strictEqual(typeof taskId, "string", JSON.stringify(started.body));
    const other = await post(url, "tasks/get", { taskId }, "bob", capabilities);
    strictEqual(other.body.error?.code, -32602, JSON.stringify(other.body));
    const mine = await post(url, "tasks/get", { taskId }, "alice", capabilities);
    strictEqual(mine.body.result?.status, "working", JSON.stringify(mine.body));
    await post(url, "tasks/cancel", { taskId }, "alice", capabilities);

    // A sealed requestState is bound to the caller it was sealed for.
    const asking = { elicitation: {} };
    const asked = await post(url, "tools/call", { name: "ask", arguments: {} }, "alice", asking);
    const round = askAnswered(asked.body.result);
    const hijacked = await post(url, "tools/call", round, "bob", asking);
    match(JSON.stringify(hijacked.body), /requestState was issued to another caller/);
    const continued = await post(url, "tools/call", round, "alice", asking);
    match(JSON.stringify(continued.body.result), /answered accept/);

    // A 2025-era session keeps its opening request's bag: its caller is the one it is bound to.
    const opened = await postInitialize(url, "2025-11-25", { authorization: "Bearer alice" });
    await opened.body?.cancel();
    const session = opened.headers.get("mcp-session-id")!;
    const inSession = (token: string) =>
      fetch(url, {
        method: "POST",
        headers: legacyHeaders(session, { authorization: `Bearer ${token}` }),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "whoami", arguments: {} },
        }),
      });
    const stolen = await inSession("bob");
    await stolen.body?.cancel();
    strictEqual(stolen.status, 404);
    const own = await inSession("alice");
    await own.body?.cancel();
    strictEqual(own.status, 200);
    const last = seen.at(-1)!;
    strictEqual(last.session?.facts?.caller, alice);
    strictEqual(last.auth, alice);
    // Each request brings its own token: the session keeps none past the request that opened it.
    strictEqual(last.facts?.frontToken, "alice");
    strictEqual(last.session?.facts?.frontToken, undefined);
  });
});
