// `maxResultChars` (adr/0073 §6): a tool's results bounded the way hosts read them — the text cut
// to the bound with a note saying so, structured content dropped with it unless an outputSchema
// requires it, `_meta["anthropic/maxResultSizeChars"]` listed for Claude Code; from a module, an
// executable's sidecar and an API's correction; code in code mode gets the whole result. In
// process (createServer's `request`), and boundedResult itself for the edges.
import assert from "node:assert/strict";
import { createServer } from "../mod.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { boundedResult } from "../lib/primitives/result_size.ts";
import { withHangGuard } from "./_server_process.ts";

const KEY = "anthropic/maxResultSizeChars";

const OPENAPI = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: { "/pets": { get: { operationId: "listPets" } } },
};

/** A tools directory: modules with and without a bound, an executable with one, an API. */
async function directory(apiCorrection: unknown = { maxResultChars: 2_000 }): Promise<string> {
  const dir = await Deno.makeTempDir();
  const write = (name: string, text: string) => Deno.writeTextFile(`${dir}/tools/${name}`, text);
  await Deno.mkdir(`${dir}/tools`);
  await write(
    "big.ts",
    `export default {
      description: "Answers 3,000 characters, bounded at 1,000",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      maxResultChars: 1000,
      handler: () => "y".repeat(3000),
    };`,
  );
  await write(
    "shaped.ts",
    `export default {
      description: "Answers a long structured value under an outputSchema",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { text: { type: "string" } } },
      annotations: { readOnlyHint: true },
      maxResultChars: 1000,
      handler: () => ({ text: "z".repeat(3000) }),
    };`,
  );
  await write(
    "free.ts",
    `export default {
      description: "Answers 3,000 characters with no bound",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      handler: () => "f".repeat(3000),
    };`,
  );
  await write("long.sh", "#!/bin/sh\nhead -c 5000 /dev/zero | tr '\\0' 'p'\n");
  await Deno.chmod(`${dir}/tools/long.sh`, 0o755);
  await write(
    "long.json",
    JSON.stringify({
      description: "An executable bounded by its sidecar",
      inputSchema: { type: "object" },
      maxResultChars: 1500,
    }),
  );
  await write("pets.openapi.json", JSON.stringify(OPENAPI));
  await write(
    "pets.api.json",
    JSON.stringify({ baseUrl: "http://127.0.0.1:9/v1", tools: { listPets: apiCorrection } }),
  );
  return dir;
}

type Server = Awaited<ReturnType<typeof createServer>>;
type Result = { content: { type: string; text: string }[]; structuredContent?: unknown };

