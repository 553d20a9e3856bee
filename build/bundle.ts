// deno task bundle: builds dist/toolshed.js, the whole server as one JavaScript file for
// runs from a URL (adr/0018): one request instead of one per module, nothing to transpile on
// the user's machine, and a plain-JavaScript entry that parses whatever a static server
// labels it. Tools, resources and prompts still load from the user's directory at run time.
//
//   deno run -A build/bundle.ts [--output PATH]
import { parseOutputArgs } from "./_args.ts";
import { smokeTest, toolNames } from "./_smoke.ts";
import { copyPath } from "./copy.ts";

/** The repository root: `deno bundle` runs there. */
export const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the bundle goes unless --output says otherwise (relative to the repository). */
export const DEFAULT_OUTPUT = "dist/toolshed.js";

/** The arguments after `deno` that bundle main.ts into `output`; npm packages go inside. */
export function bundleArgs(output: string): string[] {
  return ["bundle", "--platform", "deno", "--packages", "bundle", "--output", output, "main.ts"];
}

/**
 * The arguments that bundle main.ts into `outdir` as chunks, minified (adr/0074): what a start
 * does not import (the commands, code mode, mounts, OpenAPI, Redis…) stays in chunks of its own,
 * loaded on first use, and the entry is `main.js`.
 */
export function splitBundleArgs(outdir: string): string[] {
  return [
    "bundle",
    "--platform",
    "deno",
    "--packages",
    "bundle",
    "--code-splitting",
    "--minify",
    "--outdir",
    outdir,
    "main.ts",
  ];
}

/** How a minified chunk makes its `require`: the same prelude as NODE_REQUIRE_PRELUDE, renamed. */
const MINIFIED_REQUIRE_PRELUDE =
  /import\{createRequire as __deno_internal_createRequire\} ?from ?"node:module";var ([\w$]+)=__deno_internal_createRequire\(import\.meta\.url\);/g;

/**
 * What esbuild puts at the top of a bundle with CommonJS packages in it: a `require` made
 * from `import.meta.url`. `createRequire` refuses an http: URL, so from a URL the bundle
 * would die before its first line of toolshed; and the static `node:module` import loads
 * Deno's Node layer at every start (adr/0008). The CommonJS code (the Redis client) only
 * requires Node built-ins, and only when it runs.
 */
export const NODE_REQUIRE_PRELUDE =
  'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
  "var __require = __deno_internal_createRequire(import.meta.url);\n";

/** Its replacement, as `name`: built-ins on first use, anything else "not found" (as for optional peers). */
function lazyRequire(name: string): string {
  return `var ${name} = (id) => {\n` +
    "  const found = globalThis.process.getBuiltinModule(id);\n" +
    '  if (found === undefined) throw new Error(`Cannot find module "${id}"`);\n' +
    "  return found;\n" +
    "};\n";
}
export const LAZY_REQUIRE = lazyRequire("__require");

/** The bundle's text with the prelude replaced; throws if the bundle is not as expected. */
export function withLazyRequire(text: string): string {
  const at = text.indexOf(NODE_REQUIRE_PRELUDE);
  if (at === -1 || text.indexOf(NODE_REQUIRE_PRELUDE, at + 1) !== -1) {
    throw new Error(
      "Cannot finish the bundle: deno bundle no longer writes the expected require prelude " +
        '(import of "node:module"), so build/bundle.ts must learn its new shape',
    );
  }
  return text.slice(0, at) + LAZY_REQUIRE + text.slice(at + NODE_REQUIRE_PRELUDE.length);
}

/** What the command line asks for, or why it cannot be done. */
export type BundleRequest =
  | { kind: "bundle"; output: string }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; message: string };

const USAGE = `Usage: deno run -A build/bundle.ts [--output PATH]

Bundles toolshed into one JavaScript file, PATH (default ${DEFAULT_OUTPUT}), then runs it with
--version and one tools/list. Serve it, and run it with:
  deno run -A https://HOST/toolshed.js --tools ./tools`;

/** Reads the command line; a relative --output is taken from `cwd`. */
export function parseBundleArgs(args: string[], cwd: string): BundleRequest {
  const request = parseOutputArgs(args, cwd, `${ROOT}${DEFAULT_OUTPUT}`, USAGE);
  return request.kind === "build" ? { kind: "bundle", output: request.output } : request;
}

