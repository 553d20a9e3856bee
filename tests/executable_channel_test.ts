// The channel from a program back to the server (adr/0035): stderr lines that
// start with `toolshed:` become ctx.progress and ctx.log calls instead of diagnostics. The
// programs are fixtures in tests/fixtures/exec_tools/, run for real, through real pipes.
import assert from "node:assert/strict";
import { callTool, type CallToolResult, NO_CHANNELS } from "../lib/primitives/tool_call.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { executableHandler } from "../lib/programs/executable.ts";
import {
  CHANNEL_LINE_BYTES,
  type ChannelLine,
  notUnderstoodNote,
  readChannelLine,
} from "../lib/programs/channel.ts";
import type { Channels, LogLevel } from "../lib/primitives/types.ts";
import { withHangGuard } from "./_server_process.ts";
import { type Recorder, recorder } from "./_diagnostics.ts";

const EXEC_TOOLS = decodeURIComponent(new URL("./fixtures/exec_tools", import.meta.url).pathname);

/** A fixture program as a tool, with the recorder its stderr goes to. */
function program(file: string): { tool: Tool; diagnostics: Recorder } {
  const diagnostics = recorder();
  const tool = checkDefinition(
    {
      description: file,
      inputSchema: { type: "object" },
      handler: executableHandler({
        diagnostics,
        program: `${EXEC_TOOLS}/${file}`,
        file,
        passEnv: [],
        maxOutputBytes: 1024 * 1024,
      }),
    },
    file.replace(/\..*$/, ""),
    `${file.replace(/\..*$/, "")}.json`,
  );
  return { tool, diagnostics };
}

type Call =
  | ["progress", number, number | undefined, string | undefined]
  | ["log", LogLevel, unknown];

/** Calls the tool with channels that record every progress and log call, in order. */
async function callRecording(tool: Tool): Promise<{ result: CallToolResult; calls: Call[] }> {
  const calls: Call[] = [];
  const channels: Channels = {
    progress: (progress, total, message) => calls.push(["progress", progress, total, message]),
    log: (level, data) => calls.push(["log", level, data]),
    request: NO_CHANNELS.request,
    closeStream: NO_CHANNELS.closeStream,
  };
  const result = await withHangGuard(
    Promise.resolve(callTool(tool, {}, {
      controller: new AbortController(),
      defaultTimeoutMs: 20_000,
      diagnostics: recorder(),
      context: {
        requestId: 1,
        protocolVersion: "2026-07-28",
        clientInfo: undefined,
        clientCapabilities: {},
      },
      channels,
    })),
    `the call of ${tool.name}`,
  );
  return { result, calls };
}

Deno.test("readChannelLine() reads the two forms and leaves other lines ordinary", () => {
  const cases: [string, ChannelLine][] = [
    ["toolshed:progress 3/10 Parsing rows", {
      kind: "progress",
      progress: 3,
      total: 10,
      message: "Parsing rows",
    }],
    ["toolshed:progress 0.5", { kind: "progress", progress: 0.5 }],
    ["toolshed:progress -1.5e2/0", { kind: "progress", progress: -150, total: 0 }],
    ["toolshed:progress 7 ", { kind: "progress", progress: 7 }],
    ["toolshed:progress 7  x\r", { kind: "progress", progress: 7, message: " x\r" }],
    ["toolshed:log info Hello, world", { kind: "log", level: "info", message: "Hello, world" }],
    ["toolshed:log emergency ", { kind: "log", level: "emergency", message: "" }],
    ["toolshed:log debug", { kind: "log", level: "debug", message: "" }],
    ["ordinary line", { kind: "ordinary" }],
    [" toolshed:progress 1", { kind: "ordinary" }],
    ["TOOLSHED:progress 1", { kind: "ordinary" }],
  ];
  for (const [line, expected] of cases) assert.deepEqual(readChannelLine(line), expected, line);
});

Deno.test("readChannelLine() does not understand other toolshed: lines", () => {
  for (
    const line of [
      "toolshed:",
      "toolshed: progress 1",
      "toolshed:progress",
      "toolshed:progress ",
      "toolshed:progress x",
      "toolshed:progress +1",
      "toolshed:progress 01",
      "toolshed:progress .5",
      "toolshed:progress 5.",
      "toolshed:progress 1e999",
      "toolshed:progress 1/1e999",
      "toolshed:progress 1/",
      "toolshed:progress 1/x",
      "toolshed:progress 1,2",
      "toolshed:progress  1",
      "toolshed:progress\t1",
      "toolshed:progress 0x10",
      "toolshed:progress Infinity",
      "toolshed:log",
      "toolshed:log verbose hello",
      "toolshed:log INFO hello",
      "toolshed:log  info hello",
      "toolshed:log info\thello",
      "toolshed:logs info hello",
      "toolshed:request roots/list",
    ]
  ) {
    assert.deepEqual(readChannelLine(line), { kind: "not understood" }, line);
  }
});

