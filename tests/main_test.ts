// main.ts as a process: signals, and what a person at a terminal sees.
import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { FIXTURE_TOOLS, readLines, spawnServer, withHangGuard } from "./_server_process.ts";
import { exampleTools } from "./_examples.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** The example tools (not what a user added to tools/); their programs are symlinks. */
const TOOLS = ["--tools", await exampleTools(), "--allow-outside-symlinks"];
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function waitCall(id: number, ms: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "wait", arguments: { ms }, _meta: META },
  });
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`main.ts on ${signal} answers the call in flight, then exits 0`, async () => {
    const server = spawnServer([...TOOLS, "--shutdown-grace", "30000"]);
    await server.send(waitCall(1, 300));
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    strictEqual(JSON.parse((await server.nextLine())!).id, 2); // the server is up and reading
    server.child.kill(signal);
    const answer = JSON.parse((await server.nextLine())!);
    deepStrictEqual([answer.id, answer.result.isError], [1, undefined]);
    match(answer.result.content[0].text, /^Waited \d+ ms$/);
    const { code, rest, stderr } = await server.finish();
    deepStrictEqual(rest, []);
    strictEqual(code, 0);
    match(stderr, new RegExp(`Shutting down: received ${signal}`));
  });
}

Deno.test("main.ts on SIGTERM aborts a call that outlives the grace period, answers it, exits 0", async () => {
  const server = spawnServer([...TOOLS, "--shutdown-grace", "100"]);
  await server.send(waitCall(1, 50_000));
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
  strictEqual(JSON.parse((await server.nextLine())!).id, 2);
  server.child.kill("SIGTERM");
  const answer = JSON.parse((await server.nextLine())!);
  deepStrictEqual(answer, {
    jsonrpc: "2.0",
    id: 1,
    result: {
      resultType: "complete",
      content: [{ type: "text", text: 'Tool "wait" was cancelled: the server is shutting down' }],
      isError: true,
      _meta: answer.result._meta,
    },
  });
  strictEqual((await server.finish()).code, 0);
});

Deno.test("main.ts on a second SIGTERM during shutdown exits 1 at once, leaving the call in flight unanswered", async () => {
  // Its own process rather than spawnServer(): the test must see stderr while it runs, and
  // must write nothing to stdin after the first signal (input read then ends the shutdown's
  // wait for calls in flight, which is not what this test is about).
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...TOOLS, "--shutdown-grace", "60000"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const stdout = readLines(child.stdout);
  const stderr = readLines(child.stderr);
  await writer.write(encoder.encode(waitCall(1, 50_000) + "\n"));
  const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META } };
  await writer.write(encoder.encode(JSON.stringify(list) + "\n"));
  const listed = await withHangGuard(stdout.next(), "tools/list");
  strictEqual(JSON.parse(listed.value!).id, 2); // the server is up, the call in flight
  child.kill("SIGTERM");
  const seen: string[] = [];
  for await (const line of withHangGuardLines(stderr, "the first SIGTERM")) {
    seen.push(line);
    if (line.includes("Shutting down: received SIGTERM")) break;
  }
  match(seen[0], /^toolshed \S+: serving 7 tools from ".*tools" over stdio$/);
  deepStrictEqual(seen.slice(1), ["toolshed: Shutting down: received SIGTERM"]);
  child.kill("SIGTERM");
  const { code } = await withHangGuard(child.status, "exit after a second SIGTERM");
  const rest: string[] = [];
  for await (const line of stdout) rest.push(line);
  await writer.close().catch(() => {});
  for await (const _ of stderr) { /* drain */ }
  deepStrictEqual([code, rest], [1, []]);
});

/** `lines`, each next line guarded against a hang. */
async function* withHangGuardLines(
  lines: AsyncGenerator<string>,
  what: string,
): AsyncGenerator<string> {
  while (true) {
    const next = await withHangGuard(lines.next(), what);
    if (next.done) return;
    yield next.value;
  }
}

Deno.test("main.ts started in a terminal says on stderr what it serves and how to connect", async () => {
  // `script` gives the server a pseudo-terminal for stdin; end of input (Ctrl+D) stops it.
  const command = `${Deno.execPath()} run -A ${MAIN} ${TOOLS.join(" ")} 2>&1 >/dev/null`;
  const { code, stdout } = await new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    // As a person runs it: not under the npx or deno task that may run these tests.
    env: { npm_lifecycle_event: "", npm_config_user_agent: "", INIT_CWD: "" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const seen = new TextDecoder().decode(stdout);
  strictEqual(code, 0, seen);
  match(seen, /^toolshed \S+: serving 7 tools from ".*tools" over stdio\r?\n/);
  match(seen, /Names: csv_to_json, divide, echo, json_query, sha256, wait, word_stats/);
  match(seen, /This is an MCP server speaking JSON-RPC on stdin\/stdout: type JSON-RPC lines here/);
  // The commands as this person runs toolshed: here main.ts by its path, run from the test's
  // working directory (how a task, a binary or a URL are named: tests/invocation_test.ts).
  const shown = MAIN.startsWith(`${Deno.cwd()}/`) ? MAIN.slice(Deno.cwd().length + 1) : MAIN;
  match(seen, new RegExp(`\\n {2}deno run -A ${RegExp.escape(shown)} config CLIENT {3}prints`));
  match(seen, new RegExp(`\\n {2}deno run -A ${RegExp.escape(shown)} call NAME {7}calls`));
});

Deno.test("main.ts with piped stdin prints its one start-up line and no greeting", async () => {
  const server = spawnServer(TOOLS);
  const { code, stderr } = await server.finish();
  strictEqual(code, 0);
  match(stderr, /^toolshed \S+: serving 7 tools from "[^"]*tools" over stdio\n$/);
});

Deno.test("main.ts exits quietly with 0 when the client closes its stdout while stdin stays open", async () => {
  const server = spawnServer(TOOLS);
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  strictEqual(JSON.parse((await server.nextLine())!).id, 1);
  await server.closeStdout();
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
  const status = await withHangGuard(server.child.status, "exit after stdout closed");
  const { stderr } = await server.finish();
  strictEqual(status.code, 0);
  match(stderr, /^toolshed \S+: serving 7 tools from "[^"]*tools" over stdio\n$/);
});

Deno.test("main.ts exits within the grace period at end of input even if nobody reads its output", async () => {
  const server = spawnServer([...TOOLS, "--shutdown-grace", "300"]);
  const text = "x".repeat(100_000);
  for (let id = 1; id <= 40; id++) {
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { text }, _meta: META },
    }));
  }
  await server.closeStdin();
  // 4 MB of answers wait in a pipe nobody reads; the server must not wait for them forever.
  const status = await withHangGuard(server.child.status, "exit with unread output");
  strictEqual(status.code, 0);
  await server.closeStdout();
  match((await server.finish()).stderr, /could not be flushed within the grace period/);
});

