// The npm package `toolshed` (build/npm_package.ts, adr/0065), for real: built and packed,
// published to Verdaccio on loopback (tests/_verdaccio.ts: a registry that proxies nothing,
// seeded with the pinned `deno` and the packages toolshed's types import and main.ts runs),
// then installed and used in a fresh HOME whose PATH holds only Node.js 22, npm, npx and sh:
// `npm install -g`, `npx -y toolshed`, `toolshed new`, `call` and `check` outside the
// repository (the hints naming the bin), `new server` whose deno.json maps "@toolshed/toolshed"
// to the installed mod.ts for `deno task test` there, `compile` and `publish` of a server
// directory through a real `deno compile` (on a stand-in denort, which cannot be had here),
// `config claude-code --write`'s entry (the README's line) started
// with PATH=/nonexistent and the registry unreachable, a first start
// with the registry unreachable and an empty Deno cache (its time is printed, not asserted),
// an install without install scripts, and signals to the bin reaching the server (no process
// left holding the port). The repository is unchanged by all of it.
import assert from "node:assert/strict";
import { unzipSync } from "npm:fflate@0.8.2";
import { BIN_PATH, pack, PACKAGE_NAME, writePackage } from "../build/npm_package.ts";
import {
  NODE,
  NPM_CLI,
  NPX_CLI,
  type Registry,
  SEED_DIR,
  seedPackages,
  startRegistry,
  verdaccioProblem,
} from "./_verdaccio.ts";
import { withHangGuard } from "./_server_process.ts";
import { npmBundleFlags } from "../lib/commands/invocation.ts";
import { initializeBody } from "./_http_server.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** In CI the registry must be there (.ci/run installs it): a missing one fails there. */
const MISSING = await verdaccioProblem();
const IN_CI = Deno.env.get("CI") === "true";
const NOTE = MISSING === undefined || IN_CI
  ? ""
  : ` (NOT RUN HERE: Verdaccio is missing, ${MISSING})`;

/** Only guards against a hang (installs unpack Deno's 95 MB binary); no timing check. */
const HANG_GUARD_MS = 180_000;

interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Runs `program args` with exactly `env`, stdin closed; guarded against a hang. */
async function run(
  program: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Ran> {
  const child = new Deno.Command(program, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const guard = setTimeout(() => child.kill("SIGKILL"), HANG_GUARD_MS);
  try {
    const { code, stdout, stderr } = await child.output();
    const text = new TextDecoder();
    return { code, out: text.decode(stdout), err: text.decode(stderr) };
  } finally {
    clearTimeout(guard);
  }
}

/** A figure for the person running the test (the ADR quotes them); nothing asserts it. */
function note(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
}

/**
 * A stand-in for denort, Deno's standalone runtime: an x86-64 Linux executable (deno compile
 * writes only onto an ELF file; a script is "Not an ELF file") that does what denort does when
 * no program is embedded in it, as toolshed's check of DENORT_BIN asks it with --version:
 * writes "error: Could not find standalone binary section." to stderr and exits 1. It carries
 * this Deno's user agent, as denort does. 64 bytes of ELF header, one program header loading
 * the whole file, then the code and its message.
 */
function standInDenort(): Uint8Array {
  const text = new TextEncoder();
  const message = text.encode("error: Could not find standalone binary section.\n");
  const userAgent = text.encode(`Deno/${Deno.version.deno}\n`);
  const code = [
    ...[0xb8, 1, 0, 0, 0], // mov eax, 1: write
    ...[0xbf, 2, 0, 0, 0], // mov edi, 2: stderr
    ...[0x48, 0x8d, 0x35, 19, 0, 0, 0], // lea rsi, [rip + 19]: the message, after the code
    ...[0xba, message.length, 0, 0, 0], // mov edx, its length
    ...[0x0f, 0x05], // syscall
    ...[0xb8, 60, 0, 0, 0], // mov eax, 60: exit
    ...[0xbf, 1, 0, 0, 0], // mov edi, 1: the code
    ...[0x0f, 0x05], // syscall
  ];
  const start = 64 + 56;
  const size = start + code.length + message.length + userAgent.length;
  const base = 0x400000;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]); // ELF, 64-bit, little-endian, version 1
  view.setUint16(16, 2, true); // an executable
  view.setUint16(18, 0x3e, true); // x86-64
  view.setUint32(20, 1, true);
  view.setBigUint64(24, BigInt(base + start), true); // entry: the code
  view.setBigUint64(32, 64n, true); // the program header, right after this one
  view.setUint16(52, 64, true);
  view.setUint16(54, 56, true);
  view.setUint16(56, 1, true);
  view.setUint16(58, 64, true);
  view.setUint32(64, 1, true); // PT_LOAD
  view.setUint32(68, 5, true); // readable, executable
  view.setBigUint64(80, BigInt(base), true);
  view.setBigUint64(88, BigInt(base), true);
  view.setBigUint64(96, BigInt(size), true);
  view.setBigUint64(104, BigInt(size), true);
  view.setBigUint64(112, 0x1000n, true);
  bytes.set(code, start);
  bytes.set(message, start + code.length);
  bytes.set(userAgent, start + code.length + message.length);
  return bytes;
}

