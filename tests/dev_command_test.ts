// toolshed dev as a real process (deno run -A main.ts dev --dir <a copy of examples/hello>
// --port 0): the page and the routes beside the MCP endpoint, the official SDK client's one
// 2025-era session living through edits, the events a save sends (reloaded, checked with a type
// error's finding, a bad edit refused while the last good version answers), loopback only, and
// SIGTERM ending it with 0.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { helloCopy, spawnDev, subscribeDev } from "./_dev_server.ts";
import { withHangGuard } from "./_server_process.ts";
import { modernBody, modernHeaders, rawRequest } from "./_http_server.ts";

const MAIN = decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);
const CLIENT_INFO = { name: "toolshed-dev-test", version: "1.0.0" };

const SHOUT = `export default {
  description: "Shouts",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true },
  handler: ({ text }: { text: string }) => text.toUpperCase(),
};
`;

/** tools/add.ts subtracting, with a return type its handler breaks (TS2322 on line 6). */
const ADD_MISTYPED = `export default {
  description: "Adds two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  annotations: { readOnlyHint: true },
  handler: ({ a, b }: { a: number; b: number }): number =>
    String(a - b),
};
`;

/** Polls `condition` every 50 ms, at most 200 times; fails with `what()` after. */
async function eventually(condition: () => boolean, what: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`Never: ${what()}`);
}

function textOf(result: unknown): string | undefined {
  return (result as { content?: { text?: string }[] }).content?.[0]?.text;
}

/** tools/call over the endpoint as a 2026-07-28 client sends it: the result's text. */
async function callStateless(origin: string, name: string, args: Record<string, unknown>) {
  const response = await fetch(`${origin}/mcp`, {
    method: "POST",
    headers: modernHeaders("tools/call", name),
    body: modernBody(1, "tools/call", { name, arguments: args }),
  });
  const message = await response.json();
  return textOf(message.result);
}

