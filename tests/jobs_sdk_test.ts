// Jobs with the official SDK client (adr/0070), which declares no tasks and cuts each request
// at its own timeout, as the hosts do: over a real stdio pipe and real HTTP, a call longer than
// the client waits gets a handle within the job bound, and toolshed_job brings the tool's real
// result within two calls. Scaled down (a 3 s client timeout for the hosts' ~60 s, a 4.5 s
// tool for a 90 s one, a 1 s bound for 25 s, a 2.5 s wait for 45 s): the same paths, in a
// test's time.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const FIXTURE = new URL("./fixtures/jobs", import.meta.url).pathname;
const FLAGS = ["--dir", FIXTURE, "--job-after", "1000", "--job-wait", "2500"];
/** The client's own cap on one request, as a host's. */
const CLIENT_TIMEOUT_MS = 3_000;

type CallResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function followsAJob(transport: Transport) {
  const client = new Client({ name: "jobs-sdk-test", version: "1" });
  await withHangGuard(client.connect(transport), "the client connecting");
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool: { name: string }) => tool.name);
    ok(names.includes("toolshed_job"), names.join(", "));
    const report = tools.find((tool: { name: string }) => tool.name === "long_report")!;
    strictEqual(report.outputSchema, undefined, "no outputSchema a handle would break");

    // Without jobs, this call outlives the client's patience: the SDK gives up at its timeout.
    // (The tool runs 4.5 s; the client waits 3 s.)
    const handle = await client.callTool(
      { name: "long_report", arguments: { ms: 4_500, stepMs: 100 } },
      undefined,
      { timeout: CLIENT_TIMEOUT_MS },
    ) as CallResult;
    strictEqual(handle.isError, undefined, "the handle is an ordinary result");
    const job = handle.structuredContent?.job as { id: string; status: string };
    strictEqual(job.status, "working");
    ok(handle.content[0].text!.includes(`"toolshed_job" with {"id":"${job.id}"}`));

    let result: CallResult | undefined;
    let calls = 0;
    while (result === undefined && calls < 2) {
      calls++;
      const answer = await client.callTool(
        { name: "toolshed_job", arguments: { id: job.id } },
        undefined,
        { timeout: CLIENT_TIMEOUT_MS },
      ) as CallResult;
      if (!(answer.structuredContent?.job)) result = answer;
    }
    ok(result !== undefined, `the real result within two calls of toolshed_job (${calls})`);
    deepStrictEqual(result.structuredContent, { steps: 45 });
    strictEqual(result.isError, undefined);

    // What the client sees without the handle: the same call, with jobs past its timeout.
    await rejects(
      client.callTool(
        { name: "long_report", arguments: { ms: 4_500, stepMs: 100 } },
        undefined,
        { timeout: 500 },
      ),
      /timed out/i,
      "a client that gives up before the bound gets nothing, as before",
    );
  } finally {
    await client.close();
  }
}

Deno.test("jobs with the SDK client over stdio: a call past the client's timeout gets a handle, and toolshed_job its result within two calls", async () => {
  await followsAJob(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN, ...FLAGS],
      stderr: "ignore",
    }),
  );
});

Deno.test("jobs with the SDK client over HTTP: a call past the client's timeout gets a handle, and toolshed_job its result within two calls", async () => {
  const server = await spawnHttpServer(FLAGS);
  try {
    await followsAJob(new StreamableHTTPClientTransport(new URL(server.url)));
  } finally {
    await server.stop();
  }
});
