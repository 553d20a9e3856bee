// The folder kinds (lib/discovery/kinds.ts, adr/0061): each descriptor over a fixture server
// directory that holds one folder of every kind: what it loads and counts, what a reload keeps
// of it when one of its files breaks, whether it serves alone or is named by a flag, and what
// `toolshed check` counts of it. Loading, reload, the start-up line and check loop over KINDS,
// so these hold for every kind through the code that serves them.
import assert from "node:assert/strict";
import { KINDS } from "../lib/discovery/kinds.ts";
import {
  loadServerDir,
  loadServerParts,
  serverFolders,
  type ServerLoadOptions,
  serverOf,
} from "../lib/discovery/server_dir.ts";
import { DEFAULT_LOAD_OPTIONS } from "../lib/discovery/tools_dir.ts";
import { DirectoryLoadError } from "../lib/discovery/load_error.ts";
import { surveyServer } from "../lib/discovery/survey.ts";
import { command as check } from "../lib/commands/check.ts";
import { recorder } from "./_diagnostics.ts";

const TOOL = (text: string, ui = "") =>
  `export default { description: "Says ${text}", inputSchema: { type: "object" },${ui}\n` +
  `  annotations: { readOnlyHint: true }, handler: () => "${text}" };\n`;
const PROMPT = (text: string) =>
  `export default { description: "${text}", get: () => ({ messages: [] }) };\n`;
const SKILL = (description: string) =>
  `---\nname: demo\ndescription: ${description}\n---\n# Demo\n`;

/** One folder of each kind: 2 tools, 2 resources and a template, 1 app, 2 prompts, … */
const FIXTURE: Record<string, string> = {
  "tools/hello.ts": TOOL("hello"),
  "tools/board.ts": TOOL("board", ' ui: "board",'),
  "resources/notes.txt": "first\n",
  "resources/guides/start.md": "# Start\n",
  "resources/topics.ts": 'export default { uriTemplate: "topics://{name}", read: () => "t" };\n',
  "ui/board.html": "<!doctype html><title>Board</title>\n",
  "prompts/greet.md": "---\ndescription: Says hello\n---\nSay hello\n",
  "prompts/review.ts": PROMPT("Asks for a review"),
  "skills/demo/SKILL.md": SKILL("Shows a demo. Use when asked for one."),
  "middleware/10_pass.ts": "export default (next) => (call) => next(call);\n",
};

/** What each kind's share of the start-up line is for FIXTURE. */
const SAID: Record<string, string> = {
  tools: "2 tools",
  resources: "2 resources and 1 template",
  ui: "1 app",
  prompts: "2 prompts",
  skills: "1 skill",
  middleware: "1 middleware",
};

/** A file of each kind made bad: its folder then has problems, the rest of it loads. */
const BROKEN: Record<string, [string, string]> = {
  tools: ["tools/hello.ts", 'export default { descripton: "x" };\n'],
  resources: ["resources/topics.ts", "export default 42;\n"],
  ui: ["ui/board.json", "{ not json\n"],
  prompts: ["prompts/review.ts", "export default 42;\n"],
  skills: ["skills/demo/SKILL.md", "---\nname: demo\n---\n"],
  middleware: ["middleware/10_pass.ts", "export default 42;\n"],
};

