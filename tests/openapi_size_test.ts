// lib/openapi/size.ts (adr/0072 decision 2): what `check` says of an API — the operations served
// and left out, counted here from the document's own JSON; the bytes of tools/list, equal to
// what the real server sends for the same folder; each host's cap; code mode past every cap;
// an operation toolshed cannot serve, a warning, or an error when the sidecar names it.
//
// The corpus is @readme/oas-examples 8.2.2 from deno's npm cache, found as
// tests/openapi_schemas_test.ts finds it (the static import makes deno fetch the package).
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import "npm:@readme/oas-examples@8.2.2/3.0/json/petstore.json" with { type: "json" };
import { apiSize } from "../lib/openapi/size.ts";
import { readApi } from "../lib/openapi/load_api.ts";
import { statelessTool } from "../lib/methods/results.ts";
import { CURSOR_TOOL_CAP, OPENAI_TOOL_CAP, VSCODE_TOOL_CAP } from "../lib/schema/client_limits.ts";
import { isObject, type JsonObject } from "../lib/util/json.ts";
import { startInProcess } from "./_in_process.ts";
import { STATELESS_META, withHangGuard } from "./_server_process.ts";
import { BROKEN_API } from "./_openapi_documents.ts";

const PETSTORE = new URL("./fixtures/openapi/petstore-3.1.json", import.meta.url);
const CORPUS = new URL(".", import.meta.resolve("npm:@readme/oas-examples@8.2.2/package.json"));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The operations of a document's raw JSON, as "METHOD /path", counted without openapi/. */
function operationsOf(document: JsonObject): string[] {
  const paths = isObject(document.paths) ? document.paths : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    isObject(item)
      ? Object.keys(item).filter((key) => METHODS.includes(key)).map((method) =>
        `${method.toUpperCase()} ${path}`
      )
      : []
  );
}

