// Every OpenAPI 3.x document of `@readme/oas-examples@8.2.2` (adr/0072's corpus) placed in a
// tools folder with a sidecar serving every operation loads through discovery (loadTools, as
// main.ts loads tools/), each operation a tool or named in a warning saying why it is left out.
//
// The corpus is read from deno's npm cache, as tests/openapi_schemas_test.ts does: the static
// JSON import makes deno fetch the package (deno.lock pins it) before the test runs, on a clean
// machine too, and import.meta.resolve names the cached package's folder.
import assert from "node:assert/strict";
import petstore30 from "npm:@readme/oas-examples@8.2.2/3.0/json/petstore.json" with {
  type: "json",
};
import { parseDocument, routes } from "../lib/openapi/document.ts";
import { toolNames } from "../lib/openapi/names.ts";
import { recorder } from "./_diagnostics.ts";
import { loadQuietly } from "./_in_process.ts";

const CORPUS = new URL(".", import.meta.resolve("npm:@readme/oas-examples@8.2.2/package.json"));

/** Every JSON document of the corpus under `3.0/json/` and `3.1/json/` (YAML repeats them). */
async function corpusDocuments(): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  const walk = async (folder: URL, shown: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isDirectory) {
        await walk(new URL(`${entry.name}/`, folder), `${shown}${entry.name}/`);
      } else if (entry.isFile && entry.name.endsWith(".json")) {
        found.push({
          file: `${shown}${entry.name}`,
          text: await Deno.readTextFile(new URL(entry.name, folder)),
        });
      }
    }
  };
  for (const version of ["3.0", "3.1"]) {
    await walk(new URL(`${version}/json/`, CORPUS), `${version}/json/`);
  }
  return found.sort((a, b) => a.file < b.file ? -1 : 1);
}

Deno.test("openapi tools: every OpenAPI 3.x document of @readme/oas-examples loads through discovery, each operation a tool or named in a warning saying why it is left out", async () => {
  strictEqualVersion(petstore30.openapi);
  const documents = await corpusDocuments();
  let operations = 0;
  let served = 0;
  const leftOut: string[] = [];
  for (const { file, text } of documents) {
    const dir = await Deno.makeTempDir({ prefix: "toolshed-oas-" });
    try {
      await Deno.writeTextFile(`${dir}/api.openapi.json`, text);
      await Deno.writeTextFile(
        `${dir}/api.api.json`,
        JSON.stringify({ baseUrl: "http://127.0.0.1:9/", operations: ["*"] }),
      );
      const diagnostics = recorder();
      let loaded;
      try {
        loaded = await loadQuietly(dir, { diagnostics });
      } catch (error) {
        throw new Error(`${file} did not load: ${(error as Error).message}`, { cause: error });
      }
      const all = routes(await parseDocument(text, file));
      const names = toolNames(all, {});
      const tools = new Set(loaded.tools.map((tool) => tool.definition.name));
      const warned = diagnostics.text();
      operations += all.length;
      all.forEach((route, index) => {
        if (tools.has(names[index])) {
          served++;
          return;
        }
        const operation = `the operation "${route.method} ${route.path}" is left out: `;
        const line = warned.split("\n").find((each) => each.includes(operation));
        assert.ok(line !== undefined, `${file}: ${operation} not warned:\n${warned}`);
        leftOut.push(
          `${file}: ${reasonOf(line.slice(line.indexOf(operation) + operation.length))}`,
        );
      });
      assert.equal(tools.size, loaded.tools.length, `${file}: a name served twice`);
      assert.equal(served + leftOut.length, operations);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  assert.equal(documents.length, 63);
  assert.equal(operations, 643);
  // What discovery cannot serve, each operation said on stderr: the schemas toolshed's validator
  // refuses (3.0's boolean exclusiveMaximum, a pattern JavaScript cannot compile, as
  // tests/openapi_schemas_test.ts finds them) and patterns that could stall the server.
  assert.deepEqual(count(leftOut), {
    "3.0/json/schema-validation.json: not a valid JSON Schema": 2,
    "3.1/json/readme.json: an unsafe pattern": 39,
    "3.1/json/schema-validation-local.json: an unsafe pattern": 1,
    "3.1/json/schema-validation-local.json: not a valid JSON Schema": 1,
    "3.1/json/schema-validation-top-level.json: not a valid JSON Schema": 1,
  });
  assert.equal(served, 643 - 44);
});

/** Why an operation was left out, in a few words (the warning says it whole). */
function reasonOf(text: string): string {
  if (/can backtrack catastrophically|too complex to be proven safe/.test(text)) {
    return "an unsafe pattern";
  }
  if (/is not a valid JSON Schema/.test(text)) return "not a valid JSON Schema";
  return text;
}

/** How many times each line occurs. */
function count(lines: readonly string[]): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const line of lines) counted[line] = (counted[line] ?? 0) + 1;
  return counted;
}

/** The static import above is what makes deno fetch the package: it must be the corpus's. */
function strictEqualVersion(version: unknown): void {
  assert.equal(version, "3.0.0");
}
