// The optional bearer token over HTTP (adr/0033): 401 with a challenge when
// it is missing or wrong, checked after the Host/Origin guard, probes left open; and the
// constant-time comparison of digests. In process over loopback with real fetch.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { createBearerCheck, equalDigests } from "../lib/transports/http/auth.ts";
import { serveForTest, type TestHttpServer } from "./_http_server.ts";
import { FIXTURE_TOOLS, readLines, withHangGuard } from "./_server_process.ts";

const TOKEN = "s3cr3t-t0ken";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "server/discover",
};
const DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: { _meta: META },
});
const UNAUTHORIZED = {
  jsonrpc: "2.0",
  error: {
    code: -32000,
    message: "Unauthorized: this server requires Authorization: Bearer with its token",
  },
};

function serve(): Promise<TestHttpServer> {
  const tool = checkDefinition(
    {
      description: "says ok",
      inputSchema: { type: "object" },
      handler: () => "ok",
    },
    "ok",
    "ok",
  );
  return serveForTest([tool], { bearerToken: TOKEN });
}

async function discover(url: string, extra: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...HEADERS, ...extra },
    body: DISCOVER,
  });
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    json: await response.json(),
  };
}

Deno.test("serveHttp() with a bearer token answers a request without Authorization with 401 and a challenge", async () => {
  const http = await serve();
  try {
    deepStrictEqual(await discover(http.url), {
      status: 401,
      challenge: 'Bearer realm="toolshed"',
      json: UNAUTHORIZED,
    });
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() with a bearer token refuses a wrong token, or another scheme, with 401 invalid_token", async () => {
  const http = await serve();
  try {
    for (
      const authorization of [
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        "Bearer ",
        `Basic ${btoa(`user:${TOKEN}`)}`,
        TOKEN,
        `Bearer ${TOKEN} extra`,
      ]
    ) {
      deepStrictEqual(await discover(http.url, { authorization }), {
        status: 401,
        challenge: 'Bearer realm="toolshed", error="invalid_token"',
        json: UNAUTHORIZED,
      }, authorization);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() with a bearer token serves a request that carries it, the scheme in any case", async () => {
  const http = await serve();
  try {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`]) {
      const answer = await discover(http.url, { authorization });
      strictEqual(answer.status, 200, authorization);
      strictEqual(answer.json.id, 1);
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() with a bearer token checks Host and Origin first, and leaves the probes open", async () => {
  const http = await serve();
  try {
    const forbidden = await discover(http.url, { origin: "http://evil.example.com" });
    strictEqual(forbidden.status, 403);
    strictEqual(forbidden.challenge, null);
    for (const path of ["/healthz", "/readyz"]) {
      const response = await fetch(new URL(path, http.url));
      strictEqual(response.status, 200, path);
      await response.body?.cancel();
    }
    // Every verb on /mcp is behind the token, DELETE and GET included.
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(http.url, { method });
      strictEqual(response.status, 401, method);
      await response.body?.cancel();
    }
  } finally {
    await http.close();
  }
});

Deno.test("createBearerCheck() tells a missing token from a wrong one", async () => {
  const check = createBearerCheck(TOKEN);
  strictEqual(await check(new Headers()), "missing");
  strictEqual(await check(new Headers({ authorization: `Bearer ${TOKEN}` })), "ok");
  strictEqual(await check(new Headers({ authorization: "Bearer other" })), "invalid");
  strictEqual(await check(new Headers({ authorization: "" })), "invalid");
});

Deno.test("equalDigests() compares every byte and refuses different lengths", () => {
  const a = new Uint8Array(32).fill(7);
  strictEqual(equalDigests(a, a.slice()), true);
  for (const at of [0, 15, 31]) {
    const b = a.slice();
    b[at] ^= 1;
    strictEqual(equalDigests(a, b), false, String(at));
  }
  strictEqual(equalDigests(a, a.slice(0, 31)), false);
});

Deno.test("main.ts --http takes the token from TOOLSHED_HTTP_TOKEN and logs each request with --log-requests", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../main.ts", import.meta.url).pathname,
      "--http",
      "127.0.0.1:0",
      "--log-requests",
      "--tools",
      FIXTURE_TOOLS,
    ],
    env: { TOOLSHED_HTTP_TOKEN: TOKEN, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const lines = readLines(child.stderr);
  const seen: string[] = [];
  try {
    let url: string | undefined;
    for (let i = 0; i < 100 && url === undefined; i++) {
      const next = await withHangGuard(lines.next(), "the listening line");
      if (next.done) break;
      seen.push(next.value);
      url = next.value.match(/^toolshed: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
    }
    ok(url, seen.join("\n"));
    strictEqual((await withHangGuard(discover(url), "a request without the token")).status, 401);
    const served = await withHangGuard(
      discover(url, { authorization: `Bearer ${TOKEN}` }),
      "a request with the token",
    );
    strictEqual(served.status, 200);
    const logged: string[] = [];
    for (let i = 0; i < 100 && logged.length < 2; i++) {
      const next = await withHangGuard(lines.next(), "the request lines");
      if (next.done) break;
      if (next.value.startsWith("toolshed: POST ")) logged.push(next.value);
    }
    match(logged[0], /^toolshed: POST \/mcp 401 - \d+\.\d ms$/);
    match(logged[1], /^toolshed: POST \/mcp 200 "server\/discover" \d+\.\d ms$/);
  } finally {
    child.kill("SIGTERM");
  }
  for await (const _ of lines) { /* drain */ }
  strictEqual((await withHangGuard(child.status, "the process exiting")).code, 0);
  strictEqual(await stdout, "", "nothing on stdout");
});