async function serving<T>(
  config: Parameters<typeof createServer>[0],
  use: (server: Server) => Promise<T>,
): Promise<T> {
  const server = await createServer({ codePool: 0, ...config });
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

async function called(server: Server, name: string, args: object = {}): Promise<Result> {
  const answer = await withHangGuard(
    server.request("tools/call", { name, arguments: args }),
    `the call of ${name}`,
    60_000,
  );
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return answer.result as Result;
}

Deno.test("maxResultChars lists anthropic/maxResultSizeChars for a module, a sidecar and an API's correction", async () => {
  await serving({ dir: await directory() }, async (server) => {
    const answer = await server.request("tools/list", {});
    const tools = (answer.result as { tools: { name: string; _meta?: object }[] }).tools;
    const metaOf = (name: string) => tools.find((tool) => tool.name === name)?._meta;
    assert.deepEqual(metaOf("big"), { [KEY]: 1000 });
    assert.deepEqual(metaOf("long"), { [KEY]: 1500 });
    assert.deepEqual(metaOf("listPets"), { [KEY]: 2000 });
    assert.equal(metaOf("free"), undefined);
  });
});

Deno.test("maxResultChars cuts a result's text to the bound, saying so, and drops its structured copy", async () => {
  await serving({ dir: await directory() }, async (server) => {
    const big = await called(server, "big");
    assert.equal(big.content.length, 1);
    assert.equal(big.content[0].text.length, 1000);
    assert.match(
      big.content[0].text,
      /^y+\n\[toolshed cut this result at 1000 of its 3000 characters: ask for less/,
    );
    const long = await called(server, "long");
    assert.equal(long.content[0].text.length, 1500);
    assert.match(long.content[0].text, /cut this result at 1500 of its 5000 characters/);
    // No bound: the whole answer.
    assert.equal((await called(server, "free")).content[0].text, "f".repeat(3000));
  });
});

Deno.test("maxResultChars keeps the structured content an outputSchema requires", async () => {
  await serving({ dir: await directory() }, async (server) => {
    const shaped = await called(server, "shaped");
    assert.equal(shaped.content[0].text.length, 1000);
    assert.deepEqual(shaped.structuredContent, { text: "z".repeat(3000) });
  });
});

Deno.test("maxResultChars leaves code in code mode the whole result", async () => {
  await serving({ dir: await directory(), codeMode: true }, async (server) => {
    const ran = await called(server, "run_code", {
      code: "const text = await tools.big({}); return [text.length, text.includes('cut')];",
    });
    assert.deepEqual((ran.structuredContent as { value: unknown }).value, [3000, false]);
  });
});

Deno.test("maxResultChars refuses a value out of bounds or an own _meta that says otherwise", async () => {
  const definition = {
    description: "d",
    inputSchema: { type: "object" },
    handler: () => "",
  };
  for (const wrong of [999, 10_000_001, 1500.5, "1500"]) {
    assert.throws(
      () => checkDefinition({ ...definition, maxResultChars: wrong }, "t", "t.ts"),
      {
        message: `maxResultChars must be an integer from 1000 to 10000000 (characters of text ` +
          `in one result), not ${JSON.stringify(wrong)}`,
      },
    );
  }
  assert.throws(
    () =>
      checkDefinition({ ...definition, maxResultChars: 1000, _meta: { [KEY]: 5 } }, "t", "t.ts"),
    { message: `_meta sets "${KEY}" to 5 but maxResultChars is 1000: drop one of them` },
  );
  const dir = await directory({ maxResultChars: 10 });
  await assert.rejects(() => createServer({ dir }), /maxResultChars must be an integer from 1000/);
});

Deno.test("boundedResult keeps what fits, cuts once across blocks, keeps images, never halves a character", () => {
  const fits = { content: [{ type: "text", text: "a".repeat(1000) }] };
  assert.equal(boundedResult(fits, 1000, false), fits);
  assert.equal(boundedResult(fits, undefined, false), fits);

  const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
  const mixed = {
    content: [
      { type: "text", text: "a".repeat(600) },
      image,
      { type: "text", text: "b".repeat(900) },
      { type: "text", text: "c".repeat(50) },
    ],
    structuredContent: { kept: false },
  };
  const cut = boundedResult(mixed, 1000, false);
  const texts = cut.content.filter((block) => block.type === "text") as { text: string }[];
  assert.equal(texts.length, 2, "the block after the cut is dropped");
  assert.equal(texts.reduce((sum, block) => sum + block.text.length, 0), 1000);
  assert.equal(texts[0].text, "a".repeat(600));
  assert.match(texts[1].text, /^b+\n\[toolshed cut this result at 1000 of its 1550 characters/);
  assert.deepEqual(cut.content[1], image);
  assert.equal("structuredContent" in cut, false);
  assert.deepEqual(boundedResult(mixed, 1000, true).structuredContent, { kept: false });

  // An emoji (two UTF-16 units) across the cut is left out whole, never halved: the room for
  // text is measured on a plain text of the same length, then the emoji put at its last unit.
  const total = 5000;
  const plain = boundedResult(
    { content: [{ type: "text", text: "x".repeat(total) }] },
    1000,
    false,
  );
  const room = plain.content[0].text.indexOf("\n[");
  const before = "x".repeat(room - 1);
  const text = `${before}😀${"x".repeat(total - room - 1)}`;
  const emoji = boundedResult({ content: [{ type: "text", text }] }, 1000, false).content[0].text;
  assert.equal(emoji.slice(0, emoji.indexOf("\n[")), before, "no lone high surrogate is kept");
});
