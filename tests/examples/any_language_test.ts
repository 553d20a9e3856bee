// examples/any-language: what its README promises. The programs and their sidecars pass
// toolshed check; add.sh adds two integers and refuses what is not one before it runs; count.sh
// reports its progress and a log line through stderr, and prints its result.
import assert from "node:assert/strict";
import { testServer } from "../../mod.ts";
import { exampleDir } from "./_example.ts";

const DIR = exampleDir("any-language");

Deno.test("examples/any-language: add.sh adds two integers; a string is refused before it runs", async () => {
  const server = await testServer({ dir: DIR });
  assert.deepEqual(await server.call("add", { a: 2, b: 3 }), {
    content: [{ type: "text", text: "5" }],
  });
  // The schema keeps the arithmetic expansion away from anything but integers.
  const hostile = await server.call("add", { a: "x[$(id)]", b: 1 });
  assert.equal(hostile.isError, true);
  assert.deepEqual(hostile.content, [{
    type: "text",
    text: 'Invalid arguments for tool "add": at "/a": expected an integer, got a string',
  }]);
});

Deno.test("examples/any-language: count.sh sends five progress reports and a log line, then its result", async () => {
  const server = await testServer({ dir: DIR });
  const notifications: Record<string, unknown>[] = [];
  const result = await server.call("count", {}, {
    logLevel: "info",
    onNotification: (notification) => notifications.push(notification),
  });
  assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
  const progress = notifications.filter((each) => each.method === "notifications/progress")
    .map((each) => {
      const { progress, total, message } = each.params as Record<string, unknown>;
      return [progress, total, message];
    });
  assert.deepEqual(progress, [1, 2, 3, 4, 5].map((i) => [i, 5, `Step ${i} of 5`]));
  const logs = notifications.filter((each) => each.method === "notifications/message")
    .map((each) => (each.params as Record<string, unknown>).data);
  assert.deepEqual(logs, ["Counted to 5"]);
});
