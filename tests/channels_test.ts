// The ways a request reaches back to its client besides its answer (lib/core/handle.ts): a
// tight loop of progress reports or log messages cannot flood the client, and the last
// progress value always arrives before the response.
import assert from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import { LOG_BURST } from "../lib/core/channels.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Sends one tools/call of the fixture's `report` tool; the lines up to its response. */
async function report(
  args: { steps: number; flood: number },
  meta: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const server = await startInProcess(["--dir", "tests/fixtures/server"]);
  server.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "report", arguments: args, _meta: { ...META, ...meta } },
  }));
  const lines: Record<string, unknown>[] = [];
  for (;;) {
    const line = await server.nextLine();
    assert.notEqual(line, null, "the server ended before answering");
    const message = JSON.parse(line!);
    lines.push(message);
    if (message.id === 1) break;
  }
  await server.end();
  return lines;
}

Deno.test("core merges progress reports closer than its interval, and sends the last one before the response", async () => {
  const steps = 100_000;
  const lines = await report({ steps, flood: 0 }, { progressToken: "p" });
  const progress = lines.filter((line) => line.method === "notifications/progress")
    .map((line) => (line.params as { progress: number }).progress);
  assert.ok(progress.length >= 1 && progress.length < steps, `${progress.length} notifications`);
  assert.equal(progress.at(-1), steps, "the last value arrives");
  assert.ok(progress.every((value, index) => index === 0 || value > progress[index - 1]));
  assert.equal((lines.at(-1) as { id: number }).id, 1, "the response comes last");
});

Deno.test("core sends at most a burst of log messages at once, then says how many it dropped", async () => {
  const flood = 10 * LOG_BURST;
  const lines = await report(
    { steps: 0, flood },
    { "io.modelcontextprotocol/logLevel": "info" },
  );
  const messages = lines.filter((line) => line.method === "notifications/message")
    .map((line) => line.params as { level: string; data: unknown; logger?: string });
  const flooded = messages.filter((message) => typeof message.data === "object");
  assert.ok(flooded.length < flood, `${flooded.length} of ${flood} flood messages were sent`);
  const notice = messages.at(-1)!;
  assert.equal(notice.level, "warning");
  assert.equal(notice.logger, "toolshed");
  const dropped = Number(/dropped (\d+) log message/.exec(String(notice.data))?.[1]);
  // Everything the tool logged at info or above was either sent or counted as dropped.
  assert.equal(messages.length - 1 + dropped, flood + 4, JSON.stringify(notice));
});

Deno.test("core sends no progress without a token and no logs without a level", async () => {
  const lines = await report({ steps: 5, flood: 5 }, {});
  assert.deepEqual(lines.map((line) => line.method ?? "response"), ["response"]);
});
