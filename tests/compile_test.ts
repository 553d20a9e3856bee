// `deno task compile`, tested as far as it goes without the network.
//
// `deno compile` needs a `denort` base binary. Deno 2.9 downloads it from dl.deno.land
// (unreachable here) unless the DENORT_BIN variable names one. The full `deno` binary is
// no substitute: the file it yields runs as the plain `deno` CLI and ignores the embedded
// program. So these tests run everything up to the base binary: type checking, the module
// graph, and the real compile step with a stand-in ELF as base, whose output still carries
// the whole embedded file system (main.ts, lib/, tools/, npm packages) that can be searched.
import assert from "node:assert/strict";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";

const REPO = new URL("../", import.meta.url);
const REPO_PATH = decodeURIComponent(REPO.pathname);
const MAIN = new URL("main.ts", REPO);
/** Where a compiled server looks for its tools: `new URL("./tools/", import.meta.url)` in main.ts. */
const EMBEDDED_TOOLS = new URL("./tools/", MAIN);

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

async function deno(args: string[], env: Record<string, string> = {}): Promise<Output> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO_PATH,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

/** The compile task's arguments after `deno`, read from deno.json. */
async function compileTaskArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO)));
  const task: unknown = config.tasks?.compile;
  const command = typeof task === "string"
    ? task
    : (task as { command?: unknown } | undefined)?.command;
  assert.equal(typeof command, "string", 'deno.json has no "compile" task');
  const words = (command as string).trim().split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "compile"], `unexpected task: ${command}`);
  assert.ok(
    !/["'`$&|;<>]/.test(command as string),
    `the compile task should be one plain command: ${command}`,
  );
  return words.slice(1);
}

/** The value of a flag given as `--flag value` or `--flag=value`, for every occurrence. */
function flagValues(args: string[], ...names: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) values.push(args[i + 1]);
      else if (args[i].startsWith(`${name}=`)) values.push(args[i].slice(name.length + 1));
    }
  }
  return values;
}

/** The task's arguments with its output redirected to `output`. */
function withOutput(args: string[], output: string): string[] {
  const result: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--output" || args[i] === "-o") {
      i++;
    } else if (!args[i].startsWith("--output=")) {
      result.push(args[i]);
    }
  }
  // Flags go before the entry point: everything after it is passed to the program.
  const entry = result.findIndex((arg) => arg.endsWith("main.ts"));
  result.splice(entry, 0, "--output", output);
  return result;
}

interface ModuleGraph {
  roots: string[];
  modules: {
    specifier: string;
    kind?: string;
    error?: string;
    npmPackage?: string;
    dependencies?: { code?: { specifier: string } }[];
  }[];
  redirects: Record<string, string>;
  /** The whole npm snapshot (lockfile included), not only what the graph reaches. */
  npmPackages?: Record<string, NpmPackage>;
}

interface NpmPackage {
  name: string;
  version: string;
  dependencies?: string[];
  localPath?: string;
}

async function moduleGraph(root = "main.ts"): Promise<ModuleGraph> {
  const { code, stdout, stderr } = await deno(["info", "--json", root]);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

/** The modules reachable from `root` through imports that remain at run time. */
async function runtimeModules(root = "main.ts"): Promise<Set<string>> {
  return reachable(await moduleGraph(root));
}

function reachable(graph: ModuleGraph): Set<string> {
  const bySpecifier = new Map(graph.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const pending = [...graph.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    const resolved = graph.redirects[specifier] ?? specifier;
    if (reached.has(resolved)) continue;
    reached.add(resolved);
    for (const dependency of bySpecifier.get(resolved)?.dependencies ?? []) {
      if (dependency.code) pending.push(dependency.code.specifier);
    }
  }
  return reached;
}

/** The npm packages `root` runs, with their dependencies, keyed by snapshot id. */
async function runtimeNpmPackages(root: string): Promise<Map<string, NpmPackage>> {
  const graph = await moduleGraph(root);
  const snapshot = graph.npmPackages ?? {};
  const bySpecifier = new Map(graph.modules.map((module) => [module.specifier, module]));
  const pending: string[] = [];
  for (const specifier of reachable(graph)) {
    const id = bySpecifier.get(specifier)?.npmPackage;
    if (id !== undefined) pending.push(id);
  }
  const found = new Map<string, NpmPackage>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (found.has(id)) continue;
    const npm = snapshot[id];
    assert.ok(npm, `npm package ${id} is missing from the snapshot`);
    found.set(id, npm);
    pending.push(...(npm.dependencies ?? []));
  }
  return found;
}

/** A small ELF file to stand in for denort: any executable of the platform's format will do. */
function standInBase(): string {
  for (const candidate of ["/usr/bin/true", "/bin/true"]) {
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // Not on this machine.
    }
  }
  return Deno.execPath();
}

