// examples/audit-log: what its README promises. It type-checks, its middleware included (and a
// type error in middleware/ is one `toolshed check` reports); every tool call leaves one JSON
// line in the file AUDIT_LOG names, whether it came from `toolshed call`, from the official SDK
// client over stdio (a real main.ts process), or from a 2025-era HTTP session (its id in the
// line); a failed call is logged as a tool error; other methods are not logged.
import assert from "node:assert/strict";
import { Client as ModernClient } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { Client as LegacyClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { withHangGuard } from "../_server_process.ts";
import { assertChecks, exampleDir, freePort, ROOT, toolshed, waitForPort } from "./_example.ts";

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

Deno.test("examples/audit-log passes toolshed check", async () => {
  await assertChecks("audit-log");
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
