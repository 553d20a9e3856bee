// examples/gateway: what its README (and docs/operating/gateway.md) promise, with real processes on
// loopback run as the README runs them: an authorization server (oidc-provider with the RFC 8693
// grant, tests/_token_exchange_issuer.ts), the "team" upstream (a second toolshed serving
// examples/oauth with its own --auth-issuer and resource), and the gateway (`main.ts --http
// --dir examples/gateway --auth-issuer …`), whose "hello" upstream it starts itself over stdio.
//
// The pins committed beside the mounts are what `toolshed check --update-pins` writes (made again
// here and compared byte for byte); through the gateway the official SDK client calls both
// upstreams with a user's token, the team upstream sees the user by an exchanged token (its
// client is the exchanger, not the user's); a scope the gateway's file asks for is a 403 step-up,
// the file's rate limit a 429, each call an audit line on stderr naming caller and tool; an
// upstream that is gone is a tool error and is named by /readyz.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { type ExchangeIssuer, startExchangeIssuer } from "../_token_exchange_issuer.ts";
import { modernBody, modernHeaders } from "../_http_server.ts";
import { readLines, withHangGuard } from "../_server_process.ts";
import { exampleDir, freePort, ROOT, toolshed, waitForPort } from "./_example.ts";

const DIR = exampleDir("gateway");
/** The team upstream's resource: the audience its tokens are exchanged for. */
const TEAM_AUDIENCE = "https://team.example/mcp";
const PINS = ["hello.pins.json", "team.pins.json"];

/**
 * A folder holding `toolshed` as a reader who installed it has it (the mount `hello.mcp.json`
 * runs `toolshed`): main.ts of this clone.
 */
const SHIM = await (async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_gateway_bin_" });
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  await Deno.writeTextFile(
    `${dir}/toolshed`,
    `#!/bin/sh\nexec "${Deno.execPath()}" run -A "${ROOT}main.ts" "$@"\n`,
    { mode: 0o755 },
  );
  return dir;
})();

/** What the child processes need besides the README's variables: `toolshed` on the PATH. */
function withToolshed(env: Record<string, string>): Record<string, string> {
  return { ...env, PATH: `${SHIM}:${Deno.env.get("PATH") ?? ""}` };
}

interface Started {
  readonly url: string;
  /** What it wrote to stderr so far. */
  stderr(): string[];
  stop(): Promise<void>;
}

