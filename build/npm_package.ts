// deno task package:npm: writes the npm package `toolshed` (adr/0065), whose `toolshed` command
// runs the bundle (adr/0018) on the Deno that npm installs with it, the `deno` package pinned to
// the Deno this build runs on. A first start then imports nothing from any registry: the bundle
// holds every module and npm package main.ts loads, split into an entry and chunks loaded on
// first use, minified (adr/0074: a start loads what it needs). Beside it the package carries
// mod.ts and lib/ (what a server's tools, tests and an embedding app import, and what
// `toolshed check` type-checks them against) under a deno.json that maps "@toolshed/toolshed",
// and what `toolshed compile` and `publish` hand `deno compile`: main.ts (the staged entry
// starts it), build/compile.deno.json and the deno.lock that names. The bundle lies two
// folders deep, as lib/commands/ does, so that paths those commands take from their own
// module (`../../main.ts`) name the package's files from inside the bundle too.
//
//   deno run -A build/npm_package.ts [--output DIR] [--pack]
//
// --pack also runs `npm pack` in DIR and prints the tarball's path.
import { parseArgs } from "../lib/host/args.ts";
import { COMPILE_CONFIG } from "../lib/commands/compile_binary.ts";
import {
  NPM_BIN_PATH,
  NPM_BUNDLE_PATH,
  NPM_IMPORT_MAP_PATH,
  NPM_PACKAGE,
  npmBundleFlags,
} from "../lib/commands/invocation.ts";
import { bundle } from "./bundle.ts";
import { smokeTest, toolNames } from "./_smoke.ts";
import { copyPath } from "./copy.ts";

/** The repository root. */
export const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the package directory goes unless --output says otherwise (relative to the root). */
export const DEFAULT_OUTPUT = "dist/npm";

/** The package's name on the registry, and the command it installs. */
export const PACKAGE_NAME = NPM_PACKAGE;

/** Where the bundle sits in the package (declared beside commandLine, which recognises it). */
export const BUNDLE_PATH = NPM_BUNDLE_PATH;
/** The bundle's folder: its entry and the chunks it loads on first use (adr/0074). */
const BUNDLE_FOLDER = BUNDLE_PATH.slice(0, BUNDLE_PATH.lastIndexOf("/"));

/** The bin, as it lies in the package. */
export const BIN_PATH = NPM_BIN_PATH;

/** The files deno.json's `publish.include` names that the npm package does not copy as they are. */
const NOT_COPIED = new Set(["deno.json", "README.md"]);

/** `deno compile`'s configuration, by its path in the repository and in the package. */
export const COMPILE_CONFIG_PATH = COMPILE_CONFIG.slice(ROOT.length);

/** What the command line asks for, or why it cannot be done. */
export type PackageRequest =
  | { kind: "package"; output: string; pack: boolean }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; message: string };

const USAGE = `Usage: deno run -A build/npm_package.ts [--output DIR] [--pack]

Writes the npm package ${PACKAGE_NAME} into DIR (default ${DEFAULT_OUTPUT}): the bundled server,
the bin that runs it on the pinned Deno, mod.ts and lib/ for the types, package.json and
deno.json; then runs the bundle with --version and one tools/list. --pack also writes the
tarball with npm pack and prints its path.`;

/** Reads the command line; a relative --output is taken from `cwd`. */
export function parsePackageArgs(args: string[], cwd: string): PackageRequest {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        output: { type: "string", short: "o" },
        pack: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return { kind: "usage-error", message: (error as Error).message };
  }
  if (values.help) return { kind: "help", text: USAGE };
  const output = (values.output ?? `${ROOT}${DEFAULT_OUTPUT}`).replace(/\/+$/, "");
  if (output === "") {
    return { kind: "usage-error", message: 'Option "--output" needs a directory' };
  }
  return {
    kind: "package",
    output: output.startsWith("/") ? output : `${cwd}/${output}`,
    pack: values.pack === true,
  };
}

