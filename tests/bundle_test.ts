// The single-file build for runs from a URL (build/bundle.ts, adr/0018): dist/toolshed.js
// served over loopback HTTP and run with `deno run -A http://127.0.0.1:PORT/toolshed.js`,
// speaking MCP over stdio with tools loaded by dynamic import from a local directory.
// Also what Deno does with a wrong Content-Type, and `deno publish --dry-run`.
import { serveStatic } from "./_static_server.ts";
import { listThenEcho } from "./_server_process.ts";
import assert from "node:assert/strict";
import {
  bundle,
  DEFAULT_OUTPUT,
  LAZY_REQUIRE,
  MAX_START_CHUNKS,
  NODE_REQUIRE_PRELUDE,
  parseBundleArgs,
  startFiles,
  staticImports,
  withLazyRequire,
} from "../build/bundle.ts";
import { run, toolNames } from "../build/_smoke.ts";

const REPO = new URL("../", import.meta.url);
const REPO_PATH = decodeURIComponent(REPO.pathname);
const FIXTURE_TOOLS = `${REPO_PATH}tests/fixtures/tools`;
/** Only guards against a hang; no test asserts how long anything takes. */
const HANG_GUARD_MS = 120_000;

/** The bundle, built once per test module into a scratch directory. */
let built: Promise<string> | undefined;
function builtBundle(): Promise<string> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolshed_bundle_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const output = `${dir}/toolshed.js`;
    await bundle(output);
    return output;
  })();
  return built;
}

/** The npm package's split bundle (adr/0074), built once per test module; its entry's path. */
let builtSplit: Promise<string> | undefined;
function builtSplitBundle(): Promise<string> {
  builtSplit ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolshed_split_bundle_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const output = `${dir}/toolshed.js`;
    await bundle(output, { split: true });
    return output;
  })();
  return builtSplit;
}

/** Serves `files` (path → file) on 127.0.0.1 with `type` as Content-Type (none if null). */
function serveFiles(files: Record<string, string>, type: string | null) {
  return serveStatic((path) => files[path] === undefined ? undefined : { file: files[path], type });
}

