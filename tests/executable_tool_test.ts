// Executable tools: programs in the tools directory with a JSON sidecar (adr/0007), run
// in process (tests/executable_main_test.ts runs them through main.ts). The fixtures are
// in tests/fixtures/exec_tools/. Each program started here carries a fresh
// mark in its environment (passed on like any variable a tool asks for), so that the
// tests can find every process it left behind in /proc: there must be none.
import assert from "node:assert/strict";
import {
  type CallOptions,
  callTool,
  type CallToolResult,
  NO_CHANNELS,
} from "../lib/primitives/tool_call.ts";
import { BASE_ENV, executableHandler } from "../lib/programs/executable.ts";
import type { Launcher } from "../lib/programs/process_group.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { DEFAULT_LOAD_OPTIONS, loadTools } from "../lib/discovery/tools_dir.ts";
import {
  eventually,
  freshMark,
  groupMembers,
  markedProcesses,
  markVariable,
  noneLeft,
  sleeping,
  zombieChildren,
} from "./_processes.ts";
import { withHangGuard } from "./_server_process.ts";
import { recorder } from "./_diagnostics.ts";
import { exampleTools } from "./_examples.ts";

const EXEC_TOOLS = decodeURIComponent(new URL("./fixtures/exec_tools", import.meta.url).pathname);

/** The fixture tools, with the mark passed on to their programs. */
async function fixtures(options: Partial<typeof DEFAULT_LOAD_OPTIONS> = {}) {
  const mark = freshMark();
  const registry = await loadTools(EXEC_TOOLS, {
    diagnostics: recorder(),
    ...DEFAULT_LOAD_OPTIONS,
    passEnv: [markVariable(mark)],
    ...options,
  });
  const tool = (name: string): Tool => {
    const found = registry.byName.get(name);
    assert.ok(found, `no fixture tool "${name}"`);
    return found;
  };
  return { mark, tool };
}

function callOptions(controller = new AbortController()): CallOptions {
  return {
    controller,
    defaultTimeoutMs: 20_000,
    diagnostics: recorder(),
    context: {
      requestId: 1,
      protocolVersion: "2026-07-28",
      clientInfo: { name: "executable-test", version: "1.0.0" },
      clientCapabilities: {},
    },
  };
}

function onlyText(result: CallToolResult): string {
  assert.equal(result.content.length, 1, JSON.stringify(result));
  const block = result.content[0] as { type: string; text: string };
  assert.equal(block.type, "text");
  return block.text;
}

const failure = (text: string) => ({ content: [{ type: "text", text }], isError: true });

Deno.test("executable tool: arguments full of shell metacharacters reach the program byte for byte", async () => {
  const { mark, tool } = await fixtures();
  const canary = `${await Deno.makeTempDir()}/pwned`;
  const args = {
    substitution: `$(touch ${canary})`,
    backticks: `\`touch ${canary}\``,
    separators: `; touch ${canary} && echo | cat || true &`,
    quotes: `'single' "double" \\"escaped\\" \\' \\\\`,
    lines: "one\ntwo\r\nthree\n",
    unicode: "é 日本語 🎉 \u202e \u0000 after NUL \u001b[31m",
    glob: "* ? [a-z] ~ $HOME ${PATH} %s %n",
    nested: [{ "key with spaces": "$(id)" }, null, 1.5, true],
  };
  const result = await callTool(tool("cat_stdin"), structuredClone(args), callOptions());
  assert.equal(result.isError, undefined, JSON.stringify(result));
  // The program received exactly the serialized arguments (cat_stdin echoes stdin).
  assert.equal(onlyText(result), JSON.stringify(args));
  await assert.rejects(Deno.stat(canary), Deno.errors.NotFound);
  await Deno.remove(canary.slice(0, canary.lastIndexOf("/")), { recursive: true });
  await noneLeft(mark);
});

Deno.test("executable tool: a 500 KiB argument round-trips", async () => {
  const { tool } = await fixtures();
  const args = { text: "ü".repeat(256 * 1024) }; // 512 KiB of UTF-8
  const result = await callTool(tool("cat_stdin"), structuredClone(args), callOptions());
  assert.equal(onlyText(result), JSON.stringify(args));
});

