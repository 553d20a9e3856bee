// A job followed from structured content alone (adr/0070): Claude Code gives its model a
// result's structuredContent as JSON in place of its text (anthropics/claude-code#79944;
// tests/jobs_host_test.ts sees it do so), so the handle and every "still running" answer of
// toolshed_job must name the next call there too. Through the real core over stdio, in this
// process, with tests/fixtures/jobs_host (a bound of 300 ms and a wait of 400 ms).
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";
import { modernBody } from "./_http_server.ts";

const FLAGS = ["--dir", "tests/fixtures/jobs_host", "--job-after", "300", "--job-wait", "400"];
const MOST_CALLS = 20;

type Result = {
  content?: { type: string; text?: string }[];
  structuredContent?: { job?: { id?: string; next?: { tool: string; arguments: object } } };
  isError?: boolean;
};

Deno.test("jobs: a model shown only structured content follows a job to its result, each answer naming the next call", async () => {
  const server = await startInProcess(FLAGS);
  try {
    let id = 0;
    const call = async (name: string, args: object): Promise<Result> => {
      const sent = ++id;
      server.send(modernBody(sent, "tools/call", { name, arguments: args }));
      for (;;) {
        const line = await withHangGuard(server.nextLine(), `the answer to call ${sent}`);
        ok(line !== null, "the server answers");
        const message = JSON.parse(line) as { id?: number; result?: Result };
        if (message.id === sent) return message.result!;
      }
    };
    // Eight words at 100 ms: about 0.8 s, past the bound and one wait.
    let result = await call("tally_words", {
      text: "one two three four five six seven eight",
      stepMs: 100,
    });
    const jobId = result.structuredContent?.job?.id;
    ok(typeof jobId === "string", JSON.stringify(result));
    const followed: Result[] = [];
    // The model's reading: a structured `job.next` is a call to make; anything else is the end.
    for (let calls = 0; calls < MOST_CALLS; calls++) {
      const next = result.structuredContent?.job?.next;
      if (next === undefined) break;
      deepStrictEqual(next, { tool: "toolshed_job", arguments: { id: jobId } });
      followed.push(result);
      result = await call(next.tool, next.arguments);
    }
    ok(
      followed.length >= 2,
      `a "still running" answer named the next call: ${JSON.stringify(followed)}`,
    );
    strictEqual(result.isError, undefined);
    deepStrictEqual(result.structuredContent, undefined);
    ok(
      /^tally: 8 words, checksum \d+$/.test(result.content?.[0]?.text ?? ""),
      JSON.stringify(result),
    );
  } finally {
    await server.end();
  }
});
