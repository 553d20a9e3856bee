// What lib/code/declarations.ts writes, type-checked by `deno check` (adr/0073 decision 3): the
// declarations of every construct hold the calls their schemas accept and refuse the ones they
// refuse (each refusal a `@ts-expect-error`, which fails when nothing is refused); every golden
// file of tests/fixtures/declarations/ checks, and so do the declarations of the largest OpenAPI
// document in the corpus, star-trek.json, all 120 operations served (adr/0072). One `deno check`
// process per test, each file its own module (each declares `tools`).
import assert from "node:assert/strict";
import { declarationsOf } from "../lib/code/declarations.ts";
import { CONSTRUCTS, examplesWithTools, goldenDeclarations } from "./_declarations.ts";
import { withHangGuard } from "./_server_process.ts";
import { starTrekTools } from "./_tool_corpus.ts";

/** After each text: every method's arguments and result, so that each is resolved. */
const RESOLVE_ALL = `
type Each = {
  [K in keyof typeof tools]: [Parameters<(typeof tools)[K]>, Awaited<ReturnType<(typeof tools)[K]>>];
};
export const each: Each | undefined = undefined;
`;

/** Runs `deno check` on `files` (name → text) in a scratch folder; its output when it fails. */
async function denoCheck(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_declarations_" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const { success, stdout, stderr } = await withHangGuard(
      new Deno.Command(Deno.execPath(), {
        args: ["check", "--quiet", ...Object.keys(files)],
        cwd: dir,
        env: { NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output(),
      "deno check",
      120_000,
    );
    const text = new TextDecoder();
    return { ok: success, output: text.decode(stdout) + text.decode(stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("declarationsOf() gives types under which deno check passes the calls the schemas accept and refuses the rest", async () => {
  const text = declarationsOf(Object.values(CONSTRUCTS).flatMap((make) => make()));
  const calls = `
const sum: number = (await tools.add({ a: 1 })).sum;
await tools.add({ a: 1, b: 2 });
// @ts-expect-error: "a" is required
await tools.add({ b: 2 });
// @ts-expect-error: "a" is a number
await tools.add({ a: "1" });
// @ts-expect-error: the result has no "total"
(await tools.add({ a: 1 })).total;
await tools["tool-with-dash"]();
await tools["tool-with-dash"]({ "content-type": "text/plain", new: "x", ok_name: null });
// @ts-expect-error: "2x" is a boolean
await tools["tool-with-dash"]({ "2x": "yes" });
await tools["9lives"]();
// @ts-expect-error: it takes no property
await tools["9lives"]({ a: 1 });
await tools.pick({ choice: 'a"b' });
await tools.pick({ choice: null, maybe: null, fixed: { k: [1] } });
// @ts-expect-error: not one of the enum's values
await tools.pick({ choice: "c" });
// @ts-expect-error: not the const
await tools.pick({ choice: 1, fixed: { k: [2] } });
await tools.mix({ any: 1, one: { kind: "b", size: 2 }, all: { x: 1, y: 2 }, loose: [] });
// @ts-expect-error: kind "b" needs a size
await tools.mix({ one: { kind: "b" } });
// @ts-expect-error: neither a string nor a number
await tools.mix({ any: true });
await tools.shape({ map: { a: 1 }, mixed: { id: "x", flag: true }, patterned: { "x-a": "b" } });
await tools.shape({ mixed: { id: "x", rank: 1 } });
// @ts-expect-error: other keys are booleans (or the properties' types), never null
await tools.shape({ mixed: { id: "x", other: null } });
await tools.shape({ needs: { q: 1 }, open: { anything: [] }, closed: {} });
await tools.shape({ deep: { inner: { x: 1 }, other: "s" } });
// @ts-expect-error: the inner object's x is a number
await tools.shape({ deep: { inner: { x: "1" } } });
// @ts-expect-error: the map's values are numbers
await tools.shape({ map: { a: "1" } });
// @ts-expect-error: "q" is required
await tools.shape({ needs: {} });
// @ts-expect-error: it has no properties
await tools.shape({ empty: { a: 1 } });
await tools.lists({ pair: [1, "a"], tags: ["a"], nested: [["a", 1]], objs: [{ n: 1 }] });
await tools.lists({ pair: [1, "a", true], anything: [1, "a"] });
// @ts-expect-error: the pair holds 2 at least
await tools.lists({ pair: [1] });
// @ts-expect-error: and 3 at most
await tools.lists({ pair: [1, "a", true, 4] });
await tools.old({ old: ["a", 1, 2] });
// @ts-expect-error: numbers after the first item
await tools.old({ old: ["a", "b"] });
const tree = await tools.tree({ root: { children: [{ children: [], leaf: "id" }] }, self: { self: {} } });
const item: number | undefined = tree.again?.again?.item;
// @ts-expect-error: children are required at every level
await tools.tree({ root: { children: [{}] } });
const listed: boolean | undefined = (await tools.list({ item: "a" })).item;
// @ts-expect-error: the input's Item is a string, the output's a boolean
await tools.list({ item: true });
await tools.flags({ x: 1, z: "any" });
// @ts-expect-error: y is never
await tools.flags({ y: 1 });
await tools.doc({ code: "ab", when: "now", n: 1 });
// @ts-expect-error: no such tool
await tools.nothing();
export { item, listed, sum };
`;
  const checked = await denoCheck({ "constructs.ts": text + calls + RESOLVE_ALL });
  assert.ok(checked.ok, checked.output);
});

Deno.test("declarationsOf() text of each golden file and of star-trek.json's 120 operations passes deno check", async () => {
  const files: Record<string, string> = {};
  for (const name of await examplesWithTools()) {
    files[`${name}.ts`] = (await goldenDeclarations(name)) + RESOLVE_ALL;
  }
  const tools = await starTrekTools();
  assert.equal(tools.length, 120);
  const text = declarationsOf(tools);
  assert.equal(text.match(/^ {2}"?[\w.-]+"?\(args/gm)?.length, 120, "a method per tool");
  files["startrek.ts"] = text + RESOLVE_ALL;
  const checked = await denoCheck(files);
  assert.ok(checked.ok, checked.output);
});