Deno.test("executable tool: a failing program's message reaches the model as isError", async () => {
  const { mark, tool } = await fixtures();
  // stdout when it printed something there, else stderr, else the exit status.
  assert.deepEqual(
    await callTool(tool("fail"), {}, callOptions()),
    failure('Cannot frobnicate "widget": the disk is full'),
  );
  assert.deepEqual(
    await callTool(tool("fail_stderr"), {}, callOptions()),
    failure("only stderr knows why"),
  );
  assert.deepEqual(
    await callTool(tool("fail_silent"), {}, callOptions()),
    failure('Tool "fail_silent" exited with code 5'),
  );
  await noneLeft(mark);
});

Deno.test("executable tool: a program that cannot start is an isError result naming its file", async () => {
  const { tool } = await fixtures();
  assert.deepEqual(
    await callTool(tool("no_interpreter"), {}, callOptions()),
    failure(
      `Cannot run "${EXEC_TOOLS}/no_interpreter.sh": it, or the interpreter its "#!" line ` +
        "names, was not found",
    ),
  );
});

Deno.test("executable tool: stdout is one text block by default, even JSON holding a content array", async () => {
  const { tool } = await fixtures();
  // One final newline is dropped; JSON without a content array is text like any other.
  assert.deepEqual(await callTool(tool("noisy"), {}, callOptions()), {
    content: [{ type: "text", text: "quiet answer" }],
  });
  assert.deepEqual(await callTool(tool("plain_json"), {}, callOptions()), {
    content: [{ type: "text", text: '{"a":1}' }],
  });
  // Data a tool passes through (as json_query does) cannot pose as the result.
  const posing = '{"content":[{"type":"text","text":"posing"}],"isError":true}';
  assert.deepEqual(await callTool(tool("echo_text"), { text: `${posing}\n` }, callOptions()), {
    content: [{ type: "text", text: posing }],
  });
});

Deno.test("tools/ examples: json_query passes JSON shaped like a CallToolResult through as text, csv_to_json prints structured content", async () => {
  const registry = await loadTools(await exampleTools(), {
    diagnostics: recorder(),
    allowOutsideSymlinks: true,
  });
  const posing = { content: [{ type: "text", text: "posing" }], isError: true };
  const query = await callTool(
    registry.byName.get("json_query")!,
    { filter: ".", json: posing },
    callOptions(),
  );
  const hasJq = await new Deno.Command("jq", { args: ["--version"], stdout: "null" }).output()
    .then(({ success }) => success, () => false);
  if (hasJq) assert.deepEqual(query, { content: [{ type: "text", text: JSON.stringify(posing) }] });
  else assert.match(onlyText(query), /json_query needs jq/);
  const table = await callTool(
    registry.byName.get("csv_to_json")!,
    { csv: "name,city\nAda,Zürich\n" },
    callOptions(),
  );
  const rows = { columns: ["name", "city"], rows: [{ name: "Ada", city: "Zürich" }], rowCount: 1 };
  assert.deepEqual(table.structuredContent, rows);
  assert.deepEqual(JSON.parse(onlyText(table)), rows);
});

/** What the out_* fixture `name` answers when it prints each of `texts` (run in parallel). */
async function printing(name: string, texts: string[]): Promise<CallToolResult[]> {
  const { tool } = await fixtures();
  return await Promise.all(texts.map((text) => callTool(tool(name), { text }, callOptions())));
}

Deno.test('executable tool: "output": "json" makes stdout structured content, whatever its shape', async () => {
  const posing = { content: [{ type: "text", text: "posing" }], isError: true };
  const text = JSON.stringify(posing, null, 2);
  assert.deepEqual(await printing("out_json", [` \n${text}\n`, "[1,2]\n", "7"]), [
    { content: [{ type: "text", text: ` \n${text}` }], structuredContent: posing },
    { content: [{ type: "text", text: "[1,2]" }], structuredContent: [1, 2] },
    { content: [{ type: "text", text: "7" }], structuredContent: 7 },
  ]);
  // An outputSchema implies "json", and the value is checked against it.
  const [matching, mismatch] = await printing("out_schema", ['{"n": 7}\n', '{"n": "seven"}']);
  assert.deepEqual(matching, {
    content: [{ type: "text", text: '{"n": 7}' }],
    structuredContent: { n: 7 },
  });
  assert.equal(mismatch.isError, true);
  assert.match(onlyText(mismatch), /does not match its outputSchema/);
});

