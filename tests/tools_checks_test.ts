// The repository's own checks (_tools/, adr/0061 step 9), each pointed at a small tree planted
// in a temporary directory: it fails naming what was planted, and passes once it is gone.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { isTest, unusedExports } from "../_tools/check_unused_exports.ts";
import { handWrittenBase64url } from "../_tools/check_base64url.ts";

const TOOLS = new URL("../_tools/", import.meta.url);

/** Writes `files` (path → text) under a new temporary directory and returns it. */
async function plant(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "toolshed_tools_" });
  for (const [path, text] of Object.entries(files)) {
    const dir = path.split("/").slice(0, -1).join("/");
    if (dir !== "") await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return root;
}

/** Runs a tool as `deno task check` does, on `root`: its exit code and what it said. */
async function run(tool: string, root: string): Promise<{ code: number; said: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", new URL(tool, TOOLS).pathname, root],
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code, said: new TextDecoder().decode(stderr) };
}

/** A small repository: a public entry, lib/ modules used in each way the tool reads. */
const REPOSITORY: Record<string, string> = {
  "deno.json": JSON.stringify({ exports: "./mod.ts", imports: { "@fake/pkg": "./mod.ts" } }),
  "mod.ts": [
    `export { publicThing } from "./lib/public.ts";`,
    `export * from "./lib/starred.ts";`,
    `import { usedByEntry } from "./lib/entry_use.ts";`,
    `export const answer = usedByEntry();`,
  ].join("\n"),
  "lib/public.ts": [
    `import { inner } from "./inner.ts";`,
    `export function publicThing() { return inner() + dynamicOne(); }`,
    `async function dynamicOne() {`,
    `  const { lazy, other: renamed } = await import("./lazy.ts");`,
    `  const typed: typeof import("./types.ts").Shape = { a: 1 };`,
    `  return lazy() + renamed + (await import("./read_at_once.ts")).atOnce + typed.a;`,
    `}`,
  ].join("\n"),
  "lib/inner.ts": [
    `import * as space from "./space.ts";`,
    `export function inner(): number { return space.spaced; }`,
    'const text = `a template ${`nested ${1}`} } with import { helper, lonely } from "./entry_use.ts"`;',
    `const pattern = /import { helper, lonely } from ".\\/entry_use.ts"/;`,
    `export { text as renamedText, pattern };`,
  ].join("\n"),
  "lib/space.ts": `export const spaced = 1;\n`,
  "lib/lazy.ts": `export const lazy = () => 1;\nexport const other = 2;\n`,
  "lib/types.ts": `export interface Shape { a: number }\n`,
  "lib/read_at_once.ts": `export const atOnce = 3;\n`,
  "lib/starred.ts": `export type Starred = string;\n`,
  "lib/entry_use.ts": [
    `export function usedByEntry(given?: Given) { return given?.n ?? 1; }`,
    `/** The contract of usedByEntry, exported when a test names it (and the types it names). */`,
    `interface Given { n: number; deep?: Inner }`,
    `interface Inner { mode: Mode }`,
    `type Mode = "a" | "b";`,
  ].join("\n"),
  "lib/travels.ts": `export function run() { return 2; }\n`,
  "lib/table.ts": [
    `export const load = () => import("./travels.ts");`,
    `// the namespace travels on; the name \`run\` is read where it lands`,
  ].join("\n"),
  "lib/for_bench.ts": `export function measured() { return 1; }\n`,
  "bench/a_bench.ts": [
    `import { measured } from "../lib/for_bench.ts";`,
    `import { load } from "../lib/table.ts";`,
    `import { renamedText, pattern } from "../lib/inner.ts";`,
    `(await load()).run(measured(), renamedText, pattern);`,
  ].join("\n"),
  "examples/hello/tool.ts": `import { answer } from "@fake/pkg";\nexport default answer;\n`,
  "tests/fixtures/mod_test_helper.ts": `export const fixture = 1;\n`,
};

/** The same repository with an export only a test imports, and one nobody imports. */
const PLANTED: Record<string, string> = {
  ...REPOSITORY,
  "lib/entry_use.ts": [
    `export function usedByEntry(given?: Given, _?: Unasked) { return given?.n ?? helper(); }`,
    `export function helper() { return 1; }`,
    `export interface Nobody { a: number }`,
    `export interface Given { n: number; deep?: Inner }`,
    `export const lonely = 0;`,
    `// import { lonely } from "./entry_use.ts" in a comment is no import`,
    `interface Inner { mode: Mode }`,
    `export type Mode = "a" | "b";`,
    `export type Unasked = number;`,
  ].join("\n"),
  "lib/travels.ts": `export const travelling = 1;\n${REPOSITORY["lib/travels.ts"]}`,
  "tests/entry_use_test.ts": [
    `import { type Given, helper, type Mode, type Nobody } from "../lib/entry_use.ts";`,
    `import { travelling } from "../lib/travels.ts";`,
    `helper(); travelling;`,
  ].join("\n"),
};

