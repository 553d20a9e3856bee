// --log-format json: every line main.ts writes on stderr is one JSON object (time, level,
// message, and what is known of the request), start-up mistakes included; a tool module's
// console and a program's stderr become lines of their own; the text form is unchanged.
import assert, { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { createStderrLog } from "../lib/host/stderr_log.ts";
import { forwardedJsonLines, jsonLine, logLine } from "../lib/host/log_lines.ts";
import { readActiveSpanWith } from "../lib/util/active_span.ts";
import { spawnHttpServer, spawnServer, withHangGuard } from "./_server_process.ts";
import { initializeBody, modernHeaders } from "./_http_server.ts";
import { requestedLogFormat } from "../lib/host/cli.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

type Line = Record<string, unknown>;

/** Every line of `stderr`, each of which must be one JSON object with time, level, message. */
function jsonLines(stderr: string): Line[] {
  const lines = stderr.split("\n").filter((line) => line !== "");
  return lines.map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`A stderr line is not JSON: ${line}`);
    }
    assert(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), line);
    const record = parsed as Line;
    assert(!Number.isNaN(Date.parse(String(record.time))), `no time in ${line}`);
    assert(["error", "warn", "info"].includes(String(record.level)), `no level in ${line}`);
    strictEqual(typeof record.message, "string", line);
    return record;
  });
}

/** A server directory: a module tool that prints and throws, a program that writes stderr. */
async function directory(): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(
    `${dir}/tools/noisy.ts`,
    `export default {
  description: "prints, then fails",
  inputSchema: { type: "object" },
  handler: () => {
    console.log("printed by", { tool: "noisy" });
    console.warn("careful");
    throw new Error("noisy failed on purpose");
  },
};
`,
  );
  await Deno.writeTextFile(
    `${dir}/tools/talker.sh`,
    '#!/bin/sh\necho "one" >&2\necho "two" >&2\necho ok\n',
  );
  await Deno.chmod(`${dir}/tools/talker.sh`, 0o755);
  await Deno.writeTextFile(
    `${dir}/tools/talker.json`,
    JSON.stringify({ description: "writes stderr", inputSchema: { type: "object" } }),
  );
  return dir;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "log-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function call(id: number, name: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {}, _meta: META },
  });
}