/** toolshed's deno.json, the parts the package reads. */
interface Manifest {
  name: string;
  version: string;
  exports: string;
  publish: { include: string[] };
}

/** What the package carries as the repository has it (paths in it): deno.json's `publish.include` but deno.json and README.md. */
export async function copiedPaths(): Promise<string[]> {
  const manifest = await readManifest();
  return manifest.publish.include.filter((path) => !NOT_COPIED.has(path));
}

async function readManifest(): Promise<Manifest> {
  return JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as Manifest;
}

/** `deno compile`'s configuration as the repository has it. */
interface CompileConfig {
  lock: { path: string };
  [field: string]: unknown;
}

async function readCompileConfig(): Promise<CompileConfig> {
  return JSON.parse(await Deno.readTextFile(`${ROOT}${COMPILE_CONFIG_PATH}`)) as CompileConfig;
}

/** The lock file `config` names, by its path in the repository (and in the package). */
function lockPath(config: CompileConfig): string {
  const url = new URL(config.lock.path, `file://${ROOT}${COMPILE_CONFIG_PATH}`);
  const path = decodeURIComponent(url.pathname);
  if (!path.startsWith(ROOT) || path.slice(ROOT.length).includes("/")) {
    throw new Error(`${COMPILE_CONFIG_PATH} names a lock file outside the root: ${path}`);
  }
  return path.slice(ROOT.length);
}

/** deno.lock as Deno writes it (version 5): specifiers, and npm packages by id. */
interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[] }>;
  [section: string]: unknown;
}

/** The npm packages (`npm:name@version`, no path) that the `.ts` files under `paths` import. */
async function importedNpm(paths: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const visit = async (path: string): Promise<void> => {
    if ((await Deno.stat(path)).isDirectory) {
      for await (const entry of Deno.readDir(path)) await visit(`${path}/${entry.name}`);
    } else if (path.endsWith(".ts")) {
      const text = await Deno.readTextFile(path);
      for (const match of text.matchAll(/["']npm:((?:@[^/"'@]+\/)?[^/"'@]+@[^/"']+)/g)) {
        found.add(`npm:${match[1]}`);
      }
    }
  };
  for (const path of paths) await visit(`${ROOT}${path}`);
  return found;
}

/**
 * The lock the package's `deno compile` reads: the repository's, with only the npm packages
 * that `imported` names and what they depend on. Deno fetches every package a lock lists, so
 * the whole lock would have a fresh HOME download the test suite's packages (an OIDC provider,
 * an HTTP framework, React) for its first compile.
 */
export function prunedLock(lock: Lock, imported: Set<string>): Lock {
  const missing = [...imported].filter((specifier) => !(specifier in lock.specifiers));
  if (missing.length > 0) throw new Error(`deno.lock has no ${missing.join(", ")}`);
  const specifiers = Object.fromEntries(
    Object.entries(lock.specifiers).filter(([specifier]) => imported.has(specifier)),
  );
  const ids = Object.keys(lock.npm);
  const nameOf = (id: string) => id.slice(0, id.indexOf("@", 1));
  // A dependency is named alone, or with its version where the lock holds several.
  const idOf = (dependency: string) => {
    const matching = ids.filter((id) =>
      dependency.includes("@", 1)
        ? id === dependency || id.startsWith(`${dependency}_`)
        : nameOf(id) === dependency
    );
    if (matching.length !== 1) throw new Error(`deno.lock has no one npm package ${dependency}`);
    return matching[0];
  };
  const pending = Object.entries(specifiers).map(([specifier, resolved]) =>
    `${nameOf(specifier.slice("npm:".length))}@${resolved}`
  );
  const npm: Lock["npm"] = {};
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id in npm) continue;
    const entry = lock.npm[id];
    if (entry === undefined) throw new Error(`deno.lock has no npm package ${id}`);
    npm[id] = entry;
    pending.push(...(entry.dependencies ?? []).map(idOf));
  }
  const sorted = Object.fromEntries(Object.entries(npm).sort(([a], [b]) => a < b ? -1 : 1));
  return { ...lock, specifiers, npm: sorted };
}

