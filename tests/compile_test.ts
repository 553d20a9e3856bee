// `deno task compile` (build/compile.ts), tested as far as it goes without the network.
//
// `deno compile` needs a `denort` base binary. Deno 2.9 downloads it from dl.deno.land
// (unreachable here) unless the DENORT_BIN variable names one, and no package on the npm
// registry carries denort (the `deno` package and @deno/linux-x64-glibc hold only the CLI).
// The full `deno` binary is no substitute: the file it yields runs as the plain `deno` CLI
// and ignores the embedded program. So these tests run everything up to the base binary:
// type checking, the module graph, and the real compile step with a stand-in ELF as base,
// whose output still carries the whole embedded file system (main.ts, lib/, tools/, npm
// packages) that can be searched; the script's refusals, its offline message and its smoke
// test run for real. The one path not run here, a real denort's binary passing the smoke
// test, runs where DENORT_BIN names a denort (its test is ignored otherwise, saying so).
import assert from "node:assert/strict";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";
import { moduleGraph, type NpmPackage, reachable } from "./_module_graph.ts";
import {
  COMPILE_CONFIG,
  COMPILE_FLAGS,
  compileArgs,
  DEFAULT_OUTPUT,
  OPTIONAL_FOLDERS,
  parseCompileArgs,
} from "../build/compile.ts";
import { serverFolders } from "../lib/discovery/server_dir.ts";
import { explainDownloadFailure, refuseDenortBin } from "../build/_denort.ts";
import { run, smokeTest, toolNames } from "../build/_smoke.ts";
import { compileServer } from "../lib/commands/compile.ts";
import { denoCompileArgs } from "../lib/commands/compile_binary.ts";

const REPO = new URL("../", import.meta.url);
const REPO_PATH = decodeURIComponent(REPO.pathname);
const MAIN = new URL("main.ts", REPO);
/** Where a compiled server looks for its tools: `new URL("./tools/", import.meta.url)` in main.ts. */
const EMBEDDED_TOOLS = new URL("./tools/", MAIN);
const VERSION = Deno.version.deno;

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

/** Runs build/compile.ts as `deno task compile` does, with `env` added to this environment. */
function compileScript(args: string[], env: Record<string, string> = {}): Promise<Output> {
  return deno(["run", "-A", "build/compile.ts", ...args], env);
}

/** The value of a flag given as `--flag value` or `--flag=value`, for every occurrence. */
function flagValues(args: readonly string[], ...names: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) values.push(args[i + 1]);
      else if (args[i].startsWith(`${name}=`)) values.push(args[i].slice(name.length + 1));
    }
  }
  return values;
}

