// Code mode's inner calls reach what a plain call reaches (adr/0073 §4, §5; issue 41 step 3): a
// mounted server's tool, opted in to code by its mount's corrections, called from `run_code`;
// and the spans of the inner calls nested in the run's trace, read from a real server process
// exporting OTLP to a receiver on 127.0.0.1.
import assert from "node:assert/strict";
import { createServer } from "../mod.ts";
import { openSession, spawnServer, withHangGuard } from "./_server_process.ts";
import { cacheEverything, serverDir, toolshedEntry } from "./_mounts.ts";
import { otelEnv, randomHex, type ReceivedSpan, startReceiver } from "./_otlp.ts";

const ADD = `export default {
  description: "Adds two numbers and returns their sum",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => ({ structuredContent: { sum: a + b }, content: [{ type: "text", text: String(a + b) }] }),
};
`;

type RunResult = {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: { value: unknown; console: string; calls: number };
};

Deno.test("run_code calls a mounted tool that opted in to code, and is refused one that did not", async () => {
  await cacheEverything();
  // The upstream's `echo` and `wait_for_cancel` declare no annotations: neither is a read.
  const entry = {
    ...toolshedEntry(),
    toolshed: {
      tools: { echo: { code: true, annotations: { destructiveHint: false } } },
    },
  };
  const dir = await serverDir({ "tools/add.ts": ADD, "tools/shed.mcp.json": entry });
  const server = await createServer({ dir, codeMode: true, codePool: 0 });
  try {
    const answer = await withHangGuard(
      server.request("tools/call", {
        name: "run_code",
        arguments: {
          code: `const echoed = await tools.shed_echo({ text: "over the mount" });
            let refused = "";
            try { await tools.shed_wait_for_cancel({}); } catch (error) { refused = error.message; }
            return { echoed, refused };`,
        },
      }),
      "run_code",
      120_000,
    );
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const ran = answer.result as RunResult;
    assert.notEqual(ran.isError, true, ran.content[0]?.text);
    const value = ran.structuredContent!.value as { echoed: string; refused: string };
    assert.equal(value.echoed, "over the mount");
    assert.match(value.refused, /Unknown tool: "shed_wait_for_cancel"/);
    assert.equal(ran.structuredContent!.calls, 2);
  } finally {
    await server.close();
  }
});

Deno.test("run_code's inner calls are spans in the run's trace, under its tool span", async () => {
  const receiver = startReceiver();
  const tools = await serverDir({ "add.ts": ADD });
  const traceId = randomHex(16);
  const parent = randomHex(8);
  const server = spawnServer(
    ["--tools", tools, "--code-mode", "--code-pool", "0"],
    otelEnv(receiver),
  );
  let ran: RunResult | undefined;
  try {
    await openSession(server, "code-reach-test");
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "run_code",
        arguments: {
          code: `const one = await tools.add({ a: 1, b: 2 });
            const two = await tools.add({ a: one.sum, b: 4 });
            return two.sum;`,
        },
        _meta: { traceparent: `00-${traceId}-${parent}-01` },
      },
    }));
    const line = await withHangGuard(server.nextLine(), "run_code", 120_000);
    ran = (JSON.parse(line!) as { result: RunResult }).result;
  } finally {
    const finished = await server.finish();
    assert.equal(finished.code, 0, finished.stderr);
  }
  try {
    assert.equal(ran?.structuredContent?.value, 7, JSON.stringify(ran));
    const { spans } = receiver;
    const ours = (name: string) => (span: ReceivedSpan) =>
      span.scope === "toolshed" && span.name === name;
    await receiver.until(
      "the run's span and both inner calls'",
      () =>
        spans.some(ours("execute_tool run_code")) &&
        spans.filter(ours("execute_tool add")).length >= 2,
    );
    const runs = spans.filter(ours("execute_tool run_code"));
    assert.equal(runs.length, 1, `run_code spans: ${runs.length}`);
    const run = runs[0];
    assert.equal(run.traceId, traceId);
    const adds = spans.filter(ours("execute_tool add"));
    assert.equal(adds.length, 2, `add spans: ${adds.length}`);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    for (const add of adds) {
      assert.equal(add.traceId, traceId, "an inner call in the run's trace");
      // Up the parents, a bounded walk, to the run's tool span.
      const chain: string[] = [add.name];
      let at: ReceivedSpan | undefined = add;
      for (let hop = 0; hop < 16 && at !== undefined && at.spanId !== run.spanId; hop++) {
        at = byId.get(at.parentSpanId);
        if (at) chain.push(at.name);
      }
      assert.equal(at?.spanId, run.spanId, `add's parents: ${chain.join(" < ")}`);
    }
  } finally {
    await receiver.close();
  }
});
