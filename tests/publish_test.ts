// `toolshed publish` (lib/commands/publish.ts, adr/0049): from a server directory to the
// registry's server.json and one MCP Bundle per target, checked against the real things: the
// registry's 2025-12-11 schema (tests/fixtures/registry/) with Ajv, the official MCP Bundle CLI
// (`@anthropic-ai/mcpb` 2.1.2 on Node.js 22, `deno task setup:mcpb`), and the bundle's
// manifest launched as Claude Desktop launches it, with the official SDK's client calling a
// tool.
//
// Offline no denort can be had, so the compile step here is the real `deno compile` on a
// stand-in base (/usr/bin/true, as tests/compile_test.ts does): the bundle holds a real
// compiled file that cannot run, and the launch replaces it with a stand-in running
// `deno run -A main.ts --dir DIR` ("up to the binary"). With DENORT_BIN naming a real denort
// of this Deno version, one test runs it all for real.
import assert from "node:assert/strict";
import { Ajv } from "npm:ajv@8.20.0";
import addFormatsModule from "npm:ajv-formats@3.0.1";
import { unzipSync } from "npm:fflate@0.8.2";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { publish } from "../lib/commands/publish.ts";
import type { Compile } from "../lib/commands/publish_stage.ts";
import { compileBinary, denoCompileArgs } from "../lib/commands/compile_binary.ts";
import { refuseDenortBin, TARGET } from "../lib/commands/denort.ts";
import { manifestOf, sha256 } from "../lib/commands/mcpb.ts";
import { SERVER_SCHEMA, serverJson } from "../lib/commands/registry_entry.ts";
import { parseServerMeta, type ServerMeta } from "../lib/primitives/server_meta.ts";
import type { Io } from "../lib/commands/command.ts";
import { mcpb, mcpbProblem, mcpConfigFor } from "./_mcpb_cli.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const HELLO = `${ROOT}examples/hello`;
const SCHEMA_FILE = `${ROOT}tests/fixtures/registry/server.schema.2025-12-11.json`;
const SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

/** In CI the official CLI must be there (.ci/run installs it): a missing one fails there. */
const MCPB_MISSING = await mcpbProblem();
const IN_CI = Deno.env.get("CI") === "true";
const CLI_NOTE = MCPB_MISSING === undefined || IN_CI
  ? ""
  : ` (NOT RUN HERE: the official CLI is missing, ${MCPB_MISSING})`;

const REAL_DENORT = Deno.env.get("DENORT_BIN");
const DENORT_REFUSAL = REAL_DENORT === undefined
  ? "DENORT_BIN is not set"
  : await refuseDenortBin(REAL_DENORT);

// deno-lint-ignore no-explicit-any -- ajv-formats' CommonJS default, as Deno hands it over
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

/** The official schema, compiled by Ajv (draft-07, formats checked). */
function registryValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const schema = JSON.parse(Deno.readTextFileSync(SCHEMA_FILE));
  return ajv.compile(schema);
}

/** A command's Io in memory. */
function memoryIo(env: Record<string, string> = {}): Io & { said(): string; printed(): string } {
  let out = "";
  let err = "";
  return {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    env: (name) => env[name],
    cwd: ROOT,
    said: () => err,
    printed: () => out,
  };
}

/** The real `deno compile` on a stand-in base (publish's own step rightly refuses a stand-in). */
const standInCompile: Compile = async (request, report) => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: denoCompileArgs(request),
    cwd: request.cwd,
    env: { DENORT_BIN: "/usr/bin/true", NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(stderr);
  report(said);
  assert.doesNotMatch(said, /Download \S*denort/, "the compile step fetched a base binary");
  return code === 0 ? undefined : `deno compile exited with ${code}: ${said}`;
};

/**
 * A compile step that writes a few bytes where the binary goes: for the tests of server.json
 * and the refusals, where what the bundle holds does not matter (and seconds do).
 */
