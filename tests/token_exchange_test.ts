// Identity across the hop (adr/0071 §5): lib/auth/token_exchange.ts trades a caller's token for
// an upstream's by RFC 8693 at a real oidc-provider (tests/_token_exchange_issuer.ts registers
// the grant), and a second toolshed, started with that issuer and a resource of its own, takes
// the exchanged token and refuses the caller's. The exchange's cache is counted at the issuer
// (asked once per caller, again after expiry on a clock the test drives, again past the bound);
// a refusal says what the issuer said and what to fix, without a token or a secret in it. The
// front token the OAuth step verified reaches a handler only through `frontTokenOf(ctx)`, and
// only a tool toolshed made to forward identity: an ordinary tool's context shows it nowhere
// (the official SDK client over HTTP, the real OAuth step), while the forwarding tool trades it
// and calls the second toolshed as the caller, inline, as a task and as a job.
import { deepStrictEqual, match, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import * as jose from "npm:jose@6.2.18";
import { createTokenExchange } from "../lib/auth/token_exchange.ts";
import { type ExchangeRequest, frontTokenOf } from "../lib/primitives/front_token.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { ToolContext } from "../lib/primitives/types.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { type ExchangeIssuer, startExchangeIssuer } from "./_token_exchange_issuer.ts";
import { modernBody, modernHeaders, serveForTest, type TestHttpServer } from "./_http_server.ts";
import { withHangGuard } from "./_server_process.ts";

/** The second toolshed's resource (its `--public-url`): what an exchanged token is for. */
const UPSTREAM = "https://upstream.example/mcp";
/** The front toolshed's resource: what a caller's token is for. */
const FRONT = "https://front.example/mcp";
const TASKS = "io.modelcontextprotocol/tasks";

/** What a tool's handler shows of its context: everything a tool could leak. */
function contextSeen(ctx: ToolContext): JsonObject {
  return {
    auth: (ctx.auth ?? null) as unknown as JsonObject,
    json: JSON.stringify(ctx),
    keys: Object.keys(ctx),
    own: Reflect.ownKeys(ctx).map(String),
    lent: frontTokenOf(ctx) ?? null,
  };
}

/** An ordinary tool (as a file of tools/ would be): it echoes what its context shows. */
const PEEK: Tool = checkDefinition(
  {
    description: "Shows what its context holds",
    inputSchema: { type: "object" },
    handler: (_args: unknown, ctx: ToolContext) => contextSeen(ctx),
  },
  "peek",
  "tools/peek.ts",
);

async function withIssuer(run: (as: ExchangeIssuer) => Promise<void>, exchangeSeconds = 300) {
  const as = await startExchangeIssuer({ upstreams: [UPSTREAM], exchangeSeconds });
  try {
    await run(as);
  } finally {
    await as.stop();
  }
}

/** A toolshed of `tools` whose callers sign in at `as`, for `resource`. */
function toolshedOf(
  tools: readonly Tool[],
  as: ExchangeIssuer,
  resource: string,
  config: Parameters<typeof serveForTest>[3] = {},
): Promise<TestHttpServer> {
  return serveForTest(
    tools,
    { oauth: { issuer: as.issuer, publicUrl: resource }, logRequests: true },
    {},
    config,
  );
}

/** The official SDK client at `url` with `token` as its Bearer token (a 2025-11-25 session). */
async function clientWith(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "token-exchange-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await withHangGuard(client.connect(transport), "the SDK client connecting");
  return client;
}

/** `name`'s structured result, called by the SDK client with `token`. */
async function callWith(url: string, token: string, name: string, args: JsonObject = {}) {
  const client = await clientWith(url, token);
  try {
    const result = await client.callTool({ name, arguments: args });
    ok(result.isError !== true, JSON.stringify(result));
    return result.structuredContent as JsonObject;
  } finally {
    await client.close();
  }
}

/** A caller's token for the front toolshed: `user` signs in (authorization code, PKCE). */
async function signIn(as: ExchangeIssuer, user: string, scope = "tools:read tools:call") {
  as.server.signInAs(user);
  return (await as.server.login({ scope, resource: FRONT })).accessToken;
}

function requestFor(as: ExchangeIssuer, subjectToken: string): ExchangeRequest {
  return {
    subjectToken,
    audience: UPSTREAM,
    resource: UPSTREAM,
    scopes: ["tools:read"],
    ...as.exchanger,
  };
}

const inTime = () => AbortSignal.timeout(10_000);

Deno.test("tokenFor() trades the caller's token for one with the upstream's aud and the caller's sub, which a second toolshed accepts where it refuses the caller's", async () => {
  await withIssuer(async (as) => {
    const upstream = await toolshedOf([PEEK], as, UPSTREAM);
    try {
      const front = await signIn(as, "alice");
      const exchange = createTokenExchange({ issuer: as.issuer });
      const token = await exchange.tokenFor(requestFor(as, front), inTime());
      const claims = jose.decodeJwt(token);
      deepStrictEqual([claims.aud, claims.sub, claims.scope], [UPSTREAM, "alice", "tools:read"]);
      strictEqual(jose.decodeJwt(front).aud, FRONT);

      const seen = await callWith(upstream.url, token, "peek");
      const auth = seen.auth as JsonObject;
      deepStrictEqual([auth.subject, auth.scopes], ["alice", ["tools:read"]]);

      // The caller's own token is for the front, not for the upstream: refused (401).
      const refused = await fetch(upstream.url, {
        method: "POST",
        headers: { ...modernHeaders("tools/call", "peek"), authorization: `Bearer ${front}` },
        body: modernBody(1, "tools/call", { name: "peek", arguments: {} }),
      });
      await refused.body?.cancel();
      strictEqual(refused.status, 401);
      match(refused.headers.get("www-authenticate") ?? "", /invalid_token/);
      match(refused.headers.get("www-authenticate") ?? "", /audience/);
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("tokenFor() asks the issuer once per caller and upstream until expires_in less the skew, and once for callers asking together", async () => {
  await withIssuer(async (as) => {
    let clock = Date.now() / 1000;
    const exchange = createTokenExchange({ issuer: as.issuer, skewSeconds: 30, now: () => clock });
    const alice = await signIn(as, "alice");
    const bob = await signIn(as, "bob");
    const first = await exchange.tokenFor(requestFor(as, alice), inTime());
    strictEqual(await exchange.tokenFor(requestFor(as, alice), inTime()), first);
    strictEqual(as.exchanges, 1);
    const bobs = await exchange.tokenFor(requestFor(as, bob), inTime());
    strictEqual(jose.decodeJwt(bobs).sub, "bob");
    strictEqual(as.exchanges, 2);
    // Another upstream scope set is another token.
    await exchange.tokenFor({ ...requestFor(as, alice), scopes: ["tools:call"] }, inTime());
    strictEqual(as.exchanges, 3);

    // 60 s tokens kept until 30 s before they expire: at +29 s still kept, at +31 s asked again.
    clock += 29;
    strictEqual(await exchange.tokenFor(requestFor(as, alice), inTime()), first);
    strictEqual(as.exchanges, 3);
    clock += 2;
    const renewed = await exchange.tokenFor(requestFor(as, alice), inTime());
    ok(renewed !== first);
    strictEqual(as.exchanges, 4);

    // Callers asking the same at once share one request to the issuer.
    const carol = await signIn(as, "carol");
    const together = await Promise.all(
      [1, 2, 3].map(() => exchange.tokenFor(requestFor(as, carol), inTime())),
    );
    strictEqual(new Set(together).size, 1);
    strictEqual(as.exchanges, 5);

    // A token that lives no longer than the skew is used once, never kept.
    const unkept = createTokenExchange({ issuer: as.issuer, skewSeconds: 60, now: () => clock });
    await unkept.tokenFor(requestFor(as, alice), inTime());
    await unkept.tokenFor(requestFor(as, alice), inTime());
    strictEqual(as.exchanges, 7);
  }, 60);
});

Deno.test("tokenFor() answers a caller that gives up with its signal's reason, and ends the issuer's request only when every caller sharing it has", async () => {
  await withIssuer(async (as) => {
    // The issuer is real; its token endpoint's answers are held until the test lets them go.
    const held: { signal: AbortSignal; go: () => void }[] = [];
    const holding: typeof fetch = async (input, init) => {
      if (init?.method === "POST") {
        await new Promise<void>((resolve) => held.push({ signal: init.signal!, go: resolve }));
      }
      return await fetch(input, init);
    };
    const until = async (count: number) => {
      for (let turn = 0; turn < 500 && held.length < count; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      strictEqual(held.length, count, "the issuer was asked");
    };
    const exchange = createTokenExchange({ issuer: as.issuer, fetch: holding });
    const alice = await signIn(as, "alice");
    const impatient = new AbortController();
    const first = exchange.tokenFor(requestFor(as, alice), impatient.signal);
    const second = exchange.tokenFor(requestFor(as, alice), inTime());
    await until(1);
    impatient.abort(new Error("the first caller gave up"));
    await rejects(first, /the first caller gave up/);
    strictEqual(held[0].signal.aborted, false, "the second caller still waits for it");
    held[0].go();
    strictEqual(jose.decodeJwt(await second).sub, "alice");
    strictEqual(as.exchanges, 1);

    // Both callers of another flight give up: its request to the issuer is ended.
    const bob = await signIn(as, "bob");
    const callers = [new AbortController(), new AbortController()];
    const both = callers.map((caller) => exchange.tokenFor(requestFor(as, bob), caller.signal));
    await until(2);
    for (const caller of callers) caller.abort(new Error("gone"));
    for (const one of both) await rejects(one, /gone/);
    strictEqual(held[1].signal.aborted, true);
    held[1].go();
  });
});

Deno.test("tokenFor() keeps at most maxCached tokens, the least recently used out first", async () => {
  await withIssuer(async (as) => {
    const exchange = createTokenExchange({ issuer: as.issuer, maxCached: 2 });
    const [alice, bob, carol] = [
      await signIn(as, "alice"),
      await signIn(as, "bob"),
      await signIn(as, "carol"),
    ];
    await exchange.tokenFor(requestFor(as, alice), inTime());
    await exchange.tokenFor(requestFor(as, bob), inTime());
    await exchange.tokenFor(requestFor(as, alice), inTime()); // alice is now the most recent
    strictEqual(as.exchanges, 2);
    await exchange.tokenFor(requestFor(as, carol), inTime()); // bob out
    strictEqual(as.exchanges, 3);
    await exchange.tokenFor(requestFor(as, alice), inTime());
    await exchange.tokenFor(requestFor(as, carol), inTime());
    strictEqual(as.exchanges, 3);
    await exchange.tokenFor(requestFor(as, bob), inTime());
    strictEqual(as.exchanges, 4);
  });
});

Deno.test("tokenFor() rejects an issuer's refusal with what it said and what to fix, never a token or the secret", async () => {
  await withIssuer(async (as) => {
    const exchange = createTokenExchange({ issuer: as.issuer });
    const alice = await signIn(as, "alice");
    const foreign = await new jose.SignJWT({ sub: "mallory", scope: "tools:read" })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt" })
      .setIssuer(as.issuer).setAudience(FRONT).setExpirationTime("5m")
      .sign((await jose.generateKeyPair("ES256")).privateKey);
    const cases: [ExchangeRequest, RegExp][] = [
      [
        requestFor(as, foreign),
        /: invalid_grant \(.*\); the caller's token is not one it exchanges/,
      ],
      [
        { ...requestFor(as, alice), audience: "https://unknown.example/mcp", resource: undefined },
        /for the audience "https:\/\/unknown\.example\/mcp": invalid_target \(.*\); it does not know the upstream: register "https:\/\/unknown\.example\/mcp" as a resource there/,
      ],
      [
        { ...requestFor(as, alice), clientSecret: "not the secret" },
        /invalid_client \(.*\); it refused the credentials of client "toolshed-exchange": correct the client id and secret/,
      ],
    ];
    for (const [request, expected] of cases) {
      const error = await exchange.tokenFor(request, inTime()).then(
        () => undefined,
        (error: Error) => error,
      );
      ok(error instanceof Error, `${expected} is refused`);
      match(
        error.message,
        new RegExp(
          `^The authorization server "${as.issuer}" refused to exchange the caller's token `,
        ),
      );
      match(error.message, expected);
      for (
        const secret of [request.subjectToken, request.clientSecret, as.exchanger.clientSecret]
      ) {
        ok(!error.message.includes(secret), `no credential in: ${error.message}`);
      }
    }
    strictEqual(as.exchanges, 2, "the bad client never reached the grant");

    // Bad input is refused before anything is asked; an aborted caller gets its reason.
    await rejects(
      exchange.tokenFor({ ...requestFor(as, alice), scopes: ["two words"] }, inTime()),
      /Cannot exchange the caller's token: the scope "two words" is not one scope token/,
    );
    const stopped = new AbortController();
    stopped.abort(new Error("the call was cancelled"));
    await rejects(
      exchange.tokenFor(requestFor(as, alice), stopped.signal),
      /the call was cancelled/,
    );
    strictEqual(as.exchanges, 2);
    throws(
      () => createTokenExchange({ issuer: "http://as.example" }),
      /http only on a loopback host/,
    );
  });
});

Deno.test("checkDefinition() never takes forwardsIdentity from a definition", () => {
  throws(
    () =>
      checkDefinition(
        {
          description: "d",
          inputSchema: { type: "object" },
          handler: () => "",
          forwardsIdentity: true,
        },
        "sly",
        "tools/sly.ts",
      ),
    /unknown field "forwardsIdentity"/,
  );
  strictEqual(PEEK.forwardsIdentity, undefined);
});

Deno.test("the front token reaches only a tool that forwards identity, through frontTokenOf, inline, as a task and as a job; an ordinary tool's context shows it nowhere", async () => {
  await withIssuer(async (as) => {
    const upstream = await toolshedOf([PEEK], as, UPSTREAM);
    const exchange = createTokenExchange({ issuer: as.issuer });
    /** What a waiting call waits for: opened by the test once the call is a job or a task. */
    let open = () => {};
    let gate = Promise.resolve();
    const closeGate = () => gate = new Promise<void>((resolve) => open = resolve);
    /**
     * A tool toolshed made (a mounted tool would be): trades the front token, calls upstream.
     * `jobAfterMs` of its own: how long a call runs inline before it becomes a job.
     */
    const relayTool = (name: string, jobAfterMs?: number): Tool => ({
      ...checkDefinition(
        {
          description: "Calls the upstream's peek as the caller",
          inputSchema: { type: "object", properties: { wait: { type: "boolean" } } },
          task: "optional",
          ...(jobAfterMs === undefined ? {} : { jobAfterMs }),
          handler: async (args: { wait?: boolean }, ctx: ToolContext) => {
            if (args.wait === true) {
              await Promise.race([gate, new Promise((resolve) => ctx.signal.onabort = resolve)]);
            }
            const front = frontTokenOf(ctx);
            if (front === undefined) return { lent: null };
            const token = await exchange.tokenFor(requestFor(as, front), ctx.signal);
            const seen = await callWith(upstream.url, token, "peek");
            return { ...contextSeen(ctx), upstream: (seen.auth as JsonObject).subject as string };
          },
        },
        name,
        "(mount)",
      ),
      forwardsIdentity: true,
    });
    // Calls run inline for 60 s before they become jobs (none does), relay_job's for 50 ms.
    const tools = [PEEK, relayTool("relay"), relayTool("relay_job", 50)];
    const front = await toolshedOf(tools, as, FRONT, { jobAfterMs: 60_000 });
    try {
      const alice = await signIn(as, "alice");
      const absent = (seen: JsonObject) => {
        const text = JSON.stringify(seen);
        ok(!text.includes(alice), `the front token is not in ${text}`);
        ok(!(seen.keys as string[]).includes("frontToken"));
        deepStrictEqual(seen.keys, seen.own, "no hidden own keys");
      };

      // An ordinary tool, through the SDK client: ctx.auth is the caller, and no token anywhere.
      const peeked = await callWith(front.url, alice, "peek");
      strictEqual((peeked.auth as JsonObject).subject, "alice");
      strictEqual(peeked.lent, null);
      absent(peeked);

      // The tool that forwards identity: lent the token, which it trades and uses upstream.
      const relayed = await callWith(front.url, alice, "relay");
      strictEqual(relayed.lent, alice);
      strictEqual(relayed.upstream, "alice");
      absent({ ...relayed, lent: null });

      // As a job (a client without tasks, a call longer than jobAfterMs): the handler started at
      // call time keeps its lent token.
      const client = await clientWith(front.url, alice);
      closeGate();
      try {
        const handle = await client.callTool({ name: "relay_job", arguments: { wait: true } });
        const job = (handle.structuredContent as { job?: { id: string } }).job;
        ok(job !== undefined, JSON.stringify(handle));
        open();
        const done = await client.callTool({ name: "toolshed_job", arguments: { id: job.id } });
        const result = done.structuredContent as JsonObject;
        deepStrictEqual([result.lent, result.upstream], [alice, "alice"], JSON.stringify(done));
        ok(!JSON.stringify(handle).includes(alice), "the job's handle holds no token");
      } finally {
        open();
        await client.close();
      }

      // As a task (2026-07-28 with the tasks extension): the same, read back by tasks/get.
      const post = async (id: number, method: string, params: JsonObject) => {
        const response = await fetch(front.url, {
          method: "POST",
          headers: {
            ...modernHeaders(method, (params.name ?? params.taskId) as string),
            authorization: `Bearer ${alice}`,
          },
          body: modernBody(id, method, params, { extensions: { [TASKS]: {} } }),
        });
        return (await response.json()).result as JsonObject;
      };
      closeGate();
      const created = await post(1, "tools/call", { name: "relay", arguments: { wait: true } });
      strictEqual(created.resultType, "task", JSON.stringify(created));
      ok(!JSON.stringify(created).includes(alice), "the task holds no token");
      open();
      let task = created;
      for (let poll = 0; poll < 250 && task.status !== "completed"; poll++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        task = await post(2 + poll, "tasks/get", { taskId: created.taskId });
      }
      const outcome = task.result as JsonObject;
      const content = outcome.structuredContent as JsonObject;
      deepStrictEqual([content.lent, content.upstream], [alice, "alice"], JSON.stringify(task));

      // Every request was logged, by its caller, and no log line holds the token.
      const logged = front.diagnostics.text();
      match(logged, /"tools\/call" by "alice"/);
      ok(!logged.includes(alice), logged);
    } finally {
      open();
      await front.close();
      await upstream.close();
    }
  });
});

/**
 * A hand-made authorization server on 127.0.0.1 whose metadata and token endpoint answer what
 * `answers` says (each answer used once, in order): what a real one should not answer.
 */
async function withOddIssuer(
  metadata: (issuer: string) => JsonObject,
  answers: (() => Response)[],
  run: (issuer: string) => Promise<void>,
) {
  let issuer = "";
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ hostname, port }) => issuer = `http://${hostname}:${port}`,
  }, async (request) => {
    await request.body?.cancel();
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/oauth-authorization-server") return Response.json(metadata(issuer));
    const next = answers.shift();
    return next === undefined ? new Response("no more answers", { status: 500 }) : next();
  });
  try {
    await run(issuer);
  } finally {
    await server.shutdown();
  }
}

Deno.test("tokenFor() refuses what a token endpoint should not answer, saying what, and keeps credentials out of every message", async () => {
  const subjectToken = "the-callers-token";
  const request: ExchangeRequest = {
    subjectToken,
    audience: UPSTREAM,
    scopes: [],
    clientId: "toolshed",
    clientSecret: "the-secret",
  };
  const answers = [
    () =>
      Response.json({
        error: "invalid_grant",
        error_description: `token ${subjectToken} (client the-secret) is revoked\nsee logs`,
      }, { status: 400 }),
    () => Response.json({ access_token: "x", token_type: "DPoP", expires_in: 60 }),
    () => Response.json({ token_type: "Bearer" }),
    () => new Response("x".repeat(300 * 1024)),
    () => new Response("<html>oops</html>", { status: 502 }),
  ];
  const expected = [
    /: invalid_grant \(token \[redacted\] \(client \[redacted\]\) is revoked see logs\); the caller's token is not one it exchanges/,
    /exchanged the caller's token for the audience "https:\/\/upstream\.example\/mcp", but its token_type is "DPoP", and toolshed sends Bearer tokens only/,
    /but its answer has no "access_token"/,
    /its answer is longer than 256 KiB/,
    /refused to exchange the caller's token for the audience "https:\/\/upstream\.example\/mcp": HTTP 502; see its logs for why/,
  ];
  await withOddIssuer(
    (issuer) => ({ issuer, token_endpoint: `${issuer}/token` }),
    answers,
    async (issuer) => {
      const exchange = createTokenExchange({ issuer });
      for (const pattern of expected) {
        const error = await exchange.tokenFor(request, inTime()).then(
          () => undefined,
          (e: Error) => e,
        );
        ok(error instanceof Error, `${pattern} is refused`);
        match(error.message, pattern);
        ok(
          !error.message.includes(subjectToken) && !error.message.includes("the-secret"),
          error.message,
        );
      }
    },
  );
  // Metadata that cannot serve: no token endpoint; token exchange not among its grants.
  await withOddIssuer((issuer) => ({ issuer }), [], async (issuer) => {
    await rejects(
      createTokenExchange({ issuer }).tokenFor(request, inTime()),
      new RegExp(`Cannot exchange tokens at "${issuer}": its metadata names no "token_endpoint"`),
    );
  });
  await withOddIssuer(
    (issuer) => ({
      issuer,
      token_endpoint: `${issuer}/token`,
      grant_types_supported: ["client_credentials"],
    }),
    [],
    async (issuer) => {
      await rejects(
        createTokenExchange({ issuer }).tokenFor(request, inTime()),
        /its metadata's "grant_types_supported" lacks "urn:ietf:params:oauth:grant-type:token-exchange" \(RFC 8693\); enable token exchange there/,
      );
    },
  );
});