Deno.test("check_unused_exports: an export only tests import, and one nobody imports, are named with their lines; a test may import the types a used export names", async () => {
  const root = await plant(PLANTED);
  try {
    const { findings, stale } = await unusedExports(root);
    deepStrictEqual(findings, [
      { file: "lib/entry_use.ts", line: 2, name: "helper", testers: ["tests/entry_use_test.ts"] },
      { file: "lib/entry_use.ts", line: 3, name: "Nobody", testers: ["tests/entry_use_test.ts"] },
      { file: "lib/entry_use.ts", line: 5, name: "lonely", testers: [] },
      { file: "lib/entry_use.ts", line: 9, name: "Unasked", testers: [] },
      { file: "lib/travels.ts", line: 1, name: "travelling", testers: ["tests/entry_use_test.ts"] },
    ]);
    deepStrictEqual(stale, []);

    const { code, said } = await run("check_unused_exports.ts", root);
    strictEqual(code, 1, said);
    ok(
      said.includes(
        `lib/entry_use.ts:2: export "helper": only tests import it (tests/entry_use_test.ts)`,
      ),
      said,
    );
    ok(said.includes(`lib/entry_use.ts:3: export "Nobody": only tests import it`), said);
    ok(said.includes(`lib/entry_use.ts:5: export "lonely": nothing imports it`), said);
    ok(said.includes(`lib/travels.ts:1: export "travelling"`), said);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_unused_exports: passes a tree whose every export of lib/ has a user outside the tests", async () => {
  const root = await plant(REPOSITORY);
  try {
    deepStrictEqual(await unusedExports(root), { findings: [], stale: [] });
    const { code, said } = await run("check_unused_exports.ts", root);
    strictEqual(code, 0, said);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_unused_exports: an allow-list entry leaves its export alone, and a stale one is named", async () => {
  const root = await plant(PLANTED);
  try {
    const { findings, stale } = await unusedExports(root, {
      allowed: {
        "lib/entry_use.ts": { helper: "a test reads the limit", usedByEntry: "no longer unused" },
        "lib/gone.ts": { anything: "a file of another tree" },
      },
    });
    deepStrictEqual(findings.map(({ name }) => name), [
      "Nobody",
      "lonely",
      "Unasked",
      "travelling",
    ]);
    deepStrictEqual(stale, ["lib/entry_use.ts: usedByEntry"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_unused_exports: test files are those under tests/ and *_test.ts", () => {
  deepStrictEqual(
    [
      "tests/a.ts",
      "examples/hello/tests/add_test.ts",
      "lib/a_test.ts",
      "lib/tests.ts",
      "bench/x.ts",
    ]
      .map(isTest),
    [true, true, true, false, false],
  );
});

const HAND_WRITTEN = [
  `export function encode(bytes: Uint8Array): string {`,
  `  return btoa(String.fromCharCode(...bytes))`,
  `    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");`,
  `}`,
  `export function decode(text: string): string {`,
  `  return atob(text.replaceAll("-", "+").replaceAll('_', "/"));`,
  `}`,
  `const TABLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";`,
].join("\n");

const CLEAN = [
  `export function encode(bytes: Uint8Array): string {`,
  `  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });`,
  `}`,
  `export function decode(text: string): Uint8Array {`,
  `  return Uint8Array.fromBase64(text, { alphabet: "base64url" });`,
  `}`,
  `export const basic = (user: string) => "Basic " + btoa(encodeURIComponent(user));`,
  `export const dashes = (name: string) => name.replaceAll("_", "-");`,
].join("\n");

Deno.test("check_base64url: a hand-written base64url in lib/ is named by line and rule", async () => {
  const root = await plant({
    "lib/auth/encode.ts": HAND_WRITTEN,
    "lib/clean.ts": CLEAN,
    "lib/schema/vendor/theirs.ts": HAND_WRITTEN,
    "tests/encode_test.ts": HAND_WRITTEN,
  });
  try {
    deepStrictEqual(
      (await handWrittenBase64url(root)).map(({ file, line, what }) => `${file}:${line} ${what}`),
      [
        "lib/auth/encode.ts:2 bytes made base64 through String.fromCharCode and btoa",
        `lib/auth/encode.ts:3 "+" replaced by "-" by hand`,
        `lib/auth/encode.ts:3 "/" replaced by "_" by hand`,
        `lib/auth/encode.ts:6 "-" replaced by "+" by hand`,
        `lib/auth/encode.ts:6 "_" replaced by "/" by hand`,
        "lib/auth/encode.ts:8 the base64url alphabet written out",
      ],
    );
    const { code, said } = await run("check_base64url.ts", root);
    strictEqual(code, 1, said);
    ok(said.includes(`lib/auth/encode.ts:3: hand-written base64url: "+" replaced by "-"`), said);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check_base64url: passes the runtime's toBase64 and fromBase64, and base64 of text", async () => {
  const root = await plant({ "lib/clean.ts": CLEAN });
  try {
    deepStrictEqual(await handWrittenBase64url(root), []);
    const { code, said } = await run("check_base64url.ts", root);
    strictEqual(code, 0, said);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