/** The compile step's report and its output (as text, one char per byte), made once. */
let compiled: Promise<{ stderr: string; binary: string }> | undefined;

/**
 * Runs the compile task's own flags with a stand-in base binary and an output in a temp
 * dir; hands `use` the compiler's report and a predicate telling whether some bytes are
 * embedded verbatim in the result (sources and package files are stored as they are). The
 * tests that look into the result share one compile.
 */
async function compileWithStandIn(
  use: (stderr: string, contains: (bytes: Uint8Array) => boolean) => Promise<void>,
): Promise<void> {
  compiled ??= (async () => {
    const args = await compileTaskArgs();
    const dir = await Deno.makeTempDir({ prefix: "toolshed_compile_" });
    try {
      const output = `${dir}/toolshed`;
      const { code, stderr } = await deno(withOutput(args, output), { DENORT_BIN: standInBase() });
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /Download \S*denort/, "the compile step fetched a base binary");
      return { stderr, binary: bytesAsText(await Deno.readFile(output)) };
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  })();
  const { stderr, binary } = await compiled;
  await use(stderr, (bytes) => binary.includes(bytesAsText(bytes)));
}

/** Bytes as a string, one char per byte, so that byte sequences can be searched. */
function bytesAsText(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252").decode(bytes);
}

Deno.test("compile: main.ts and the tool modules it embeds pass deno check", async () => {
  // `deno compile` type-checks main.ts's graph but not the files it embeds with --include,
  // so the tools are checked here too.
  const { code, stderr } = await deno(["check", "main.ts", "tools/"]);
  assert.equal(code, 0, stderr);
});

Deno.test("compile: the module graph of main.ts holds only repository files and npm packages", async () => {
  const graph = await moduleGraph();
  const outside: string[] = [];
  for (const module of graph.modules) {
    assert.equal(module.error, undefined, `${module.specifier}: ${module.error}`);
    const { specifier } = module;
    if (specifier.startsWith("npm:")) continue;
    // Built-in modules ship inside the runtime: nothing to fetch or embed.
    if (specifier.startsWith("node:")) continue;
    if (specifier.startsWith("file:")) {
      const path = decodeURIComponent(new URL(specifier).pathname);
      if (path.startsWith(REPO_PATH) && !path.slice(REPO_PATH.length).startsWith("../")) continue;
    }
    outside.push(specifier);
  }
  assert.deepEqual(outside, [], "modules that are neither repository files nor npm packages");
  for (const [from, to] of Object.entries(graph.redirects)) {
    assert.ok(from.startsWith("npm:") && to.startsWith("npm:"), `redirect ${from} -> ${to}`);
  }
});

Deno.test("compile: the task embeds tools/ next to main.ts, where the compiled server looks", async () => {
  const args = await compileTaskArgs();
  const entry = args.filter((arg) => !arg.startsWith("-") && arg.endsWith(".ts"));
  assert.ok(entry.length >= 1, `no entry point in: deno ${args.join(" ")}`);
  assert.equal(new URL(entry.at(-1)!, REPO).href, MAIN.href);
  const included = flagValues(args, "--include").map((path) =>
    new URL(path.endsWith("/") ? path : `${path}/`, REPO).href
  );
  assert.ok(
    included.includes(EMBEDDED_TOOLS.href),
    `the task must --include ${EMBEDDED_TOOLS.pathname.slice(REPO_PATH.length)}: deno ${
      args.join(" ")
    }`,
  );
  assert.ok(flagValues(args, "--output", "-o").length === 1, "the task names one --output");
});