/** `deno run -A main.ts --http 127.0.0.1:<port> ARGS` from the repository's root. */
async function serve(args: string[], env: Record<string, string>): Promise<Started> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "--http", `127.0.0.1:${port}`, ...args],
    cwd: ROOT,
    env: withToolshed(env),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const seen: string[] = [];
  const drained = (async () => {
    for await (const line of readLines(child.stderr)) seen.push(line);
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* it has exited already */ }
    await withHangGuard(child.status, "toolshed exiting");
    await withHangGuard(drained, "toolshed's stderr closing");
  };
  try {
    await waitForPort(port, `toolshed ${args.join(" ")}`);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${seen.join("\n")}`);
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stderr: () => seen, stop };
}

/** The README's variables for the gateway, the team upstream at `teamUrl`. */
function gatewayEnv(teamUrl: string, as?: ExchangeIssuer): Record<string, string> {
  return {
    TEAM_URL: teamUrl,
    TEAM_AUDIENCE,
    EXCHANGE_CLIENT_ID: as?.exchanger.clientId ?? "toolshed",
    EXCHANGE_CLIENT_SECRET: as?.exchanger.clientSecret ?? "unused by check",
  };
}

/** `user`'s token for the gateway at `url`, with `scope`. */
async function signIn(as: ExchangeIssuer, user: string, scope: string, url: string) {
  as.server.signInAs(user);
  return (await as.server.login({ scope, resource: url })).accessToken;
}

/** The text of `name`'s result, called through the gateway by the SDK client with `token`. */
async function call(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text: string; isError: boolean }> {
  const client = new Client({ name: "gateway-example-test", version: "1" });
  await withHangGuard(
    client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    ),
    "the SDK client connecting",
  );
  try {
    const result = await withHangGuard<{ content?: unknown; isError?: unknown }>(
      client.callTool({ name, arguments: args }),
      `calling "${name}"`,
    );
    const content = result.content as { text?: string }[];
    return { text: content.map((block) => block.text ?? "").join("\n"), isError: !!result.isError };
  } finally {
    await client.close();
  }
}

/** A 2026-07-28 `tools/call` POST as it was answered (status, headers), body read. */
async function rawCall(url: string, token: string, name: string, args: Record<string, unknown>) {
  const response = await withHangGuard(
    fetch(url, {
      method: "POST",
      headers: { ...modernHeaders("tools/call", name), authorization: `Bearer ${token}` },
      body: modernBody(1, "tools/call", { name, arguments: args }),
    }),
    `POST tools/call "${name}"`,
  );
  return { response, body: await response.text() };
}

/** The audit lines among `lines`, parsed. */
function auditLines(lines: readonly string[]): Record<string, unknown>[] {
  return lines.filter((line) => line.startsWith('{"audit":')).map((line) => JSON.parse(line));
}

Deno.test("examples/gateway: the pins committed are what toolshed check --update-pins writes", async () => {
  // The team upstream's definitions, listed without a token: the same tools, the same pins.
  const open = await serve(["--dir", "examples/oauth"], {});
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_gateway_pins_" });
  try {
    const checked = await toolshed(
      ["check", "--dir", "examples/gateway"],
      withToolshed(gatewayEnv(open.url)),
    );
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /^0 errors, /m);
    await Deno.mkdir(`${scratch}/tools`);
    for (const mount of ["hello.mcp.json", "team.mcp.json"]) {
      await Deno.copyFile(`${DIR}tools/${mount}`, `${scratch}/tools/${mount}`);
    }
    const updated = await toolshed(
      ["check", "--update-pins", "--dir", scratch],
      withToolshed(gatewayEnv(open.url)),
    );
    assert.equal(updated.code, 0, updated.stdout + updated.stderr);
    for (const pins of PINS) {
      assert.equal(
        await Deno.readTextFile(`${scratch}/tools/${pins}`),
        await Deno.readTextFile(`${DIR}tools/${pins}`),
        `examples/gateway/tools/${pins} is not what toolshed check --update-pins writes`,
      );
    }
  } finally {
    await Deno.remove(scratch, { recursive: true });
    await open.stop();
  }
});

Deno.test("examples/gateway: OAuth in front, token exchange behind, a scope's step-up, a rate limit, an audit line per call, /readyz naming an upstream that is down", async () => {
  const as = await startExchangeIssuer({ upstreams: [TEAM_AUDIENCE], scopes: "mcp deploy" });
  let team: Started | undefined;
  let gateway: Started | undefined;
  try {
    team = await serve(
      ["--dir", "examples/oauth", "--auth-issuer", as.issuer, "--public-url", TEAM_AUDIENCE],
      {},
    );
    gateway = await serve(
      ["--dir", "examples/gateway", "--auth-issuer", as.issuer],
      gatewayEnv(team.url, as),
    );
    const { url } = gateway;

    const alice = await signIn(as, "alice", "mcp", url);
    const client = new Client({ name: "gateway-example-test", version: "1" });
    await withHangGuard(
      client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${alice}` } },
        }),
      ),
      "the SDK client connecting",
    );
    try {
      const { tools } = await withHangGuard<{ tools: { name: string }[] }>(
        client.listTools(),
        "tools/list",
      );
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [
        "hello_add",
        "team_deploy",
        "team_whoami",
      ]);
    } finally {
      await client.close();
    }

    // The team upstream sees alice, by a token the gateway's client got for it.
    assert.deepEqual(await call(url, alice, "team_whoami"), {
      text:
        `You are alice, signed in with the client ${as.exchanger.clientId}, with the scopes: mcp`,
      isError: false,
    });
    assert.deepEqual(await call(url, alice, "hello_add", { a: 1, b: 2 }), {
      text: "3",
      isError: false,
    });

    // team_deploy needs "deploy" in the gateway's file: alice's token lacks it.
    const deploy = { version: "1.4.0", environment: "staging" };
    const stepUp = await rawCall(url, alice, "team_deploy", deploy);
    assert.equal(stepUp.response.status, 403, stepUp.body);
    const challenge = stepUp.response.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="[^"]*\bdeploy\b/);

    // Signed in again with it: the exchanged token carries it too, so the upstream deploys.
    const granted = await signIn(as, "alice", "mcp deploy", url);
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await call(url, granted, "team_deploy", deploy), {
        text: "Deployed 1.4.0 to staging, as alice",
        isError: false,
      });
    }
    // "2/h" in the file: the third is refused, and never reaches the upstream.
    const limited = await rawCall(url, granted, "team_deploy", deploy);
    assert.equal(limited.response.status, 429, limited.body);
    assert.ok(limited.response.headers.has("retry-after"));

    const bob = await signIn(as, "bob", "mcp", url);
    assert.deepEqual(await call(url, bob, "team_whoami"), {
      text: `You are bob, signed in with the client ${as.exchanger.clientId}, with the scopes: mcp`,
      isError: false,
    });
    // One exchange per front token: alice's two, bob's one; repeated calls use the cache.
    assert.equal(as.exchanges, 3);

    const audit = auditLines(gateway.stderr()).map(({ caller, tool, outcome, code }) => ({
      caller,
      tool,
      outcome,
      code,
    }));
    // The refused call is not among them: a rate limit refuses before middleware runs.
    assert.equal(audit.filter((line) => line.tool === "team_deploy").length, 2);
    for (
      const line of [
        { caller: "alice", tool: "team_whoami", outcome: "ok", code: null },
        { caller: "alice", tool: "hello_add", outcome: "ok", code: null },
        { caller: "alice", tool: "team_deploy", outcome: "ok", code: null },
        { caller: "bob", tool: "team_whoami", outcome: "ok", code: null },
      ]
    ) {
      assert.ok(
        audit.some((each) => JSON.stringify(each) === JSON.stringify(line)),
        `no audit line ${JSON.stringify(line)} in:\n${gateway.stderr().join("\n")}`,
      );
    }
    const stderr = gateway.stderr().join("\n");
    assert.ok(!stderr.includes(alice) && !stderr.includes(granted), "a front token was logged");
    assert.doesNotMatch(stderr, /withholds/);

    // The team upstream gone: a caller's call is a tool error, and /readyz names the mount.
    await team.stop();
    team = undefined;
    const carol = await signIn(as, "carol", "mcp", url);
    const down = await call(url, carol, "team_whoami");
    assert.equal(down.isError, true, down.text);
    assert.match(down.text, /team\.mcp\.json/);
    const ready = await withHangGuard(
      fetch(new URL("/readyz", url)),
      "GET /readyz",
    );
    assert.equal(ready.status, 200);
    const readiness = await ready.text();
    assert.match(
      readiness,
      /; examples\/gateway\/tools\/team\.mcp\.json is down \(the handshake failed: Cannot reach/,
    );
  } finally {
    await gateway?.stop();
    await team?.stop();
    await as.stop();
  }
});
