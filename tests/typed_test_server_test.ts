// testServer's typed calls (adr/0069 step 3), checked by `deno check` on
// tests/fixtures/typed_test_server/calls.ts and run against that directory: arguments typed
// from a tool's JSON Schema (inline in defineTool, or `as const`), Zod schema or handler;
// structuredContent from its outputSchema; `content[0].text`, a resource's contents and a
// prompt's messages readable as written; a name the type argument does not hold untyped. The
// fixture holds its expected failures as `// @ts-expect-error` lines, so one passing check
// proves both directions; a copy with one expectation removed is checked to fail with the
// compiler's message.
import assert from "node:assert/strict";
import { typedCalls } from "./fixtures/typed_test_server/calls.ts";

const FIXTURES = new URL("./fixtures/typed_test_server/", import.meta.url);
const CONFIG = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);

async function check(file: string): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", CONFIG, file],
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("testServer() types calls by the tools named, and the results as a client reads them (deno check)", async () => {
  const { code, output } = await check(decodeURIComponent(new URL("calls.ts", FIXTURES).pathname));
  assert.equal(code, 0, output);
});

Deno.test("testServer() refuses a call whose arguments disagree with the tool's schema", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_typed_test_server_" });
  try {
    const directive = "  // @ts-expect-error: a is a number by the schema, not a string\n";
    const text = await Deno.readTextFile(new URL("calls.ts", FIXTURES));
    assert.ok(text.includes(directive), "the fixture has the expectation to remove");
    // Its relative imports made absolute; a nonce so that Deno's check cache does not answer.
    const copy = `${dir}/calls.ts`;
    await Deno.writeTextFile(
      copy,
      text.replace(directive, "").replaceAll(
        /from "(\.\.?\/[^"]+)"/g,
        (_, path) => `from "${new URL(path, FIXTURES).href}"`,
      ) + `// ${crypto.randomUUID()}\n`,
    );
    const { code, output } = await check(copy);
    assert.notEqual(code, 0, output);
    assert.match(output, /TS2322 \[ERROR\]: Type 'string' is not assignable to type 'number'\./);
    assert.match(output, /server\.call\("add", \{ a: "1", b: 2 \}\)/);
    assert.equal(output.match(/TS\d+ \[ERROR\]/g)?.length, 1, output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testServer() answers the typed calls with the values their types describe", async () => {
  await typedCalls();
});