Deno.test("toolshed dev serves the page at /, its state, what toolshed --http serves and 404 elsewhere", async () => {
  const dir = await helloCopy();
  const dev = await spawnDev(dir, ["--no-types"]);
  try {
    const page = await fetch(`${dev.origin}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /^<!doctype html>[\s\S]*<title>toolshed dev<\/title>/);

    const state = await fetch(`${dev.origin}/dev/state`);
    assert.equal(state.headers.get("content-type"), "application/json");
    const body = await state.json();
    assert.equal(body.dir, dir);
    assert.equal(body.endpoint, "/mcp");
    assert.match(body.version, /^\d+\.\d+\.\d+/);

    // Beside the endpoint, what toolshed --http serves: the server card, the probes.
    for (const path of ["/mcp/server-card", "/healthz", "/readyz"]) {
      const served = await fetch(`${dev.origin}${path}`);
      assert.equal(served.status, 200, path);
      await served.body?.cancel();
    }
    const missing = await fetch(`${dev.origin}/nothing-here`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const posted = await fetch(`${dev.origin}/`, { method: "POST", body: "{}" });
    assert.equal(posted.status, 405);
    await posted.body?.cancel();
    // A page of another name (a DNS rebinding) is refused, as the MCP endpoint refuses it.
    const port = Number(new URL(dev.origin).port);
    for (const path of ["/", "/dev/state", "/dev/events"]) {
      const rebound = await rawRequest(port, "GET", path, { host: `attacker.example:${port}` });
      assert.equal(rebound.status, 403, path);
    }
    const named = await rawRequest(port, "GET", "/dev/state", { host: `localhost:${port}` });
    assert.equal(named.status, 200);
  } finally {
    // Ctrl+C ends it as SIGTERM does.
    const { code, stderr } = await dev.stop("SIGINT");
    assert.equal(code, 0);
    assert.ok(stderr.includes("toolshed dev: stopping (SIGINT)"), stderr.join("\n"));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed dev reloads a new tool into the SDK client's same session, which is told list_changed", async () => {
  const dir = await helloCopy();
  const dev = await spawnDev(dir, ["--no-types"]);
  const client = new Client(CLIENT_INFO);
  let changes = 0;
  let wake = () => {};
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
    wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.origin}/mcp`));
  try {
    await client.connect(transport);
    const session = transport.sessionId;
    assert.ok(session !== undefined, "a 2025-era session was opened");
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    assert.deepEqual((await client.listTools()).tools.map((tool: { name: string }) => tool.name), [
      "add",
    ]);

    await Deno.writeTextFile(`${dir}/tools/shout.ts`, SHOUT);
    await withHangGuard(
      new Promise<void>((resolve) => {
        const check = () => changes > 0 ? resolve() : wake = check;
        check();
      }),
      "notifications/tools/list_changed",
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name).sort(), ["add", "shout"]);
    assert.equal(textOf(await client.callTool({ name: "shout", arguments: { text: "hi" } })), "HI");
    // The same session, on the same process: nothing restarted.
    assert.equal(transport.sessionId, session);
    assert.ok(dev.alive());
  } finally {
    await client.close();
    const { code, stderr } = await dev.stop();
    assert.equal(code, 0, stderr.join("\n"));
    assert.ok(stderr.includes("toolshed dev: stopping (SIGTERM)"), stderr.join("\n"));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed dev sends checked with a type error's finding after a save, and refuses a bad edit while the last good version answers", async () => {
  const dir = await helloCopy();
  const dev = await spawnDev(dir);
  const stream = await subscribeDev(dev.origin);
  try {
    assert.equal(stream.response.headers.get("content-type"), "text/event-stream");
    const first = await stream.next((event) => event.event === "checked", "the first check");
    assert.equal(first.data.errors, 0, JSON.stringify(first.data));
    assert.equal(await callStateless(dev.origin, "add", { a: 5, b: 3 }), "8");

    await Deno.writeTextFile(`${dir}/tools/add.ts`, ADD_MISTYPED);
    const served = await stream.next((event) => event.event === "reloaded", "the reload");
    assert.equal(served.data.ok, true, JSON.stringify(served.data));
    const checked = await stream.next(
      (event) => event.event === "checked" && (event.data.errors as number) > 0,
      "a check finding the type error",
    );
    const findings = checked.data.findings as Record<string, unknown>[];
    const typeError = findings.find((found) => found.source === "types");
    assert.ok(typeError !== undefined, JSON.stringify(findings));
    assert.equal(typeError.file, `${dir}/tools/add.ts`);
    assert.equal(typeError.line, 6);
    assert.match(typeError.message as string, /TS2322/);
    // What loaded is served, type error and all: it subtracts now.
    assert.equal(await callStateless(dev.origin, "add", { a: 5, b: 3 }), "2");
    // stderr has check's report, once the pipe has carried it (the page's event may come first).
    await eventually(
      () => dev.stderr().some((line) => line.includes("error: line 6:") && line.includes("TS2322")),
      () => `check's report on stderr:\n${dev.stderr().join("\n")}`,
    );

    await Deno.writeTextFile(`${dir}/tools/add.ts`, "export default {{{\n");
    const refused = await stream.next((event) => event.event === "reloaded", "the refusal");
    assert.equal(refused.data.ok, false);
    const problems = refused.data.problems as string[];
    assert.ok(problems.length > 0 && problems.join("\n").includes("tools/add.ts"), problems.join());
    assert.equal(await callStateless(dev.origin, "add", { a: 5, b: 3 }), "2");

    // A page that subscribes now is sent the last check at once.
    const later = await subscribeDev(dev.origin);
    const replayed = await later.next((event) => event.event === "checked", "the last check");
    later.close();
    assert.ok((replayed.data.errors as number) > 0);
    const state = await (await fetch(`${dev.origin}/dev/state`)).json();
    assert.deepEqual(state.checked, replayed.data);
    assert.ok(dev.alive());
  } finally {
    stream.close();
    const { code } = await dev.stop();
    assert.equal(code, 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed dev refuses to listen anywhere but 127.0.0.1", async () => {
  const run = async (args: string[]) => {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "dev", ...args],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    return { code, stderr: new TextDecoder().decode(stderr) };
  };
  for (const args of [["--host", "0.0.0.0"], ["--http", "0.0.0.0:0"], ["--host", "::"]]) {
    const { code, stderr } = await run(args);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /toolshed dev listens on 127\.0\.0\.1 only/);
  }
  const badPort = await run(["--port", "65536"]);
  assert.equal(badPort.code, 2);
  assert.match(badPort.stderr, /Invalid value for --port: "65536" is not a port/);

  // A port taken is said, with the way out.
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const busy = await run(["--no-types", "--port", String(taken.addr.port)]);
    assert.equal(busy.code, 1, busy.stderr);
    assert.match(
      busy.stderr,
      new RegExp(
        `Cannot listen on "127\\.0\\.0\\.1" port ${taken.addr.port}: .*\\(--port 0 picks a free port\\)`,
      ),
    );
  } finally {
    taken.close();
  }

  // Listening, it is not reachable at this machine's other addresses.
  const dir = await helloCopy();
  const dev = await spawnDev(dir, ["--no-types"]);
  try {
    const port = Number(new URL(dev.origin).port);
    const others = Deno.networkInterfaces().filter((face) =>
      face.family === "IPv4" && !face.address.startsWith("127.")
    );
    for (const { address } of others) {
      await assert.rejects(
        Deno.connect({ hostname: address, port }),
        Deno.errors.ConnectionRefused,
        `port ${port} answered on ${address}`,
      );
    }
  } finally {
    await dev.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed dev --inspector says so when npx is missing, and serves on", async () => {
  const dir = await helloCopy();
  // No PATH: no npx to find (main.ts is started by deno's absolute path).
  const dev = await spawnDev(dir, ["--no-types", "--inspector"], { PATH: "" });
  try {
    await withHangGuard(
      (async () => {
        while (!dev.stderr().some((line) => line.includes("Cannot start the MCP Inspector"))) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
      "the missing npx said",
    );
    assert.ok(
      dev.stderr().includes(
        'toolshed dev: Cannot start the MCP Inspector: "npx" was not found (install Node.js ' +
          "22.19 or later, which brings npx, or set TOOLSHED_INSPECTOR to a command that runs " +
          "the Inspector)",
      ),
      dev.stderr().join("\n"),
    );
    assert.equal(await callStateless(dev.origin, "add", { a: 1, b: 2 }), "3");
  } finally {
    const { code } = await dev.stop();
    assert.equal(code, 0);
    await Deno.remove(dir, { recursive: true });
  }
});