Deno.test("compile: the task's compile step embeds main.ts, lib/ and every tool the server loads", async () => {
  await compileWithStandIn(async (stderr, contains) => {
    assert.match(stderr, /Embedded Files/);
    const embedded = async (file: string) => contains(await Deno.readFile(new URL(file, REPO)));
    assert.ok(await embedded("main.ts"), "main.ts is not embedded");

    const registry = await loadTools(EMBEDDED_TOOLS, { diagnostics: recorder() });
    assert.ok(registry.tools.length > 0, "the server loads no tools from tools/");
    const missing: string[] = [];
    for (const tool of registry.tools) {
      if (!await embedded(tool.file)) missing.push(tool.file);
    }
    assert.deepEqual(missing, [], "tool files the server loads but the binary lacks");

    // Every repository module main.ts runs (type-only imports are erased, so not embedded).
    const notEmbedded: string[] = [];
    for (const specifier of await runtimeModules()) {
      if (!specifier.startsWith(REPO.href)) continue;
      const file = decodeURIComponent(specifier.slice(REPO.href.length));
      if (!await embedded(file)) notEmbedded.push(file);
    }
    assert.deepEqual(notEmbedded, [], "modules main.ts runs that the binary lacks");
  });
});

Deno.test("compile: the binary embeds the npm packages the server and its tools import, and no others", async () => {
  // Without --exclude-unused-npm, deno compile embeds every npm package in deno.lock,
  // test-only ones included (tens of MB here).
  const needed = new Map<string, NpmPackage>();
  const roots = [
    "main.ts",
    ...(await loadTools(EMBEDDED_TOOLS, { diagnostics: recorder() })).tools.map((tool) =>
      tool.file
    ),
  ];
  for (const root of roots) {
    for (const npm of (await runtimeNpmPackages(root)).values()) {
      needed.set(`${npm.name}@${npm.version}`, npm);
    }
  }
  assert.ok(needed.size > 0, "the server imports no npm package (ajv was expected)");
  const locked = new Set<string>();
  try {
    const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", REPO)));
    for (const key of Object.keys(lock.npm ?? {})) {
      const match = /^(@?[^@]+)@([^_]+)/.exec(key);
      if (match) locked.add(`${match[1]}@${match[2]}`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Packages live in the npm cache as <registry dir>/<name>/<version>/package.json.
  const registryDir = [...needed.values()]
    .map((npm) => npm.localPath?.slice(0, -`/${npm.name}/${npm.version}`.length))
    .find((dir) => dir !== undefined);
  const manifest = async (nameAtVersion: string): Promise<Uint8Array | undefined> => {
    if (registryDir === undefined) return undefined;
    const at = nameAtVersion.lastIndexOf("@");
    const path = `${registryDir}/${nameAtVersion.slice(0, at)}/${
      nameAtVersion.slice(at + 1)
    }/package.json`;
    return await Deno.readFile(path).catch(() => undefined);
  };

  await compileWithStandIn(async (_stderr, contains) => {
    const absent: string[] = [];
    for (const nameAtVersion of needed.keys()) {
      const bytes = await manifest(nameAtVersion);
      assert.ok(bytes, `${nameAtVersion} is not in the npm cache`);
      if (!contains(bytes)) absent.push(nameAtVersion);
    }
    assert.deepEqual(absent, [], "npm packages the server imports but the binary lacks");

    const extra: string[] = [];
    for (const nameAtVersion of locked) {
      if (needed.has(nameAtVersion)) continue;
      const bytes = await manifest(nameAtVersion);
      if (bytes && contains(bytes)) extra.push(nameAtVersion);
    }
    assert.deepEqual(extra, [], "npm packages embedded although only tests use them");
  });
});

Deno.test("compile: without a denort base binary the compile fails naming the missing file", async () => {
  const args = await compileTaskArgs();
  const dir = await Deno.makeTempDir({ prefix: "toolshed_compile_" });
  try {
    const output = `${dir}/toolshed`;
    const missing = `${dir}/no-such-denort`;
    const { code, stderr } = await deno(withOutput(args, output), { DENORT_BIN: missing });
    assert.notEqual(code, 0);
    assert.ok(stderr.includes(`Could not find denort at '${missing}'`), stderr);
    await assert.rejects(Deno.stat(output), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