/** Bytes as a string, one char per byte, so that byte sequences can be searched. */
function latin1(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252").decode(bytes);
}

function includes(text: string, part: string, message = text): void {
  assert.ok(text.includes(part), `"${part}" missing from: ${message}`);
}

function ok(ran: Ran, what: string): Ran {
  assert.deepStrictEqual(ran.code, 0, `${what} exited ${ran.code}:\n${ran.out}\n${ran.err}`);
  return ran;
}

async function gitStatus(): Promise<string> {
  const { stdout } = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=all"],
    cwd: ROOT,
    stdin: "null",
  }).output();
  return new TextDecoder().decode(stdout);
}

/** The pids of `pid`'s children (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
    return text === "" ? [] : text.split(" ").map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` is a live process (not gone, not a zombie waiting for its parent). */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function portFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

/** Waits until `holds()` is true, polling 100 ms apart at most `tries` times. */
async function eventually(holds: () => boolean, tries = 100): Promise<boolean> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (holds()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return holds();
}

/** Lines of a stream, one at a time. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
  if (buffered !== "") yield buffered;
}

/**
 * Starts `program args` as an MCP host does (stdio, exactly `env`), sends initialize, then
 * tools/list; the tools' names and when each answer came (ms after the spawn, printed, never
 * asserted). Closes stdin and expects exit 0.
 */
async function serveOnce(
  program: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ tools: string[]; initializeMs: number; listMs: number }> {
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  try {
    const send = (message: object) =>
      writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
    await writer.write(new TextEncoder().encode(`${initializeBody()}\n`));
    const answers = lines(child.stdout);
    const first = await withHangGuard(answers.next(), "initialize");
    const initializeMs = performance.now() - started;
    assert.deepStrictEqual(JSON.parse(first.value ?? "{}").id, 1, first.value);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const second = await withHangGuard(answers.next(), "tools/list");
    const listMs = performance.now() - started;
    const listed = JSON.parse(second.value ?? "{}");
    await writer.close();
    await answers.return(undefined);
    assert.deepStrictEqual((await child.status).code, 0, await stderr);
    return {
      tools: listed.result.tools.map((tool: { name: string }) => tool.name),
      initializeMs,
      listMs,
    };
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    throw new Error(`${(error as Error).message}\n${await stderr}`);
  }
}