Deno.test('executable tool: "output": "json" with stdout that is not JSON is an isError result saying so', async () => {
  const results = [
    ...await printing("out_json", ["not json\n", "[1] [2]"]),
    ...await printing("out_schema", [""]),
  ];
  for (const [index, name] of ["out_json", "out_json", "out_schema"].entries()) {
    assert.equal(results[index].isError, true, JSON.stringify(results[index]));
    assert.match(
      onlyText(results[index]),
      new RegExp(
        `^Tool "${name}" printed output that is not JSON, but its sidecar sets "output": "json": .`,
      ),
    );
  }
});

Deno.test('executable tool: "output": "result" returns the CallToolResult it prints, checked', async () => {
  const { tool } = await fixtures();
  const posing = { content: [{ type: "text", text: "a failure" }], isError: true };
  assert.deepEqual(await printing("out_result", [JSON.stringify(posing)]), [posing]);
  // Its structured content checked against the outputSchema.
  assert.deepEqual(await callTool(tool("result"), {}, callOptions()), {
    content: [{ type: "text", text: "seven" }],
    structuredContent: { n: 7 },
  });
  // Checked as a TypeScript tool's result is.
  const bad = await callTool(tool("bad_result"), {}, callOptions());
  assert.equal(bad.isError, true);
  assert.match(onlyText(bad), /^Tool "bad_result" returned an invalid CallToolResult: /);
});

Deno.test('executable tool: "output": "result" with anything but a CallToolResult is an isError result saying what to print', async () => {
  const expected = failure(
    'Tool "out_result" printed JSON that is not a CallToolResult, but its sidecar sets ' +
      '"output": "result": print one JSON object with a "content" array (e.g. ' +
      '{"content":[{"type":"text","text":"…"}]}), or set "output": "json" to return the JSON ' +
      "printed as structured content",
  );
  const [notJson, ...others] = await printing(
    "out_result",
    ["plain words", '{"a":1}', "[1]", '{"content":"x"}', "null"],
  );
  assert.deepEqual(others, [expected, expected, expected, expected]);
  assert.equal(notJson.isError, true);
  assert.match(
    onlyText(notJson),
    /^Tool "out_result" printed output that is not JSON, but its sidecar sets "output": "result" \(one JSON object with a "content" array\): ./,
  );
});

Deno.test("executable tool: the program's environment holds only the allowed variables", async () => {
  Deno.env.set("TOOLSHED_TEST_SECRET", "must not leak");
  try {
    const { mark, tool } = await fixtures();
    const result = await callTool(tool("env"), {}, callOptions());
    const seen = Object.fromEntries(
      onlyText(result).split("\n").map((line) => [line.slice(0, line.indexOf("=")), line]),
    );
    const expected: Record<string, string> = {};
    for (const name of BASE_ENV) {
      const value = Deno.env.get(name);
      if (value !== undefined) expected[name] = `${name}=${value}`;
    }
    Object.assign(expected, {
      [markVariable(mark)]: `${markVariable(mark)}=${mark}`,
      TOOLSHED_TOOL_NAME: "TOOLSHED_TOOL_NAME=env",
      TOOLSHED_PROTOCOL_VERSION: "TOOLSHED_PROTOCOL_VERSION=2026-07-28",
      TOOLSHED_CLIENT_NAME: "TOOLSHED_CLIENT_NAME=executable-test",
    });
    assert.deepEqual(seen, expected);
  } finally {
    Deno.env.delete("TOOLSHED_TEST_SECRET");
  }
});

/** The value of `name` in the environment the env fixture printed. */
function envValue(result: CallToolResult, name: string): string | undefined {
  const line = onlyText(result).split("\n").find((line) => line.startsWith(`${name}=`));
  return line?.slice(name.length + 1);
}

/** callOptions() for a client of this name. */
function asClient(name: string): CallOptions {
  const options = callOptions();
  return { ...options, context: { ...options.context, clientInfo: { name, version: "1" } } };
}

Deno.test("executable tool: a 200,000-character client name still runs the program, which sees its first 1024", async () => {
  const { tool } = await fixtures();
  const name = "abcdefghij".repeat(20_000);
  const result = await callTool(tool("env"), {}, asClient(name));
  assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 500));
  assert.equal(envValue(result, "TOOLSHED_CLIENT_NAME"), name.slice(0, 1024));
});

