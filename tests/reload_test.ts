// Hot reload (--watch, lib/discovery/reload.ts): an edit to the server directory is served without
// a restart, and a connected 2025-era client is told; a broken edit keeps what was served.
// The server runs in this process over stdio, on a scratch directory the test edits.
import { deepStrictEqual, match, ok, strictEqual } from "node:assert/strict";
import { startInProcess } from "./_in_process.ts";
import { events, spawnHttpServer, spawnServer, withHangGuard } from "./_server_process.ts";
import { withoutModuleVersions } from "../lib/discovery/import_module.ts";

const TOOL = (text: string) =>
  `export default { description: "Says ${text}", inputSchema: { type: "object" }, ` +
  `handler: () => "${text}" };\n`;

async function scratch(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_reload_" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.mkdir(`${dir}/resources`);
  await Deno.writeTextFile(`${dir}/tools/hello.ts`, TOOL("hello"));
  await Deno.writeTextFile(`${dir}/resources/notes.txt`, "first\n");
  return dir;
}

/** The next line the server writes, parsed; fails the test if none comes. */
async function next(server: Awaited<ReturnType<typeof startInProcess>>, what: string) {
  const line = await withHangGuard(server.nextLine(), what);
  ok(line !== null, `the server ended before ${what}`);
  return JSON.parse(line);
}

const send = (server: Awaited<ReturnType<typeof startInProcess>>, message: object) =>
  server.send(JSON.stringify({ jsonrpc: "2.0", ...message }));