Deno.test("--log-format json over stdio: every stderr line is a JSON object; console, a tool's failure and a program's stderr each name their tool", async () => {
  const dir = await directory();
  try {
    const server = spawnServer(["--dir", dir, "--log-format", "json"]);
    await server.send(call(1, "noisy"));
    const first = JSON.parse((await withHangGuard(server.nextLine(), "noisy"))!);
    strictEqual(first.result.isError, true);
    await server.send(call(2, "talker"));
    const second = JSON.parse((await withHangGuard(server.nextLine(), "talker"))!);
    deepStrictEqual(second.result.content, [{ type: "text", text: "ok" }]);
    const { code, stderr } = await server.finish();
    strictEqual(code, 0);
    const lines = jsonLines(stderr);
    const said = (message: string) => lines.find((line) => line.message === message);

    const start = lines.find((line) => String(line.message).startsWith("toolshed "));
    assert(start, stderr);
    strictEqual(start.level, "info");
    strictEqual(start.tools, 2);
    strictEqual(start.transport, "stdio");

    const printed = said('printed by { tool: "noisy" }');
    assert(printed, stderr);
    deepStrictEqual([printed.level, printed.source], ["info", "console"]);
    strictEqual(said("careful")?.level, "warn");

    const failed = said('Tool "noisy" failed');
    assert(failed, stderr);
    deepStrictEqual([failed.level, failed.tool], ["error", "noisy"]);
    match(String(failed.error), /noisy failed on purpose/);

    // One line each, the "[talker] " prefix of the text form taken off and the tool named.
    for (const text of ["one", "two"]) {
      const line = said(text);
      assert(line, `"${text}" is not a line of its own:\n${stderr}`);
      strictEqual(line.tool, "talker");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--log-format json: mistakes before anything is served are JSON lines too (an unknown option, a broken directory)", async () => {
  const run = async (args: string[]) => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, ...args],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    return { code, lines: jsonLines(new TextDecoder().decode(stderr)) };
  };
  const unknown = await run(["--log-format", "json", "--no-such-flag"]);
  strictEqual(unknown.code, 2);
  strictEqual(unknown.lines.length, 1);
  strictEqual(unknown.lines[0].level, "error");
  match(String(unknown.lines[0].message), /Unknown option "--no-such-flag"/);

  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.writeTextFile(`${dir}/tools/broken.ts`, "export default { description: 1 };\n");
    // The format given after the mistake still applies: it is read before anything is said.
    const broken = await run(["--dir", dir, "--log-format=json"]);
    strictEqual(broken.code, 1);
    const problem = broken.lines.find((line) => line.level === "error");
    assert(problem, JSON.stringify(broken.lines));
    match(String(problem.message), /Cannot start: 1 problem\(s\)[^]*broken\.ts/);
    strictEqual(problem.problems, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--log-format with a value that is no format is a usage error said for people", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--log-format", "xml"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  strictEqual(code, 2);
  match(new TextDecoder().decode(stderr), /^toolshed: Invalid value for --log-format: "xml"/);
  strictEqual(requestedLogFormat(["--log-format", "xml"]), undefined);
  strictEqual(requestedLogFormat(["--log-format", "json", "--log-format=text"]), "text");
  strictEqual(requestedLogFormat(["--", "--log-format", "json"]), "text");
});

Deno.test("--log-format json with --log-requests over HTTP: the request's line carries its status, method, tool and duration as keys", async () => {
  const dir = await directory();
  const server = await spawnHttpServer(["--dir", dir, "--log-format", "json", "--log-requests"]);
  try {
    const response = await fetch(server.url, {
      method: "POST",
      headers: modernHeaders("tools/call", "talker"),
      body: call(7, "talker"),
    });
    strictEqual(response.status, 200);
    await response.body?.cancel();
    let request: Line | undefined;
    for (let tries = 0; tries < 200 && request === undefined; tries++) {
      request = jsonLines(server.stderr().join("\n")).find((line) => line.http_method === "POST");
      if (request === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert(request, server.stderr().join("\n"));
    strictEqual(request.level, "info");
    strictEqual(request.status, 200);
    strictEqual(request.method, "tools/call");
    strictEqual(request.tool, "talker");
    strictEqual(request.path, "/mcp");
    strictEqual(typeof request.duration_ms, "number");
  } finally {
    const { stderr } = await server.stop();
    jsonLines(stderr.join("\n")); // the shutdown lines too
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jsonLine(): the fields a record carries, never over time, level, message or error; the active span's ids when telemetry gives them", () => {
  const at = Date.parse("2026-12-02T10:00:00.007Z");
  const line = JSON.parse(jsonLine({
    level: "warn",
    message: "m",
    fields: { tool: "t", level: "forged", time: "forged", gone: undefined, n: 3 },
  }, at));
  deepStrictEqual(line, {
    time: "2026-12-02T10:00:00.007Z",
    level: "warn",
    message: "m",
    tool: "t",
    n: 3,
  });

  readActiveSpanWith(() => ({ traceId: "a".repeat(32), spanId: "b".repeat(16) }));
  try {
    const traced = JSON.parse(jsonLine({ level: "info", message: "x" }, at));
    deepStrictEqual([traced.trace_id, traced.span_id], ["a".repeat(32), "b".repeat(16)]);
  } finally {
    readActiveSpanWith(() => undefined);
  }
  const failed = JSON.parse(
    jsonLine({ level: "error", message: "x", error: new Error("why"), stack: false }, at),
  );
  strictEqual(failed.error, "Error: why");
  // The text form is the one people always had.
  strictEqual(logLine("text", { level: "info", message: "hello" }), "toolshed: hello\n");
});

Deno.test("jsonLine(): its time is toISOString(), within a second and across seconds, days and years", () => {
  const timeOf = (at: number) => JSON.parse(jsonLine({ level: "info", message: "x" }, at)).time;
  for (
    const at of [0, 999, 1_000, 1_764_669_599_999, 1_764_669_600_000, 1_798_761_599_998, Date.now()]
  ) {
    strictEqual(timeOf(at), new Date(at).toISOString());
    strictEqual(timeOf(at + 1), new Date(at + 1).toISOString());
  }
});

Deno.test("forwardedJsonLines(): one JSON line per line of a program's stderr, its prefix taken off", () => {
  const lines = forwardedJsonLines('[t] a\n[t] b "q"\n', 'stderr from tool "t"', "t")
    .trimEnd().split("\n").map((line) => JSON.parse(line));
  deepStrictEqual(lines.map((line) => [line.message, line.tool]), [["a", "t"], ['b "q"', "t"]]);
});

Deno.test("createStderrLog() says what it dropped in the log's own format", async () => {
  const written: string[] = [];
  let open = () => {};
  const gate = new Promise<void>((resolve) => open = resolve);
  const log = createStderrLog(
    {
      async write(bytes) {
        await gate;
        written.push(new TextDecoder().decode(bytes));
        return bytes.length;
      },
    },
    10,
    1_000,
    (message) => jsonLine({ level: "warn", message }, Date.now()),
  );
  log.write("first\n");
  log.write("12345\n");
  log.write("too much\n");
  open();
  await log.flush(10_000);
  const notice = JSON.parse(written.join("").split("\n").filter((line) => line !== "").at(-1)!);
  strictEqual(notice.level, "warn");
  match(notice.message, /^1 line\(s\) of diagnostics dropped/);
});

/** A JSON-RPC request whose method is `method`, in a 2025-era body (no `_meta`). */
function legacyRequest(id: number, method: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: {} });
}

const LEGACY_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The forged line of issue 34, after a newline a client put in its method. */
const FORGED = 'toolshed: POST /mcp 200 "tools/call" by "admin" 0.1 ms';

/**
 * Sends, to a real server's endpoint: a forged method and a 1 MB one, each without a session
 * (400), in a session no one has (404) and in a real session (answered), then a tools/call of a
 * tool whose name is 1 MB; gives the statuses.
 */
async function forgedMethods(url: string): Promise<number[]> {
  const forged = `tools/call by "admin" 0.1 ms\n${FORGED}\r\n\u001b[2K`;
  const long = "m".repeat(1_000_000);
  const opened = await fetch(url, {
    method: "POST",
    headers: LEGACY_HEADERS,
    body: initializeBody(),
  });
  await opened.body?.cancel();
  const session = opened.headers.get("mcp-session-id");
  assert(session !== null, "no session was opened");
  const statuses: number[] = [];
  for (const method of [forged, long]) {
    const sessions: Record<string, string>[] = [{}, { "mcp-session-id": "nobody" }, {
      "mcp-session-id": session,
    }];
    for (const headers of sessions) {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...LEGACY_HEADERS, "mcp-protocol-version": "2025-11-25", ...headers },
        body: legacyRequest(2, method),
      });
      await response.body?.cancel();
      statuses.push(response.status);
    }
  }
  // A tool's name is the client's too: the JSON form's `tool` key.
  const named = await fetch(url, {
    method: "POST",
    headers: { ...LEGACY_HEADERS, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: `t\n${"t".repeat(1_000_000)}`, arguments: {} },
    }),
  });
  await named.body?.cancel();
  statuses.push(named.status);
  return statuses;
}

