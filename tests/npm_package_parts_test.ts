// Parts of the npm package as build/npm_package.ts writes them (tests/npm_package_test.ts builds,
// publishes and installs the whole of it): the bin (build/npm/toolshed.cjs), with the Deno flags
// the bundle runs with (lib/commands/invocation.ts NPM_BUNDLE_FLAGS) in place of its one
// placeholder line, and the package's deno.json, which every start of the bundle finds.
import assert from "node:assert/strict";
import { denoJson, withBundleFlags } from "../build/npm_package.ts";
import { NPM_BUNDLE_FLAGS } from "../lib/commands/invocation.ts";

const BIN = new URL("../build/npm/toolshed.cjs", import.meta.url);

Deno.test("the written bin runs the bundle with the package's flags", async () => {
  const written = withBundleFlags(await Deno.readTextFile(BIN), NPM_BUNDLE_FLAGS);
  assert.ok(NPM_BUNDLE_FLAGS.length > 0);
  assert.ok(written.includes(`\nconst BUNDLE_FLAGS = ${JSON.stringify(NPM_BUNDLE_FLAGS)};\n`));
  assert.match(written, /"run",\s+"-A",\s+\.\.\.BUNDLE_FLAGS,\s+BUNDLE,/);
  assert.doesNotMatch(written, /^const BUNDLE_FLAGS = \[\];$/m);
});

Deno.test("the bin's flags are ones Deno takes", async () => {
  // Deno refuses an unknown flag of its own; V8 ignores an unknown V8 flag only with a warning,
  // which `--v8-flags` prints and this checks for.
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", ...NPM_BUNDLE_FLAGS, "console.log(1)"],
    stdout: "null",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(stderr);
  assert.equal(code, 0, said);
  assert.doesNotMatch(said, /unrecognized|error/i);
});

Deno.test("a bin without its placeholder line, or with two, is refused", () => {
  assert.throws(
    () => withBundleFlags("const BUNDLE = 1;\n", NPM_BUNDLE_FLAGS),
    /^Error: Cannot write the bin: build\/npm\/toolshed\.cjs has "const BUNDLE_FLAGS = \[\];" 0 times, not once$/,
  );
  const twice = "const BUNDLE_FLAGS = [];\nconst BUNDLE_FLAGS = [];\n";
  assert.throws(() => withBundleFlags(twice, NPM_BUNDLE_FLAGS), /2 times, not once/);
});

Deno.test("a start under the package's deno.json reads no lock", async () => {
  const root = await Deno.makeTempDir({ prefix: "toolshed_package_" });
  try {
    const manifest = {
      name: "@toolshed/toolshed",
      version: "0.1.0",
      exports: "./mod.ts",
      publish: { include: [] },
    };
    await Deno.writeTextFile(`${root}/deno.json`, JSON.stringify(denoJson(manifest)));
    // A lock Deno cannot parse: a start that reads it fails.
    await Deno.writeTextFile(`${root}/deno.lock`, "not a lock");
    await Deno.mkdir(`${root}/dist/bundle`, { recursive: true });
    await Deno.writeTextFile(`${root}/dist/bundle/toolshed.js`, 'console.log("started");\n');
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...NPM_BUNDLE_FLAGS, `${root}/dist/bundle/toolshed.js`],
      cwd: root,
    }).output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, decoder.decode(stderr));
    assert.equal(decoder.decode(stdout), "started\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