Deno.test(`readChannelLine() takes a line of up to ${CHANNEL_LINE_BYTES} UTF-8 bytes, no more`, () => {
  const head = "toolshed:log info ";
  // 4096 bytes exactly, in ASCII, in 2-byte é, in 3-byte € and in 4-byte 🎉 (two UTF-16 units).
  for (const [unit, size] of [["a", 1], ["é", 2], ["€", 3], ["🎉", 4]] as const) {
    const padding = "a".repeat((CHANNEL_LINE_BYTES - head.length) % size);
    const units = (CHANNEL_LINE_BYTES - head.length - padding.length) / size;
    const exact = `${head}${padding}${unit.repeat(units)}`;
    assert.equal(new TextEncoder().encode(exact).length, CHANNEL_LINE_BYTES, unit);
    assert.equal(readChannelLine(exact).kind, "log", unit);
    assert.equal(readChannelLine(`${exact}a`).kind, "not understood", unit);
  }
  // A long ordinary line is ordinary, however long.
  assert.equal(readChannelLine("x".repeat(100_000)).kind, "ordinary");
});

Deno.test("executable tool channel: progress and log lines reach ctx in order, the result and ordinary stderr are unaffected, a bad toolshed: line is forwarded after one note", async () => {
  const { tool, diagnostics } = program("channel.sh");
  const { result, calls } = await callRecording(tool);
  assert.deepEqual(result, { content: [{ type: "text", text: "the result" }] });
  assert.deepEqual(calls, [
    ["progress", 0.5, undefined, undefined],
    ["progress", 1, 4, "Parsing rows"],
    ["log", "warning", "Disk is 91% full"], // its \r\n ending dropped
    ["progress", 2, 4, undefined], // written in two pieces; the empty message is left out
    ["log", "debug", " two  spaces é 🎉"],
    ["log", "info", ""],
    ["progress", 3, 4, "Almost"],
    ["progress", 4, 4, undefined],
  ]);
  assert.equal(
    diagnostics.text(),
    [
      "[channel] ordinary line\n",
      `toolshed: ${notUnderstoodNote("channel")}\n`,
      "[channel] toolshed:progres 3/4 typo\n",
      "[channel] toolshed:log verbose unknown level\n",
      "[channel] toolshed:progress 1e999\n",
      "[channel] toolshed:progress +3\n",
      "[channel] toolshed:progress 3/\n",
      `[channel] toolshed:log info ${"0".repeat(5000)}\n`,
      "[channel] another ordinary line\n",
    ].join(""),
  );
});

Deno.test("executable tool channel: the note about a bad line names the two forms and the levels", () => {
  assert.equal(
    notUnderstoodNote("x"),
    'Tool "x" printed a stderr line that starts with "toolshed:" but is not a message to the ' +
      "server, so it and any like it in this call are forwarded as they are: the forms are " +
      '"toolshed:progress <progress>[/<total>] [message]" and "toolshed:log <level> <message>", ' +
      "at most 4096 bytes, with <level> one of debug, info, notice, warning, error, critical, " +
      "alert, emergency",
  );
});

Deno.test("executable tool channel: a failing program's message leaves its channel lines out", async () => {
  const { tool, diagnostics } = program("channel_fail.sh");
  const { result, calls } = await callRecording(tool);
  assert.deepEqual(result, {
    content: [{ type: "text", text: "the input is empty" }],
    isError: true,
  });
  assert.deepEqual(calls, [["progress", 1, 2, "Halfway"], ["log", "error", "Giving up"]]);
  assert.equal(diagnostics.text(), "[channel_fail] the input is empty\n");
});

Deno.test("executable tool channel: 100,000 progress lines finish, the last value arrives, nothing is forwarded", async () => {
  const { tool, diagnostics } = program("channel_flood.sh");
  let count = 0;
  let last: unknown[] = [];
  const channels: Channels = {
    progress: (...args) => {
      count++;
      last = args;
    },
    log: () => assert.fail("no log line was printed"),
    request: NO_CHANNELS.request,
    closeStream: NO_CHANNELS.closeStream,
  };
  const result = await withHangGuard(
    Promise.resolve(callTool(tool, {}, {
      controller: new AbortController(),
      defaultTimeoutMs: 20_000,
      diagnostics: recorder(),
      context: {
        requestId: 1,
        protocolVersion: "2026-07-28",
        clientInfo: undefined,
        clientCapabilities: {},
      },
      channels,
    })),
    "the flood",
  );
  assert.deepEqual(result, { content: [{ type: "text", text: "flood done" }] });
  assert.equal(count, 100_000);
  assert.deepEqual(last, [100_000, 100_000, "Row 100000"]);
  assert.deepEqual(diagnostics.entries, []);
});

Deno.test("executable tool channel: a toolshed: text that continues a line forwarded in pieces is no message", async () => {
  const { tool, diagnostics } = program("channel_long.sh");
  const { result, calls } = await callRecording(tool);
  assert.deepEqual(result, { content: [{ type: "text", text: "long done" }] });
  assert.deepEqual(calls, [["progress", 1, undefined, undefined]]);
  // In pieces or whole, depending on how the pipe was read: the same text either way.
  assert.equal(
    diagnostics.text().replace(/\n\[channel_long\] /g, ""),
    `[channel_long] ${"0".repeat(65_536)}toolshed:progress 9\n`,
  );
});