/** Waits (a bounded number of times) until `lines()` holds `count` lines that `pick` picks. */
async function loggedLines(
  lines: () => string[],
  pick: (line: string) => boolean,
  count: number,
): Promise<string[]> {
  let picked = lines().filter(pick);
  for (let tries = 0; tries < 200 && picked.length < count; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    picked = lines().filter(pick);
  }
  return picked;
}

Deno.test("--log-requests over a real process: a forged method and a 1 MB one, refused with 400 and 404 or answered, are quoted and cut, never a line of their own", async () => {
  const dir = await directory();
  const server = await spawnHttpServer(["--dir", dir, "--log-requests"]);
  try {
    const statuses = await forgedMethods(server.url);
    deepStrictEqual(statuses.slice(0, 2), [400, 404]);
    deepStrictEqual(statuses.slice(3, 5), [400, 404]);
    const requests = await loggedLines(server.stderr, (line) => line.includes(" /mcp "), 8);
    strictEqual(requests.length, 8, requests.join("\n")); // initialize, the six, the tool
    for (const line of server.stderr()) {
      assert(line.length <= 400, `a line of ${line.length} characters: ${line.slice(0, 200)}`);
      assert(!line.startsWith(FORGED), `a forged line: ${line}`);
      const control = [...line].some((char) => char < " " || char === "\u007f");
      assert(!control, `a control character in: ${line}`);
    }
    // Each client value is one plain word or one JSON string (lib/util/client_text.ts).
    const value = String.raw`(?:[A-Za-z/][!#-\[\]-~]*|"(?:[^"\\]|\\.)*")`;
    for (const line of requests) {
      match(line, new RegExp(`^toolshed: POST /mcp \\d{3} ${value} \\d+\\.\\d ms$`));
    }
    match(requests[0], /^toolshed: POST \/mcp 200 "initialize" \d+\.\d ms$/);
    const forgedLine = requests.find((line) => line.includes("404") && line.includes("admin"));
    assert(forgedLine, requests.join("\n"));
    match(forgedLine, /^toolshed: POST \/mcp 404 "tools\/call by \\"admin\\" 0\.1 ms\\ntoolshed: /);
    const longLine = requests.find((line) => line.includes("404") && line.includes("mmmm"));
    assert(longLine, requests.join("\n"));
    match(longLine, /^toolshed: POST \/mcp 404 "m{128}… \(1000000 characters\)" \d+\.\d ms$/);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--log-requests --log-format json over a real process: a forged or 1 MB method is a bounded key, and the message quotes it", async () => {
  const dir = await directory();
  const server = await spawnHttpServer(["--dir", dir, "--log-format", "json", "--log-requests"]);
  try {
    await forgedMethods(server.url);
    const requests = await loggedLines(server.stderr, (line) => line.includes('"path":"/mcp"'), 8);
    strictEqual(requests.length, 8, requests.join("\n"));
    for (const line of server.stderr()) {
      assert(line.length <= 1_000, `a line of ${line.length} characters: ${line.slice(0, 200)}`);
    }
    const records = jsonLines(requests.join("\n"));
    const methods = records.map((record) => String(record.method));
    ok(methods.includes(`m`.repeat(128) + "… (1000000 characters)"), methods.join("\n"));
    const tools = records.map((record) => record.tool).filter((tool) => tool !== undefined);
    deepStrictEqual(tools, [`t\n${"t".repeat(126)}… (1000002 characters)`]);
    const forged = records.find((record) => String(record.method).includes("admin"));
    assert(forged, methods.join("\n"));
    match(
      String(forged.message),
      /^POST \/mcp \d{3} "tools\/call by \\"admin\\" 0\.1 ms\\ntoolshed: /,
    );
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
