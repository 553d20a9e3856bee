// MCP Apps from ui/ (adr/0048): what load refuses — a tool whose `ui` names an app that is not
// there, a sidecar with an unknown field, a file that is no app, a sidecar without its page.
// examples/apps through the SDK client is tests/examples/apps_test.ts; rendered by a host in
// Chromium, tests/apps_browser_test.ts.
import { deepStrictEqual, match, ok } from "node:assert/strict";
import { loadServerDir, serverFolders } from "../lib/discovery/server_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { DEFAULT_LOAD_OPTIONS } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";
import { startInProcess } from "./_in_process.ts";
import { withHangGuard } from "./_server_process.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The problems loading a directory of `files` reports (none: it loaded). */
async function problemsOf(files: Record<string, string>): Promise<readonly string[]> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_apps_" });
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    await loadServerDir(serverFolders({ dir }), {
      ...DEFAULT_LOAD_OPTIONS,
      maxResourceBytes: 1 << 20,
      diagnostics: recorder(),
    });
    return [];
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    return error.problems;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TOOL = (ui: string) =>
  `export default { description: "d", inputSchema: { type: "object" }, ui: ${
    JSON.stringify(ui)
  }, handler: () => "x" };`;

Deno.test("ui/: load refuses a missing app, a bad sidecar and a stray file", async () => {
  deepStrictEqual(await problemsOf({ "tools/t.ts": TOOL("a"), "ui/a.html": "<p>a</p>" }), []);
  const [missing] = await problemsOf({ "tools/t.ts": TOOL("b"), "ui/a.html": "<p>a</p>" });
  match(missing, /tools\/t\.ts": ui names the app "b", but there is no ui\/b\.html/);
  const [badSidecar] = await problemsOf({
    "tools/t.ts": TOOL("a"),
    "ui/a.html": "<p>a</p>",
    "ui/a.json": JSON.stringify({ csp: { connectDomain: ["https://x"] } }),
  });
  match(
    badSidecar,
    /ui\/a\.json": csp has an unknown field "connectDomain"; did you mean "connectDomains"\?/,
  );
  const [stray] = await problemsOf({ "tools/t.ts": TOOL("a"), "ui/a.html": "", "ui/a.css": "" });
  match(stray, /ui\/a\.css": ui\/ holds apps/);
  const [orphan] = await problemsOf({
    "tools/t.ts": TOOL("a"),
    "ui/a.html": "",
    "ui/b.json": "{}",
  });
  match(orphan, /ui\/b\.json": it is the sidecar of "b\.html", which is not there/);
});

Deno.test("--watch serves an app added to ui/ and a sidecar's edit without a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_apps_reload_" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(
    `${dir}/tools/t.ts`,
    `export default { description: "d", inputSchema: { type: "object" }, handler: () => "x" };`,
  );
  const server = await startInProcess(["--dir", dir, "--watch"]);
  let id = 0;
  /** The answer to one `method` request (each wait guarded). */
  const ask = async (method: string, params: object) => {
    server.send(
      JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: META } }),
    );
    while (true) {
      const line = await withHangGuard(server.nextLine(), `the answer to ${method}`);
      ok(line !== null, "the server ended");
      const message = JSON.parse(line!);
      if (message.id === id) return message;
    }
  };
  try {
    deepStrictEqual((await ask("resources/list", {})).error?.code, -32601);
    await Deno.mkdir(`${dir}/ui`);
    await Deno.writeTextFile(`${dir}/ui/a.html`, "<p>a</p>");
    let listed;
    for (let i = 0; i < 200; i++) {
      listed = await ask("resources/list", {});
      if (listed.result?.resources?.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    deepStrictEqual(listed.result.resources, [
      { uri: "ui://a", name: "a", mimeType: "text/html;profile=mcp-app" },
    ]);
    await Deno.writeTextFile(`${dir}/ui/a.json`, JSON.stringify({ prefersBorder: false }));
    for (let i = 0; i < 200; i++) {
      listed = await ask("resources/list", {});
      if (listed.result.resources[0]._meta !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    deepStrictEqual(listed.result.resources[0]._meta, { ui: { prefersBorder: false } });
  } finally {
    await server.end();
    await Deno.remove(dir, { recursive: true });
  }
});
