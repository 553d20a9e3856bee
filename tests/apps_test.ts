// MCP Apps from ui/ (adr/0048): what load refuses — a tool whose `ui` names an app that is not
// there, a sidecar with an unknown field, a file that is no app, a sidecar without its page.
// examples/apps through the SDK client is tests/examples/apps_test.ts; rendered by a host in
// Chromium, tests/apps_browser_test.ts.
import { deepStrictEqual, match } from "node:assert/strict";
import { loadServerDir, serverFolders } from "../lib/discovery/server_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { DEFAULT_LOAD_OPTIONS } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";

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