async function scratch(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_kinds_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

const options = (): ServerLoadOptions => ({
  ...DEFAULT_LOAD_OPTIONS,
  maxResourceBytes: 1 << 20,
  diagnostics: recorder(),
});

/** Deno's asynchronous calls that list a folder or say what a path is. */
const ASYNC_METADATA = ["readDir", "stat", "lstat", "realPath"] as const;

Deno.test("a directory of every kind is loaded and surveyed with no asynchronous listing or stat", async () => {
  // Symlinks inside, a toolset and a file no loader takes: every path that asks what a file is.
  // Not skills/: it reads each SKILL.md's text at load, and what files hold is read
  // asynchronously (lib/discovery/folder.ts).
  const { "skills/demo/SKILL.md": _skill, ...fixture } = FIXTURE;
  const dir = await scratch({
    ...fixture,
    "tools/set/inner.ts": TOOL("inner"),
    "tools/notes.txt": "not a tool\n",
    "prompts/aside.txt": "not a prompt\n",
  });
  const calls: string[] = [];
  const deno = Deno as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = ASYNC_METADATA.map((name) => [name, deno[name]] as const);
  try {
    await Deno.symlink(`${dir}/resources/notes.txt`, `${dir}/resources/linked.txt`);
    await Deno.symlink(`${dir}/resources/guides`, `${dir}/resources/linked_guides`);
    await Deno.symlink(`${dir}/prompts/greet.md`, `${dir}/prompts/linked.md`);
    await Deno.symlink(`${dir}/middleware/10_pass.ts`, `${dir}/middleware/20_linked.ts`);
    for (const [name, original] of originals) {
      deno[name] = (...args: unknown[]) => {
        calls.push(`Deno.${name}(${args[0]})`);
        return original(...args);
      };
    }
    const folders = serverFolders({ dir });
    const loaded = await loadServerDir(folders, options());
    const warnings = surveyServer(folders, loaded);
    // Everything was read: the symlinked files serve, the toolset is there, the survey spoke.
    assert.deepEqual(loaded.prompts.map((prompt) => prompt.name).sort(), [
      "greet",
      "linked",
      "review",
    ]);
    assert.ok(loaded.resources.some((resource) => resource.uri.endsWith("/linked.txt")));
    assert.ok(loaded.tools.tools.some((tool) => tool.name === "inner"));
    assert.ok(warnings.some((warning) => warning.path.endsWith("prompts/aside.txt")));
    assert.deepEqual(calls, []);
  } finally {
    for (const [name, original] of originals) deno[name] = original;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every kind has its case in this test", () => {
  const kinds = KINDS.map((kind) => kind.folder).sort();
  assert.deepEqual(Object.keys(SAID).sort(), kinds);
  assert.deepEqual(Object.keys(BROKEN).sort(), kinds);
});

Deno.test("each kind loads its folder, and says how many it serves in the start-up line", async () => {
  const dir = await scratch(FIXTURE);
  try {
    const loaded = await loadServerDir(serverFolders({ dir }), options());
    for (const kind of KINDS) {
      assert.equal(kind.count(loaded).said, SAID[kind.folder], kind.folder);
      // Its loader alone takes the folder without a problem.
      await kind.load(`${dir}/${kind.folder}`, options());
    }
    // The JSON log's fields, in the start-up line's order.
    const fields = Object.assign({}, ...KINDS.map((kind) => kind.count(loaded).fields));
    assert.deepEqual(Object.entries(fields), [
      ["tools", 2],
      ["resources", 2],
      ["templates", 1],
      ["prompts", 2],
    ]);
    // A folder that is not there loads its kind's empty: it says nothing.
    const empty = await serverOf((kind) => kind.empty);
    for (const kind of KINDS) assert.equal(kind.count(empty).said, undefined, kind.folder);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a reload keeps each kind's last good when one of its files breaks", async () => {
  for (const kind of KINDS) {
    const dir = await scratch(FIXTURE);
    try {
      const folders = serverFolders({ dir });
      const before = await loadServerDir(folders, options());
      const [path, text] = BROKEN[kind.folder];
      await Deno.writeTextFile(`${dir}/${path}`, text);
      // Another file of tools/ changes meanwhile: its new version is served.
      await Deno.writeTextFile(`${dir}/tools/board.ts`, TOOL("board again", ' ui: "board",'));
      const parts = await loadServerParts(folders, options());
      const broken = Object.entries(parts).filter(([, part]) => "problems" in part);
      assert.equal(broken.length, 1, `${kind.folder}: one folder has problems`);
      // ui/'s apps are resources: its problems are resources/'s, and resources/ keeps them.
      assert.equal(broken[0][0], kind.folder === "ui" ? "resources" : kind.folder);
      const next = await serverOf((each) => {
        const part = parts[each.folder];
        return "loaded" in part ? part.loaded : each.keep(before, part.error.partial);
      });
      for (const each of KINDS) {
        assert.equal(
          each.count(next).said,
          SAID[each.folder],
          `${kind.folder} broken: ${each.folder}`,
        );
      }
      const board = next.tools.byName.get("board")!.definition.description;
      assert.equal(board, "Says board again", kind.folder);
      const hello = next.tools.byName.get("hello")!.definition.description;
      assert.equal(hello, "Says hello", kind.folder); // the last good version of a bad file
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("a folder of a kind that serves by itself is enough to serve; the others are not", async () => {
  for (const kind of KINDS) {
    const files = Object.fromEntries(
      Object.entries(FIXTURE).filter(([path]) =>
        path.startsWith(`${kind.folder}/`) && !(kind.folder === "tools" && path.includes("board"))
      ),
    );
    const dir = await scratch(files);
    try {
      const loaded = loadServerDir(serverFolders({ dir }), options());
      if (kind.serves) assert.equal(kind.count(await loaded).said !== undefined, true, kind.folder);
      else {
        await assert.rejects(loaded, (error: DirectoryLoadError) => {
          assert.match(error.problems[0], /^Nothing to serve: there is no "/);
          return true;
        });
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  assert.deepEqual(
    KINDS.filter((kind) => kind.serves).map((kind) => kind.folder),
    ["tools", "resources", "prompts", "skills"],
  );
});

Deno.test("a kind a flag names is served alone from that folder, which must then exist", async () => {
  for (const kind of KINDS) {
    const folders = serverFolders({ [kind.folder]: "elsewhere" });
    if (kind.named) {
      assert.deepEqual(folders, { [kind.folder]: { location: "elsewhere", required: true } });
      const missing = `${Deno.cwd()}/tests/fixtures/no such folder`;
      await assert.rejects(
        loadServerDir(serverFolders({ [kind.folder]: missing }), options()),
        DirectoryLoadError,
      );
    } else assert.deepEqual(folders, serverFolders({}), kind.folder);
  }
  // The flags of the command line: --tools, --resources, --prompts.
  assert.deepEqual(
    KINDS.filter((kind) => kind.named).map((kind) => kind.folder),
    ["tools", "resources", "prompts"],
  );
});

Deno.test("toolshed check counts each kind as its descriptor says, in the summary and --json", async () => {
  const dir = await scratch(FIXTURE);
  try {
    const run = async (args: string[]) => {
      const out: string[] = [];
      const code = await check.run(["--dir", dir, "--no-types", ...args], {
        out: (text) => out.push(text),
        err: () => {},
        env: (name) => Deno.env.get(name),
        cwd: Deno.cwd(),
      });
      return { code, out: out.join("") };
    };
    const text = await run([]);
    assert.equal(text.code, 0, text.out);
    assert.match(text.out, /\n0 errors, 0 warnings in 2 tools, 4 resources, 2 prompts, 1 skill\n$/);
    const json = JSON.parse((await run(["--json"])).out);
    // Resources count their templates and ui/'s apps; skills are said only when there are some.
    assert.deepEqual(json.served, { tools: 2, resources: 4, prompts: 2, skills: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