/** A scratch folder with tools/`<stem>`.openapi.json and, when given, its sidecar. */
async function withApi<T>(
  stem: string,
  document: string,
  sidecar: JsonObject | undefined,
  body: (dir: string, file: URL) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_size_" });
  try {
    await Deno.mkdir(`${dir}/tools`);
    await Deno.writeTextFile(`${dir}/tools/${stem}.openapi.json`, document);
    if (sidecar !== undefined) {
      await Deno.writeTextFile(`${dir}/tools/${stem}.api.json`, JSON.stringify(sidecar));
    }
    return await body(dir, new URL(`file://${dir}/tools/${stem}.openapi.json`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The report on the API at `file`, as check makes it. */
async function report(file: URL, stem: string) {
  const api = await readApi(file, `tools/${stem}.openapi.json`, () => undefined);
  return apiSize(api, {
    file: `tools/${stem}.openapi.json`,
    stem,
    sidecar: `tools/${stem}.api.json`,
    render: statelessTool,
  });
}

/** Every tool the real server lists for `dir` (all pages), and the bytes of them as one list. */
async function listed(dir: string): Promise<{ names: string[]; bytes: number }> {
  const server = await startInProcess(["--dir", dir]);
  const tools: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 1; page <= 100; page++) {
    const params = { _meta: STATELESS_META, ...(cursor === undefined ? {} : { cursor }) };
    server.send(JSON.stringify({ jsonrpc: "2.0", id: page, method: "tools/list", params }));
    const line = await withHangGuard(server.nextLine(), "tools/list");
    ok(line !== null, "the server ended");
    const { result } = JSON.parse(line);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  equal(cursor, undefined, "more than 100 pages");
  await server.end();
  const bytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
  return { names: tools.map((tool) => String(tool.name)), bytes };
}

Deno.test("apiSize() on petstore without a sidecar: GET and HEAD served, the rest counted, bytes as the server lists them", async () => {
  const text = await Deno.readTextFile(PETSTORE);
  const operations = operationsOf(JSON.parse(text));
  const reads = operations.filter((operation) => /^(GET|HEAD) /.test(operation));
  // Its servers[0] is https, so no sidecar is needed.
  await withApi("pets", text, undefined, async (dir, file) => {
    const [counts, cost, caps, ...problems] = await report(file, "pets");
    deepStrictEqual(problems, []);
    const size = counts.size!;
    equal(size.operations, operations.length);
    equal(size.chosenBy, "curated default");
    equal(size.leftOut, operations.length - reads.length);
    equal(size.served.tools, reads.length);
    equal(size.all.tools, operations.length);
    const served = await listed(dir);
    equal(served.names.length, reads.length);
    equal(size.served.bytes, served.bytes);
    equal(size.served.tokens, Math.ceil(served.bytes / 4));
    equal(
      counts.message,
      `serves ${reads.length} of its ${operations.length} operations: ` +
        `${operations.length - reads.length} left out by the curated default, which serves GET ` +
        `and HEAD only (list the operations to serve, "*" for all, in "operations" of ` +
        `"tools/pets.api.json")`,
    );
    match(
      cost.message,
      /^tools\/list carries [\d,]+ bytes, about [\d,]+ tokens for the \d+ tools served; all \d+ would be [\d,]+ bytes, about [\d,]+ tokens \(tokens estimated as UTF-8 bytes \/ 4\)$/,
    );
    ok(cost.message.includes(`${size.served.bytes.toLocaleString("en-US")} bytes`));
    ok(cost.message.includes(`all ${operations.length} would be`));
    equal(
      caps.message,
      `all ${operations.length} fit every host's cap on tools (Cursor 40, VS Code 128, ` +
        "OpenAI 128), counted with the host's other servers' tools",
    );
  });
});

Deno.test('apiSize() on petstore with "operations": what the sidecar chooses is served, and all of it costs what the server lists', async () => {
  const text = await Deno.readTextFile(PETSTORE);
  const operations = operationsOf(JSON.parse(text));
  // A timeout is the server's, never listed: the bytes are the wire's, not the definition's.
  const sidecar = { operations: ["*"], timeoutMs: 5000 };
  await withApi("pets", text, sidecar, async (dir, file) => {
    const [counts, cost] = await report(file, "pets");
    const size = counts.size!;
    equal(size.chosenBy, "operations");
    equal(size.leftOut, 0);
    equal(size.served.tools, operations.length);
    deepStrictEqual(size.all, size.served);
    const all = await listed(dir);
    equal(all.names.length, operations.length);
    equal(size.all.bytes, all.bytes);
    equal(
      counts.message,
      `serves ${operations.length} of its ${operations.length} operations (every one, by ` +
        `"operations" in "tools/pets.api.json")`,
    );
    ok(!cost.message.includes("would be"), cost.message);
  });
  await withApi("pets", text, { operations: ["getPetById", "POST /pets"] }, async (_dir, file) => {
    const [counts] = await report(file, "pets");
    equal(counts.size!.served.tools, 2);
    equal(counts.size!.leftOut, operations.length - 2);
    match(counts.message, /: \d+ left out by "operations" in "tools\/pets\.api\.json"$/);
  });
});

/** The corpus's OpenAPI 3 document with the most operations, and its operations. */
async function largestOfCorpus(): Promise<{ path: string; text: string; operations: string[] }> {
  let largest: { path: string; text: string; operations: string[] } | undefined;
  for (const folder of ["3.0/json/", "3.1/json/"]) {
    for await (const entry of Deno.readDir(new URL(folder, CORPUS))) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      const text = await Deno.readTextFile(new URL(`${folder}${entry.name}`, CORPUS));
      const operations = operationsOf(JSON.parse(text));
      if (largest === undefined || operations.length > largest.operations.length) {
        largest = { path: `${folder}${entry.name}`, text, operations };
      }
    }
  }
  ok(largest !== undefined, "no document in the corpus");
  return largest;
}

Deno.test("apiSize() on the corpus's largest document: past Cursor's cap, within VS Code's and OpenAI's, figures equal the server's", async () => {
  const { path, text, operations } = await largestOfCorpus();
  const reads = operations.filter((operation) => /^(GET|HEAD) /.test(operation));
  // Its servers[0] is plain http to another host, so the sidecar gives the base URL.
  const base = { baseUrl: "https://127.0.0.1/api" };
  await withApi("big", text, base, async (dir, file) => {
    const [counts, , caps, ...problems] = await report(file, "big");
    const size = counts.size!;
    equal(size.operations, operations.length, path);
    equal(size.unservable, problems.length);
    const served = await listed(dir);
    equal(size.served.tools, served.names.length);
    equal(size.served.bytes, served.bytes);
    // What is left out is what is not a read; a read toolshed cannot serve is left out too.
    equal(size.leftOut, operations.length - reads.length);
    equal(size.served.tools + size.unservedChosen, reads.length);
    equal(size.all.tools + size.unservable, operations.length);
    ok(size.all.tools > CURSOR_TOOL_CAP.limit && size.all.tools <= VSCODE_TOOL_CAP.limit, path);
    equal(
      caps.message,
      `all ${size.all.tools} are more than Cursor takes (40: it ${CURSOR_TOOL_CAP.effect}); ` +
        "VS Code (128) and OpenAI (128) would take them",
    );
  });
  await withApi("big", text, { ...base, operations: ["*"] }, async (dir, file) => {
    const [counts] = await report(file, "big");
    const all = await listed(dir);
    equal(counts.size!.all.tools, all.names.length);
    equal(counts.size!.all.bytes, all.bytes);
  });
});

/** A document of `count` GET operations, `/r0` … */
function manyReads(count: number): string {
  const paths: JsonObject = {};
  for (let index = 0; index < count; index++) {
    paths[`/r${index}`] = {
      get: { operationId: `read${index}`, responses: { "200": { description: "OK" } } },
    };
  }
  return JSON.stringify({
    openapi: "3.1.0",
    info: { title: "many", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths,
  });
}

Deno.test("apiSize() points past every host's cap at a chosen few and at code mode", async () => {
  const limit = Math.max(CURSOR_TOOL_CAP.limit, VSCODE_TOOL_CAP.limit, OPENAI_TOOL_CAP.limit);
  await withApi("many", manyReads(limit), undefined, async (_dir, file) => {
    const [, , caps] = await report(file, "many");
    ok(!caps.message.includes("code mode"), caps.message);
  });
  await withApi("many", manyReads(limit + 1), undefined, async (_dir, file) => {
    const [counts, , caps] = await report(file, "many");
    equal(counts.size!.served.tools, limit + 1);
    equal(
      caps.message,
      `the ${limit + 1} served are more tools than any host takes (Cursor 40, VS Code 128, ` +
        `OpenAI 128): serve a chosen few with "operations" in "tools/many.api.json", or all of ` +
        "them in code mode (--code-mode, /mcp/code), where a model finds and calls operations " +
        "through three tools",
    );
  });
});

Deno.test('apiSize() warns on each operation toolshed cannot serve, and errs when "operations" names it', async () => {
  await withApi("broken", BROKEN_API, undefined, async (_dir, file) => {
    const [counts, , , ...problems] = await report(file, "broken");
    equal(counts.size!.served.tools, 1);
    equal(counts.size!.unservable, 2);
    equal(counts.size!.unservedChosen, 1);
    equal(
      counts.message,
      "serves 1 of its 3 operations: 1 left out by the curated default, which serves GET and " +
        'HEAD only (list the operations to serve, "*" for all, in "operations" of ' +
        '"tools/broken.api.json"); 1 chosen is left out too, as toolshed cannot serve it (below)',
    );
    deepStrictEqual(problems.map((found) => [found.severity, found.tool]), [
      ["warning", "bad"],
      ["warning", "worse"],
    ]);
    // The reason is the document's, once, without the operation said twice.
    match(
      problems[0].message,
      /^toolshed cannot serve the operation "GET \/bad" \(tool "bad"\), so it is left out: the ref "#\/components\/parameters\/missing" /,
    );
    match(
      problems[1].message,
      /^toolshed cannot serve the operation "POST \/worse" \(tool "worse"\), were it chosen: the ref /,
    );
  });
  await withApi(
    "broken",
    BROKEN_API,
    { operations: ["good", "POST /worse", "b*"] },
    async (_dir, file) => {
      const problems = (await report(file, "broken")).slice(3);
      deepStrictEqual(problems.map((found) => [found.severity, found.tool]), [
        ["warning", "bad"],
        ["error", "worse"],
      ]);
      match(
        problems[1].message,
        /^"operations" in "tools\/broken\.api\.json" names "POST \/worse", and toolshed cannot serve the operation "POST \/worse": /,
      );
    },
  );
});