/** Runs `deno run -A url args` from an empty directory, feeds it `lines`, returns its output. */
async function runFromUrl(url: string, args: string[], lines: unknown[]) {
  const cwd = await Deno.makeTempDir({ prefix: "toolshed_bundle_run_" });
  const origin = new URL(url).origin;
  const input = lines.map((line) => `${JSON.stringify(line)}\n`).join("");
  try {
    // --reload=<origin> re-fetches what the test server serves, never the npm cache.
    return await run(
      [Deno.execPath(), "run", "-A", `--reload=${origin}`, url],
      args,
      input,
      cwd,
      HANG_GUARD_MS,
    );
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

const LIST_AND_CALL = listThenEcho("from a bundle");

/** Checks the answers to LIST_AND_CALL: every fixture tool listed, echo answered. */
async function assertListAndCall(run: Awaited<ReturnType<typeof runFromUrl>>): Promise<void> {
  assert.equal(run.code, 0, run.stderr);
  const answers = run.stdout.split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  const listed = byId.get(1)?.result?.tools?.map((tool: { name: string }) => tool.name).sort();
  assert.deepEqual(listed, await toolNames(new URL(`file://${FIXTURE_TOOLS}/`), false));
  assert.deepEqual(byId.get(2)?.result?.content, [{ type: "text", text: "from a bundle" }]);
}

Deno.test("bundle: parseBundleArgs() takes --output (relative to the caller's directory), -o and --help", () => {
  assert.deepEqual(parseBundleArgs([], "/w"), {
    kind: "bundle",
    output: `${REPO_PATH}${DEFAULT_OUTPUT}`,
  });
  assert.deepEqual(parseBundleArgs(["-o", "out.js"], "/w"), {
    kind: "bundle",
    output: "/w/out.js",
  });
  assert.deepEqual(parseBundleArgs(["--output=/a/b.js"], "/w"), {
    kind: "bundle",
    output: "/a/b.js",
  });
  assert.equal(parseBundleArgs(["--help"], "/w").kind, "help");
  assert.deepEqual(parseBundleArgs(["--minify"], "/w"), {
    kind: "usage-error",
    message: 'Unknown option "--minify"',
  });
});

Deno.test("bundle: withLazyRequire() replaces esbuild's node:module prelude once, and refuses a bundle without it", () => {
  const text = `var a = 1;\n${NODE_REQUIRE_PRELUDE}var b = __require("node:events");\n`;
  assert.equal(
    withLazyRequire(text),
    `var a = 1;\n${LAZY_REQUIRE}var b = __require("node:events");\n`,
  );
  assert.throws(
    () => withLazyRequire("var a = 1;\n"),
    /^Error: Cannot finish the bundle: deno bundle no longer writes the expected require prelude/,
  );
  assert.throws(() => withLazyRequire(text + NODE_REQUIRE_PRELUDE), /no longer writes/);
});

Deno.test("bundle: dist/toolshed.js imports no module statically (npm packages inside, no node:module)", async () => {
  assert.deepEqual(await staticImports(await builtBundle()), []);
});

Deno.test("bundle: a start of the npm package's split bundle loads its entry and at most two chunks, and every module main.ts imports is in them", async () => {
  const entry = await builtSplitBundle();
  const folder = entry.slice(0, entry.lastIndexOf("/") + 1);
  const files = await startFiles(entry);
  assert.ok(files.length <= MAX_START_CHUNKS, `a start loads ${files.length}: ${files.join(" ")}`);
  for (const file of files) assert.ok(file.startsWith(`file://${folder}`), file);
  // Dozens of chunks hold what loads on first use; the start reads the entry and its few.
  const chunks = [...Deno.readDirSync(folder)].filter((entry) => entry.name.endsWith(".js"));
  assert.ok(chunks.length > 20, `${chunks.length} files in the bundle's folder`);
});

Deno.test("bundle: the split bundle serves from disk, and what loads on first use loads (JSON logs, a subcommand)", async () => {
  const entry = await builtSplitBundle();
  const cwd = await Deno.makeTempDir({ prefix: "toolshed_split_run_" });
  try {
    const input = LIST_AND_CALL.map((line) => `${JSON.stringify(line)}\n`).join("");
    const served = await run(
      [Deno.execPath(), "run", "-A", entry],
      ["--tools", FIXTURE_TOOLS, "--log-format", "json"],
      input,
      cwd,
      HANG_GUARD_MS,
    );
    await assertListAndCall(served);
    // A tool's console.log as a JSON record: json_console.ts loaded on first use.
    assert.match(served.stderr, /^\{.*"message":"chatty loaded","source":"console"\}$/m);
    const listed = await run(
      [Deno.execPath(), "run", "-A", entry],
      ["list", "--tools", FIXTURE_TOOLS],
      "",
      cwd,
      HANG_GUARD_MS,
    );
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /\becho\b/);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("bundle: served over loopback HTTP, deno run -A URL --tools tests/fixtures/tools answers tools/list and tools/call in one request", async () => {
  const { origin, requested, server } = serveFiles(
    { "/toolshed.js": await builtBundle() },
    "text/javascript; charset=utf-8",
  );
  try {
    const run = await runFromUrl(
      `${origin}/toolshed.js`,
      ["--tools", FIXTURE_TOOLS],
      LIST_AND_CALL,
    );
    await assertListAndCall(run);
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(requested, ["/toolshed.js"]);
});

Deno.test("bundle: its subcommands load from the bundle too (list over a URL)", async () => {
  const { origin, server } = serveFiles({ "/toolshed.js": await builtBundle() }, "text/javascript");
  try {
    const run = await runFromUrl(`${origin}/toolshed.js`, ["list", "--tools", FIXTURE_TOOLS], []);
    assert.equal(run.code, 0, run.stderr);
    const shown = `${run.stdout}${run.stderr}`;
    for (const name of await toolNames(new URL(`file://${FIXTURE_TOOLS}/`), false)) {
      assert.ok(shown.includes(name), `"list" does not name the tool "${name}":\n${shown}`);
    }
  } finally {
    await server.shutdown();
  }
});

for (
  const type of [
    "text/plain",
    "text/html",
    "application/octet-stream",
    "application/typescript",
    null,
  ]
) {
  Deno.test(`bundle: labelled ${type ?? "with no Content-Type"}, it still runs from a URL (plain JavaScript parses as JS or TS)`, async () => {
    const { origin, server } = serveFiles({ "/toolshed.js": await builtBundle() }, type);
    try {
      await assertListAndCall(
        await runFromUrl(`${origin}/toolshed.js`, ["--tools", FIXTURE_TOOLS], LIST_AND_CALL),
      );
    } finally {
      await server.shutdown();
    }
  });
}

Deno.test("bundle: labelled application/json it fails with Deno's JSON-module message, not a SyntaxError", async () => {
  const { origin, server } = serveFiles(
    { "/toolshed.js": await builtBundle() },
    "application/json",
  );
  try {
    const run = await runFromUrl(`${origin}/toolshed.js`, ["--version"], []);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /Attempted to load JSON module/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("remote run: main.ts labelled text/javascript fails before any toolshed code runs, with a SyntaxError at a TypeScript type", async () => {
  // The pitfall of issue 14, pinned: Deno trusts a JavaScript Content-Type over the .ts
  // extension, so a static server that labels .ts as JavaScript makes the TypeScript sources
  // unparsable. text/plain, application/octet-stream and no header fall back to the extension.
  const { origin, server } = serveFiles({ "/main.ts": `${REPO_PATH}main.ts` }, "text/javascript");
  try {
    const run = await runFromUrl(`${origin}/main.ts`, ["--version"], []);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /SyntaxError: /);
    assert.doesNotMatch(run.stderr, /toolshed/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("publish: deno publish --dry-run passes offline (slow types, package paths)", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: REPO_PATH,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const report = new TextDecoder().decode(stderr);
  assert.equal(code, 0, report);
  assert.match(report, /Success Dry run complete/);
});
