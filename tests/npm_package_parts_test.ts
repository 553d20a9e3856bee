// Parts of the npm package as build/npm_package.ts writes them (tests/npm_package_test.ts builds,
// publishes and installs the whole of it): the bin (build/npm/toolshed.cjs), with the Deno flags
// the bundle runs with (lib/commands/invocation.ts npmBundleFlags) in place of its one
// placeholder line; the import map those flags name; and the package's deno.json, which a bundle
// run by hand finds.
import assert from "node:assert/strict";
import { BIN_PACKAGE_ROOT, denoJson, importMap, withBundleFlags } from "../build/npm_package.ts";
import { NPM_IMPORT_MAP_PATH, npmBundleFlags } from "../lib/commands/invocation.ts";

const BIN = new URL("../build/npm/toolshed.cjs", import.meta.url);
const MANIFEST = {
  name: "@toolshed/toolshed",
  version: "0.1.0",
  exports: "./mod.ts",
  publish: { include: [] },
};
const decoder = new TextDecoder();

Deno.test("the written bin runs the bundle with the package's flags, at its own folder", async () => {
  const flags = npmBundleFlags(BIN_PACKAGE_ROOT);
  const written = withBundleFlags(await Deno.readTextFile(BIN), flags);
  assert.ok(flags.some((flag) => flag.includes(BIN_PACKAGE_ROOT)));
  assert.ok(written.includes(`\nconst BUNDLE_FLAGS = ${JSON.stringify(flags)};\n`));
  assert.match(
    written,
    /"run",\s+"-A",\s+\.\.\.BUNDLE_FLAGS\.map\(\(flag\) => flag\.split\("\{package\}"\)\.join\(PACKAGE\)\),\s+BUNDLE,/,
  );
  assert.match(written, /^const PACKAGE = path\.join\(__dirname, "\.\."\);$/m);
  assert.doesNotMatch(written, /^const BUNDLE_FLAGS = \[\];$/m);
});

/** A package folder with `files` (path → text), and a bundle that prints what it imports. */
async function packageWith(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "toolshed_package_" });
  await Deno.mkdir(`${root}/dist/bundle`, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return root;
}

async function runBundle(root: string, flags: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, `${root}/dist/bundle/toolshed.js`],
    cwd: root,
  }).output();
  return { code, out: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("the bin's flags are ones Deno takes", async () => {
  const root = await packageWith({ [NPM_IMPORT_MAP_PATH]: JSON.stringify(importMap(MANIFEST)) });
  try {
    // Deno refuses an unknown flag of its own; V8 ignores an unknown V8 flag only with a
    // warning, which `--v8-flags` prints and this checks for.
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["eval", ...npmBundleFlags(root), "console.log(1)"],
      stdout: "null",
      stderr: "piped",
    }).output();
    const said = decoder.decode(stderr);
    assert.equal(code, 0, said);
    assert.doesNotMatch(said, /unrecognized|error|warning/i);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(
  "a start as the bin runs it reads no configuration, and finds @toolshed/toolshed by the import map",
  async () => {
    // A deno.json, package.json and deno.lock Deno cannot parse: a start that reads any fails.
    const root = await packageWith({
      "deno.json": "not json",
      "package.json": "not json",
      "deno.lock": "not a lock",
      [NPM_IMPORT_MAP_PATH]: JSON.stringify(importMap(MANIFEST)),
      "mod.ts": 'export const name = "the package\'s mod.ts";\n',
      "dist/bundle/toolshed.js":
        'const { name } = await import("@toolshed/toolshed");\nconsole.log(name);\n',
    });
    try {
      const { code, out } = await runBundle(root, npmBundleFlags(root));
      assert.equal(code, 0, out);
      assert.equal(out, "the package's mod.ts\n");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

Deno.test("a bin without its placeholder line, or with two, is refused", () => {
  const flags = npmBundleFlags(BIN_PACKAGE_ROOT);
  const replaced = 'flag.split("{package}").join(PACKAGE)';
  assert.throws(
    () => withBundleFlags(`const BUNDLE = 1;\n${replaced}\n`, flags),
    /^Error: Cannot write the bin: build\/npm\/toolshed\.cjs has "const BUNDLE_FLAGS = \[\];" 0 times, not once$/,
  );
  const twice = `const BUNDLE_FLAGS = [];\nconst BUNDLE_FLAGS = [];\n${replaced}\n`;
  assert.throws(() => withBundleFlags(twice, flags), /2 times, not once/);
});

Deno.test("a bin that does not put its folder in the flags is refused", () => {
  assert.throws(
    () => withBundleFlags("const BUNDLE_FLAGS = [];\n", npmBundleFlags(BIN_PACKAGE_ROOT)),
    /^Error: Cannot write the bin: build\/npm\/toolshed\.cjs does not put its folder in place of \{package\}/,
  );
});

Deno.test("a bundle run by hand, under the package's deno.json, reads no lock", async () => {
  const root = await packageWith({
    "deno.json": JSON.stringify(denoJson(MANIFEST)),
    // A lock Deno cannot parse: a start that reads it fails.
    "deno.lock": "not a lock",
    "dist/bundle/toolshed.js": 'console.log("started");\n',
  });
  try {
    const { code, out } = await runBundle(root, []);
    assert.equal(code, 0, out);
    assert.equal(out, "started\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
