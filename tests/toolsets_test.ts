// Toolsets and read-only mode (adr/0045, lib/primitives/toolsets.ts): `tools/<set>/` folders are
// toolsets, tool names are their file names, and a connection sees the sets its server, its
// path (`/mcp/<set>`) or its header (`Mcp-Toolsets`) chose, listing and calling alike, paged.
// In process, through `request()` and `fetch()` of the server main.ts builds, and over stdio.
import { deepStrictEqual, match, ok, rejects, strictEqual } from "node:assert/strict";
import { createServer, type Server, type ServerConfig } from "../lib/server/create_server.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { parseCommand } from "../lib/host/cli.ts";
import { startInProcess } from "./_in_process.ts";
import { catalogOf } from "../lib/primitives/registry.ts";
import { ENDPOINT_ROUTES, toolView } from "../lib/primitives/toolsets.ts";
import { createMcpHttp } from "../lib/transports/http/handler.ts";
import { resolveSettings } from "../lib/settings/rules.ts";
import { command as checkCommand } from "../lib/commands/check.ts";
import { createSession, UNINITIALIZED } from "../lib/methods/session.ts";
import { spawnServer, withHangGuard } from "./_server_process.ts";
import { modernHeaders } from "./_http_server.ts";

const EXAMPLE = new URL("../examples/toolsets/", import.meta.url);
const QUIET = { error() {}, forward: () => undefined };
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const ALL = ["close_issue", "create_repo", "list_issues", "list_repos", "whoami"];

const TOOL = (text: string, readOnly = true) =>
  `export default { description: "Says ${text}", inputSchema: { type: "object" }, ` +
  `annotations: { readOnlyHint: ${readOnly} }, handler: () => "${text}" };\n`;

async function exampleServer(config: ServerConfig = {}): Promise<Server> {
  return await createServer({ dir: EXAMPLE, diagnostics: QUIET, ...config });
}

/** Every tool name `tools/list` gives, page after page. */
async function listed(server: Server): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const { result } = await server.request("tools/list", cursor ? { cursor } : {});
    const { tools, nextCursor } = result as { tools: { name: string }[]; nextCursor?: string };
    names.push(...tools.map((tool) => tool.name));
    if (nextCursor === undefined) return names;
    cursor = nextCursor;
  }
  throw new Error("tools/list did not end");
}

