// `toolshed publish --no-bundles` and `--npm-package` (lib/commands/publish.ts, adr/0067):
// server.json alone for a remote-only server or one installed from npm, and an npm package
// entry beside the bundles, each checked against the registry's 2025-12-11 schema
// (tests/fixtures/registry/) with Ajv. In process, with a compile step that fails the test if
// it is called where nothing should be compiled.
import assert from "node:assert/strict";
import { Ajv } from "npm:ajv@8.20.0";
import addFormatsModule from "npm:ajv-formats@3.0.1";
import { publish } from "../lib/commands/publish.ts";
import type { Compile } from "../lib/commands/publish_stage.ts";
import type { Io } from "../lib/commands/command.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const HELLO = `${ROOT}examples/hello`;
const SCHEMA_FILE = `${ROOT}tests/fixtures/registry/server.schema.2025-12-11.json`;

// deno-lint-ignore no-explicit-any -- ajv-formats' CommonJS default, as Deno hands it over
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

/** Throws unless `entry` is valid against the registry's schema. */
function assertValid(entry: unknown): void {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(Deno.readTextFileSync(SCHEMA_FILE)));
  assert.ok(validate(entry), JSON.stringify(validate.errors, null, 2));
}

/** A compile step for runs that must compile nothing. */
const noCompile: Compile = () => {
  throw new Error("publish compiled where it should not have");
};

