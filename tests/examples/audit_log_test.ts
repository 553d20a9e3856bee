// examples/audit-log: what its README promises. It type-checks, its middleware included (and a
// type error in middleware/ is one `toolshed check` reports); every tool call leaves one JSON
// line in the file AUDIT_LOG names, whether it came from `toolshed call`, from the official SDK
// client over stdio (a real main.ts process), or from a 2025-era HTTP session (its id in the
// line); a failed call is logged as a tool error; other methods are not logged. Secrets among the
// arguments are "[redacted]" in the line while the tool still gets them; with OAuth (a real
// oidc-provider), a subject in DENY_SUBJECTS is refused and audited by name, others are not.
import assert from "node:assert/strict";
import { Client as ModernClient } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { type HttpServerProcess, spawnHttpServer, withHangGuard } from "../_server_process.ts";
import { modernHeaders } from "../_http_server.ts";
import { startAuthServer } from "../_oidc.ts";
import { otelEnv, startReceiver } from "../_otlp.ts";
import { REDACTED, redacted } from "../../examples/audit-log/middleware/_redact.ts";
import { exampleDir, freePort, modernMeta, ROOT, toolshed, waitForPort } from "./_example.ts";

const DIR = exampleDir("audit-log");
const CLIENT_INFO = { name: "audit-example-test", version: "1.0.0" };

/** The audit lines written to a scratch AUDIT_LOG while `body` runs, parsed. */
async function audited(
  body: (env: Record<string, string>) => Promise<void>,
): Promise<Record<string, unknown>[]> {
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_audit_" });
  const env = { AUDIT_LOG: `${scratch}/audit.log` };
  try {
    await body(env);
    const text = await Deno.readTextFile(env.AUDIT_LOG).catch(() => "");
    return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/** A line as the test compares it: what does not vary from run to run. */
const shape = ({ tool, outcome, transport, client, session }: Record<string, unknown>) => ({
  tool,
  outcome,
  transport,
  client,
  session: session === null ? null : "a session id",
});

Deno.test("examples/audit-log: toolshed check type-checks middleware/ and names a type error there", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_audit_check_" });
  try {
    await Deno.mkdir(`${scratch}/tools`);
    await Deno.mkdir(`${scratch}/middleware`);
    await Deno.copyFile(`${DIR}tools/add.ts`, `${scratch}/tools/add.ts`);
    const source = await Deno.readTextFile(`${DIR}middleware/audit.ts`);
    await Deno.writeTextFile(
      `${scratch}/middleware/audit.ts`,
      source.replace("ms: Math.round(", "ms: Math.rounded("),
    );
    const run = await toolshed(["check", "--dir", scratch]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stdout, /middleware\/audit\.ts/);
    assert.match(run.stdout, /rounded/);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("examples/audit-log: toolshed call leaves one line per call, a failure as a tool error", async () => {
  const lines = await audited(async (env) => {
    const added = await toolshed(["call", "add", "a=1", "b=2", "--dir", "examples/audit-log"], env);
    assert.deepEqual([added.code, added.stdout], [0, "3\n"]);
    const divided = await toolshed(
      ["call", "divide", "dividend=1", "divisor=0", "--dir", "examples/audit-log"],
      env,
    );
    assert.equal(divided.code, 1);
    const listed = await toolshed(["list", "--dir", "examples/audit-log"], env);
    assert.equal(listed.code, 0);
  });
  assert.deepEqual(lines.map(shape), [
    { tool: "add", outcome: "ok", transport: "in-process", client: "toolshed-cli", session: null },
    {
      tool: "divide",
      outcome: "tool error",
      transport: "in-process",
      client: "toolshed-cli",
      session: null,
    },
  ]);
  for (const line of lines) {
    assert.ok(!Number.isNaN(Date.parse(line.time as string)));
    assert.equal(typeof line.ms, "number");
  }
});

Deno.test("examples/audit-log: calls from the official SDK client over stdio and in an HTTP session are logged with their transport", async () => {
  const port = freePort();
  const lines = await audited(async (env) => {
    const modern = new ModernClient(CLIENT_INFO, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await modern.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", `${ROOT}main.ts`, "--dir", DIR],
        env: { ...env, PATH: Deno.env.get("PATH") ?? "" },
        stderr: "ignore",
      }),
    );
    try {
      const result = await modern.callTool({ name: "add", arguments: { a: 2, b: 3 } });
      assert.deepEqual(result.content, [{ type: "text", text: "5" }]);
    } finally {
      await modern.close();
    }

    const server = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}main.ts`, "--dir", DIR, "--http", `127.0.0.1:${port}`],
      env,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      await waitForPort(port, "main.ts --http");
      const legacy = new LegacyClient(CLIENT_INFO);
      const transport = new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${port}/mcp`),
      );
      await legacy.connect(transport);
      try {
        await legacy.callTool({ name: "add", arguments: { a: 1, b: 1 } });
      } finally {
        await legacy.close();
      }
    } finally {
      server.kill("SIGTERM");
      await withHangGuard(server.status, "main.ts --http exiting");
    }
  });
  assert.deepEqual(lines.map(shape), [
    { tool: "add", outcome: "ok", transport: "stdio", client: CLIENT_INFO.name, session: null },
    {
      tool: "add",
      outcome: "ok",
      transport: "http",
      client: CLIENT_INFO.name,
      session: "a session id",
    },
  ]);
});

