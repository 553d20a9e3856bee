// surveyServer(): the warnings start-up prints for what loads but is probably a mistake.
// Each test builds a server directory in a scratch folder, loads it as serve does and
// pins the warnings, with the scratch path shown as DIR.
import assert from "node:assert/strict";
import { loadServerDir, serverFolders } from "../lib/discovery/server_dir.ts";
import { DEFAULT_LOAD_OPTIONS } from "../lib/discovery/tools_dir.ts";
import { surveyServer } from "../lib/discovery/survey.ts";
import { recorder } from "./_diagnostics.ts";

const TOOL =
  'export default { description: "d", inputSchema: { type: "object" }, handler: () => "" };';
const PROMPT = "---\ndescription: Says hello\n---\nHello";
const SIDECAR = JSON.stringify({ description: "d", inputSchema: { type: "object" } });

/** A file: its text, or its text and mode. */
type Entry = string | { text: string; mode: number };

/** Writes `files` (paths under a scratch directory), loads it, and gives the warnings. */
async function survey(files: Record<string, Entry>): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_survey_" });
  try {
    for (const [path, entry] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      if (path.endsWith("/")) continue;
      const { text, mode } = typeof entry === "string" ? { text: entry, mode: 0o644 } : entry;
      await Deno.writeTextFile(full, text);
      await Deno.chmod(full, mode);
    }
    const folders = serverFolders({ dir });
    const loaded = await loadServerDir(folders, {
      ...DEFAULT_LOAD_OPTIONS,
      maxResourceBytes: 1024 * 1024,
      diagnostics: recorder(),
    });
    const warnings = surveyServer(folders, loaded);
    for (const warning of warnings) assert.ok(warning.message.includes(`"${warning.path}`));
    return warnings.map((warning) => warning.message.replaceAll(dir, "DIR"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("surveyServer() finds nothing to say about a directory that serves what it holds", async () => {
  assert.deepEqual(
    await survey({
      "tools/add.ts": TOOL,
      "tools/_helper.ts": "export const x = 1;",
      "tools/README.md": "# notes",
      "tools/_data/rows.csv": "a,b",
      "tools/data/rows.csv": "a,b",
      "tools/run.sh": { text: "#!/bin/sh\necho hi", mode: 0o755 },
      "tools/run.json": SIDECAR,
      "tools/_old.tsx": "",
      "prompts/hello.md": PROMPT,
      "resources/guide.md": "# Guide",
    }),
    [],
  );
});

Deno.test("surveyServer() says when the directory serves nothing at all", async () => {
  assert.deepEqual(await survey({ "tools/README.md": "# notes", "prompts/": "" }), [
    'Serving nothing: "DIR/tools" and "DIR/prompts" hold no tool, resource or prompt',
  ]);
});

Deno.test("surveyServer() names each folder that exists but serves nothing", async () => {
  assert.deepEqual(
    await survey({
      "tools/add.ts": TOOL,
      "prompts/notes.rst": "",
      "resources/_private.md": "",
    }),
    [
      'The resources folder "DIR/resources" serves no resource: it holds no file, or only ' +
      'files whose names start with "_" or "."',
      'The prompts folder "DIR/prompts" serves no prompt: it holds no ".md" file and no module ' +
      '(".ts", ".mts", ".js" or ".mjs")',
    ],
  );
  assert.deepEqual(await survey({ "tools/": "", "prompts/hello.md": PROMPT }), [
    'The tools folder "DIR/tools" serves no tool: it holds no module (".ts", ".mts", ".js" or ' +
    '".mjs") and no program with a ".json" sidecar',
  ]);
});

Deno.test("surveyServer() surveys a toolset's folder as it does tools/ (adr/0045)", async () => {
  assert.deepEqual(
    await survey({ "tools/add.ts": TOOL, "tools/math/sub.ts": TOOL, "tools/math/mul.tsx": TOOL }),
    [
      'Not serving "DIR/tools/math/mul.tsx": tool modules end in ".ts", ".mts", ".js" or ' +
      '".mjs" (rename it, or start its name with "_" if it is not a tool)',
    ],
  );
  assert.deepEqual(await survey({ "tools/add.ts": TOOL, "tools/math/sub.ts": TOOL }), []);
});

Deno.test("surveyServer() names modules whose extension the loader does not import", async () => {
  const names = ["a.tsx", "b.jsx", "c.cjs", "d.cts", "E.TS"];
  const files = Object.fromEntries(names.map((name) => [`tools/${name}`, TOOL]));
  assert.deepEqual(
    await survey({ "tools/add.ts": TOOL, ...files }),
    names.sort().map((name) =>
      `Not serving "DIR/tools/${name}": tool modules end in ".ts", ".mts", ".js" or ".mjs" ` +
      `(rename it, or start its name with "_" if it is not a tool)`
    ),
  );
});

Deno.test("surveyServer() names a script that is neither executable nor paired with a sidecar", async () => {
  assert.deepEqual(
    await survey({ "tools/add.ts": TOOL, "tools/stats.py": "print(1)" }),
    [
      'Not serving "DIR/tools/stats.py": a program is a tool only with the executable bit ' +
      '(chmod +x) and a sidecar "DIR/tools/stats.json" (start its name with "_" if it is not ' +
      "a tool)",
    ],
  );
});

Deno.test("surveyServer() names prompt files that are not .md and prompts in subdirectories", async () => {
  assert.deepEqual(
    await survey({
      "prompts/hello.md": PROMPT,
      "prompts/review.txt": "Review this",
      "prompts/summary.markdown": PROMPT,
      "prompts/team/standup.md": PROMPT,
      "prompts/_drafts/idea.md": PROMPT,
    }),
    [
      'Not serving "DIR/prompts/review.txt": prompts are ".md" files or modules (".ts", ".mts", ' +
      '".js" or ".mjs") (rename it, or start its name with "_" if it is not a prompt)',
      'Not serving "DIR/prompts/summary.markdown": prompts are ".md" files or modules (".ts", ' +
      '".mts", ".js" or ".mjs") (rename it, or start its name with "_" if it is not a prompt)',
      'Not serving "DIR/prompts/team/standup.md": prompts in subdirectories of "DIR/prompts" ' +
      'are not loaded (move them up, or rename the folder "_team" if it holds helpers)',
    ],
  );
});

Deno.test("surveyServer() gives no warnings, and does not throw, when its folders are gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_survey_" });
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(`${dir}/tools/add.ts`, TOOL);
  await Deno.writeTextFile(`${dir}/tools/b.tsx`, TOOL);
  const folders = serverFolders({ dir });
  const loaded = await loadServerDir(folders, {
    ...DEFAULT_LOAD_OPTIONS,
    maxResourceBytes: 1024,
    diagnostics: recorder(),
  });
  assert.equal((await surveyServer(folders, loaded)).length, 1);
  await Deno.remove(dir, { recursive: true });
  assert.deepEqual(await surveyServer(folders, loaded), []);
});