/**
 * package.json: the `toolshed` bin, the files, and the one dependency, `deno` at exactly the
 * version this build runs (the bundle was made and smoke-tested by it). npm installs that
 * package's binary through its platform packages (optional dependencies of `deno`).
 */
export function packageJson(
  version: string,
  denoVersion: string,
  copied: string[],
  compiled: string[],
): object {
  return {
    name: PACKAGE_NAME,
    version,
    description: "An MCP server: a tool is one TypeScript file in tools/. " +
      "The toolshed command runs it on the Deno this package installs.",
    keywords: ["mcp", "model-context-protocol", "mcp-server", "deno"],
    bin: { toolshed: BIN_PATH },
    files: [BIN_PATH, BUNDLE_FOLDER, "deno.json", NPM_IMPORT_MAP_PATH, ...copied, ...compiled],
    engines: { node: ">=18" },
    dependencies: { deno: denoVersion },
  };
}

/**
 * deno.json: the package for Deno as the repository's is (name, version, exports), with the
 * one import tools write, so that `toolshed check` type-checks a server's files against this
 * mod.ts. npm packages that lib/ imports come from Deno's cache, not from node_modules: the
 * package.json beside it would otherwise make Deno look for them there. The bin runs the bundle
 * without it (`--no-config` and the import map, `npmBundleFlags`); a bundle run by hand finds
 * it two folders up. No lock: the bundle holds its npm packages, `toolshed compile` names the
 * lock in its own configuration, and reading it cost every such start 0.7 MB (adr/0074); nor is
 * a lock inside the installed package a place for what a server's own tools import.
 */
export function denoJson(manifest: Manifest): object {
  return {
    name: manifest.name,
    version: manifest.version,
    exports: manifest.exports,
    imports: packageImports(manifest),
    nodeModulesDir: "none",
    lock: false,
  };
}

/** The one import tools write, to the package's mod.ts: in deno.json and the import map. */
function packageImports(manifest: Manifest): Record<string, string> {
  return { "@toolshed/toolshed": manifest.exports };
}

/**
 * The import map the bin runs the bundle with (`npmBundleFlags`), instead of the deno.json Deno
 * would otherwise find and read at every start: the same imports, nothing else.
 */
export function importMap(manifest: Manifest): object {
  return { imports: packageImports(manifest) };
}

/**
 * build/compile.deno.json for the package: the repository's (imports, lock), with npm packages
 * from Deno's cache, not from node_modules, as in deno.json above.
 */
export function compileConfig(repository: CompileConfig): object {
  return { ...repository, nodeModulesDir: "none" };
}

/** The line of build/npm/toolshed.cjs that the package's flags for the bundle replace. */
const BUNDLE_FLAGS_LINE = "const BUNDLE_FLAGS = [];";
/** What stands for the package's folder in the flags the bin is given; the bin puts its own. */
export const BIN_PACKAGE_ROOT = "{package}";
/** How the bin puts its folder in place of BIN_PACKAGE_ROOT. */
const BIN_ROOT_REPLACED = `flag.split(${JSON.stringify(BIN_PACKAGE_ROOT)}).join(PACKAGE)`;

/**
 * The bin's text with the flags for the package at BIN_PACKAGE_ROOT (`npmBundleFlags`) as the
 * Deno flags it runs the bundle with, once it has put its own folder in their place.
 */