Deno.test("--watch serves a new tool without a restart and tells a 2025-era client its list changed", async () => {
  const dir = await scratch();
  const server = await startInProcess(["--dir", dir, "--watch"]);
  try {
    send(server, {
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    const init = await next(server, "the initialize answer");
    deepStrictEqual(init.result.capabilities.tools, { listChanged: true });
    deepStrictEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true });
    send(server, {
      id: 1,
      method: "resources/subscribe",
      params: { uri: "toolshed:///notes.txt" },
    });
    deepStrictEqual((await next(server, "the subscribe answer")).result, {});

    await Deno.writeTextFile(`${dir}/tools/added.ts`, TOOL("added"));
    deepStrictEqual(await next(server, "the list_changed notice"), {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    send(server, { id: 2, method: "tools/call", params: { name: "added" } });
    deepStrictEqual((await next(server, "the new tool's answer")).result, {
      content: [{ type: "text", text: "added" }],
    });

    // An edited module is imported again; so is a resource file, and its subscriber is told.
    await new Promise((resolve) => setTimeout(resolve, 20)); // a later modification time
    await Deno.writeTextFile(`${dir}/tools/hello.ts`, TOOL("hello again"));
    await Deno.writeTextFile(`${dir}/resources/notes.txt`, "second, longer\n");
    // Its listing changed too (size, modification time): list_changed notices come with it.
    const notices = [];
    for (let i = 0; i < 5; i++) {
      const notice = await next(server, "the resources/updated notice");
      notices.push(notice);
      if (notice.method === "notifications/resources/updated") break;
    }
    deepStrictEqual(notices.at(-1), {
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "toolshed:///notes.txt" },
    });
    await server.reloaded();
    send(server, { id: 3, method: "tools/call", params: { name: "hello" } });
    let answer = await next(server, "the edited tool's answer");
    while (answer.id !== 3) answer = await next(server, "the edited tool's answer");
    deepStrictEqual(answer.result.content, [{ type: "text", text: "hello again" }]);
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--watch keeps the last good version of a tool file an edit broke, says what is wrong, and applies the other edits", async () => {
  const dir = await scratch();
  const server = await startInProcess(["--dir", dir, "--watch"]);
  try {
    await Deno.writeTextFile(`${dir}/tools/broken.ts`, "export default { handler: 1 };\n");
    await Deno.writeTextFile(`${dir}/tools/hello.ts`, "export default { handler: 2 };\n");
    await Deno.writeTextFile(`${dir}/tools/added.ts`, TOOL("added"));
    await Deno.writeTextFile(`${dir}/resources/added.txt`, "new\n");
    for (let i = 0; i < 200 && !server.diagnostics.text().includes("Reloaded, but"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    match(
      server.diagnostics.text(),
      /Reloaded, but tools\/ keeps the last good version of each bad file: 2 problem\(s\)\n {2}Cannot load tool ".*broken\.ts": .*\n {2}Cannot load tool ".*hello\.ts": /,
    );
    await server.reloaded();
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    send(server, { id: 1, method: "tools/list", params: { _meta: meta } });
    const names = (await next(server, "the tools")).result.tools.map(
      (tool: { name: string }) => tool.name,
    );
    deepStrictEqual(names, ["added", "hello"], "hello's last good version, and the new tool");
    send(server, { id: 2, method: "tools/call", params: { name: "hello", _meta: meta } });
    strictEqual((await next(server, "the old tool's answer")).result.content[0].text, "hello");
    send(server, { id: 3, method: "resources/list", params: { _meta: meta } });
    const uris = (await next(server, "the resources")).result.resources.map(
      (resource: { uri: string }) => resource.uri,
    );
    deepStrictEqual(uris, ["toolshed:///added.txt", "toolshed:///notes.txt"]);
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--watch keeps the last good version of a resource or prompt file an edit broke, and applies the other edits", async () => {
  const dir = await scratch();
  const status = (text: string) =>
    `export default { uri: "app://status", description: "Status", read: () => "${text}" };\n`;
  await Deno.writeTextFile(`${dir}/resources/status.ts`, status("all good"));
  await Deno.mkdir(`${dir}/prompts`);
  await Deno.writeTextFile(`${dir}/prompts/greet.md`, "---\ndescription: Greets\n---\nHello\n");
  const server = await startInProcess(["--dir", dir, "--watch"]);
  try {
    await Deno.writeTextFile(`${dir}/resources/status.ts`, "export default { uri: 1 };\n");
    await Deno.writeTextFile(`${dir}/resources/added.txt`, "new\n");
    await Deno.writeTextFile(`${dir}/prompts/greet.md`, "---\narguments: 5\n---\nHi\n");
    await Deno.writeTextFile(`${dir}/prompts/part.md`, "---\ndescription: Parts\n---\nBye\n");
    for (let i = 0; i < 200 && !server.diagnostics.text().includes("Reloaded, but"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    match(
      server.diagnostics.text(),
      /Reloaded, but resources\/ keeps the last good version of each bad file; prompts\/ keeps the last good version of each bad file: 3 problem\(s\)\n {2}Cannot load resource ".*status\.ts": read must be a function\n {2}Cannot load resource ".*status\.ts": uri must be a string\n {2}Cannot load prompt ".*greet\.md": /,
    );
    await server.reloaded();
    send(server, { id: 1, method: "resources/list", params: { _meta: META } });
    const uris = (await next(server, "the resources")).result.resources.map(
      (resource: { uri: string }) => resource.uri,
    );
    deepStrictEqual(uris, ["app://status", "toolshed:///added.txt", "toolshed:///notes.txt"]);
    send(server, { id: 2, method: "resources/read", params: { uri: "app://status", _meta: META } });
    strictEqual((await next(server, "the old resource")).result.contents[0].text, "all good");
    send(server, { id: 3, method: "prompts/list", params: { _meta: META } });
    const prompts = (await next(server, "the prompts")).result.prompts;
    deepStrictEqual(
      prompts.map((prompt: { name: string; description: string }) => prompt.description),
      ["Greets", "Parts"],
      "greet's last good version, and the new prompt",
    );
    send(server, { id: 4, method: "prompts/get", params: { name: "greet", _meta: META } });
    strictEqual((await next(server, "the old prompt")).result.messages[0].content.text, "Hello");

    // Fixing the file serves the fix (a later modification time: the module is imported anew).
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Deno.writeTextFile(`${dir}/resources/status.ts`, status("fixed"));
    let text = "";
    for (let id = 5; id < 205 && text !== "fixed"; id++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      send(server, { id, method: "resources/read", params: { uri: "app://status", _meta: META } });
      text = (await next(server, "the resource")).result.contents[0].text;
    }
    strictEqual(text, "fixed");
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

Deno.test("--watch over a real process follows tools/ and resources/ removed and made again, twice, and tells the client each time", async () => {
  const dir = await scratch();
  const server = spawnServer(["--dir", dir, "--watch"]);
  let id = 0;
  const notices: string[] = [];
  /** Sends `method` and reads on to its answer, noting the notices that come before it. */
  const ask = async (method: string, params: object = {}) => {
    const asked = ++id;
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: asked, method, params }));
    for (;;) {
      const line = await withHangGuard(server.nextLine(), `the answer to ${method}`);
      ok(line !== null, `the server ended before answering ${method}`);
      const message = JSON.parse(line);
      if (message.id === asked) return message.result;
      notices.push(message.method);
    }
  };
  const names = async () =>
    (await ask("tools/list")).tools.map((tool: { name: string }) => tool.name).sort();
  const uris = async () =>
    (await ask("resources/list")).resources.map((resource: { uri: string }) => resource.uri);
  /** Asks until `read` answers `expected` (a bounded loop: only a guard against a hang). */
  const until = async (read: () => Promise<string[]>, expected: string[]) => {
    let seen = await read();
    for (let i = 0; i < 400 && JSON.stringify(seen) !== JSON.stringify(expected); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      seen = await read();
    }
    deepStrictEqual(seen, expected);
  };
  try {
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }));
    ok((await withHangGuard(server.nextLine(), "the initialize answer"))?.includes('"result"'));
    await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await until(names, ["hello"]);

    // Removed, seen gone, then made again with another tool.
    await Deno.remove(`${dir}/tools`, { recursive: true });
    await until(names, []);
    await Deno.mkdir(`${dir}/tools`);
    await Deno.writeTextFile(`${dir}/tools/again.ts`, TOOL("again"));
    await until(names, ["again"]);
    // The folder made again is watched: a file added later loads too.
    await Deno.writeTextFile(`${dir}/tools/later.ts`, TOOL("later"));
    await until(names, ["again", "later"]);

    // A second time, removed and made again at once (within one debounce), with resources/ too.
    await Deno.remove(`${dir}/tools`, { recursive: true });
    await Deno.remove(`${dir}/resources`, { recursive: true });
    await Deno.mkdir(`${dir}/tools`);
    await Deno.mkdir(`${dir}/resources`);
    await Deno.writeTextFile(`${dir}/tools/third.ts`, TOOL("third"));
    await Deno.writeTextFile(`${dir}/resources/fresh.txt`, "fresh\n");
    await until(names, ["third"]);
    await until(uris, ["toolshed:///fresh.txt"]);
    await Deno.writeTextFile(`${dir}/tools/fourth.ts`, TOOL("fourth"));
    await Deno.writeTextFile(`${dir}/resources/more.txt`, "more\n");
    await until(names, ["fourth", "third"]);
    await until(uris, ["toolshed:///fresh.txt", "toolshed:///more.txt"]);
    const called = await ask("tools/call", { name: "fourth" });
    deepStrictEqual(called.content, [{ type: "text", text: "fourth" }]);
    // Each change the client saw listed was announced to it (list_changed, as for any edit).
    const told = notices.filter((method) => method === "notifications/tools/list_changed");
    ok(told.length >= 5, `tools/list_changed came ${told.length} time(s): ${notices.join(", ")}`);
    ok(notices.includes("notifications/resources/list_changed"), notices.join(", "));
  } finally {
    const { code, stderr } = await server.finish();
    strictEqual(code, 0, stderr);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("subscriptions/listen acknowledges the filter it honours, then carries its changes, tagged, until cancelled", async () => {
  const dir = await scratch();
  const server = await startInProcess(["--dir", dir, "--watch"]);
  try {
    send(server, {
      id: "listen-1",
      method: "subscriptions/listen",
      params: {
        _meta: META,
        notifications: {
          toolsListChanged: true,
          promptsListChanged: true, // no prompts folder: not honoured
          resourceSubscriptions: ["toolshed:///notes.txt"],
        },
      },
    });
    const tag = { "io.modelcontextprotocol/subscriptionId": "listen-1" };
    deepStrictEqual(await next(server, "the acknowledgement"), {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: tag,
        notifications: { toolsListChanged: true, resourceSubscriptions: ["toolshed:///notes.txt"] },
      },
    });
    await Deno.writeTextFile(`${dir}/tools/added.ts`, TOOL("added"));
    deepStrictEqual(await next(server, "the list_changed notice"), {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: tag },
    });
    await Deno.writeTextFile(`${dir}/resources/notes.txt`, "changed, and longer\n");
    deepStrictEqual(await next(server, "the resources/updated notice"), {
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { _meta: tag, uri: "toolshed:///notes.txt" },
    });
    // Cancelled: nothing more, not even an answer.
    send(server, {
      method: "notifications/cancelled",
      params: { requestId: "listen-1", reason: "done" },
    });
    send(server, { id: 2, method: "server/discover", params: { _meta: META } });
    const discover = await next(server, "the discover answer");
    strictEqual(discover.id, 2);
    deepStrictEqual(discover.result.capabilities.tools, { listChanged: true });
    deepStrictEqual(discover.result.capabilities.resources, { listChanged: true, subscribe: true });
  } finally {
    const { rest } = await server.end();
    deepStrictEqual(rest, [], "a cancelled listen gets no answer");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("subscriptions/listen is answered, with its subscription id, when the server closes it", async () => {
  const server = await startInProcess([]);
  send(server, {
    id: 7,
    method: "subscriptions/listen",
    params: { _meta: META, notifications: { toolsListChanged: true } },
  });
  const ack = await next(server, "the acknowledgement");
  // Without --watch nothing can change: no list filter is honoured.
  deepStrictEqual(ack.params.notifications, {});
  const { rest } = await server.end();
  const answer = JSON.parse(rest[0]);
  deepStrictEqual([answer.id, answer.result.resultType], [7, "complete"]);
  strictEqual(answer.result._meta["io.modelcontextprotocol/subscriptionId"], 7);
});

Deno.test("withoutModuleVersions() takes the loader's ?mtime= out of the file URLs in a stack, and nothing else", () => {
  const stack = [
    "Error: The boom tool always fails",
    "    at Object.handler (file:///srv/tools/boom.ts?mtime=1796045896770:5:11)",
    "    at callTool (file:///srv/lib/primitives/tool_call.ts:94:29)",
    "    at https://example.com/q.ts?mtime=now:1:2 (not a version)",
  ].join("\n");
  strictEqual(
    withoutModuleVersions(stack),
    stack.replace("boom.ts?mtime=1796045896770:5:11", "boom.ts:5:11"),
  );
  strictEqual(withoutModuleVersions("no stack"), "no stack");
});

Deno.test("--watch over a real process serves a folder that was not there at start", async () => {
  const dir = await scratch();
  const server = spawnServer(["--dir", dir, "--watch"]);
  try {
    // Loaded and serving (its start-up done) before the folder is made.
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "tools/list",
      params: { _meta: META },
    }));
    ok((await withHangGuard(server.nextLine(), "tools/list"))?.includes('"hello"'));
    await Deno.mkdir(`${dir}/prompts`);
    await Deno.writeTextFile(`${dir}/prompts/late.md`, "---\ndescription: Late\n---\nHi\n");
    let names: string[] = [];
    for (let id = 1; id < 400 && names.length === 0; id++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      await server.send(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "prompts/list",
        params: { _meta: META },
      }));
      const answer = JSON.parse((await withHangGuard(server.nextLine(), "prompts/list"))!);
      // Until the folder loads there are no prompts to list (an error answers, not a list).
      names = (answer.result?.prompts ?? []).map((prompt: { name: string }) => prompt.name);
    }
    deepStrictEqual(names, ["late"]);
  } finally {
    const { code, stderr } = await server.finish();
    strictEqual(code, 0, stderr);
    await Deno.remove(dir, { recursive: true });
  }
});

/** A copy of examples/skills (a skills/ folder) in a temporary directory, to edit. */
async function skillsScratch(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_reload_skills_" });
  const example = new URL("../examples/skills/skills", import.meta.url).pathname;
  const copied = await new Deno.Command("cp", { args: ["-r", example, dir] }).output();
  ok(copied.success, "cp failed");
  return dir;
}

/** POSTs `message` in the 2025-era session `session` (none for initialize); its JSON answer. */
async function postLegacy(
  url: string,
  session: string | undefined,
  message: object,
): Promise<{ session: string | null; body: Record<string, unknown> | undefined }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session === undefined ? {} : {
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
  const text = await response.text();
  // An event stream's first event may be empty (a priming one): its answer is the one with data.
  const data = text.split("\n").find((line) => line.startsWith("data: {"));
  const json = data !== undefined ? data.slice(6) : text;
  return {
    session: response.headers.get("mcp-session-id"),
    body: json === "" ? undefined : JSON.parse(json),
  };
}

Deno.test("--watch over a real HTTP process: an edit to a skill's supporting file is announced to a 2025-era session (resources/list_changed, and updated for a subscribed file)", async () => {
  const dir = await skillsScratch();
  const server = await spawnHttpServer(["--dir", dir, "--watch"]);
  const stream = new AbortController();
  try {
    const opened = await postLegacy(server.url, undefined, {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "reload-test", version: "1" },
      },
    });
    const session = opened.session;
    ok(session !== null, "no session");
    const capabilities = (opened.body?.result as { capabilities: Record<string, unknown> })
      .capabilities;
    deepStrictEqual(capabilities.resources, { subscribe: true, listChanged: true });
    await postLegacy(server.url, session, { method: "notifications/initialized" });
    const file = "skill://pdf-forms/references/FIELDS.md";
    const subscribed = await postLegacy(server.url, session, {
      id: 2,
      method: "resources/subscribe",
      params: { uri: file },
    });
    deepStrictEqual(subscribed.body?.result, {}, JSON.stringify(subscribed.body));
    const listed = async () => {
      const answer = await postLegacy(server.url, session, { id: 3, method: "skills/list" });
      return JSON.stringify((answer.body?.result as { skills: unknown[] }).skills);
    };
    const before = await listed();

    const get = await fetch(server.url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      },
      signal: stream.signal,
    });
    strictEqual(get.status, 200);
    const notices = events(get.body!);
    // The stream is open once its answer came: now the edit, to a file skills/list alone lists.
    await Deno.writeTextFile(
      `${dir}/skills/pdf-forms/references/FIELDS.md`,
      "# Fields\n\nEdited.\n",
    );
    const said: string[] = [];
    const wanted = [
      "notifications/resources/list_changed",
      `notifications/resources/updated ${file}`,
    ];
    while (!wanted.every((notice) => said.includes(notice))) {
      const next = await withHangGuard(notices.next(), `the notices (${said.join(", ")})`);
      ok(!next.done, `the stream ended after ${said.join(", ")}`);
      const notice = next.value as { method: string; params?: { uri?: string } };
      said.push(notice.params?.uri ? `${notice.method} ${notice.params.uri}` : notice.method);
    }
    ok(await listed() !== before, "skills/list did not change");
  } finally {
    stream.abort();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