/**
 * Bundles `output`; throws an Error saying what failed. With `split`, `output`'s folder (which
 * must hold nothing else) gets the entry as `output` and its chunks beside it (adr/0074).
 */
export async function bundle(output: string, { split = false } = {}): Promise<void> {
  if (split) return await splitBundle(output);
  await denoBundle(bundleArgs(output));
  await Deno.writeTextFile(output, withLazyRequire(await Deno.readTextFile(output)));
  const imported = await staticImports(output);
  if (imported.length > 0) {
    throw new Error(`Cannot finish the bundle: it still imports "${imported.join('", "')}"`);
  }
}

/** Runs `deno ARGS` (a `deno bundle`) in `cwd`; throws saying why it failed. */
async function denoBundle(args: string[], cwd = ROOT): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `Cannot bundle: deno bundle exited with ${code}: ${new TextDecoder().decode(stderr).trim()}`,
    );
  }
}

async function splitBundle(output: string): Promise<void> {
  const outdir = output.slice(0, output.lastIndexOf("/"));
  const stage = await stageOneStartChunk();
  try {
    await denoBundle(splitBundleArgs(outdir), stage);
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
  await Deno.rename(`${outdir}/main.js`, output);
  let preludes = 0;
  for await (const entry of Deno.readDir(outdir)) {
    if (!entry.name.endsWith(".js")) continue;
    const path = `${outdir}/${entry.name}`;
    const text = await Deno.readTextFile(path);
    const lazy = text.replace(MINIFIED_REQUIRE_PRELUDE, (_, name: string) => {
      preludes++;
      return lazyRequire(name);
    });
    if (lazy !== text) await Deno.writeTextFile(path, lazy);
  }
  if (preludes !== 1) {
    throw new Error(
      `Cannot finish the bundle: deno bundle wrote the require prelude (import of "node:module") ` +
        `${preludes} times, not once, so build/bundle.ts must learn its new shape`,
    );
  }
  const own = new URL(`file://${outdir}/`).href;
  const imported = (await staticImports(output)).filter((specifier) => !specifier.startsWith(own));
  if (imported.length > 0) {
    throw new Error(`Cannot finish the bundle: it still imports "${imported.join('", "')}"`);
  }
  const chunks = (await startFiles(output)).length;
  if (chunks > MAX_START_CHUNKS) {
    throw new Error(
      `Cannot finish the bundle: a start loads ${chunks} chunks besides the entry, not at most ` +
        `${MAX_START_CHUNKS}, so the staging in build/bundle.ts no longer gathers them`,
    );
  }
}

/**
 * The chunks a start of the split bundle may load besides its entry (adr/0074): the one that
 * holds every module main.ts imports, and esbuild's helpers for CommonJS packages.
 */
export const MAX_START_CHUNKS = 2;

/** The files `entry` loads before it runs (itself excluded): what a start reads and compiles. */
export async function startFiles(entry: string): Promise<string[]> {
  return startChunks(await moduleGraph(entry));
}

/**
 * What a start of `entry` reads before it runs, itself included: the files and their bytes
 * (TypeScript as written, for main.ts; with the repository's configuration unless `config` says
 * otherwise).
 */
export async function startLoad(
  entry: string,
  config?: string[],
): Promise<{ files: number; bytes: number }> {
  const graph = await moduleGraph(entry, config);
  const files = new Set([graph.roots[0], ...startChunks(graph)]);
  const bytes = graph.modules.reduce(
    (sum, module) => files.has(module.specifier) ? sum + (module.size ?? 0) : sum,
    0,
  );
  return { files: files.size, bytes };
}

/** What main.ts's module graph holds (`deno info --json`): the modules and their imports. */
interface ModuleGraph {
  roots: string[];
  modules: {
    specifier: string;
    /** In bytes, as read. */
    size?: number;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
}

/**
 * A copy of what main.ts loads, shaped so that a start of the split bundle loads one chunk
 * (adr/0074). esbuild puts a module in a chunk of its own for each set of entry points that
 * reach it, and every module main.ts loads on first use is an entry point: main.ts's own imports,
 * reached from it and from varying sets of those, came out as ~50 chunks, loaded one by one at
 * every start (~1.3 MB more peak RSS than one chunk). In the copy every module outside main.ts's
 * static imports imports `_start.ts` too, which imports main.ts's own imports in main.ts's
 * order: each module a start needs is then reached by the same set, and lands in one chunk.
 * Nothing changes when anything runs: by the time a module loaded on first use imports
 * `_start.ts`, main.ts has evaluated everything it imports.
 */
async function stageOneStartChunk(): Promise<string> {
  const stage = await Deno.makeTempDir({ prefix: "toolshed_bundle_stage_" });
  try {
    for (const name of ["main.ts", "deno.json", "deno.lock", "lib"]) {
      await copyPath(`${ROOT}${name}`, `${stage}/${name}`);
    }
    const graph = await moduleGraph(`${stage}/main.ts`, ["--config", `${stage}/deno.json`]);
    const atStart = new Set([graph.roots[0], ...startChunks(graph)]);
    const folder = new URL(`file://${stage}/`).href;
    const own = importsOf(graph, graph.roots[0]).filter((specifier) =>
      specifier.startsWith(folder)
    );
    await Deno.writeTextFile(
      `${stage}/_start.ts`,
      own.map((specifier) => `import "./${specifier.slice(folder.length)}";\n`).join(""),
    );
    for (const { specifier } of graph.modules) {
      if (atStart.has(specifier) || !specifier.startsWith(`${folder}lib/`)) continue;
      if (!specifier.endsWith(".ts")) continue;
      const path = decodeURIComponent(new URL(specifier).pathname);
      const depth = specifier.slice(folder.length).split("/").length - 1;
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(path, `import "${"../".repeat(depth)}_start.ts";\n${text}`);
    }
    return stage;
  } catch (error) {
    await Deno.remove(stage, { recursive: true });
    throw error;
  }
}

/** The modules `module` imports statically (`import`, not `import()`). */
function importsOf(graph: ModuleGraph, module: string): string[] {
  const found = graph.modules.find((each) => each.specifier === module);
  return (found?.dependencies ?? []).flatMap((dependency) =>
    dependency.code !== undefined && dependency.isDynamic !== true
      ? [dependency.code.specifier]
      : []
  );
}

/** Every module the graph's root loads before it runs: its static imports, theirs, and so on. */
function startChunks(graph: ModuleGraph): string[] {
  const root = graph.roots[0];
  const found = new Set<string>();
  for (const pending = importsOf(graph, root); pending.length > 0;) {
    const specifier = pending.pop()!;
    if (specifier === root || found.has(specifier)) continue;
    found.add(specifier);
    pending.push(...importsOf(graph, specifier));
  }
  return [...found];
}

/** The module graph of `file`, as `deno info` resolves it (with no configuration unless given). */
async function moduleGraph(file: string, config = ["--no-config"]): Promise<ModuleGraph> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ...config, file],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  if (code !== 0) {
    throw new Error(`Cannot read the imports of "${file}": ${text.decode(stderr).trim()}`);
  }
  return JSON.parse(text.decode(stdout));
}

