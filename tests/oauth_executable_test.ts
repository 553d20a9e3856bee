// A program learns who calls it (issue 24): main.ts with --auth-issuer, against a real
// authorization server (oidc-provider, tests/_oidc.ts), serves a bash tool (caller.sh, the
// fixture tests/scale.ts serves too) that prints TOOLSHED_AUTH_SUBJECT, TOOLSHED_AUTH_CLIENT_ID
// and TOOLSHED_AUTH_SCOPES. Each signed-in user's call prints that user; the token itself is in
// none of the program's environment; without a token nothing runs (401).
import { match, ok, strictEqual } from "node:assert/strict";
import { startAuthServer } from "./_oidc.ts";
import { modernHeaders } from "./_http_server.ts";
import { type HttpServerProcess, spawnHttpServer } from "./_server_process.ts";

const FIXTURE = new URL("./scale/tools/", import.meta.url).pathname;

/** As a person runs main.ts: not under the npx or deno task that may run these tests. */
const PLAIN_ENV = { npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" };

let nextId = 0;
/** A 2026-07-28 tools/call of `caller`: the HTTP status, the challenge, the JSON body. */
async function callCaller(url: string, token: string | undefined, args: Record<string, unknown>) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...modernHeaders("tools/call", "caller"),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++nextId,
      method: "tools/call",
      params: {
        name: "caller",
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const text = await response.text();
  const body = (text === "" ? {} : JSON.parse(text)) as {
    result?: { content?: { type: string; text?: string }[]; isError?: boolean };
    error?: { code: number; message: string };
  };
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body,
    /** The program's stdout (the one text block), or the whole answer when there is none. */
    printed: body.result?.content?.[0]?.text ?? JSON.stringify(body),
  };
}

Deno.test("main.ts --auth-issuer: a bash tool prints the signed-in user from TOOLSHED_AUTH_SUBJECT, never sees the token, and does not run without one", async (t) => {
  const as = await startAuthServer({ scopes: "mcp" });
  const dir = await Deno.makeTempDir({ prefix: "toolshed-oauth-executable-" });
  let server: HttpServerProcess | undefined;
  try {
    await Deno.mkdir(`${dir}/tools`);
    for (const file of ["caller.sh", "caller.json"]) {
      await Deno.copyFile(`${FIXTURE}${file}`, `${dir}/tools/${file}`); // the mode too (+x)
    }
    server = await spawnHttpServer(["--dir", dir, "--auth-issuer", as.issuer], PLAIN_ENV);
    const url = server.url;

    as.signInAs("alice");
    const alice = await as.login({ scope: "mcp", resource: url });
    as.signInAs("bob");
    const bob = await as.login({ scope: "mcp", resource: url });

    await t.step(
      "alice's call prints alice, her client id and her scopes; bob's prints bob",
      async () => {
        for (const [user, login] of [["alice", alice], ["bob", bob]] as const) {
          const answer = await callCaller(url, login.accessToken, {});
          strictEqual(answer.status, 200, answer.printed);
          strictEqual(answer.body.result?.isError, undefined, answer.printed);
          strictEqual(
            answer.printed,
            `${user}\nclient_id: ${login.clientId}\nscopes: mcp`,
            `as ${user}`,
          );
        }
      },
    );

    await t.step("the token is in none of the program's environment variables", async () => {
      const answer = await callCaller(url, alice.accessToken, { env: true });
      strictEqual(answer.status, 200, answer.printed);
      const [subject, , , ...env] = answer.printed.split("\n");
      strictEqual(subject, "alice");
      ok(env.includes("TOOLSHED_AUTH_SUBJECT=alice"), answer.printed);
      ok(env.some((line) => line.startsWith("PATH=")), `no environment printed: ${answer.printed}`);
      // The whole JWT, and each of its parts (a part alone would still be a leak of it).
      for (const part of [alice.accessToken, ...alice.accessToken.split(".")]) {
        ok(part.length >= 16, `an unexpectedly short token part "${part}"`);
        ok(!answer.printed.includes(part), `the token reached the program:\n${answer.printed}`);
      }
      ok(!/bearer/i.test(env.join("\n")), answer.printed);
      if (alice.refreshToken !== undefined) ok(!answer.printed.includes(alice.refreshToken));
    });

    await t.step(
      "without a token: 401 with the challenge that starts a sign-in, no result",
      async () => {
        const answer = await callCaller(url, undefined, {});
        strictEqual(answer.status, 401, answer.printed);
        match(answer.challenge ?? "", /^Bearer resource_metadata="[^"]+"/);
        strictEqual(answer.body.result, undefined, answer.printed);
      },
    );
  } finally {
    const exit = server === undefined ? undefined : await server.stop();
    await as.stop();
    await Deno.remove(dir, { recursive: true });
    if (exit !== undefined) strictEqual(exit.code, 0, exit.stderr.join("\n"));
  }
});