async function scratch(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_toolsets_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

Deno.test("loadTools() loads each folder of tools/ as a toolset, names its tools by file, and leaves _ folders alone", async () => {
  const { tools } = await loadTools(new URL("tools/", EXAMPLE), { diagnostics: QUIET });
  deepStrictEqual(
    tools.map((tool) => [tool.name, tool.toolset, tool.file.replace(/^.*examples\//, "")]),
    [
      ["close_issue", "issues", "toolsets/tools/issues/close_issue.ts"],
      ["create_repo", "repos", "toolsets/tools/repos/create_repo.ts"],
      ["list_issues", "issues", "toolsets/tools/issues/list_issues.ts"],
      ["list_repos", "repos", "toolsets/tools/repos/list_repos.ts"],
      ["whoami", undefined, "toolsets/tools/whoami.ts"],
    ],
  );
});

Deno.test("loadTools() refuses one name in two toolsets, naming both files, and a folder named unlike a toolset", async () => {
  const dir = await scratch({ "tools/a/same.ts": TOOL("a"), "tools/b/same.ts": TOOL("b") });
  const folder = await scratch({ "tools/has space/x.ts": TOOL("x") });
  try {
    const error = await loadTools(`${dir}/tools`, { diagnostics: QUIET }).catch((e) => e);
    ok(error instanceof DirectoryLoadError, String(error));
    deepStrictEqual(error.problems, [
      `Cannot load tool "${dir}/tools/b/same.ts": the name "same" is already used by ` +
      `"${dir}/tools/a/same.ts"`,
    ]);
    const bad = await loadTools(`${folder}/tools`, { diagnostics: QUIET }).catch((e) => e);
    ok(bad instanceof DirectoryLoadError, String(bad));
    match(bad.problems[0], /^Cannot load the toolset ".*\/tools\/has space": a toolset's name/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(folder, { recursive: true });
  }
});

/** What loading refuses a toolset folder named `name` (a route's) with, as it names `tools`. */
const routeRefusal = (tools: string, name: string) =>
  `Cannot load the toolset "${tools}/${name}": its path over HTTP, "/mcp/${name}", is where ` +
  `${ENDPOINT_ROUTES.get(name)} is served, so no client could reach the set (rename the folder)`;

Deno.test("loadTools() refuses a toolset named as a route under the endpoint (tools/server-card/), naming the folder", async () => {
  const dir = await scratch({ "tools/server-card/x.ts": TOOL("x"), "tools/ok/y.ts": TOOL("y") });
  try {
    const error = await loadTools(`${dir}/tools`, { diagnostics: QUIET }).catch((e) => e);
    ok(error instanceof DirectoryLoadError, String(error));
    deepStrictEqual(error.problems, [routeRefusal(`${dir}/tools`, "server-card")]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createMcpHttp(): the routes under the endpoint are exactly the names no toolset may take", async () => {
  // Every option that adds a route is on, so that a route added under the endpoint without its
  // name in ENDPOINT_ROUTES (a toolset could take it, and never be reached) fails here.
  const { core, registry } = await createServer({ primitives: {}, diagnostics: QUIET });
  for (const path of ["/mcp", "/api/v1/mcp"]) {
    const { routes } = createMcpHttp({
      ...resolveSettings({ maxMessageBytes: 1024 }),
      core,
      registry,
      diagnostics: QUIET,
      maxConcurrency: 1,
      path,
      bearerToken: undefined,
      oauth: { issuer: "https://issuer.example", publicUrl: "https://mcp.example/mcp" },
      meta: { name: "io.example/x", description: "x", version: "1.0.0", env: {} },
      corsOrigins: ["*"],
      toolsets: { base: undefined, code: { destructive: false } },
    });
    const under = [...routes.keys()].filter((at) => at.startsWith(`${path}/`))
      .map((at) => at.slice(path.length + 1)).sort();
    deepStrictEqual(under, [...ENDPOINT_ROUTES.keys()].sort(), path);
    ok(under.length > 0, "the server card is a route under the endpoint");
  }
});

Deno.test("main.ts refuses to start over HTTP on a toolset named as a route, naming the folder", async () => {
  const dir = await scratch({ "tools/server-card/x.ts": TOOL("x") });
  try {
    const server = spawnServer(["--http", "127.0.0.1:0", "--dir", dir]);
    const { code, stderr } = await withHangGuard(server.finish(), "main.ts refusing to start");
    strictEqual(code, 1, stderr);
    ok(stderr.includes(routeRefusal(`${dir}/tools`, "server-card")), stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolshed check reports a toolset named as a route as a problem that stops start-up", async () => {
  const dir = await scratch({ "tools/server-card/x.ts": TOOL("x") });
  try {
    const out: string[] = [];
    const code = await checkCommand.run(["--dir", dir, "--no-types"], {
      out: (text) => out.push(text),
      err: (text) => out.push(text),
      env: (name) => Deno.env.get(name),
      cwd: Deno.cwd(),
    });
    strictEqual(code, 1, out.join(""));
    ok(out.join("").includes(routeRefusal(`${dir}/tools`, "server-card")), out.join(""));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--watch: a toolset named as a route that appears later is refused, naming it, and the rest stays served", async () => {
  const dir = await scratch({ "tools/hello.ts": TOOL("hello") });
  const server = await startInProcess(["--dir", dir, "--watch"]);
  const refusal = routeRefusal(`${dir}/tools`, "server-card");
  try {
    await Deno.mkdir(`${dir}/tools/server-card`);
    await Deno.writeTextFile(`${dir}/tools/server-card/x.ts`, TOOL("x"));
    // The watcher sees the change at its own pace: a bounded wait for the reload it starts.
    for (let tries = 0; tries < 100 && !server.diagnostics.text().includes(refusal); tries++) {
      await server.reloaded();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    match(server.diagnostics.text(), /Not reloading|Reloaded, but/);
    ok(server.diagnostics.text().includes(refusal), server.diagnostics.text());
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: META },
    }));
    const line = await withHangGuard(server.nextLine(), "the list");
    deepStrictEqual(JSON.parse(line!).result.tools.map((tool: { name: string }) => tool.name), [
      "hello",
    ]);
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createServer() serves every toolset by default, and with toolsets only those and the top-level tools", async () => {
  const all = await exampleServer();
  const issues = await exampleServer({ toolsets: ["issues"] });
  try {
    deepStrictEqual(await listed(all), ALL);
    deepStrictEqual(await listed(issues), ["close_issue", "list_issues", "whoami"]);
    // Calling agrees with listing: a tool outside the set is unknown, as if absent.
    const call = await issues.request("tools/call", { name: "list_repos", arguments: {} });
    deepStrictEqual(
      [(call.error as { code: number }).code, (call.error as { message: string }).message],
      [
        -32602,
        'Unknown tool: "list_repos" (this server has "close_issue", "list_issues", "whoami")',
      ],
    );
    const served = await issues.request("tools/call", { name: "list_issues", arguments: {} });
    deepStrictEqual((served.result as { content: unknown }).content, [
      { type: "text", text: "#1 Crash on empty input\n#2 Docs typo" },
    ]);
  } finally {
    await all.close();
    await issues.close();
  }
});

Deno.test("createServer() with readOnly serves only tools marked readOnlyHint, paged as a list of its own", async () => {
  const server = await exampleServer({ readOnly: true, pageSize: 1 });
  try {
    deepStrictEqual(await listed(server), ["list_issues", "list_repos", "whoami"]);
    const call = await server.request("tools/call", { name: "create_repo", arguments: {} });
    match((call.error as { message: string }).message, /^Unknown tool: "create_repo"/);
  } finally {
    await server.close();
  }
});

Deno.test("createServer() refuses a toolset the directory does not hold, naming those it does", async () => {
  await rejects(
    exampleServer({ toolsets: ["issues", "wiki"] }),
    {
      name: "UnknownToolsetError",
      message:
        'Cannot serve the toolsets asked for: No toolset "wiki": this server has "issues", "repos"',
    },
  );
});

Deno.test("--toolsets and --read-only parse into the configuration; a name unlike a toolset's is a usage error", () => {
  const command = parseCommand(["--toolsets", "issues, repos", "--read-only"]);
  strictEqual(command.kind, "serve");
  if (command.kind !== "serve") return;
  deepStrictEqual([command.options.toolsets, command.options.readOnly], [
    ["issues", "repos"],
    true,
  ]);
  deepStrictEqual(parseCommand(["--toolsets", "a/b"]), {
    kind: "usage-error",
    message: 'Invalid value for --toolsets: "a/b" is not a toolset\'s name (folders of tools/, ' +
      "comma-separated: --toolsets issues,repos)",
  });
});

/** POSTs a 2026-07-28 tools/list to `path` of `server.fetch`, with `headers` besides. */
async function listOver(
  server: Server,
  path: string,
  headers: Record<string, string> = {},
): Promise<[number, string[] | string]> {
  const response = await server.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { ...modernHeaders("tools/list"), ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: META },
      }),
    }),
  );
  if (response.status !== 200) return [response.status, await response.text()];
  const { result } = await response.json();
  return [200, result.tools.map((tool: { name: string }) => tool.name)];
}

Deno.test("fetch() serves /mcp/<set>, /mcp/<a>+<b> and Mcp-Toolsets; an unknown set is a 404 naming those there are", async () => {
  const server = await exampleServer({ http: true });
  try {
    deepStrictEqual(await listOver(server, "/mcp"), [200, ALL]);
    deepStrictEqual(await listOver(server, "/mcp/repos"), [200, [
      "create_repo",
      "list_repos",
      "whoami",
    ]]);
    deepStrictEqual(await listOver(server, "/mcp/issues+repos"), [200, ALL]);
    deepStrictEqual(await listOver(server, "/mcp", { "mcp-toolsets": "issues" }), [
      200,
      ["close_issue", "list_issues", "whoami"],
    ]);
    // With both, the header picks among the path's sets.
    deepStrictEqual(await listOver(server, "/mcp/issues+repos", { "mcp-toolsets": "repos" }), [
      200,
      ["create_repo", "list_repos", "whoami"],
    ]);
    deepStrictEqual(await listOver(server, "/mcp/issues", { "mcp-toolsets": "repos" }), [
      404,
      'Not found: Toolset "repos" of mcp-toolsets is not among those the path names\n',
    ]);
    deepStrictEqual(await listOver(server, "/mcp/wiki"), [
      404,
      'Not found: No toolset "wiki": this server has "issues", "repos"\n',
    ]);
    deepStrictEqual(await listOver(server, "/mcp", { "mcp-toolsets": "wiki" }), [
      404,
      'Not found: No toolset "wiki": this server has "issues", "repos"\n',
    ]);
    strictEqual((await listOver(server, "/mcp/issues/more"))[0], 404);
  } finally {
    await server.close();
  }
});

Deno.test("fetch() under a server's own toolsets and read-only: a request narrows them, never widens", async () => {
  const server = await exampleServer({ http: true, toolsets: ["issues"], readOnly: true });
  try {
    deepStrictEqual(await listOver(server, "/mcp"), [200, ["list_issues", "whoami"]]);
    deepStrictEqual(await listOver(server, "/mcp/issues"), [200, ["list_issues", "whoami"]]);
    deepStrictEqual(await listOver(server, "/mcp/repos"), [
      404,
      'Not found: No toolset "repos": this server has "issues"\n',
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("fetch() of a server without toolsets reads neither path nor header: /mcp/<x> is the plain 404", async () => {
  const dir = await scratch({ "tools/hello.ts": TOOL("hello") });
  const server = await createServer({ dir, http: true, diagnostics: QUIET });
  try {
    deepStrictEqual(await listOver(server, "/mcp", { "mcp-toolsets": "x" }), [200, ["hello"]]);
    deepStrictEqual(await listOver(server, "/mcp/x"), [404, "Not found: MCP is served on /mcp\n"]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fetch(): a 2025-era session keeps the toolset it was opened with", async () => {
  const server = await exampleServer({ http: true });
  const post = (path: string, body: object, session?: string) =>
    server.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(session === undefined
            ? {}
            : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      }),
    );
  try {
    const opened = await post("/mcp/repos", {
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    strictEqual(opened.status, 200);
    const session = opened.headers.get("mcp-session-id")!;
    await opened.body?.cancel();
    // Even sent to the plain endpoint, its requests see the set it was opened with.
    const listedThere = await post("/mcp", { id: 1, method: "tools/list" }, session);
    const { result } = await listedThere.json();
    deepStrictEqual(result.tools.map((tool: { name: string }) => tool.name), [
      "create_repo",
      "list_repos",
      "whoami",
    ]);
    const call = await post("/mcp", {
      id: 2,
      method: "tools/call",
      params: { name: "list_issues" },
    }, session);
    match((await call.json()).error.message, /^Unknown tool: "list_issues"/);
  } finally {
    await server.close();
  }
});

Deno.test("--toolsets with --watch over stdio: a tool added to a chosen set is served and told", async () => {
  const dir = await scratch({
    "tools/issues/first.ts": TOOL("first"),
    "tools/repos/other.ts": TOOL("other"),
  });
  const server = await startInProcess(["--dir", dir, "--watch", "--toolsets", "issues"]);
  const send = (message: object) => server.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const next = async (what: string) => {
    const line = await withHangGuard(server.nextLine(), what);
    ok(line !== null, `the server ended before ${what}`);
    return JSON.parse(line);
  };
  try {
    send({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await next("the initialize answer");
    await Deno.writeTextFile(`${dir}/tools/issues/added.ts`, TOOL("added"));
    deepStrictEqual(await next("the list_changed notice"), {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    send({ id: 1, method: "tools/list" });
    deepStrictEqual(
      (await next("the list")).result.tools.map((tool: { name: string }) => tool.name),
      ["added", "first"],
    );
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("core.changeNotices() tells a session of a change to its toolsets only", async () => {
  const server = await exampleServer({ listChanged: true, toolsets: ["issues"] });
  const session = createSession();
  session.pin = { era: "session", client: UNINITIALIZED };
  /** The notices of a swap that takes the tool `name` away. */
  const notices = (name: string) => {
    const previous = server.registry.current();
    const next = server.registry.swap({
      ...previous,
      tools: catalogOf(previous.tools.items.filter((tool) => tool.name !== name), (t) => t.name),
    });
    return server.core.changeNotices(previous, next, session);
  };
  const told = [{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }];
  try {
    deepStrictEqual(notices("list_repos"), []);
    deepStrictEqual(notices("list_issues"), told);
    // A session opened on another set hears of that set's changes.
    session.facts = { view: toolView(["repos"], false) };
    deepStrictEqual(notices("create_repo"), told);
    deepStrictEqual(notices("close_issue"), []);
  } finally {
    await server.close();
  }
});