async function withTempDir(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_compile_" });
  try {
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The modules reachable from `root` through imports that remain at run time. */
async function runtimeModules(root = "main.ts"): Promise<Set<string>> {
  return reachable(await moduleGraph(root));
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
 * Runs build/compile.ts's own `deno compile` arguments with a stand-in base binary and an output in a temp
 * dir; hands `use` the compiler's report and a predicate telling whether some bytes are
 * embedded verbatim in the result (sources and package files are stored as they are). The
 * tests that look into the result share one compile.
 */
async function compileWithStandIn(
  use: (stderr: string, contains: (bytes: Uint8Array) => boolean) => Promise<void>,
): Promise<void> {
  compiled ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolshed_compile_" });
    try {
      const output = `${dir}/toolshed`;
      // `deno compile` itself, not build/compile.ts, which rightly refuses a stand-in.
      const { code, stderr } = await deno(compileArgs(output), { DENORT_BIN: standInBase() });
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

Deno.test("compile: build/compile.ts compiles main.ts and embeds tools/ next to it, where the compiled server looks", () => {
  const args = compileArgs("/tmp/out");
  assert.equal(args[0], "compile");
  assert.equal(new URL(args.at(-1)!, REPO).href, MAIN.href, "main.ts must be the last argument");
  const included = flagValues(COMPILE_FLAGS, "--include").map((path) =>
    new URL(path.endsWith("/") ? path : `${path}/`, REPO).href
  );
  assert.ok(included.includes(EMBEDDED_TOOLS.href), `no --include tools/ in ${args.join(" ")}`);
  assert.deepEqual(flagValues(args, "--output", "-o"), ["/tmp/out"]);
});

Deno.test("compile: the binary is built with deno.json's imports and lock but without lazy dynamic imports", async () => {
  // deno.json loads dynamic imports lazily (adr/0051); deno compile under it would leave the
  // lazily imported modules and npm packages out, so it reads build/compile.deno.json.
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO)));
  assert.ok(config.unstable?.includes("lazy-dynamic-imports"), "deno.json loads eagerly again");
  const [path] = flagValues(COMPILE_FLAGS, "--config");
  assert.equal(path, COMPILE_CONFIG);
  const at = new URL(COMPILE_CONFIG, REPO);
  const compile = JSON.parse(await Deno.readTextFile(at));
  assert.equal(compile.unstable, undefined, `${COMPILE_CONFIG} must not set unstable features`);
  const resolved = (imports: Record<string, string>, base: URL) =>
    Object.fromEntries(Object.entries(imports).map(([name, to]) => [name, new URL(to, base).href]));
  assert.deepEqual(resolved(compile.imports, at), resolved(config.imports, REPO));
  assert.equal(new URL(compile.lock.path, at).href, new URL("deno.lock", REPO).href);
});

Deno.test("compile: every optional folder of a server directory is embedded when the repository has it", () => {
  const folders = serverFolders({ dir: "/srv" });
  const optional = (Object.keys(folders) as (keyof typeof folders)[])
    .filter((kind) => !["tools", "resources", "prompts"].includes(kind))
    .map((kind) => `${kind}/`);
  assert.ok(optional.length >= 3, `optional folders: ${optional.join(", ")}`);
  assert.deepEqual([...OPTIONAL_FOLDERS].sort(), optional.sort());
});

Deno.test("compile: deno.json's compile task runs build/compile.ts", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO)));
  const task: unknown = config.tasks?.compile;
  const command = typeof task === "string"
    ? task
    : (task as { command?: unknown } | undefined)?.command;
  assert.equal(command, "deno run -A build/compile.ts");
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

Deno.test("compile: parseCompileArgs() takes --output (relative to the caller's directory), -o and --help", () => {
  assert.deepEqual(parseCompileArgs([], "/home/me"), {
    kind: "compile",
    output: `${REPO_PATH}${DEFAULT_OUTPUT}`,
  });
  assert.deepEqual(parseCompileArgs(["--output", "bin/ts"], "/home/me"), {
    kind: "compile",
    output: "/home/me/bin/ts",
  });
  assert.deepEqual(parseCompileArgs(["-o", "/abs/ts"], "/home/me"), {
    kind: "compile",
    output: "/abs/ts",
  });
  assert.deepEqual(parseCompileArgs(["--output=x"], "/w"), { kind: "compile", output: "/w/x" });
  assert.equal(parseCompileArgs(["--help"], "/w").kind, "help");
  assert.deepEqual(parseCompileArgs(["--outptu", "x"], "/w"), {
    kind: "usage-error",
    message: 'Unknown option "--outptu"',
  });
  assert.deepEqual(parseCompileArgs(["--output"], "/w"), {
    kind: "usage-error",
    message: 'Option "--output" needs a value',
  });
  assert.deepEqual(parseCompileArgs(["--output", "dist/"], "/w"), {
    kind: "usage-error",
    message: 'Option "--output" needs a file path: "dist/"',
  });
  assert.equal(parseCompileArgs(["main.ts"], "/w").kind, "usage-error");
});