export function withBundleFlags(bin: string, flags: readonly string[]): string {
  const parts = bin.split(BUNDLE_FLAGS_LINE);
  if (parts.length !== 2) {
    throw new Error(
      `Cannot write the bin: build/npm/toolshed.cjs has "${BUNDLE_FLAGS_LINE}" ${
        parts.length - 1
      } times, not once`,
    );
  }
  if (!bin.includes(BIN_ROOT_REPLACED)) {
    throw new Error(
      `Cannot write the bin: build/npm/toolshed.cjs does not put its folder in place of ` +
        `${BIN_PACKAGE_ROOT} (${BIN_ROOT_REPLACED})`,
    );
  }
  return parts.join(`const BUNDLE_FLAGS = ${JSON.stringify(flags)};`);
}

/** Writes the package into `output` (emptied first); returns its version. */
export async function writePackage(output: string): Promise<string> {
  const manifest = await readManifest();
  const copied = await copiedPaths();
  await Deno.remove(output, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  for (const path of [BIN_PATH, BUNDLE_PATH, COMPILE_CONFIG_PATH]) {
    await Deno.mkdir(`${output}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
  }
  await bundle(`${output}/${BUNDLE_PATH}`, { split: true });
  const bin = await Deno.readTextFile(`${ROOT}build/npm/toolshed.cjs`);
  await Deno.writeTextFile(
    `${output}/${BIN_PATH}`,
    withBundleFlags(bin, npmBundleFlags(BIN_PACKAGE_ROOT)),
  );
  await Deno.chmod(`${output}/${BIN_PATH}`, 0o755);
  await Deno.copyFile(`${ROOT}build/npm/README.md`, `${output}/README.md`);
  for (const path of copied) await copyPath(`${ROOT}${path}`, `${output}/${path}`);
  const json = (value: object) => `${JSON.stringify(value, null, 2)}\n`;
  await Deno.writeTextFile(`${output}/deno.json`, json(denoJson(manifest)));
  await Deno.writeTextFile(`${output}/${NPM_IMPORT_MAP_PATH}`, json(importMap(manifest)));
  const config = await readCompileConfig();
  const lock = lockPath(config);
  await Deno.writeTextFile(`${output}/${COMPILE_CONFIG_PATH}`, json(compileConfig(config)));
  const repositoryLock = JSON.parse(await Deno.readTextFile(`${ROOT}${lock}`)) as Lock;
  await Deno.writeTextFile(
    `${output}/${lock}`,
    json(prunedLock(repositoryLock, await importedNpm(copied))),
  );
  await Deno.writeTextFile(
    `${output}/package.json`,
    json(packageJson(manifest.version, Deno.version.deno, copied, [COMPILE_CONFIG_PATH, lock])),
  );
  return manifest.version;
}

/** Runs `npm pack` in the package directory; the tarball's absolute path. */
export async function pack(output: string, destination = output): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("npm", {
    args: ["pack", "--json", "--pack-destination", destination],
    cwd: output,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  if (code !== 0) {
    throw new Error(`npm pack exited with ${code}: ${text.decode(stderr).trim()}`);
  }
  const [packed] = JSON.parse(text.decode(stdout)) as { filename: string }[];
  return `${destination}/${packed.filename}`;
}

if (import.meta.main) {
  const request = parsePackageArgs(Deno.args, Deno.cwd());
  const say = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
  if (request.kind === "help") {
    say(request.text);
    Deno.exit(0);
  }
  if (request.kind === "usage-error") {
    say(`${request.message}\n(build/npm_package.ts --help shows the usage)`);
    Deno.exit(2);
  }
  try {
    const version = await writePackage(request.output);
    const tools = `${ROOT}tools`;
    await smokeTest(
      [Deno.execPath(), "run", "-A", `${request.output}/${BUNDLE_PATH}`],
      await toolNames(new URL(`file://${tools}/`), false),
      { args: ["--tools", tools] },
    );
    say(`Wrote the npm package ${PACKAGE_NAME} ${version} in "${request.output}"`);
    if (request.pack) say(`Packed "${await pack(request.output)}"`);
  } catch (error) {
    say((error as Error).message);
    Deno.exit(1);
  }
}