/** A compile step writing a few bytes where the binary goes (what the bundle holds is moot). */
const fakeCompile: Compile = async (request) => {
  await Deno.mkdir(request.output.slice(0, request.output.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(request.output, "not a binary");
  return undefined;
};

interface Run {
  code: number;
  said: string;
  printed: string;
  /** The files --out holds afterwards. */
  files: string[];
  serverJson: Record<string, unknown> | undefined;
}

/** `toolshed publish ARGS --out TEMP` in process. */
async function run(args: string[], compile: Compile = noCompile): Promise<Run> {
  const out = await Deno.makeTempDir({ prefix: "toolshed_publish_json_" });
  try {
    let said = "";
    let printed = "";
    const io: Io = {
      out: (text) => void (printed += text),
      err: (text) => void (said += text),
      env: () => undefined,
      cwd: ROOT,
    };
    const code = await publish([...args, "--out", out], io, compile);
    const files = [...Deno.readDirSync(out)].map((entry) => entry.name).sort();
    const serverJson = files.includes("server.json")
      ? JSON.parse(await Deno.readTextFile(`${out}/server.json`))
      : undefined;
    return { code, said, printed, files, serverJson };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** A copy of examples/hello with `edit` applied to its server.meta.json. */
async function helloWith(
  edit: (meta: Record<string, unknown>) => void,
  use: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_publish_json_server_" });
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.copyFile(`${HELLO}/tools/add.ts`, `${dir}/tools/add.ts`);
    const meta = JSON.parse(await Deno.readTextFile(`${HELLO}/server.meta.json`));
    edit(meta);
    await Deno.writeTextFile(`${dir}/server.meta.json`, JSON.stringify(meta));
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("publish --no-bundles --public-url: server.json alone, a streamable-http remote and no packages, valid against the registry's schema; nothing compiled", async () => {
  const { code, said, printed, files, serverJson } = await run(
    ["--dir", HELLO, "--no-bundles", "--public-url", "https://hello.example.com/mcp"],
  );
  assert.equal(code, 0, said);
  assert.deepEqual(files, ["server.json"]);
  assert.ok(serverJson !== undefined);
  assert.deepEqual(serverJson.remotes, [
    { type: "streamable-http", url: "https://hello.example.com/mcp" },
  ]);
  assert.equal("packages" in serverJson, false);
  assert.equal(serverJson.name, "io.github.toolshed-examples/hello");
  assert.equal(serverJson.version, "1.0.0");
  assertValid(serverJson);
  assert.match(printed, /server\.json {2}\(a streamable-http remote; no bundles/);
});

Deno.test("publish --no-bundles --npm-package: an npm package run with npx, its version from server.meta.json or the flag, the settings as its environment variables; valid; says what the registry checks of the package", async () => {
  const scoped = await run(["--dir", HELLO, "--no-bundles", "--npm-package", "@alice/hello"]);
  assert.equal(scoped.code, 0, scoped.said);
  assert.deepEqual(scoped.files, ["server.json"]);
  assert.deepEqual(scoped.serverJson?.packages, [{
    registryType: "npm",
    identifier: "@alice/hello",
    version: "1.0.0",
    runtimeHint: "npx",
    transport: { type: "stdio" },
  }]);
  assert.equal(scoped.serverJson !== undefined && "remotes" in scoped.serverJson, false);
  assertValid(scoped.serverJson);
  assert.match(
    scoped.printed,
    /@alice\/hello@1\.0\.0 only if its package\.json says "mcpName": "io\.github\.toolshed-examples\/hello"/,
  );

  await helloWith((meta) => {
    meta.env = { API_TOKEN: { description: "The token", secret: true, required: true } };
    // server.json needs no author (only a bundle's manifest does).
    delete meta.author;
  }, async (dir) => {
    const both = await run([
      "--dir",
      dir,
      "--no-bundles",
      "--npm-package",
      "hello-mcp@2.0.0-rc.1",
      "--public-url",
      "https://hello.example.com/mcp",
    ]);
    assert.equal(both.code, 0, both.said);
    const [pkg] = both.serverJson?.packages as Record<string, unknown>[];
    assert.equal(pkg.identifier, "hello-mcp");
    assert.equal(pkg.version, "2.0.0-rc.1");
    assert.deepEqual(pkg.environmentVariables, [
      { name: "API_TOKEN", description: "The token", isRequired: true, isSecret: true },
    ]);
    assert.equal((both.serverJson?.remotes as unknown[]).length, 1);
    assertValid(both.serverJson);
  });
});

Deno.test("publish --npm-package with bundles: server.json lists the mcpb bundle and the npm package, and validates", async () => {
  const { code, said, printed, files, serverJson } = await run(
    ["--dir", HELLO, "--npm-package", "hello-mcp"],
    fakeCompile,
  );
  assert.equal(code, 0, said);
  assert.equal(files.filter((file) => file.endsWith(".mcpb")).length, 1);
  const packages = serverJson?.packages as Record<string, unknown>[];
  assert.deepEqual(packages.map((pkg) => pkg.registryType), ["mcpb", "npm"]);
  assert.equal(packages[1].identifier, "hello-mcp");
  assertValid(serverJson);
  assert.match(printed, /1 mcpb package\(s\), the npm package hello-mcp\)/);
});

Deno.test("publish: --no-bundles and --npm-package refuse bad combinations and values in one line, exit 2, writing nothing", async () => {
  const cases: [string[], RegExp][] = [
    [["--no-bundles"], /--no-bundles leaves server\.json with no way to reach or install/],
    [
      ["--no-bundles", "--public-url", "https://a.example/mcp", "--target", "aarch64-apple-darwin"],
      /--no-bundles packs no bundles, so --target has nothing to do/,
    ],
    [
      ["--no-bundles", "--npm-package", "a", "--release-url", "https://x.example/{file}"],
      /so --release-url has nothing to do/,
    ],
    [
      ["--no-bundles", "--npm-package", "a", "--include-dotfiles"],
      /so --include-dotfiles has nothing to do/,
    ],
    [["--npm-package", "Hello-MCP"], /is not an npm package name .*did you mean hello-mcp\?/],
    [["--npm-package", "hello mcp"], /"hello mcp" is not an npm package name/],
    [["--npm-package", "hello@^1.0.0"], /names the version "\^1\.0\.0", which is not one exact/],
    [["--npm-package", "@alice/hello@latest"], /names the version "latest"/],
    [["--npm-package", ""], /--npm-package needs a value/],
  ];
  for (const [args, expected] of cases) {
    const { code, said, files } = await run(["--dir", HELLO, ...args]);
    assert.equal(code, 2, `${args.join(" ")}: ${said}`);
    assert.match(said, expected);
    assert.equal(said.trimEnd().split("\n").length, 1, said);
    assert.deepEqual(files, [], args.join(" "));
  }
});

Deno.test("publish --no-bundles still refuses what start-up refuses and the TODOs toolshed new wrote", async () => {
  await helloWith((meta) => {
    meta.description = "TODO: what this server does";
  }, async (dir) => {
    const { code, said } = await run(["--dir", dir, "--no-bundles", "--npm-package", "a"]);
    assert.equal(code, 1);
    assert.match(said, /still holds the TODO that toolshed new wrote in description/);
  });
  await helloWith(() => {}, async (dir) => {
    await Deno.writeTextFile(`${dir}/tools/broken.ts`, "export default { description: 1 };\n");
    const { code, said, files } = await run(["--dir", dir, "--no-bundles", "--npm-package", "a"]);
    assert.equal(code, 1);
    assert.match(said, /Cannot publish: 1 problem\(s\) in the server directory, which start-up/);
    assert.match(said, /broken\.ts/);
    assert.deepEqual(files, []);
  });
});
