// Executable tools through a real main.ts process (tests/executable_tool_test.ts runs them
// in process): timeouts, cancellation and shutdown kill whole process groups, stderr is
// forwarded, large arguments round-trip. Each server gets a fresh mark in its environment,
// which it passes on to its programs, so that the tests can find every process they left
// behind in /proc: there must be none.
import assert from "node:assert/strict";
import {
  eventually,
  freshMark,
  markedProcesses,
  markVariable,
  noneLeft,
  sleeping,
  zombieChildren,
} from "./_processes.ts";
import { spawnServer, withHangGuard } from "./_server_process.ts";

const EXEC_TOOLS = decodeURIComponent(new URL("./fixtures/exec_tools", import.meta.url).pathname);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: META },
  });
}

function startServer(...flags: string[]) {
  const mark = freshMark(); // inherited by the server, which passes it on
  const server = spawnServer(["--tools", EXEC_TOOLS, "--pass-env", markVariable(mark), ...flags]);
  return { mark, server };
}

async function answer(server: ReturnType<typeof spawnServer>): Promise<Record<string, unknown>> {
  const line = await withHangGuard(server.nextLine(), "a response");
  assert.ok(line !== null, "the server closed its output");
  return JSON.parse(line);
}

Deno.test("main.ts with executable tools: a program sleeping past its timeout is answered isError and killed", async () => {
  const { mark, server } = startServer();
  await server.send(call(1, "sleeper"));
  const response = await answer(server);
  assert.deepEqual(response.result, {
    resultType: "complete",
    content: [{ type: "text", text: 'Tool "sleeper" timed out after 300 ms' }],
    isError: true,
    _meta: (response.result as Record<string, unknown>)._meta,
  });
  await noneLeft(mark, server.child.pid);
  await eventually(() => zombieChildren(server.child.pid).length === 0, "the server to reap");
  const { code } = await server.finish();
  assert.equal(code, 0);
});

Deno.test("main.ts with executable tools: notifications/cancelled kills a program and the grandchild it forked", async () => {
  const { mark, server } = startServer();
  await server.send(call(1, "forker"));
  // forker.sh, its sleep, and the grandchild shell (or its sleep) that ignores SIGTERM.
  await eventually(
    () => markedProcesses(mark, server.child.pid).length >= 3,
    "the program and its children",
  );
  await server.send(JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, reason: "the user changed their mind", _meta: META },
  }));
  await noneLeft(mark, server.child.pid);
  // The cancelled call gets no answer; the next request does.
  await server.send(call(2, "noisy"));
  assert.equal((await answer(server)).id, 2);
  const { code, rest } = await server.finish();
  assert.deepEqual([code, rest], [0, []]);
});

Deno.test("main.ts with executable tools: shutdown kills a program that ignores SIGTERM", async () => {
  const { mark, server } = startServer("--shutdown-grace", "100");
  await server.send(call(1, "stubborn"));
  await eventually(
    () => markedProcesses(mark, server.child.pid).length === 2,
    "the shell and its sleep",
  );
  // End of input: after the grace the call is aborted and answered, and the server exits
  // without waiting out the program's SIGTERM grace, killing what is left as it goes.
  const { code, rest } = await server.finish();
  assert.equal(code, 0);
  assert.equal(rest.length, 1);
  assert.equal(JSON.parse(rest[0]).result.isError, true);
  await noneLeft(mark, server.child.pid);
});

Deno.test("main.ts with executable tools: stderr goes to the server's stderr, prefixed, never to stdout", async () => {
  const { server } = startServer();
  await server.send(call(1, "noisy"));
  await server.send(call(2, "fail"));
  const answers = [await answer(server), await answer(server)];
  assert.deepEqual(answers.map((response) => response.id).sort(), [1, 2]);
  const { rest, stderr } = await server.finish();
  assert.deepEqual(rest, []);
  for (const response of answers) {
    assert.doesNotMatch(JSON.stringify(response), /first line|a detail on stderr/);
  }
  // The two programs ran at the same time: their lines may interleave, never mix.
  const lines = stderr.split("\n");
  assert.deepEqual(lines.filter((line) => line.startsWith("[noisy] ")), [
    "[noisy] first line",
    "[noisy] second %s %d line",
    "[noisy] no final newline",
  ]);
  assert.deepEqual(lines.filter((line) => line.startsWith("[fail] ")), [
    "[fail] a detail on stderr",
  ]);
});