Deno.test("executable tool: a long client name is cut before a surrogate pair, never inside it", async () => {
  const { tool } = await fixtures();
  const cut = async (name: string) =>
    envValue(await callTool(tool("env"), {}, asClient(name)), "TOOLSHED_CLIENT_NAME");
  assert.equal(await cut(`${"a".repeat(1023)}🎉${"b".repeat(10)}`), "a".repeat(1023));
  assert.equal(await cut(`${"a".repeat(1022)}🎉${"b".repeat(10)}`), `${"a".repeat(1022)}🎉`);
});

Deno.test("executable tool: output past the cap stops the program and is an isError result", async () => {
  const { mark, tool } = await fixtures({ maxOutputBytes: 1024 * 1024 });
  assert.deepEqual(
    await callTool(tool("flood"), {}, callOptions()),
    failure(
      'Tool "flood" printed more than 1048576 bytes on stdout (the limit set by ' +
        "--max-output-bytes), so it was stopped",
    ),
  );
  await noneLeft(mark);
});

Deno.test("executable tool: a program that exits leaving a child behind answers, and the child is killed", async () => {
  const { mark, tool } = await fixtures();
  // The background child holds stdout open: without the group kill, the call would hang.
  const result = await withHangGuard(
    Promise.resolve(callTool(tool("leaver"), {}, callOptions())),
    "leaver",
  );
  assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
  await noneLeft(mark);
});

/** A fixture program as a tool started by the given launcher, with its mark passed on. */
function direct(mark: string, program: string, launcher: Launcher, killGraceMs?: number): Tool {
  return checkDefinition(
    {
      description: program,
      inputSchema: { type: "object" },
      handler: executableHandler({
        diagnostics: recorder(),
        program: `${EXEC_TOOLS}/${program}`,
        file: program,
        passEnv: [markVariable(mark)],
        maxOutputBytes: 1024 * 1024,
        killGraceMs,
        launcher,
      }),
    },
    program.replace(/\..*$/, ""),
    `${program}.json`,
  );
}

for (const launcher of ["setsid", "detached"] as const) {
  Deno.test(`executable tool (${launcher}): on abort, a program ignoring SIGTERM and its child are killed after the grace`, async () => {
    const mark = freshMark();
    const stubborn = direct(mark, "stubborn.sh", launcher, 100);
    const controller = new AbortController();
    const ctx = {
      ...callOptions().context,
      ...NO_CHANNELS,
      signal: controller.signal,
      toolName: "stubborn",
    };
    const running = stubborn.definition.handler({}, ctx);
    await eventually(() => markedProcesses(mark).length === 2, "the shell and its sleep to start");
    const [{ pgrp }] = markedProcesses(mark);
    // The program leads its own process group (and session): the whole group is signalled.
    assert.ok(markedProcesses(mark).every((process) => process.pgrp === pgrp));
    assert.ok(markedProcesses(mark).every((process) => process.session === pgrp));
    assert.ok(markedProcesses(mark).some((process) => process.pid === pgrp));
    controller.abort(new Error("cancelled by the test"));
    // The handler settles only once its program has been reaped.
    assert.equal(await withHangGuard(running as Promise<unknown>, "the handler"), undefined);
    await noneLeft(mark);
    await eventually(() => groupMembers(pgrp).length === 0, "the group to be empty");
    assert.deepEqual(zombieChildren(Deno.pid), []);
  });

  Deno.test(`executable tool (${launcher}): a call cancelled at once leaves nothing running`, async () => {
    const mark = freshMark();
    // A grace longer than the hang guard: only the first SIGTERM can end these calls.
    const sleeper = direct(mark, "sleeper.sh", launcher, 60_000);
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      const ctx = {
        ...callOptions().context,
        ...NO_CHANNELS,
        signal: controller.signal,
        toolName: "sleeper",
      };
      const running = sleeper.definition.handler({}, ctx);
      controller.abort(new Error("cancelled by the test")); // before setsid() may have run
      await withHangGuard(running as Promise<unknown>, "the handler");
    }
    await noneLeft(mark);
  });

  Deno.test(`executable tool (${launcher}): arguments arrive byte for byte, a child left behind is killed, a missing interpreter is reported`, async () => {
    const mark = freshMark();
    const args = { text: "$(id) `id`; 'x' \"y\" \n\u0000 é 🎉" };
    assert.deepEqual(
      await callTool(direct(mark, "cat_stdin", launcher), structuredClone(args), callOptions()),
      {
        content: [{ type: "text", text: JSON.stringify(args) }],
      },
    );
    assert.deepEqual(await callTool(direct(mark, "leaver.sh", launcher), {}, callOptions()), {
      content: [{ type: "text", text: "done" }],
    });
    assert.deepEqual(
      await callTool(direct(mark, "no_interpreter.sh", launcher), {}, callOptions()),
      failure(
        'Cannot run "no_interpreter.sh": it, or the interpreter its "#!" line names, was not found',
      ),
    );
    await noneLeft(mark);
  });
}