Deno.test({
  name: `npm package: published to a loopback registry, installed and run in a fresh HOME${NOTE}`,
  ignore: NOTE !== "",
  sanitizeResources: false,
  sanitizeOps: false,
}, async (t) => {
  if (MISSING !== undefined) throw new Error(`Verdaccio is missing under CI: ${MISSING}`);
  const before = await gitStatus();
  const tmp = await Deno.makeTempDir({ prefix: "toolshed_npm_" });
  let registry: Registry | undefined;
  /** Processes a failed step may leave running: killed at the end. */
  const started: number[] = [];
  try {
    const version = await writePackage(`${tmp}/package`);
    const tarball = await pack(`${tmp}/package`, tmp);
    const packed = (await Deno.stat(tarball)).size;
    note(`packed ${PACKAGE_NAME}@${version}: ${(packed / 1024).toFixed(0)} KiB`);

    // A PATH with Node.js, npm, npx and the shell npm runs install scripts with; nothing else.
    const path = `${tmp}/path`;
    await Deno.mkdir(path);
    await Deno.symlink(NODE, `${path}/node`);
    await Deno.symlink(NPM_CLI, `${path}/npm`);
    await Deno.symlink(NPX_CLI, `${path}/npx`);
    await Deno.symlink("/bin/sh", `${path}/sh`);
    const home = `${tmp}/home`;
    const prefix = `${tmp}/global`;
    await Deno.mkdir(home);
    const env = { HOME: home, PATH: `${path}:${prefix}/bin`, NO_COLOR: "1" };
    const toolshed = `${prefix}/bin/toolshed`;
    const server = `${home}/my-server`;
    const installed = `${prefix}/lib/node_modules/${PACKAGE_NAME}`;

    registry = await startRegistry(await Deno.makeTempDir({ dir: tmp, prefix: "registry_" }));
    const { url } = registry;
    await t.step("publishes the seed and the package to the registry", async () => {
      const publisher = `${tmp}/publisher`;
      await Deno.mkdir(publisher);
      await Deno.writeTextFile(`${publisher}/.npmrc`, registry!.npmrc);
      const publishEnv = { ...env, HOME: publisher };
      const files = [
        ...(await seedPackages()).map((seed) => `${SEED_DIR}/${seed.file}`),
        tarball,
      ];
      // --provenance=false: smol-toml's publishConfig asks npm for provenance, which only a CI
      // provider's identity can give.
      for (const file of files) {
        ok(
          await run(`${path}/npm`, ["publish", "--provenance=false", file], publishEnv, publisher),
          `publish ${file}`,
        );
      }
    });
    // The person's own npm configuration names the registry, as a private registry's users do.
    // min-release-age=0: Deno (read from .npmrc) refuses versions published less than a day
    // ago, and the seed was published a moment ago; on npmjs.org they are months old.
    await Deno.writeTextFile(`${home}/.npmrc`, `registry=${url}\nmin-release-age=0\n`);

    await t.step("npm install -g gives a toolshed command", async () => {
      ok(
        await run(`${path}/npm`, ["install", "-g", "--prefix", prefix, PACKAGE_NAME], env, home),
        "npm install -g",
      );
      const said = ok(await run(toolshed, ["--version"], env, home), "toolshed --version");
      assert.deepStrictEqual(said.err.trim(), `toolshed ${version}`);
    });

    await t.step("npx -y toolshed runs it", async () => {
      const said = ok(
        await run(`${path}/npx`, ["-y", PACKAGE_NAME, "--version"], env, home),
        "npx",
      );
      assert.deepStrictEqual(said.err.trim(), `toolshed ${version}`);
    });

    await t.step("new, call and check work on a server outside the repository", async () => {
      const made = ok(
        await run(toolshed, ["new", "tool", "hello", "--dir", server], env, home),
        "new",
      );
      assert((await Deno.stat(`${server}/tools/hello.ts`)).isFile);
      // The next command names the bin as the person typed it.
      includes(
        made.out,
        `Next: edit it, then try it with: toolshed call hello text=hello --dir ${server}\n`,
      );
      const called = ok(
        await run(toolshed, ["call", "hello", "text=from npm", "--dir", server], env, home),
        "call",
      );
      includes(called.out, "from npm");
      // A tool that imports a value from "@toolshed/toolshed" gets the package's mod.ts at run
      // time, through the import map the bin names (no configuration file is read). In a
      // server of its own: the steps below count this one's tools.
      const typedServer = `${home}/typed-server`;
      await Deno.mkdir(`${typedServer}/tools`, { recursive: true });
      await Deno.writeTextFile(
        `${typedServer}/tools/typed.ts`,
        `import { defineTool } from "@toolshed/toolshed";

export default defineTool({
  description: "Says what defineTool gave it",
  inputSchema: { type: "object", properties: {} },
  handler: () => \`typed by \${typeof defineTool}\`,
});
`,
      );
      const typed = ok(
        await run(toolshed, ["call", "typed", "--dir", typedServer], env, home),
        "call typed",
      );
      includes(typed.out, "typed by function");
      // check type-checks tools/hello.ts: its "@toolshed/toolshed" resolves to the package's
      // mod.ts through the package's deno.json, and lib/'s npm packages come from the registry.
      const checked = ok(await run(toolshed, ["check", "--dir", server], env, home), "check");
      includes(checked.out + checked.err, "0 errors");
    });

    await t.step(
      "new server writes a server of its own whose tests import the package's mod.ts",
      async () => {
        const srv = `${home}/srv`;
        const made = ok(
          await run(toolshed, ["new", "server", "io.github.test/srv", "--dir", srv], env, home),
          "new server",
        );
        const config = JSON.parse(await Deno.readTextFile(`${srv}/deno.json`));
        assert.deepStrictEqual(config.imports["@toolshed/toolshed"], `file://${installed}/mod.ts`);
        includes(made.out, "check it with: toolshed check --dir");
        // Under npx, the next command is npx's.
        const viaNpx = ok(
          await run(
            `${path}/npx`,
            ["-y", PACKAGE_NAME, "new", "tool", "hello", "--dir", srv],
            env,
            home,
          ),
          "npx -y toolshed new tool",
        );
        includes(
          viaNpx.out,
          `try it with: npx -y ${PACKAGE_NAME} call hello text=hello --dir ${srv}`,
        );
        await Deno.mkdir(`${srv}/tests`);
        await Deno.writeTextFile(
          `${srv}/tests/hello_test.ts`,
          `import { testServer } from "@toolshed/toolshed";

Deno.test("hello answers through testServer", async () => {
  const server = await testServer({ dir: new URL("../", import.meta.url) });
  const { content } = await server.call("hello", { text: "a test" });
  if (JSON.stringify(content) !== '[{"type":"text","text":"hello received: a test"}]') {
    throw new Error(JSON.stringify(content));
  }
});
`,
        );
        // The package's own Deno (a person with only npm has no other) runs the server's tasks
        // there: deno test resolves "@toolshed/toolshed" through the server's deno.json.
        const deno = `${installed}/node_modules/deno/deno`;
        const tested = ok(await run(deno, ["task", "test"], env, srv), "deno task test");
        includes(tested.out, "hello answers through testServer ... ok");
        const checked = ok(await run(deno, ["task", "check"], env, srv), "deno task check");
        includes(checked.out + checked.err, "0 errors");
        assert((await Deno.stat(`${srv}/deno.lock`)).isFile, "the server's own lock");
      },
    );

    // deno compile needs Deno's standalone runtime, denort, which cannot be had here
    // (tests/compile_test.ts): a stand-in answers --version as denort does, so that compile's
    // own check of DENORT_BIN lets it through, and deno compile writes the server onto it as
    // onto denort. All else is real: deno compile of the package's main.ts with its
    // build/compile.deno.json and deno.lock, npm packages from the registry.
    const denort = `${tmp}/denort`;
    await Deno.writeFile(denort, standInDenort(), { mode: 0o755 });
    const compileEnv = { ...env, DENORT_BIN: denort };
    /** Whether `binary` holds `file`'s bytes as they are (deno compile embeds sources so). */
    const embeds = async (binary: Uint8Array, file: string) =>
      latin1(binary).includes(latin1(await Deno.readFile(file)));

    await t.step(
      "compile --dir writes the server's executable with deno compile (on a stand-in denort)",
      async () => {
        const compiled = ok(
          await run(toolshed, ["compile", "--dir", server], compileEnv, home),
          "compile",
        );
        const binary = `${server}/dist/my-server`;
        includes(compiled.out, `Built "${binary}" for ${Deno.build.target}: 1 tool(s)`);
        const bytes = await Deno.readFile(binary);
        for (const file of [`${server}/tools/hello.ts`, `${installed}/main.ts`]) {
          assert(await embeds(bytes, file), `${file} is not embedded in ${binary}`);
        }
        await Deno.remove(`${server}/dist`, { recursive: true });
        // It read the package's lock, which holds every package it needed: nothing written.
        assert.deepStrictEqual(
          await Deno.readTextFile(`${installed}/deno.lock`),
          await Deno.readTextFile(`${tmp}/package/deno.lock`),
        );
      },
    );

    await t.step(
      "publish --dir packs the server's MCP Bundle and writes server.json (on a stand-in denort)",
      async () => {
        const meta = `${server}/server.meta.json`;
        await Deno.writeTextFile(
          meta,
          JSON.stringify({
            name: "io.github.test/my-server",
            description: "Says hello",
            version: "1.0.0",
            author: { name: "A tester" },
          }),
        );
        try {
          const published = ok(
            await run(
              toolshed,
              ["publish", "--dir", server, "--release-url", "https://example.com/{file}"],
              compileEnv,
              home,
            ),
            "publish",
          );
          const [entry] = JSON.parse(await Deno.readTextFile(`${server}/dist/server.json`))
            .packages;
          const file = entry.identifier.slice("https://example.com/".length);
          includes(published.out, `${file}  sha256 ${entry.fileSha256}`);
          const bundle = await Deno.readFile(`${server}/dist/${file}`);
          const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bundle));
          assert.deepStrictEqual(
            entry.fileSha256,
            [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join(""),
          );
          const entries = unzipSync(bundle);
          assert.deepStrictEqual(Object.keys(entries).sort(), [
            "manifest.json",
            "server/my-server",
          ]);
          const binary = entries["server/my-server"];
          for (const embedded of [`${server}/tools/hello.ts`, `${installed}/main.ts`, meta]) {
            assert(await embeds(binary, embedded), `${embedded} is not embedded in ${file}`);
          }
        } finally {
          await Deno.remove(meta);
          await Deno.remove(`${server}/dist`, { recursive: true }).catch(() => {});
        }
      },
    );

    await t.step(
      "an install without install scripts finds Deno in its platform package",
      async () => {
        const bare = `${tmp}/no-scripts`;
        ok(
          await run(
            `${path}/npm`,
            ["install", "-g", "--ignore-scripts", "--prefix", bare, PACKAGE_NAME],
            env,
            home,
          ),
          "npm install -g --ignore-scripts",
        );
        const linked = await Deno.stat(
          `${bare}/lib/node_modules/${PACKAGE_NAME}/node_modules/deno/deno`,
        )
          .then(() => true, () => false);
        assert(!linked, "the deno package's install script ran, so the fallback is not tested");
        const said = ok(await run(`${bare}/bin/toolshed`, ["--version"], env, home), "--version");
        assert.deepStrictEqual(said.err.trim(), `toolshed ${version}`);
      },
    );

    await registry.stop();
    registry = undefined;
    const offline = {
      ...env,
      NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
      DENO_DIR: await Deno.makeTempDir({ dir: tmp, prefix: "deno_dir_" }),
    };

    await t.step("a first start with no registry and an empty Deno cache answers", async () => {
      const { tools, initializeMs, listMs } = await serveOnce(
        toolshed,
        ["--dir", server],
        offline,
        home,
      );
      assert.deepStrictEqual(tools, ["hello"]);
      note(
        `first start, registry unreachable, empty DENO_DIR: initialize answered after ` +
          `${initializeMs.toFixed(0)} ms, tools/list after ${listMs.toFixed(0)} ms`,
      );
    });

    await t.step(
      "config --write's entry starts the installed bin by node's absolute path: a host with PATH=/nonexistent starts it, the registry unreachable",
      async () => {
        const printed = ok(
          await run(toolshed, ["config", "claude-code", "--dir", server], env, home),
          "config claude-code",
        );
        assert.deepStrictEqual(JSON.parse(printed.out).mcpServers.toolshed, {
          type: "stdio",
          command: await Deno.realPath(NODE),
          args: [`${installed}/${BIN_PATH}`, "--dir", server],
        });
        // The README's line, by the shell, in the fresh HOME: it writes ~/my-server/.mcp.json,
        // and the entry a host reads from that file is what is started below.
        ok(
          await run(
            `${path}/sh`,
            ["-c", "cd ~/my-server && toolshed config claude-code --write"],
            env,
            home,
          ),
          "config claude-code --write",
        );
        const entry = JSON.parse(await Deno.readTextFile(`${server}/.mcp.json`)).mcpServers
          .toolshed;
        assert.deepStrictEqual(entry, JSON.parse(printed.out).mcpServers.toolshed);
        const { tools } = await serveOnce(
          entry.command,
          entry.args,
          { ...offline, PATH: "/nonexistent" },
          "/",
        );
        assert.deepStrictEqual(tools, ["hello"]);
        // Through npx, the entry is npx's own line, npm's npx script started by node.
        const viaNpx = ok(
          await run(
            `${path}/npx`,
            ["--prefer-offline", "-y", PACKAGE_NAME, "config", "vscode", "--dir", server],
            env,
            home,
          ),
          "npx -y toolshed config vscode",
        );
        assert.deepStrictEqual(JSON.parse(viaNpx.out).servers.toolshed, {
          type: "stdio",
          command: `${path}/node`,
          args: [
            await Deno.realPath(NPX_CLI),
            "--prefer-offline",
            "--yes",
            PACKAGE_NAME,
            "--dir",
            server,
          ],
        });
      },
    );

    await t.step(
      "npx --prefer-offline -y toolshed, a host's entry, serves offline too",
      async () => {
        const { tools, initializeMs } = await serveOnce(
          `${path}/npx`,
          ["--prefer-offline", "-y", PACKAGE_NAME, "--dir", server],
          // The registry npx installed from, now stopped (npm's cache is kept by its address).
          { ...env, DENO_DIR: await Deno.makeTempDir({ dir: tmp, prefix: "deno_dir_" }) },
          home,
        );
        assert.deepStrictEqual(tools, ["hello"]);
        note(
          `through npx --prefer-offline, registry stopped, empty DENO_DIR: initialize after ${
            initializeMs.toFixed(0)
          } ms`,
        );
      },
    );

    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      await t.step(`${signal} to the bin stops the server and frees its port`, async () => {
        // In a session of its own (setsid execs it in place: same pid), as a background job or
        // a host's child is: were the test run from a terminal, the bin would otherwise share
        // its foreground process group, and rightly not pass on a SIGINT (see the Ctrl+C step).
        const bin = new Deno.Command("/usr/bin/setsid", {
          args: [toolshed, "--http", "127.0.0.1:0", "--dir", server],
          env: offline,
          clearEnv: true,
          cwd: home,
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).spawn();
        const said = lines(bin.stderr);
        let port: number | undefined;
        const seen: string[] = [];
        for (let line = 0; line < 50 && port === undefined; line++) {
          const next = await withHangGuard(said.next(), "the listening line");
          if (next.done) break;
          seen.push(next.value);
          port = Number(next.value.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//)?.[1]) ||
            undefined;
        }
        assert(port !== undefined, `no listening line:\n${seen.join("\n")}`);
        const rest = (async () => {
          for await (const line of said) seen.push(line);
        })();
        const [deno] = childrenOf(bin.pid);
        started.push(bin.pid, ...(deno === undefined ? [] : [deno]));
        assert(deno !== undefined && alive(deno), "the bin has no Deno child");
        // The bundle runs with the package's flags for it (a start without a scavenge, no
        // configuration read, the package's import map), in the order the bin gives them.
        const command = Deno.readTextFileSync(`/proc/${deno}/cmdline`).split("\0");
        includes(command.join(" "), `-A ${npmBundleFlags(installed).join(" ")} `);
        assert(!portFree(port), "the server does not hold its port");
        Deno.kill(bin.pid, signal);
        const status = await withHangGuard(bin.status, "the bin exiting");
        await rest;
        assert(await eventually(() => !alive(deno)), `Deno (${deno}) outlived the bin`);
        assert(await eventually(() => portFree(port!)), `port ${port} still held`);
        // SIGTERM and SIGINT: toolshed shuts down and exits 0, and so does the bin; SIGHUP:
        // Deno dies of it, and the bin ends by the same signal.
        if (signal === "SIGHUP") {
          assert.deepStrictEqual(status.signal, "SIGHUP", seen.join("\n"));
        } else {
          assert.deepStrictEqual(status.code, 0, seen.join("\n"));
          includes(seen.join("\n"), `received ${signal}`);
        }
      });
    }

    await t.step({
      name: "Ctrl+C in a terminal stops the server gracefully (one SIGINT, not two)",
      // util-linux's script(1) gives the bin a terminal whose foreground job it is.
      ignore: !await Deno.stat("/usr/bin/script").then(() => true, () => false),
      fn: async () => {
        // exec: the bin is the terminal's process; script -e exits with its code.
        const command = `exec ${toolshed} --http 127.0.0.1:0 --dir ${server}`;
        const terminal = new Deno.Command("/usr/bin/script", {
          args: ["-qec", command, "/dev/null"],
          env: offline,
          clearEnv: true,
          cwd: home,
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
        }).spawn();
        started.push(terminal.pid);
        const said = lines(terminal.stdout);
        const seen: string[] = [];
        for (let line = 0; line < 50; line++) {
          const next = await withHangGuard(said.next(), "the listening line");
          if (next.done) break;
          seen.push(next.value);
          if (next.value.includes("listening on")) break;
        }
        assert.ok(seen.some((line) => line.includes("listening on")), seen.join("\n"));
        const writer = terminal.stdin.getWriter();
        await writer.write(new Uint8Array([3])); // Ctrl+C: SIGINT to the foreground job
        await withHangGuard(
          (async () => {
            for await (const line of said) seen.push(line);
          })(),
          "the terminal's end",
        );
        await writer.close().catch(() => {});
        const { code } = await terminal.status;
        const text = seen.join("\n");
        // Forwarded too, the second SIGINT would make toolshed stop at once with exit code 1.
        includes(text, "received SIGINT");
        assert.deepStrictEqual(code, 0, text);
      },
    });

    await t.step("the bin is the package's, and the repository is unchanged", async () => {
      const real = await Deno.realPath(toolshed);
      assert(real.endsWith(`/node_modules/${PACKAGE_NAME}/${BIN_PATH}`), real);
      assert.deepStrictEqual(await gitStatus(), before);
    });
  } finally {
    for (const pid of started.filter(alive)) Deno.kill(pid, "SIGKILL");
    await registry?.stop();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});