Deno.test("main.ts with executable tools: 500 KiB and 16 MiB arguments round-trip", async () => {
  // Lines of 16 MiB are past the default --max-message-bytes (4 MiB): raised here.
  const { server } = startServer("--max-message-bytes", String(20 * 1024 * 1024));
  for (const [id, size] of [[1, 500 * 1024], [2, 16 * 1024 * 1024]]) {
    // Exactly `size` bytes of UTF-8: 16 MiB is also the default output cap, which it meets.
    const ascii = 'abcdefghijklmnopqrstuvwxyz0123456789 "\\\n';
    const text = ascii.repeat(Math.ceil(size / ascii.length)).slice(0, size - 6) + "é🎉";
    assert.equal(new TextEncoder().encode(text).length, size);
    await server.send(call(id, "echo_text", { text }));
    const response = await answer(server);
    assert.equal(response.id, id);
    const result = response.result as { content: { text: string }[]; isError?: boolean };
    assert.equal(result.isError, undefined);
    assert.equal(result.content[0].text.length, text.length);
    assert.ok(result.content[0].text === text, `the ${size}-byte text came back changed`);
  }
  assert.equal((await server.finish()).code, 0);
});

Deno.test("main.ts with executable tools: --max-programs 1 makes a call wait for the slot, its timeout running", async () => {
  const { mark, server } = startServer("--max-programs", "1", "--tool-timeout", "1000");
  // deaf ignores SIGTERM: it holds the only slot for its 1 s timeout plus the 2 s grace.
  await server.send(call(1, "deaf"));
  await eventually(() => sleeping(mark, server.child.pid) === 1, "deaf to start");
  await server.send(call(2, "noisy"));
  const answers = [await answer(server), await answer(server)];
  assert.deepEqual(answers.map((response) => response.id).sort(), [1, 2]);
  const texts = answers.map((response) =>
    (response.result as { content: { text: string }[] }).content[0].text
  ).sort();
  assert.deepEqual(texts, [
    'Tool "deaf" timed out after 1000 ms',
    'Tool "noisy" timed out after 1000 ms',
  ]);
  await noneLeft(mark, server.child.pid);
  // The slot is free again.
  await server.send(call(3, "noisy"));
  const third = await answer(server);
  assert.deepEqual((third.result as { content: unknown[] }).content, [
    { type: "text", text: "quiet answer" },
  ]);
  assert.equal((await server.finish()).code, 0);
});

Deno.test("main.ts with executable tools: a huge client name is cut for programs, and said once on stderr", async () => {
  const { server } = startServer();
  const name = "n".repeat(200_000);
  const meta = { ...META, "io.modelcontextprotocol/clientInfo": { name, version: "1" } };
  for (const id of [1, 2]) {
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "env", arguments: {}, _meta: meta },
    }));
    const result = (await answer(server)).result as { content: { text: string }[] };
    assert.ok(
      result.content[0].text.split("\n").includes(`TOOLSHED_CLIENT_NAME=${"n".repeat(1024)}`),
      result.content[0].text.slice(0, 300),
    );
  }
  const { code, stderr } = await server.finish();
  assert.equal(code, 0);
  const notice = "toolshed: The client's name is 200000 characters long; programs get its first " +
    "1024 in TOOLSHED_CLIENT_NAME\n";
  assert.equal(stderr.split(notice).length - 1, 1, stderr);
});

Deno.test("main.ts with executable tools: a 200,000-line stderr burst arrives whole at a stderr read steadily", async () => {
  const { server } = startServer();
  await server.send(call(1, "burst"));
  const response = await answer(server);
  assert.deepEqual((response.result as { content: unknown[] }).content, [
    { type: "text", text: "burst done" },
  ]);
  const { code, stderr } = await server.finish();
  assert.equal(code, 0);
  const lines = stderr.split("\n").filter((line) => line.startsWith("[burst] "));
  assert.equal(lines.length, 200_000);
  lines.forEach((line, index) => {
    if (line !== `[burst] ${index + 1}`) assert.fail(`line ${index + 1} is "${line}"`);
  });
  assert.doesNotMatch(stderr, /dropped/);
});