Deno.test("main.ts on SIGTERM after end of input stops waiting for the grace period", async () => {
  // The official clients close stdin, wait, then send SIGTERM, then SIGKILL.
  const server = spawnServer([...TOOLS, "--shutdown-grace", "60000"]);
  await server.send(waitCall(1, 50_000));
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
  strictEqual(JSON.parse((await server.nextLine())!).id, 2);
  await server.closeStdin();
  server.child.kill("SIGTERM");
  const answer = JSON.parse((await withHangGuard(server.nextLine(), "the aborted call"))!);
  deepStrictEqual([answer.id, answer.result.isError], [1, true]);
  const { code, rest } = await withHangGuard(server.finish(), "exit after SIGTERM");
  deepStrictEqual([code, rest], [0, []]);
});

Deno.test("main.ts keeps answering when a tool floods a stderr that nobody reads", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "--tools",
      new URL("./fixtures/exec_tools", import.meta.url).pathname,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped", // never read until the end: the pipe fills after 64 KiB
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const send = (message: unknown) => writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  const lines = readLines(child.stdout);
  const nextLine = async () => {
    const next = await lines.next();
    if (next.done) throw new Error("stdout ended");
    return JSON.parse(next.value);
  };
  await send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "shouter" } });
  deepStrictEqual((await withHangGuard(nextLine(), "the shouting tool")).result.content, [
    { type: "text", text: "shouted" },
  ]);
  await send({ jsonrpc: "2.0", id: 2, method: "ping" });
  deepStrictEqual(await withHangGuard(nextLine(), "a ping after the flood"), {
    jsonrpc: "2.0",
    id: 2,
    result: {},
  });
  await writer.close();
  const stderr = await new Response(child.stderr).text();
  await lines.return(undefined);
  strictEqual((await child.status).code, 0);
  match(stderr, /\[shouter\] x{100}/);
});

Deno.test("main.ts logs a tool that throws in one line, and its stack only with --verbose", async () => {
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "boom", arguments: {}, _meta: META },
  });
  const run = async (flags: string[]) => {
    const server = spawnServer(["--tools", FIXTURE_TOOLS, ...flags]);
    await server.send(call);
    strictEqual(JSON.parse((await server.nextLine())!).result.isError, true);
    return (await server.finish()).stderr.split("\n").filter((line) =>
      !line.startsWith("toolshed 0.1.0") && line !== "" && line !== "chatty loaded"
    );
  };
  deepStrictEqual(await run([]), [
    'toolshed: Tool "boom" failed: Error: The boom tool always fails',
    "toolshed: (start with --verbose to see the stacks of such errors)",
  ]);
  const verbose = await run(["--verbose"]);
  strictEqual(verbose[0], 'toolshed: Tool "boom" failed');
  strictEqual(verbose[1], "Error: The boom tool always fails");
  // The file as on disk, without the `?mtime=` the loader imports it under (Deno shows that
  // when it has no cached emit to map the stack back: a fresh DENO_DIR, as in CI).
  match(verbose[2], /^ +at (Object\.)?handler \(file:.*boom\.ts:\d+:\d+\)$/);
});

Deno.test("main.ts warns at start-up of what its folders hold but it does not serve", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_survey_" });
  try {
    await Deno.mkdir(`${dir}/tools/sub`, { recursive: true });
    await Deno.writeTextFile(`${dir}/tools/sub/nested.tsx`, "export default {};\n");
    await Deno.writeTextFile(`${dir}/tools/widget.tsx`, "export default {};\n");
    const server = spawnServer(["--dir", dir]);
    const { code, stderr } = await server.finish();
    strictEqual(code, 0);
    deepStrictEqual(stderr.split("\n"), [
      `toolshed: Serving nothing: "${dir}/tools" holds no tool, resource or prompt`,
      `toolshed: Not serving "${dir}/tools/widget.tsx": tool modules end in ".ts", ".mts", ` +
      `".js" or ".mjs" (rename it, or start its name with "_" if it is not a tool)`,
      `toolshed: Not serving "${dir}/tools/sub/nested.tsx": tool modules end in ".ts", ".mts", ` +
      `".js" or ".mjs" (rename it, or start its name with "_" if it is not a tool)`,
      "toolshed 0.1.0: serving nothing over stdio",
      "",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
