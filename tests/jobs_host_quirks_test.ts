// What real hosts do to the job tool, answered in process (adr/0070; tests/jobs_host_test.ts
// sees each host do it): Claude Code gives its model a result's structuredContent as JSON in
// place of its text (anthropics/claude-code#79944), so the handle and every "still running"
// answer of toolshed_job must name the next call there too; Gemini CLI adds a
// `wait_for_previous` argument to every tool it declares and sends it on, so toolshed_job must
// take keys it does not know. Through the real core over stdio, in this process, with
// tests/fixtures/jobs_host (a bound of 300 ms and a wait of 400 ms).
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

/** A server of tests/fixtures/jobs_host, and `call` answering one tools/call of it. */
async function withServer(
  body: (call: (name: string, args: object) => Promise<Result>) => Promise<void>,
) {
  const server = await startInProcess(FLAGS);
  try {
    let id = 0;
    await body(async (name, args) => {
      const sent = ++id;
      server.send(modernBody(sent, "tools/call", { name, arguments: args }));
      for (;;) {
        const line = await withHangGuard(server.nextLine(), `the answer to call ${sent}`);
        ok(line !== null, "the server answers");
        const message = JSON.parse(line) as { id?: number; result?: Result };
        if (message.id === sent) return message.result!;
      }
    });
  } finally {
    await server.end();
  }
}

/**
 * Follows the job `first` names, as a model shown only structured content would: each
 * structured `job.next` is called, with `extra` keys besides, until an answer names none.
 * Every answer on the way, and the last.
 */
async function follow(
  call: (name: string, args: object) => Promise<Result>,
  first: Result,
  extra: Record<string, unknown> = {},
): Promise<{ followed: Result[]; last: Result }> {
  const followed: Result[] = [];
  let result = first;
  for (let calls = 0; calls < MOST_CALLS; calls++) {
    const next = result.structuredContent?.job?.next;
    if (next === undefined) return { followed, last: result };
    followed.push(result);
    result = await call(next.tool, { ...next.arguments, ...extra });
  }
  throw new Error(`The job was still running after ${MOST_CALLS} calls`);
}

Deno.test("jobs: toolshed_job takes a key a host adds to every tool (Gemini CLI's wait_for_previous) and answers as without it", async () => {
  await withServer(async (call) => {
    const handle = await call("tally_words", { text: "one two three four five", stepMs: 100 });
    ok(typeof handle.structuredContent?.job?.id === "string", JSON.stringify(handle));
    const { last } = await follow(call, handle, { wait_for_previous: true });
    strictEqual(last.isError, undefined, JSON.stringify(last));
    ok(/^tally: 5 words, checksum \d+$/.test(last.content?.[0]?.text ?? ""), JSON.stringify(last));
  });
});

Deno.test("jobs: a model shown only structured content follows a job to its result, each answer naming the next call", async () => {
  await withServer(async (call) => {
    // Eight words at 100 ms: about 0.8 s, past the bound and one wait.
    const handle = await call("tally_words", {
      text: "one two three four five six seven eight",
      stepMs: 100,
    });
    const id = handle.structuredContent?.job?.id;
    ok(typeof id === "string", JSON.stringify(handle));
    const { followed, last } = await follow(call, handle);
    ok(
      followed.length >= 2,
      `a "still running" answer named the next call: ${JSON.stringify(followed)}`,
    );
    // The handle names {id}; each "still running" the next wait, counted, so that no two
    // calls of the follow are alike (Gemini CLI stops a tool called five times alike).
    for (const [index, answer] of followed.entries()) {
      deepStrictEqual(answer.structuredContent?.job?.next, {
        tool: "toolshed_job",
        arguments: index === 0 ? { id } : { id, attempt: index + 1 },
      });
    }
    strictEqual(last.isError, undefined);
    deepStrictEqual(last.structuredContent, undefined);
    ok(/^tally: 8 words, checksum \d+$/.test(last.content?.[0]?.text ?? ""), JSON.stringify(last));
  });
});