Deno.test("executable tool: 200 calls in parallel all answer and leave no process behind", async () => {
  const { mark, tool } = await fixtures();
  const results = await withHangGuard(
    Promise.all(
      Array.from({ length: 200 }, () => callTool(tool("leaver"), {}, callOptions())),
    ),
    "200 parallel calls",
  );
  for (const result of results) {
    assert.deepEqual(result, { content: [{ type: "text", text: "done" }] });
  }
  await noneLeft(mark);
  assert.deepEqual(zombieChildren(Deno.pid), []);
});

Deno.test("executable tool: with maxPrograms 2, call+cancel loops never keep more than 2 programs alive", async () => {
  const { mark, tool } = await fixtures({ maxPrograms: 2 });
  // deaf and cat_stdin run as one process each, so processes count programs.
  let most = 0;
  const sampler = setInterval(() => most = Math.max(most, markedProcesses(mark).length), 5);
  try {
    for (let i = 0; i < 10; i++) {
      const controller = new AbortController();
      const running = callTool(tool("deaf"), {}, callOptions(controller));
      // The first two run (deaf ignores SIGTERM, so each lives 2 s more); the others wait.
      // (A turn of the event loop puts the others in the line for a slot.)
      if (i < 2) await eventually(() => sleeping(mark) > i, "deaf to start");
      else await new Promise((resolve) => setTimeout(resolve, 0));
      controller.abort(new Error("cancelled by the test"));
      const result = await withHangGuard(Promise.resolve(running), "a cancelled call");
      assert.equal(result.isError, true);
    }
    // A later call waits for a slot, then runs.
    const later = await withHangGuard(
      Promise.resolve(callTool(tool("cat_stdin"), { n: 1 }, callOptions())),
      "a call after the loop",
    );
    assert.deepEqual(later, { content: [{ type: "text", text: '{"n":1}' }] });
  } finally {
    clearInterval(sampler);
  }
  assert.equal(most, 2, `${most} programs were alive at once`);
  await noneLeft(mark);
});

Deno.test("docs: the tools/add.sh example and its sidecar load and add two integers", async () => {
  const page = await Deno.readTextFile(
    new URL("../docs/authoring/any-language.md", import.meta.url),
  );
  const example = page.match(
    /```sh\n(#!\/usr\/bin\/env bash\n# tools\/add\.sh[\s\S]*?)```\n\n(?:<!-- example: \S+ -->\n\n)?```json\n([\s\S]*?)```/,
  );
  if (!example) throw new Error("docs/authoring/any-language.md has no tools/add.sh example");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/add.sh`, example[1], { mode: 0o755 });
    await Deno.chmod(`${dir}/add.sh`, 0o755);
    await Deno.writeTextFile(`${dir}/add.json`, example[2]);
    const registry = await loadTools(dir, { diagnostics: recorder() });
    assert.deepEqual(registry.tools.map((tool) => tool.name), ["add"]);
    assert.deepEqual(await callTool(registry.byName.get("add")!, { a: 2, b: 3 }, callOptions()), {
      content: [{ type: "text", text: "5" }],
    });
    // The schema keeps the arithmetic expansion away from anything but integers.
    const hostile = await callTool(
      registry.byName.get("add")!,
      { a: "x[$(id)]", b: 1 },
      callOptions(),
    );
    assert.equal(hostile.isError, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("executable tool: a descendant that left the process group cannot hold the call open", async () => {
  const { mark, tool } = await fixtures();
  try {
    // The daemon keeps stdout open for 300 s; the call answers once the program has exited.
    assert.deepEqual(
      await withHangGuard(
        Promise.resolve(callTool(tool("daemonizer"), {}, callOptions())),
        "the call whose daemon holds stdout",
      ),
      { content: [{ type: "text", text: "started a daemon" }] },
    );
  } finally {
    // It escaped the group kill on purpose (adr/0007 accepts that); end it here.
    for (const process of markedProcesses(mark)) {
      try {
        Deno.kill(process.pid, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
});