Deno.test("compile: build/compile.ts with an unknown option exits 2 naming it", async () => {
  const { code, stderr } = await compileScript(["--bogus"]);
  assert.equal(code, 2);
  assert.match(stderr, /^Unknown option "--bogus"\n\(build\/compile.ts --help shows the usage\)/);
});

Deno.test("compile: build/compile.ts refuses DENORT_BIN pointing at the deno CLI, before compiling anything", async () => {
  await withTempDir(async (dir) => {
    const output = `${dir}/toolshed`;
    const { code, stderr } = await compileScript(["--output", output], {
      DENORT_BIN: Deno.execPath(),
    });
    assert.equal(code, 1, stderr);
    assert.equal(
      stderr.trim(),
      `Cannot compile: DENORT_BIN "${Deno.execPath()}" is the deno CLI ("deno ${VERSION} (` +
        `${stderr.split(`deno ${VERSION} (`)[1]?.split(")")[0]})"), whose compiled output would ` +
        `start a REPL instead of toolshed: DENORT_BIN must name the denort binary of Deno ` +
        `${VERSION} (unzip it from "https://dl.deno.land/release/v${VERSION}/denort-` +
        `${Deno.build.target}.zip" on a machine with internet), not the deno CLI`,
    );
    assert.doesNotMatch(stderr, /Compile|Check/, "it ran deno compile");
    await assert.rejects(Deno.stat(output), Deno.errors.NotFound);
  });
});

Deno.test("compile: refuseDenortBin() refuses a missing file, a directory and a program that is not a Deno runtime", async () => {
  await withTempDir(async (dir) => {
    const advice = `DENORT_BIN must name the denort binary of Deno ${VERSION}`;
    const missing = await refuseDenortBin(`${dir}/denort`);
    assert.ok(missing?.startsWith(`DENORT_BIN "${dir}/denort" names no file: ${advice}`), missing);
    const directory = await refuseDenortBin(dir);
    assert.ok(directory?.startsWith(`DENORT_BIN "${dir}" is not a file: ${advice}`), directory);
    const script = `${dir}/not-denort`;
    await Deno.writeTextFile(script, "#!/bin/sh\necho 'some tool 1.0'\n", { mode: 0o755 });
    const other = await refuseDenortBin(script);
    assert.ok(
      other?.startsWith(
        `DENORT_BIN "${script}" is not a standalone Deno runtime (asked for --version it ` +
          `answered "some tool 1.0"): ${advice}`,
      ),
      other,
    );
  });
});

/**
 * A stand-in that answers --version as denort does without an embedded program (the message
 * comes from cli/rt/binary.rs in Deno's source) and carries `userAgent` among its bytes.
 */
async function fakeDenort(dir: string, userAgent: string): Promise<string> {
  const path = `${dir}/denort`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\n# ${userAgent}\necho 'error: Could not find standalone binary section.' >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  return path;
}

Deno.test("compile: refuseDenortBin() accepts a stand-in that answers as denort does, and refuses one of another Deno version", async () => {
  await withTempDir(async (dir) => {
    const good = await fakeDenort(dir, `Deno/${VERSION}`);
    assert.equal(await refuseDenortBin(good), undefined);
    const old = await fakeDenort(dir, "Deno/2.1.0");
    const refusal = await refuseDenortBin(old);
    assert.ok(
      refusal?.startsWith(`DENORT_BIN "${old}" is the denort of Deno 2.1.0, not ${VERSION}: `),
      refusal,
    );
  });
});

Deno.test("compile: explainDownloadFailure() turns Deno's failed denort download into a message naming DENORT_BIN", () => {
  const url = `https://dl.deno.land/release/v${VERSION}/denort-x86_64-unknown-linux-gnu.zip`;
  const raw = `Check main.ts\nCompile main.ts to dist/toolshed\nDownload ${url}\n` +
    `error: Writing deno compile executable to temporary file 'dist/toolshed.tmp'\n\n` +
    `Caused by:\n    0: Setting up base binary.\n    1: error sending request for url (${url}): ` +
    `client error (Connect): dns error\n`;
  const expected = `Deno cannot download its standalone runtime from "${url}": this machine is ` +
    `offline or cannot reach it; set DENORT_BIN to the path of the denort binary unzipped from ` +
    `that address on a machine with internet\n  (Deno said: error sending request for url ` +
    `(${url}): client error (Connect): dns error)`;
  assert.equal(explainDownloadFailure(raw, 1), expected);
  // deno colours its report on a terminal.
  const coloured = raw.replace("Download", "\x1b[0m\x1b[32mDownload\x1b[0m");
  assert.equal(explainDownloadFailure(coloured, 1), expected);
  // Other failures keep Deno's own report.
  assert.equal(explainDownloadFailure("error: Module not found", 1), undefined);
  assert.equal(explainDownloadFailure(raw, 0), undefined);
});

Deno.test("compile: offline (no cached denort, the proxy a closed port), build/compile.ts says it cannot download denort and names DENORT_BIN", async () => {
  await withTempDir(async (dir) => {
    const info = JSON.parse((await deno(["info", "--json"])).stdout) as {
      denoDir: string;
      npmCache: string;
    };
    const env: Record<string, string> = {};
    // Where deno compile keeps a downloaded denort; with one there, a fresh DENO_DIR (sharing
    // only the npm cache) makes it download again, at the price of a cold type check.
    const cached = `${info.denoDir}/dl/release/v${VERSION}/denort-${Deno.build.target}.zip`;
    if (await Deno.stat(cached).then(() => true, () => false)) {
      env.DENO_DIR = `${dir}/deno_dir`;
      await Deno.mkdir(env.DENO_DIR);
      await Deno.symlink(info.npmCache, `${env.DENO_DIR}/npm`);
    }
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
    listener.close();
    const output = `${dir}/toolshed`;
    const { code, stderr } = await compileScript(["--output", output], {
      ...env,
      HTTPS_PROXY: closed,
      HTTP_PROXY: closed,
      NO_PROXY: "",
      DENORT_BIN: "",
    });
    assert.equal(code, 1, stderr);
    const url = `https://dl.deno.land/release/v${VERSION}/denort-${Deno.build.target}.zip`;
    assert.ok(
      stderr.startsWith(
        `Cannot compile: Deno cannot download its standalone runtime from "${url}": this ` +
          "machine is offline or cannot reach it; set DENORT_BIN to the path of the denort " +
          "binary unzipped from that address on a machine with internet\n  (Deno said: ",
      ),
      stderr,
    );
    assert.doesNotMatch(stderr, /Caused by|Stack backtrace/);
    await assert.rejects(Deno.stat(output), Deno.errors.NotFound);
  });
});

Deno.test("compile: the smoke test fails a binary compiled on the deno CLI (it answers as deno, not toolshed)", async () => {
  // What a Node-only user got before build/compile.ts refused such a DENORT_BIN.
  await withTempDir(async (dir) => {
    const output = `${dir}/toolshed`;
    const { code, stderr } = await deno(compileArgs(output), { DENORT_BIN: Deno.execPath() });
    assert.equal(code, 0, stderr);
    await assert.rejects(
      smokeTest([output], ["echo"]),
      (error: Error) => {
        assert.match(
          error.message,
          new RegExp(
            `^Smoke test failed: "${output} --version" should print "toolshed \\S+" and exit 0 ` +
              `but exited 0 printing "deno ${VERSION.replaceAll(".", "\\.")} `,
          ),
        );
        return true;
      },
    );
  });
});

Deno.test("compile: the smoke test passes a server that answers --version and tools/list with the expected tools, and fails one serving others", async () => {
  const tools = `${REPO_PATH}tests/fixtures/tools`;
  const expected = await toolNames(new URL(`file://${tools}/`), false);
  const command = [Deno.execPath(), "run", "-A", `${REPO_PATH}main.ts`];
  await smokeTest(command, expected, { args: ["--tools", tools] });
  await assert.rejects(
    smokeTest(command, [...expected, "missing_tool"], { args: ["--tools", tools] }),
    /^Error: Smoke test failed: ".*" serves the tools ".*" instead of ".*missing_tool.*"$/,
  );
});

const REAL_DENORT = Deno.env.get("DENORT_BIN");

Deno.test({
  name: REAL_DENORT
    ? `compile: build/compile.ts with the denort at "${REAL_DENORT}" builds a binary that passes its smoke test`
    : "compile: NOT RUN HERE, the full build with a real denort (no denort of this Deno version can be had offline; set DENORT_BIN to one to run it)",
  ignore: !REAL_DENORT,
  async fn() {
    await withTempDir(async (dir) => {
      const output = `${dir}/toolshed`;
      const { code, stderr } = await compileScript(["--output", output]);
      assert.equal(code, 0, stderr);
      assert.match(stderr, /Built ".*": it answers --version and tools\/list as toolshed/);
      assert.ok((await Deno.stat(output)).isFile);
    });
  },
});

// `toolshed compile --dir DIR` and `deno task compile --dir DIR` (adr/0067): a person's server
// directory into one executable. tests/compile_dir_test.ts covers the command up to `deno
// compile` in process; these run it.

const HELLO = `${REPO_PATH}examples/hello`;

Deno.test("compile --dir: the staged examples/hello compiles with the real deno compile (a stand-in base), and the binary embeds its tool and prompt", async () => {
  await withTempDir(async (dir) => {
    let said = "";
    const code = await compileServer(
      ["--dir", HELLO, "--output", `${dir}/hello`],
      { out: () => {}, err: (text) => void (said += text), env: () => undefined, cwd: REPO_PATH },
      async (request, report) => {
        const { code, stderr } = await new Deno.Command(Deno.execPath(), {
          args: denoCompileArgs(request),
          cwd: request.cwd,
          env: { DENORT_BIN: standInBase(), NO_COLOR: "1" },
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).output();
        report(new TextDecoder().decode(stderr));
        return code === 0 ? undefined : `deno compile exited with ${code}`;
      },
    );
    assert.equal(code, 0, said);
    const binary = bytesAsText(await Deno.readFile(`${dir}/hello`));
    for (const file of ["tools/add.ts", "prompts/code_review.md"]) {
      assert.ok(binary.includes(bytesAsText(await Deno.readFile(`${HELLO}/${file}`))), file);
    }
  });
});

Deno.test("compile --dir: deno task compile --dir refuses DENORT_BIN naming the deno CLI, as toolshed compile, and writes nothing", async () => {
  await withTempDir(async (dir) => {
    const { code, stderr } = await compileScript(["--dir", HELLO, "--output", `${dir}/hello`], {
      DENORT_BIN: Deno.execPath(),
    });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /toolshed: Cannot compile for \S+: DENORT_BIN "[^"]+" is the deno CLI/);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test({
  name: REAL_DENORT
    ? `compile --dir: deno task compile --dir examples/hello with the denort at "${REAL_DENORT}" builds a binary that serves hello's add`
    : "compile --dir: NOT RUN HERE, deno task compile --dir with a real denort (set DENORT_BIN to a denort of this Deno version to run it)",
  ignore: !REAL_DENORT,
  async fn() {
    await withTempDir(async (dir) => {
      const output = `${dir}/hello`;
      const { code, stderr } = await compileScript(["--dir", HELLO, "--output", output]);
      assert.equal(code, 0, stderr);
      await smokeTest([output], ["add"]);
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { a: 2, b: 3 }, _meta: meta },
      };
      const answer = await run([output], [], `${JSON.stringify(call)}\n`, dir);
      assert.equal(answer.code, 0, answer.stderr);
      assert.equal(JSON.parse(answer.stdout.split("\n")[0]).result.content[0].text, "5");
    });
  },
});