const fakeCompile: Compile = async (request) => {
  await Deno.mkdir(request.output.slice(0, request.output.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(request.output, "not a binary");
  return undefined;
};

interface Published {
  out: string;
  code: number;
  said: string;
  printed: string;
  serverJson: Record<string, unknown>;
  bundles: string[];
}

/** Runs `toolshed publish ARGS` in process; the output directory is removed after `use`. */
async function published(
  args: string[],
  use: (result: Published) => Promise<void> | void,
  compile: Compile = standInCompile,
  env: Record<string, string> = {},
): Promise<void> {
  const out = await Deno.makeTempDir({ prefix: "toolshed_publish_test_" });
  try {
    const io = memoryIo(env);
    const code = await publish([...args, "--out", out], io, compile);
    let entry: Record<string, unknown> = {};
    const bundles: string[] = [];
    if (code === 0) {
      entry = JSON.parse(await Deno.readTextFile(`${out}/server.json`));
      for await (const file of Deno.readDir(out)) {
        if (file.name.endsWith(".mcpb")) bundles.push(`${out}/${file.name}`);
      }
    }
    await use({ out, code, said: io.said(), printed: io.printed(), serverJson: entry, bundles });
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** A scratch server directory: examples/hello plus what `change` writes into it. */
async function scratchServer(
  change: (dir: string) => Promise<void>,
  use: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_server_" });
  try {
    for (const folder of ["tools", "prompts"]) {
      await Deno.mkdir(`${dir}/${folder}`);
      for await (const entry of Deno.readDir(`${HELLO}/${folder}`)) {
        await Deno.copyFile(`${HELLO}/${folder}/${entry.name}`, `${dir}/${folder}/${entry.name}`);
      }
    }
    await Deno.copyFile(`${HELLO}/server.meta.json`, `${dir}/server.meta.json`);
    await change(dir);
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Rewrites DIR/server.meta.json through `edit`. */
async function editMeta(dir: string, edit: (meta: Record<string, unknown>) => void) {
  const meta = JSON.parse(await Deno.readTextFile(`${dir}/server.meta.json`));
  edit(meta);
  await Deno.writeTextFile(`${dir}/server.meta.json`, JSON.stringify(meta, null, 2));
}

/**
 * hello with three settings (one a required secret, one optional without a default) and a tool
 * that tells what they are.
 */
async function withSettings(dir: string): Promise<void> {
  await editMeta(dir, (meta) => {
    meta.env = {
      GREETING: { description: "How the server greets", default: "Hello" },
      API_TOKEN: { description: "The token of the API", secret: true, required: true },
      NOTE: { description: "A note, optional, with no default" },
    };
  });
  await Deno.writeTextFile(
    `${dir}/tools/settings.ts`,
    `export default {
  description: "Tells the settings the server was started with",
  inputSchema: { type: "object", properties: {} },
  handler: () =>
    \`\${Deno.env.get("GREETING")}, token \${Deno.env.get("API_TOKEN")}, note [\${Deno.env.get("NOTE")}]\`,
};
`,
  );
}

/** Unzips `bundle` into a new directory with the official CLI (keeping the binary's mode). */
async function unpacked(bundle: string, use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_unpacked_" });
  try {
    const { code, output } = await mcpb(["unpack", bundle, dir]);
    assert.equal(code, 0, output);
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Starts what an unpacked bundle's manifest says as Claude Desktop does, with the official
 * package's getMcpConfigForManifest (which refuses a missing required setting), and calls
 * `tool` with the official SDK's client; gives the result's text.
 */
async function launchAsClaudeDesktop(
  dir: string,
  userConfig: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const config = await mcpConfigFor(dir, userConfig);
  if (config === undefined) {
    throw new Error("Claude Desktop would not start it: a required setting is missing");
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: config.env ?? {},
    stderr: "ignore",
  });
  const client = new Client({ name: "publish-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    const content = result.content as { type: string; text: string }[];
    return content.map((part) => part.text).join("");
  } finally {
    await client.close();
  }
}

/**
 * The unpacked bundle in `dir`, launched as Claude Desktop would with API_TOKEN `token`, adds
 * and gives its settings; NOTE, optional and without a default, reaches the server empty, not
 * as "${user_config.NOTE}".
 */
async function assertServesWithSettings(dir: string, token: string): Promise<void> {
  assert.equal(await launchAsClaudeDesktop(dir, { API_TOKEN: token }, "add", { a: 2, b: 3 }), "5");
  assert.equal(
    await launchAsClaudeDesktop(dir, { API_TOKEN: token }, "settings", {}),
    `Hello, token ${token}, note []`,
  );
}

/**
 * Replaces the bundle's compiled binary (built on a stand-in base, it cannot run) with a
 * stand-in that serves `serverDir` from source: the launch is then real up to the binary.
 */
async function standInBinary(unpackedDir: string, serverDir: string): Promise<void> {
  const manifest = JSON.parse(await Deno.readTextFile(`${unpackedDir}/manifest.json`));
  const entry = `${unpackedDir}/${manifest.server.entry_point}`;
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const denoDir = Deno.env.get("DENO_DIR");
  await Deno.writeTextFile(
    entry,
    `#!/bin/sh\n${denoDir === undefined ? "" : `export DENO_DIR=${quote(denoDir)}\n`}` +
      `exec ${quote(Deno.execPath())} run -A ${quote(`${ROOT}main.ts`)} --dir ${
        quote(serverDir)
      } "$@"\n`,
  );
  await Deno.chmod(entry, 0o755);
}

// ---------------------------------------------------------------------------------------------

Deno.test("publish: the schema fixture is the registry's 2025-12-11 server.schema.json, byte for byte as pinned", async () => {
  const bytes = await Deno.readFile(SCHEMA_FILE);
  assert.equal(await sha256(bytes), SCHEMA_SHA256, "the fixture changed: see its README");
  const schema = JSON.parse(new TextDecoder().decode(bytes));
  assert.equal(schema.$id, SERVER_SCHEMA);
  assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#");
});

/** `toolshed publish --dir examples/hello`, run once for the tests that look at its result. */
let helloRun: Promise<{ dir: string; result: Published }> | undefined;
async function helloPublished(use: (result: Published) => Promise<void>): Promise<void> {
  helloRun ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_hello_" });
    // Removed when the test process ends: the tests share it.
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    let kept: Published | undefined;
    await published(["--dir", HELLO], async (result) => {
      await Deno.mkdir(`${dir}/out`);
      for await (const file of Deno.readDir(result.out)) {
        await Deno.copyFile(`${result.out}/${file.name}`, `${dir}/out/${file.name}`);
      }
      kept = {
        ...result,
        out: `${dir}/out`,
        bundles: result.bundles.map((path) =>
          `${dir}/out/${path.slice(path.lastIndexOf("/") + 1)}`
        ),
      };
    });
    return { dir, result: kept! };
  })();
  await use((await helloRun).result);
}

Deno.test("publish: from examples/hello one command writes server.json and a .mcpb; server.json validates against the official schema and names the bundle's SHA-256", async () => {
  await helloPublished(async ({ code, said, printed, serverJson, bundles }) => {
    assert.equal(code, 0, said);
    assert.equal(bundles.length, 1);
    const validate = registryValidator();
    assert.ok(validate(serverJson), JSON.stringify(validate.errors, null, 2));
    assert.equal(serverJson.$schema, SERVER_SCHEMA);
    assert.equal(serverJson.name, "io.github.toolshed-examples/hello");
    const [pkg] = serverJson.packages as Record<string, unknown>[];
    assert.equal(pkg.registryType, "mcpb");
    assert.deepEqual(pkg.transport, { type: "stdio" });
    const bundle = bundles[0];
    const file = bundle.slice(bundle.lastIndexOf("/") + 1);
    assert.equal(file, `hello-1.0.0-${TARGET}.mcpb`);
    assert.equal(
      pkg.identifier,
      `https://github.com/toolshed-examples/hello/releases/download/v1.0.0/${file}`,
    );
    const digest = await sha256(await Deno.readFile(bundle));
    assert.equal(pkg.fileSha256, digest);
    // The registry refuses `version` on an mcpb package (the URL carries it).
    assert.ok(!("version" in pkg), "an mcpb package carries version, which the registry refuses");
    // What was written, and the SHA-256, are said.
    assert.match(printed, new RegExp(`${file}\\s+sha256 ${digest}`));
    assert.match(printed, /server\.json/);
    assert.equal(serverJson.remotes, undefined);

    // The bundle: the manifest and the compiled binary, executable.
    const entries = unzipSync(await Deno.readFile(bundle));
    assert.deepEqual(Object.keys(entries).sort(), ["manifest.json", "server/hello"]);
    const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
    assert.equal(manifest.server.type, "binary");
    assert.equal(manifest.server.entry_point, "server/hello");
    assert.equal(manifest.server.mcp_config.command, "${__dirname}/server/hello");
    assert.deepEqual(manifest.tools, [{ name: "add", description: "Adds two numbers" }]);
    assert.equal(manifest.prompts[0].name, "code_review");
    assert.deepEqual(manifest.prompts[0].arguments, ["language", "focus"]);
    assert.match(manifest.prompts[0].text, /\$\{arguments\.language\} code/);
    assert.deepEqual(manifest.compatibility, { platforms: ["linux"] });
    assert.deepEqual(manifest.author, { name: "The toolshed authors" });

    // The binary embeds the server directory's files verbatim (beside the generated entry).
    const binary = latin1(entries["server/hello"]);
    for (const file of ["tools/add.ts", "prompts/code_review.md", "server.meta.json"]) {
      const bytes = latin1(await Deno.readFile(`${HELLO}/${file}`));
      assert.ok(binary.includes(bytes), `${file} is not embedded in the binary`);
    }
    assert.ok(binary.includes("await start();"), "the generated entry module is not embedded");
    // And what main.ts imports only when a feature is used (deno.json loads it lazily, adr/0051).
    for (const lazy of ["lib/transports/http/server.ts", "lib/commands/check.ts"]) {
      const bytes = latin1(await Deno.readFile(new URL(`../${lazy}`, import.meta.url)));
      assert.ok(binary.includes(bytes), `${lazy}, imported lazily, is not embedded in the binary`);
    }
  });
});

/** Bytes as a string, one char per byte, so that byte sequences can be searched. */
function latin1(bytes: Uint8Array): string {
  return new TextDecoder("windows-1252").decode(bytes);
}

Deno.test("publish: the schema refuses a broken server.json (the validation can fail)", () => {
  const validate = registryValidator();
  const good = {
    $schema: SERVER_SCHEMA,
    name: "io.github.alice/weather",
    description: "Weather",
    version: "1.0.0",
    packages: [{
      registryType: "mcpb",
      identifier: "https://github.com/alice/weather/releases/download/v1.0.0/w.mcpb",
      fileSha256: "a".repeat(64),
      transport: { type: "stdio" },
    }],
  };
  assert.ok(validate(good), JSON.stringify(validate.errors));
  const broken: [string, Record<string, unknown>][] = [
    ["no version", { ...good, version: undefined }],
    ["a name without a slash", { ...good, name: "weather" }],
    ["a description over 100 characters", { ...good, description: "x".repeat(101) }],
    ["a remote URL that is not http(s)", {
      ...good,
      remotes: [{ type: "streamable-http", url: "ftp://example.com/mcp" }],
    }],
    ["a package without identifier", {
      ...good,
      packages: [{ registryType: "mcpb", transport: { type: "stdio" } }],
    }],
    ["a SHA-256 in capitals", {
      ...good,
      packages: [{ ...good.packages[0], fileSha256: "A".repeat(64) }],
    }],
  ];
  for (const [what, entry] of broken) {
    assert.equal(validate(JSON.parse(JSON.stringify(entry))), false, `${what} passed`);
  }
});

Deno.test(
  `publish: mcpb validate and mcpb info of the official CLI 2.1.2 accept the bundle from examples/hello${CLI_NOTE}`,
  {
    ignore: CLI_NOTE !== "",
  },
  async () => {
    assert.equal(MCPB_MISSING, undefined, `the official MCP Bundle CLI: ${MCPB_MISSING}`);
    await published(["--dir", HELLO], async ({ code, said, bundles }) => {
      assert.equal(code, 0, said);
      for (const bundle of bundles) {
        const info = await mcpb(["info", bundle]);
        assert.equal(info.code, 0, info.output);
        assert.match(info.output, /File: hello-1\.0\.0-/);
        await unpacked(bundle, async (dir) => {
          const validated = await mcpb(["validate", dir]);
          assert.equal(validated.code, 0, validated.output);
          assert.match(validated.output, /Manifest schema validation passes/);
          // The official unpack keeps the binary's mode from the zip's attributes.
          const mode = (await Deno.stat(`${dir}/server/hello`)).mode!;
          assert.equal(mode & 0o111, 0o111, `server/hello is ${mode.toString(8)}, not executable`);
        });
      }
    });
  },
);

Deno.test(
  `publish: the official CLI refuses a manifest without author or with a tool lacking a name (mcpb validate can fail)${CLI_NOTE}`,
  {
    ignore: CLI_NOTE !== "",
  },
  async () => {
    assert.equal(MCPB_MISSING, undefined, `the official MCP Bundle CLI: ${MCPB_MISSING}`);
    const meta = helloMeta();
    const good = manifestOf(meta, { tools: [{ name: "add" }], prompts: [] }, TARGET);
    const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_manifest_" });
    try {
      for (
        const [what, manifest] of [
          ["no author", { ...good, author: undefined }],
          ["a nameless tool", { ...good, tools: [{ description: "x" }] }],
        ] as const
      ) {
        await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest));
        const { code, output } = await mcpb(["validate", dir]);
        assert.notEqual(code, 0, `${what} passed: ${output}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  `publish: settings become user_config (sensitive when secret) and env in the manifest, environmentVariables in server.json; every target's manifest passes mcpb validate${CLI_NOTE}`,
  {
    ignore: CLI_NOTE !== "",
  },
  async () => {
    assert.equal(MCPB_MISSING, undefined, `the official MCP Bundle CLI: ${MCPB_MISSING}`);
    const meta = helloMeta({
      env: {
        GREETING: { description: "How the server greets", default: "Hello" },
        API_TOKEN: { description: "The token of the API", secret: true, required: true },
        NOTE: { description: "A note" },
      },
      websiteUrl: "https://example.com/hello",
      icons: [{ src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] }],
    });
    const listed = { tools: [{ name: "add", description: "Adds" }], prompts: [] };
    const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_manifest_" });
    try {
      for (
        const [target, platform] of [
          ["x86_64-unknown-linux-gnu", "linux"],
          ["aarch64-apple-darwin", "darwin"],
          ["x86_64-pc-windows-msvc", "win32"],
        ]
      ) {
        // deno-lint-ignore no-explicit-any -- a JSON document read field by field
        const manifest = manifestOf(meta, listed, target) as Record<string, any>;
        assert.deepEqual(manifest.compatibility, { platforms: [platform] });
        assert.deepEqual(manifest.server.mcp_config.env, {
          GREETING: "${user_config.GREETING}",
          API_TOKEN: "${user_config.API_TOKEN}",
          NOTE: "${user_config.NOTE}",
        });
        assert.deepEqual(manifest.user_config.API_TOKEN, {
          type: "string",
          title: "API_TOKEN",
          description: "The token of the API",
          required: true,
          sensitive: true,
        });
        assert.equal(manifest.user_config.GREETING.default, "Hello");
        assert.equal(manifest.user_config.GREETING.sensitive, undefined);
        // Optional without a default: "" (else Claude Desktop leaves the placeholder).
        assert.equal(manifest.user_config.NOTE.default, "");
        assert.equal(manifest.homepage, "https://example.com/hello");
        if (platform === "win32") assert.equal(manifest.server.entry_point, "server/hello.exe");
        await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest));
        const { code, output } = await mcpb(["validate", dir]);
        assert.equal(code, 0, `${target}: ${output}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const entry = serverJson(
      meta,
      [{ target: TARGET, file: "hello.mcpb", sha256: "0".repeat(64) }],
      "https://github.com/a/b/releases/download/v{version}/{file}",
      "https://hello.example.com/mcp",
      // deno-lint-ignore no-explicit-any -- a JSON document read field by field
    ) as Record<string, any>;
    const validate = registryValidator();
    assert.ok(validate(entry), JSON.stringify(validate.errors, null, 2));
    assert.deepEqual(entry.packages[0].environmentVariables, [
      {
        name: "GREETING",
        description: "How the server greets",
        isRequired: false,
        isSecret: false,
        default: "Hello",
      },
      { name: "API_TOKEN", description: "The token of the API", isRequired: true, isSecret: true },
      { name: "NOTE", description: "A note", isRequired: false, isSecret: false },
    ]);
    assert.ok(!("version" in entry.packages[0]), "an mcpb package carries version");
    assert.deepEqual(entry.remotes, [{
      type: "streamable-http",
      url: "https://hello.example.com/mcp",
    }]);
    assert.deepEqual(entry.icons, meta.icons);
  },
);

Deno.test(
  `publish: unpacked, the bundle's manifest starts the server as Claude Desktop would and the SDK client calls a tool with the user's settings, UP TO THE BINARY (offline the binary is compiled on a stand-in base; a stand-in running deno run -A main.ts --dir takes its place)${CLI_NOTE}`,
  {
    ignore: CLI_NOTE !== "",
  },
  async () => {
    assert.equal(MCPB_MISSING, undefined, `the official MCP Bundle CLI: ${MCPB_MISSING}`);
    await scratchServer(withSettings, async (server) => {
      await published(["--dir", server], async ({ code, said, bundles }) => {
        assert.equal(code, 0, said);
        await unpacked(bundles[0], async (dir) => {
          await standInBinary(dir, server);
          const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
          assert.deepEqual(manifest.tools.map((tool: { name: string }) => tool.name).sort(), [
            "add",
            "settings",
          ]);
          // Without the required API_TOKEN, Claude Desktop does not start the server.
          assert.equal(await mcpConfigFor(dir, {}), undefined);
          await assertServesWithSettings(dir, "t0k");
          assert.equal(
            await launchAsClaudeDesktop(dir, { API_TOKEN: "t0k", NOTE: "n" }, "settings", {}),
            "Hello, token t0k, note [n]",
          );
        });
      });
    });
  },
);

Deno.test({
  name: DENORT_REFUSAL === undefined
    ? "publish: for real with DENORT_BIN's denort: the compiled binary in the bundle, launched as Claude Desktop would, serves a tool call"
    : `publish: NOT RUN HERE, the bundle's real binary launched as Claude Desktop would (${DENORT_REFUSAL}; set DENORT_BIN to a denort of Deno ${Deno.version.deno} to run it)`,
  ignore: DENORT_REFUSAL !== undefined || MCPB_MISSING !== undefined,
  async fn() {
    await scratchServer(withSettings, async (server) => {
      await published(
        ["--dir", server],
        async ({ code, said, bundles }) => {
          assert.equal(code, 0, said);
          await unpacked(bundles[0], async (dir) => {
            await assertServesWithSettings(dir, "real");
          });
        },
        compileBinary,
        { DENORT_BIN: REAL_DENORT! },
      );
    });
  },
});

// ------------------------------------------------------------------------------- refusals

/** Runs publish on `dir` with `args`; the compile step must not be reached. */
async function refused(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  const io = memoryIo(env);
  const code = await publish(["--dir", dir, "--out", `${dir}/dist`, ...args], io, () => {
    throw new Error("publish compiled although it should have refused");
  });
  return { code, said: io.said() };
}

Deno.test("publish: refuses a directory without server.meta.json, naming the file, its fields and toolshed new", async () => {
  await scratchServer((dir) => Deno.remove(`${dir}/server.meta.json`), async (dir) => {
    const { code, said } = await refused(dir);
    assert.equal(code, 1);
    assert.match(said, /has no server\.meta\.json/);
    assert.match(said, /toolshed new/);
    assert.match(said, /"name": "io\.github\.OWNER\/NAME"/);
  });
});

Deno.test("publish: refuses server.meta.json without author, which the bundle's manifest needs", async () => {
  await scratchServer((dir) => editMeta(dir, (meta) => delete meta.author), async (dir) => {
    const { code, said } = await refused(dir);
    assert.equal(code, 1);
    assert.match(said, /has no author, which an MCP Bundle's manifest requires/);
  });
});

Deno.test("publish: refuses an unknown target, naming the one meant and the known ones", async () => {
  const { code, said } = await refused(HELLO, ["--target", "x86_64-unknown-linux-gnux"]);
  assert.equal(code, 2);
  assert.match(
    said,
    /Unknown target "x86_64-unknown-linux-gnux"; did you mean x86_64-unknown-linux-gnu\?/,
  );
  assert.match(said, /aarch64-apple-darwin/);
});

Deno.test("publish: refuses a --release-url that is no https URL, has an unknown placeholder or gives two targets one URL; warns of one the registry would refuse", async () => {
  for (
    const [template, expected] of [
      ["not a url/{file}", /is not a URL/],
      ["http://github.com/a/b/releases/download/v1/{file}", /must be an https URL/],
      ["https://github.com/a/b/releases/download/{tag}/{file}", /unknown placeholder\(s\) \{tag\}/],
    ] as const
  ) {
    const { code, said } = await refused(HELLO, ["--release-url", template]);
    assert.equal(code, 2, template);
    assert.match(said, expected);
  }
  const twoTargets = await refused(HELLO, [
    "--target",
    "x86_64-unknown-linux-gnu",
    "--target",
    "aarch64-apple-darwin",
    "--release-url",
    "https://github.com/a/b/releases/download/v1/server.mcpb",
  ]);
  assert.equal(twoTargets.code, 2);
  assert.match(twoTargets.said, /gives every target the same URL/);
  await published(
    ["--dir", HELLO, "--release-url", "https://downloads.example.com/{file}"],
    ({ code, said, serverJson }) => {
      assert.equal(code, 0, said);
      assert.match(said, /is not a GitHub or GitLab release asset/);
      const [pkg] = serverJson.packages as Record<string, unknown>[];
      assert.equal(pkg.identifier, `https://downloads.example.com/hello-1.0.0-${TARGET}.mcpb`);
    },
    fakeCompile,
  );
});

Deno.test("publish: refuses a server without a GitHub repository and no --release-url", async () => {
  await scratchServer((dir) => editMeta(dir, (meta) => delete meta.repository), async (dir) => {
    const { code, said } = await refused(dir);
    assert.equal(code, 2);
    assert.match(said, /give --release-url/);
  });
});

Deno.test("publish: with --public-url server.json gains a streamable-http remote and still validates", async () => {
  await published(
    ["--dir", HELLO, "--public-url", "https://hello.example.com/mcp"],
    ({ code, said, serverJson }) => {
      assert.equal(code, 0, said);
      assert.deepEqual(serverJson.remotes, [{
        type: "streamable-http",
        url: "https://hello.example.com/mcp",
      }]);
      const validate = registryValidator();
      assert.ok(validate(serverJson), JSON.stringify(validate.errors, null, 2));
    },
    fakeCompile,
  );
});

/** `toolshed publish ARGS` as a process (main.ts), with `env` added; its exit code and stderr. */
async function publishProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; said: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "publish", ...args],
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code, said: new TextDecoder().decode(stderr) };
}

Deno.test("publish: `toolshed publish` refuses DENORT_BIN naming the deno CLI, with compile's message, and writes nothing", async () => {
  const out = await Deno.makeTempDir({ prefix: "toolshed_publish_test_" });
  try {
    const { code, said } = await publishProcess(["--dir", HELLO, "--out", out], {
      DENORT_BIN: Deno.execPath(),
    });
    assert.equal(code, 1, said);
    assert.match(said, /Cannot compile for \S+: DENORT_BIN "[^"]+" is the deno CLI/);
    assert.match(said, /denort/);
    assert.deepEqual([...Deno.readDirSync(out)], []);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("publish: offline, a target other than this machine's says Deno cannot download its runtime, naming DENORT_BIN", async () => {
  const other = TARGET === "aarch64-apple-darwin" ? "x86_64-apple-darwin" : "aarch64-apple-darwin";
  const out = await Deno.makeTempDir({ prefix: "toolshed_publish_test_" });
  try {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
    listener.close();
    const { code, said } = await publishProcess(
      ["--dir", HELLO, "--out", out, "--target", other],
      { HTTPS_PROXY: closed, HTTP_PROXY: closed, NO_PROXY: "" },
    );
    assert.equal(code, 1, said);
    assert.match(
      said,
      new RegExp(
        `Cannot compile for ${other}: Deno cannot download its standalone runtime from ` +
          `"https://dl\\.deno\\.land/release/v${Deno.version.deno.replaceAll(".", "\\.")}/` +
          `denort-${other}\\.zip"`,
      ),
    );
    assert.match(said, /DENORT_BIN/);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("publish: an executable tool is left out of the bundle with a warning naming it, and its sidecar's env is not asked of the user", async () => {
  await scratchServer(async (dir) => {
    await Deno.writeTextFile(`${dir}/tools/lookup.sh`, "#!/bin/sh\necho found\n");
    await Deno.chmod(`${dir}/tools/lookup.sh`, 0o755);
    await Deno.writeTextFile(
      `${dir}/tools/lookup.json`,
      JSON.stringify({
        description: "Looks up",
        inputSchema: { type: "object" },
        env: ["LOOKUP_KEY"],
      }),
    );
  }, async (dir) => {
    await published(["--dir", dir], async ({ code, said, out, bundles }) => {
      assert.equal(code, 0, said);
      assert.match(
        said,
        /executable tool\(s\) lookup \(tools\/lookup\.json\) are left out of the bundles/,
      );
      assert.ok(!said.includes("/tools/lookup.json"), `the warning names a path: ${said}`);
      const entries = unzipSync(await Deno.readFile(bundles[0]));
      const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
      assert.deepEqual(manifest.tools.map((tool: { name: string }) => tool.name), ["add"]);
      assert.equal(manifest.user_config, undefined);
      const entry = JSON.parse(await Deno.readTextFile(`${out}/server.json`));
      assert.equal(entry.packages[0].environmentVariables, undefined);
    }, fakeCompile);
  });
});

/** examples/hello's metadata, with `extra` fields. */
function helloMeta(extra: Record<string, unknown> = {}): ServerMeta {
  const text = JSON.stringify({
    ...JSON.parse(Deno.readTextFileSync(`${HELLO}/server.meta.json`)),
    ...extra,
  });
  const parsed = parseServerMeta(text, "server.meta.json");
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed.meta;
}

Deno.test("publish: a tool importing a file outside the embedded folders fails publish, naming the file and what publish embeds", async () => {
  await scratchServer(async (dir) => {
    await Deno.mkdir(`${dir}/lib`);
    await Deno.writeTextFile(`${dir}/lib/util.ts`, "export const twice = (n: number) => 2 * n;\n");
    await Deno.writeTextFile(
      `${dir}/tools/doubled.ts`,
      `import { twice } from "../lib/util.ts";
export default {
  description: "Doubles a number",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  handler: ({ n }: { n: number }) => String(twice(n)),
};
`,
    );
  }, async (dir) => {
    // From source the directory serves it: the import resolves beside the folders.
    const { code, said } = await refused(dir);
    assert.equal(code, 1, said);
    assert.ok(said.includes(`${dir}/tools/doubled.ts`), said);
    assert.match(said, /lib\/util\.ts/);
    assert.match(
      said,
      /publish embeds only tools\/, resources\/, prompts\/, skills\/, ui\/, middleware\/ and server\.meta\.json/,
    );
    assert.ok(
      said.includes(`("${dir}/lib/util.ts" is outside them: move it into tools/`),
      `the file outside the embedded folders is not named as such: ${said}`,
    );
    assert.doesNotMatch(said, /toolshed_publish_(?!server_)/, "a staging path is shown");
  });
});

/**
 * A compile step like fakeCompile that first records what it was handed to compile: each file
 * of the staged copy under the includes, by its path there, with its text.
 */
function recordingCompile(staged: Map<string, string>): Compile {
  const record = async (path: string, under: string) => {
    const info = await Deno.stat(path);
    if (info.isFile) {
      staged.set(under, await Deno.readTextFile(path));
      return;
    }
    for await (const entry of Deno.readDir(path)) {
      await record(`${path}/${entry.name}`, `${under}/${entry.name}`);
    }
  };
  return async (request, report) => {
    for (const include of request.includes) {
      const path = include.replace(/\/$/, "");
      await record(`${request.cwd}/${path}`, path);
    }
    return await fakeCompile(request, report);
  };
}

/** Starts `main.ts --dir DIR ARGS` over stdio with no input, as a user would: its exit and stderr. */
async function startUp(dir: string, args: string[] = []): Promise<{ code: number; said: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}main.ts`, "--dir", dir, ...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return { code, said: new TextDecoder().decode(stderr) };
}

Deno.test("publish: a symbolic link to a file outside its folder (a resource, a prompt) is refused with start-up's own message naming the file; with --allow-outside-symlinks it is embedded as start-up then serves it", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_publish_outside_" });
  try {
    await Deno.writeTextFile(`${outside}/secret.txt`, "the secret outside\n");
    await Deno.writeTextFile(
      `${outside}/greet.md`,
      "---\ndescription: Greets the user\n---\nGreet the user warmly.\n",
    );
    await scratchServer(async (dir) => {
      await Deno.mkdir(`${dir}/resources`);
      await Deno.writeTextFile(`${dir}/resources/readme.txt`, "inside\n");
      await Deno.symlink(`${outside}/secret.txt`, `${dir}/resources/secret.txt`);
      await Deno.symlink(`${outside}/greet.md`, `${dir}/prompts/greet.md`);
    }, async (dir) => {
      const started = await startUp(dir);
      assert.equal(started.code, 1, started.said);
      const lines = started.said.split("\n").filter((line) => line.startsWith("  "));
      assert.equal(lines.length, 2, started.said);
      assert.ok(lines.some((line) => line.includes(`"${dir}/resources/secret.txt"`)), started.said);
      assert.ok(lines.some((line) => line.includes(`"${dir}/prompts/greet.md"`)), started.said);

      const { code, said } = await refused(dir);
      assert.equal(code, 1, said);
      assert.match(said, /^toolshed: Cannot publish: 2 problem\(s\) in the server directory/);
      for (const line of lines) assert.ok(said.includes(`${line}\n`), `not "${line}": ${said}`);

      assert.equal((await startUp(dir, ["--allow-outside-symlinks"])).code, 0);
      const staged = new Map<string, string>();
      await published(
        ["--dir", dir, "--allow-outside-symlinks"],
        async ({ code, said, bundles }) => {
          assert.equal(code, 0, said);
          assert.equal(staged.get("resources/secret.txt"), "the secret outside\n");
          assert.match(staged.get("prompts/greet.md") ?? "", /Greet the user warmly/);
          assert.ok(
            said.includes(
              `the bundles embed what 2 symbolic link(s) point to outside their folder: ` +
                `"resources/secret.txt" to "${await Deno.realPath(`${outside}/secret.txt`)}", ` +
                `"prompts/greet.md" to "${await Deno.realPath(`${outside}/greet.md`)}"\n`,
            ),
            said,
          );
          const entries = unzipSync(await Deno.readFile(bundles[0]));
          const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
          assert.ok(manifest.prompts.some((prompt: { name: string }) => prompt.name === "greet"));
        },
        recordingCompile(staged),
      );
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("publish: ui/, middleware/ and skills/ stage what their loaders serve: a link to outside is refused in start-up's words, a skill folder linked in (no skill at start-up) is refused", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_publish_outside_" });
  const skill = (name: string) =>
    `---\nname: ${name}\ndescription: Notes on ${name}. Use when asked.\n---\n\n# ${name}\n`;
  try {
    await Deno.writeTextFile(`${outside}/app.html`, "<!doctype html><p>outside</p>\n");
    await Deno.writeTextFile(
      `${outside}/mw.ts`,
      "export default (next) => (call) => next(call);\n",
    );
    await Deno.mkdir(`${outside}/linked`);
    await Deno.writeTextFile(`${outside}/linked/SKILL.md`, skill("linked"));
    await Deno.writeTextFile(`${outside}/ref.md`, "A reference from outside.\n");
    await scratchServer(async (dir) => {
      for (const folder of ["ui", "middleware", "skills/notes"]) {
        await Deno.mkdir(`${dir}/${folder}`, { recursive: true });
      }
      await Deno.writeTextFile(`${dir}/skills/notes/SKILL.md`, skill("notes"));
      await Deno.symlink(`${outside}/app.html`, `${dir}/ui/outside.html`);
      await Deno.symlink(`${outside}/mw.ts`, `${dir}/middleware/10_outside.ts`);
      await Deno.symlink(`${outside}/ref.md`, `${dir}/skills/notes/ref.md`);
    }, async (dir) => {
      const started = await startUp(dir);
      assert.equal(started.code, 1, started.said);
      const lines = started.said.split("\n").filter((line) => line.startsWith("  "));
      for (const file of ["ui/outside.html", "middleware/10_outside.ts", "skills/notes"]) {
        assert.ok(
          lines.some((line) => line.includes(`${dir}/${file}`)),
          `${file}: ${started.said}`,
        );
      }
      let result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      for (const line of lines) {
        assert.ok(result.said.includes(`${line}\n`), `not "${line}": ${result.said}`);
      }
      for (const link of ["ui/outside.html", "middleware/10_outside.ts", "skills/notes/ref.md"]) {
        await Deno.remove(`${dir}/${link}`);
      }
      await Deno.symlink(`${outside}/linked`, `${dir}/skills/linked`);
      result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      assert.match(result.said, /\(skill "[^"]*linked[^"]*" only in the binary\)/);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("publish: dot files and folders (tools/.env, resources/.cache/, prompts/.draft.md) are left out of the staged copy and named once on stderr with their count; --include-dotfiles embeds them", async () => {
  await scratchServer(async (dir) => {
    await Deno.writeTextFile(`${dir}/tools/.env`, "API_KEY=do-not-ship\n");
    await Deno.mkdir(`${dir}/resources/.cache`, { recursive: true });
    await Deno.writeTextFile(`${dir}/resources/a.txt`, "served\n");
    await Deno.writeTextFile(`${dir}/resources/.cache/old.txt`, "cached\n");
    await Deno.writeTextFile(`${dir}/prompts/.draft.md`, "Not yet.\n");
  }, async (dir) => {
    const staged = new Map<string, string>();
    await published(["--dir", dir], ({ code, said }) => {
      assert.equal(code, 0, said);
      assert.ok(staged.has("tools/add.ts") && staged.has("resources/a.txt"), [...staged].join());
      assert.deepEqual([...staged.keys()].filter((path) => /(^|\/)\./.test(path)), []);
      assert.equal(said.split("left out of the bundles").length, 2, said);
      assert.ok(
        said.includes(
          `toolshed: note: 3 dot file(s) and folder(s) left out of the bundles, as no folder ` +
            `serves them: "tools/.env", "resources/.cache/", "prompts/.draft.md" ` +
            `(--include-dotfiles embeds them)\n`,
        ),
        said,
      );
    }, recordingCompile(staged));

    staged.clear();
    await published(["--dir", dir, "--include-dotfiles"], ({ code, said }) => {
      assert.equal(code, 0, said);
      assert.equal(staged.get("tools/.env"), "API_KEY=do-not-ship\n");
      assert.equal(staged.get("resources/.cache/old.txt"), "cached\n");
      assert.equal(staged.get("prompts/.draft.md"), "Not yet.\n");
      assert.doesNotMatch(said, /left out/);
    }, recordingCompile(staged));
  });
});

Deno.test("publish: a symbolic link is copied as what it points to, said when that is outside its folder; a link to a folder the binary would serve and the directory does not, a loop or a dangling link is refused", async () => {
  const outside = await Deno.makeTempDir({ prefix: "toolshed_publish_outside_" });
  try {
    const tool = (description: string, body = "") =>
      `${body}export default { description: ${
        JSON.stringify(description)
      }, inputSchema: { type: "object", properties: {} }, handler: () => "ok" };\n`;
    await Deno.mkdir(`${outside}/shared`);
    await Deno.writeTextFile(`${outside}/shared/shared_tool.ts`, tool("Shared"));
    await Deno.writeTextFile(`${outside}/shared/_helper.ts`, "export const helped = true;\n");
    await Deno.writeTextFile(`${outside}/linked_file.ts`, tool("Linked"));
    await scratchServer(async (dir) => {
      // Start-up serves a tool module through a link, and a tool importing a helper folder.
      await Deno.symlink(`${outside}/linked_file.ts`, `${dir}/tools/linked.ts`);
      await Deno.symlink(`${outside}/shared`, `${dir}/tools/_shared`);
      await Deno.writeTextFile(
        `${dir}/tools/helped.ts`,
        tool("Helped", 'import { helped } from "./_shared/_helper.ts";\nvoid helped;\n'),
      );
      // A link inside the folder to a file inside it.
      await Deno.writeTextFile(`${dir}/tools/_impl.ts`, tool("Aliased"));
      await Deno.symlink(`${dir}/tools/_impl.ts`, `${dir}/tools/alias.ts`);
    }, async (dir) => {
      const staged = new Map<string, string>();
      await published(["--dir", dir], async ({ code, said, bundles }) => {
        assert.equal(code, 0, said);
        const entries = unzipSync(await Deno.readFile(bundles[0]));
        const manifest = JSON.parse(new TextDecoder().decode(entries["manifest.json"]));
        assert.deepEqual(
          manifest.tools.map((tool: { name: string }) => tool.name).sort(),
          ["add", "alias", "helped", "linked"],
        );
        assert.equal(staged.get("tools/alias.ts"), tool("Aliased"));
        assert.equal(staged.get("tools/_shared/_helper.ts"), "export const helped = true;\n");
        const real = await Deno.realPath(outside);
        assert.ok(
          said.includes(
            `the bundles embed what 2 symbolic link(s) point to outside their folder: ` +
              `"tools/_shared" to "${real}/shared", "tools/linked.ts" to "${real}/linked_file.ts"\n`,
          ),
          said,
        );
      }, recordingCompile(staged));
      // A link to a folder of tools: start-up loads no toolset through it, a copy would.
      await Deno.symlink(`${outside}/shared`, `${dir}/tools/shared`);
      let result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      assert.match(
        result.said,
        /the binary would not serve what "[^"]+" serves \(tool "shared_tool" only in the binary\): publish copies a symbolic link to a folder as a folder/,
      );
      await Deno.remove(`${dir}/tools/shared`);
      // A link back to a folder that holds it.
      await Deno.symlink(dir, `${outside}/shared/back`);
      result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      assert.match(result.said, /is a symbolic link to "[^"]+", a folder that holds it/);
      await Deno.remove(`${outside}/shared/back`);
      await Deno.symlink(`${outside}/nothing`, `${dir}/tools/data.csv`);
      result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      assert.match(result.said, /the symbolic link "[^"]+data\.csv" points to nothing/);
      await Deno.remove(`${dir}/tools/data.csv`);
      // A dangling tool module start-up refuses itself, in its words.
      await Deno.symlink(`${outside}/nothing.ts`, `${dir}/tools/dangling.ts`);
      result = await refused(dir);
      assert.equal(result.code, 1, result.said);
      assert.match(result.said, /Cannot publish: 1 problem\(s\)[^]*tools\/dangling\.ts/);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("publish: refuses the TODO values toolshed new wrote, naming each field, before compiling", async () => {
  await scratchServer(
    (dir) =>
      editMeta(dir, (meta) => {
        meta.description = "TODO: what this server does";
        meta.author = { name: "TODO: your name" };
      }),
    async (dir) => {
      const { code, said } = await refused(dir);
      assert.equal(code, 1);
      assert.match(
        said,
        /still holds the TODO that toolshed new wrote in description, author\.name/,
      );
    },
  );
});

Deno.test("publish: refuses a --release-url with an unclosed { or whose URL does not end with the bundle's file name", async () => {
  for (
    const [template, expected] of [
      ["https://github.com/a/b/releases/download/v1/{file", /has a "\{" that is not closed/],
      [
        "https://github.com/a/b/releases/download/v1/{target}.zip",
        /does not end with its file name, the name the bundle is uploaded as/,
      ],
      ["https://github.com/a/b/releases/download/v{version}/server.mcpb", /does not end with/],
    ] as const
  ) {
    const { code, said } = await refused(HELLO, ["--release-url", template]);
    assert.equal(code, 2, `${template}: ${said}`);
    assert.match(said, expected);
  }
});

Deno.test("publish: refuses --target a,b (repeat --target), a --public-url that is not a plain http(s) URL, and an --out inside an embedded folder (through a symbolic link too)", async () => {
  const comma = await refused(HELLO, [
    "--target",
    "x86_64-unknown-linux-gnu,aarch64-apple-darwin",
  ]);
  assert.equal(comma.code, 2);
  assert.match(comma.said, /repeat --target for each/);
  for (const url of ['https://x/mcp"><', "https://", "ftp://x/mcp", "https://x /mcp"]) {
    const { code, said } = await refused(HELLO, ["--public-url", url]);
    assert.equal(code, 2, url);
    assert.match(said, /is not an http\(s\) URL/);
  }
  await scratchServer(() => Promise.resolve(), async (dir) => {
    // A link outside the directory that leads into tools/: the same folder, by another name.
    await Deno.symlink(`${dir}/tools`, `${dir}.tools-link`);
    for (
      const out of [`${dir}/tools`, `${dir}/prompts/dist`, "tools/x", `${dir}.tools-link/dist`]
    ) {
      const io = memoryIo();
      const code = await publish(["--dir", dir, "--out", out], { ...io, cwd: dir }, () => {
        throw new Error("publish compiled although it should have refused");
      });
      assert.equal(code, 2, out);
      assert.match(io.said(), /which the binary embeds: the next publish would embed these/);
    }
    await Deno.remove(`${dir}.tools-link`);
  });
});

Deno.test("publish: a failed compile leaves no --out directory that publish would have created", async () => {
  const parent = await Deno.makeTempDir({ prefix: "toolshed_publish_test_" });
  try {
    const io = memoryIo();
    const code = await publish(
      ["--dir", HELLO, "--out", `${parent}/dist`],
      io,
      () => Promise.resolve("no runtime here"),
    );
    assert.equal(code, 1);
    assert.match(io.said(), /Cannot compile for \S+: no runtime here/);
    assert.deepEqual([...Deno.readDirSync(parent)], []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
