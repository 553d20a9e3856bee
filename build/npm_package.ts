// deno task package:npm: writes the npm package `toolshed` (adr/0065), whose `toolshed` command
// runs the one-file bundle (adr/0018) on the Deno that npm installs with it, the `deno` package
// pinned to the Deno this build runs on. A first start then imports nothing from any registry:
// the bundle holds every module and npm package main.ts loads. Beside it the package carries
// mod.ts and lib/ (what a server's tools, tests and an embedding app import, and what
// `toolshed check` type-checks them against) under a deno.json that maps "@toolshed/toolshed".
//
//   deno run -A build/npm_package.ts [--output DIR] [--pack]
//
// --pack also runs `npm pack` in DIR and prints the tarball's path.
import { parseArgs } from "../lib/host/args.ts";
import { NPM_BIN_PATH, NPM_BUNDLE_PATH, NPM_PACKAGE } from "../lib/commands/invocation.ts";
import { bundle } from "./bundle.ts";
import { smokeTest, toolNames } from "./_smoke.ts";

/** The repository root. */
export const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Where the package directory goes unless --output says otherwise (relative to the root). */
export const DEFAULT_OUTPUT = "dist/npm";

/** The package's name on the registry, and the command it installs. */
export const PACKAGE_NAME = NPM_PACKAGE;

/** Where the bundle sits in the package (declared beside commandLine, which recognises it). */
export const BUNDLE_PATH = NPM_BUNDLE_PATH;

/** The bin, as it lies in the package. */
export const BIN_PATH = NPM_BIN_PATH;

/** The files deno.json's `publish.include` names that the npm package carries as they are. */
const NOT_COPIED = new Set(["deno.json", "README.md", "main.ts"]);

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

/** What the package carries besides package.json, deno.json and README.md (paths in it). */
export async function copiedPaths(): Promise<string[]> {
  const manifest = await readManifest();
  return manifest.publish.include.filter((path) => !NOT_COPIED.has(path));
}

async function readManifest(): Promise<Manifest> {
  return JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as Manifest;
}

/**
 * package.json: the `toolshed` bin, the files, and the one dependency, `deno` at exactly the
 * version this build runs (the bundle was made and smoke-tested by it). npm installs that
 * package's binary through its platform packages (optional dependencies of `deno`).
 */
export function packageJson(version: string, denoVersion: string, copied: string[]): object {
  return {
    name: PACKAGE_NAME,
    version,
    description: "An MCP server: a tool is one TypeScript file in tools/. " +
      "The toolshed command runs it on the Deno this package installs.",
    keywords: ["mcp", "model-context-protocol", "mcp-server", "deno"],
    bin: { toolshed: BIN_PATH },
    files: [BIN_PATH, BUNDLE_PATH, "deno.json", ...copied],
    engines: { node: ">=18" },
    dependencies: { deno: denoVersion },
  };
}

/**
 * deno.json: the package for Deno as the repository's is (name, version, exports), with the
 * one import tools write, so that `toolshed check` type-checks a server's files against this
 * mod.ts. npm packages that lib/ imports come from Deno's cache, not from node_modules: the
 * package.json beside it would otherwise make Deno look for them there.
 */
export function denoJson(manifest: Manifest): object {
  return {
    name: manifest.name,
    version: manifest.version,
    exports: manifest.exports,
    imports: { "@toolshed/toolshed": manifest.exports },
    nodeModulesDir: "none",
  };
}

/** Writes the package into `output` (emptied first); returns its version. */
export async function writePackage(output: string): Promise<string> {
  const manifest = await readManifest();
  const copied = await copiedPaths();
  await Deno.remove(output, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(`${output}/bin`, { recursive: true });
  await Deno.mkdir(`${output}/${BUNDLE_PATH.slice(0, BUNDLE_PATH.lastIndexOf("/"))}`, {
    recursive: true,
  });
  await bundle(`${output}/${BUNDLE_PATH}`);
  await Deno.copyFile(`${ROOT}build/npm/toolshed.cjs`, `${output}/${BIN_PATH}`);
  await Deno.chmod(`${output}/${BIN_PATH}`, 0o755);
  await Deno.copyFile(`${ROOT}build/npm/README.md`, `${output}/README.md`);
  for (const path of copied) await copy(`${ROOT}${path}`, `${output}/${path}`);
  const json = (value: object) => `${JSON.stringify(value, null, 2)}\n`;
  await Deno.writeTextFile(`${output}/deno.json`, json(denoJson(manifest)));
  await Deno.writeTextFile(
    `${output}/package.json`,
    json(packageJson(manifest.version, Deno.version.deno, copied)),
  );
  return manifest.version;
}

/** Copies a file, or a folder with everything in it. */
async function copy(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) {
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await copy(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
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