/** The modules a file imports statically, as `deno info` resolves them (itself excluded). */
export async function staticImports(file: string): Promise<string[]> {
  const graph = await moduleGraph(file);
  return graph.modules.map((module) => module.specifier).filter((specifier) =>
    !graph.roots.includes(specifier)
  );
}

if (import.meta.main) {
  const request = parseBundleArgs(Deno.args, Deno.cwd());
  const say = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
  if (request.kind === "help") {
    say(request.text);
    Deno.exit(0);
  }
  if (request.kind === "usage-error") {
    say(`${request.message}\n(build/bundle.ts --help shows the usage)`);
    Deno.exit(2);
  }
  try {
    await Deno.mkdir(request.output.slice(0, request.output.lastIndexOf("/")), {
      recursive: true,
    });
    await bundle(request.output);
    const tools = `${ROOT}tools`;
    await smokeTest(
      [Deno.execPath(), "run", "-A", request.output],
      await toolNames(new URL(`file://${tools}/`), false),
      { args: ["--tools", tools] },
    );
  } catch (error) {
    say((error as Error).message);
    Deno.exit(1);
  }
  const { size } = await Deno.stat(request.output);
  say(
    `Built "${request.output}" (${
      (size / 1024).toFixed(0)
    } KiB): it answers --version and tools/list as toolshed`,
  );
}