Deno.test("examples/audit-log: a secret argument is redacted in the line, and the tool still signs with it", async () => {
  const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";
  let signed = "";
  const lines = await audited(async (env) => {
    const run = await toolshed(
      ["call", "sign", `message=${jwt}`, "secret=hunter2", "--dir", "examples/audit-log"],
      env,
    );
    assert.equal(run.code, 0, run.stdout);
    signed = run.stdout.trim();
  });
  // The HMAC the tool answered is the one of the real secret, so the tool was given it.
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("hunter2"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const expected = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(jwt)),
  );
  assert.equal(signed, Array.from(expected, (b) => b.toString(16).padStart(2, "0")).join(""));
  assert.equal(lines.length, 1);
  // The secret by its key, the token by its look; neither reaches the log.
  assert.deepEqual(lines[0].arguments, { message: REDACTED, secret: REDACTED });
  const text = JSON.stringify(lines);
  assert.ok(!text.includes("hunter2") && !text.includes(jwt), text);
});

Deno.test("examples/audit-log: redacted() takes secrets out by key and by look, at any depth, and leaves the rest", () => {
  assert.deepEqual(
    redacted({
      city: "Lyon",
      count: 3,
      api_key: { nested: "x" },
      Authorization: "Bearer abc",
      headers: [{ "X-Api-Key": "k" }, "Bearer abcdef", "plain"],
      note: "sk-abcdefghijklmnopqrstuvwx",
      aws: "AKIAABCDEFGHIJKLMNOP",
      pem: "-----BEGIN RSA PRIVATE KEY-----\nMIIE…",
      list: ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    }),
    {
      city: "Lyon",
      count: 3,
      api_key: REDACTED,
      Authorization: REDACTED,
      headers: [{ "X-Api-Key": REDACTED }, REDACTED, "plain"],
      note: REDACTED,
      aws: REDACTED,
      pem: REDACTED,
      list: [REDACTED],
    },
  );
  let deep: unknown = "bottom";
  for (let i = 0; i < 20; i++) deep = { next: deep };
  assert.ok(JSON.stringify(redacted(deep)).includes("[too deep]"));
});

Deno.test("examples/audit-log with OAuth: a subject in DENY_SUBJECTS is refused every request and audited by name; another is served", async () => {
  const as = await startAuthServer({ scopes: "mcp" });
  let server: HttpServerProcess | undefined;
  try {
    const lines = await audited(async (env) => {
      server = await spawnHttpServer(["--dir", DIR, "--auth-issuer", as.issuer], {
        ...env,
        DENY_SUBJECTS: "mallory, eve",
        npm_lifecycle_event: "",
        npm_config_user_agent: "",
        INIT_CWD: "",
      });
      const url = server.url;
      as.signInAs("alice");
      const alice = await as.login({ scope: "mcp", resource: url });
      as.signInAs("mallory");
      const mallory = await as.login({ scope: "mcp", resource: url });
      const send = async (token: string, method: string, params: Record<string, unknown>) => {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            ...modernHeaders(method, method === "tools/call" ? String(params.name) : undefined),
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method,
            params: { ...params, _meta: modernMeta() },
          }),
        });
        return { status: response.status, body: await response.json() };
      };
      const add = { name: "add", arguments: { a: 1, b: 2 } };
      const served = await send(alice.accessToken, "tools/call", add);
      assert.equal(served.status, 200);
      assert.deepEqual(served.body.result.content, [{ type: "text", text: "3" }]);
      const refused = await send(mallory.accessToken, "tools/call", add);
      assert.equal(refused.status, 200);
      assert.equal(refused.body.error?.code, -32040, JSON.stringify(refused.body));
      assert.match(refused.body.error.message, /"mallory" may not use this server/);
      const listed = await send(mallory.accessToken, "tools/list", {});
      assert.equal(listed.body.error?.code, -32040, JSON.stringify(listed.body));
    });
    assert.deepEqual(
      lines.map(({ tool, outcome, subject }) => ({ tool, outcome, subject })),
      [
        { tool: "add", outcome: "ok", subject: "alice" },
        { tool: "add", outcome: "error", subject: "mallory" },
      ],
    );
  } finally {
    await server?.stop();
    await as.stop();
  }
});

Deno.test("examples/audit-log with telemetry on: the call's span carries the arguments redacted, never the secret", async () => {
  const receiver = startReceiver();
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_audit_otel_" });
  try {
    const server = await spawnHttpServer(["--dir", DIR], {
      ...otelEnv(receiver),
      AUDIT_LOG: `${scratch}/audit.log`,
      npm_lifecycle_event: "",
      npm_config_user_agent: "",
      INIT_CWD: "",
    });
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: modernHeaders("tools/call", "sign"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "sign",
            arguments: { message: "hello", secret: "hunter2" },
            _meta: modernMeta(),
          },
        }),
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    } finally {
      await server.stop();
    }
    await receiver.until(
      "the call's span",
      () => receiver.spans.some((span) => span.name === "tools/call sign"),
    );
    const span = receiver.spans.find((span) => span.name === "tools/call sign")!;
    assert.deepEqual(
      JSON.parse(String(span.attributes["gen_ai.tool.call.arguments"])),
      { message: "hello", secret: REDACTED },
    );
    assert.ok(!JSON.stringify(receiver.spans).includes("hunter2"));
  } finally {
    await receiver.close();
    await Deno.remove(scratch, { recursive: true });
  }
});
