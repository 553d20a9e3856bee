// lib/openapi/{names,schemas}.ts (adr/0072 decision 3): fastmcp-ts's names, input and output
// schemas and descriptions, equal to its Python-generated parity snapshots
// (tests/fixtures/openapi/README.md), and every document of @readme/oas-examples 8.2.2 loaded.
//
// The corpus is read from deno's npm cache: the static JSON import below makes deno fetch the
// package (deno.lock pins it) before the test runs, on a clean machine too, and
// import.meta.resolve names the cached package's folder, which the test then walks.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import petstore30 from "npm:@readme/oas-examples@8.2.2/3.0/json/petstore.json" with {
  type: "json",
};
import {
  type OpenApiDocument,
  parseDocument,
  type Route,
  routes,
} from "../lib/openapi/document.ts";
import { NAME_CAP, slugify, toolNames } from "../lib/openapi/names.ts";
import { operationSchemas } from "../lib/openapi/schemas.ts";
import { compileSchema } from "../lib/schema/compile.ts";
import { isObject, type JsonObject } from "../lib/util/json.ts";

const FIXTURES = new URL("./fixtures/openapi/", import.meta.url);
const CORPUS = new URL(".", import.meta.resolve("npm:@readme/oas-examples@8.2.2/package.json"));

/**
 * Where toolshed differs from the snapshots on purpose (adr/0072), by tool and field. The two
 * fixtures hold none of the corrected cases (no duplicate enum items, no dangling or looping
 * ref), so the list is empty: every tool and field must equal its snapshot.
 */
const PARITY_EXCEPTIONS: Record<string, string> = {};

async function load(url: URL, file: string): Promise<OpenApiDocument> {
  return await parseDocument(await Deno.readTextFile(url), file);
}

for (const fixture of ["petstore-3.1", "edge-cases-3.0"]) {
  Deno.test(`names and schemas equal fastmcp-ts's snapshot for ${fixture}`, async () => {
    const doc = await load(new URL(`${fixture}.json`, FIXTURES), fixture);
    const snapshot = JSON.parse(
      await Deno.readTextFile(new URL(`${fixture}.default.snapshot.json`, FIXTURES)),
    );
    const all = routes(doc);
    const names = toolNames(all);
    deepStrictEqual(names, snapshot.tools.map((tool: JsonObject) => tool.name));
    all.forEach((route, i) => {
      const ours = operationSchemas(doc, route, { validateOutput: true });
      const theirs = snapshot.tools[i];
      for (const field of ["inputSchema", "outputSchema", "description"] as const) {
        if (PARITY_EXCEPTIONS[`${names[i]}.${field}`] !== undefined) continue;
        // The snapshot writes a missing output schema as null.
        deepStrictEqual(ours[field] ?? null, theirs[field] ?? null, `${names[i]}.${field}`);
      }
      strictEqual(ours.wrapResult, theirs.outputSchema?.["x-fastmcp-wrap-result"] === true);
    });
  });
}

Deno.test("the names option renames by full operationId, slugified and capped", async () => {
  const doc = await load(new URL("petstore-3.1.json", FIXTURES), "petstore");
  const names = toolNames(routes(doc), {
    listPets: "pets index",
    getPetById__internal: "x".repeat(70),
  });
  strictEqual(names[0], "pets_index");
  ok(names.includes("x".repeat(NAME_CAP)));
  strictEqual(slugify(" a-b.c  d!é_"), "a_b_c_d");
});

Deno.test("toolNames refuses two operations ending with one name, naming both", async () => {
  const ok200 = { "200": { description: "OK" } };
  const doc = await parseDocument(
    JSON.stringify({
      openapi: "3.1.0",
      paths: {
        "/a": { get: { operationId: "a", responses: ok200 } },
        "/b": { get: { operationId: "a_2", responses: ok200 } },
        "/c": { get: { operationId: "a", responses: ok200 } },
      },
    }),
    "clash.json",
  );
  throws(() => toolNames(routes(doc)), /"GET \/b" and "GET \/c" both get the tool name "a_2"/);
  deepStrictEqual(toolNames(routes(doc), { a_2: "b" }), ["a", "b", "a_2"]);
});

Deno.test("validateOutput false advertises the permissive schema keeping the wrap marker", async () => {
  const doc = await load(new URL("petstore-3.1.json", FIXTURES), "petstore");
  const [listPets] = routes(doc);
  const schemas = operationSchemas(doc, listPets, { validateOutput: false });
  deepStrictEqual(schemas.outputSchema, {
    type: "object",
    additionalProperties: true,
    "x-fastmcp-wrap-result": true,
  });
  strictEqual(schemas.wrapResult, true);
});

async function corpus(): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  const walk = async (dir: URL, rel: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir), `${rel}${entry.name}/`);
      else if (entry.name.endsWith(".json") && /^(2\.0|3\.0|3\.1)\/json\//.test(rel)) {
        out.push({
          file: rel + entry.name,
          text: await Deno.readTextFile(new URL(entry.name, dir)),
        });
      }
    }
  };
  for (const version of ["2.0", "3.0", "3.1"]) {
    await walk(new URL(`${version}/`, CORPUS), `${version}/`);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

async function corpusDoc(
  file: string,
): Promise<{ doc: OpenApiDocument; all: Route[]; names: string[] }> {
  const doc = await load(new URL(file, CORPUS), file);
  const all = routes(doc);
  return { doc, all, names: toolNames(all) };
}

/** True when a schema's $defs refer to each other in a cycle. */
function hasDefsCycle(schema: JsonObject | undefined): boolean {
  const defs = isObject(schema?.$defs) ? schema.$defs : {};
  const refsOf = (name: string) =>
    [...JSON.stringify(defs[name]).matchAll(/"#\/\$defs\/([^"]+)"/g)].map((m) => m[1]);
  const reaches = (from: string, to: string, seen: Set<string>): boolean =>
    refsOf(from).some((next) =>
      next === to || (!seen.has(next) && next in defs && reaches(next, to, seen.add(next)))
    );
  return Object.keys(defs).some((name) => reaches(name, name, new Set()));
}

/** Every `enum` in a schema, wherever it sits. */
function enums(value: unknown, found: unknown[][] = []): unknown[][] {
  if (Array.isArray(value)) value.forEach((item) => enums(item, found));
  else if (isObject(value)) {
    if (Array.isArray(value.enum)) found.push(value.enum);
    Object.values(value).forEach((item) => enums(item, found));
  }
  return found;
}

Deno.test("every document of @readme/oas-examples loads, and 2.0 is refused with the converter", async () => {
  const files = await corpus();
  strictEqual(petstore30.openapi, "3.0.0");
  let documents = 0;
  let operations = 0;
  const refused: string[] = [];
  for (const { file, text } of files) {
    if (file.startsWith("2.0/")) {
      await rejects(() => parseDocument(text, file), /npx swagger2openapi/);
      continue;
    }
    const doc = await parseDocument(text, file);
    documents++;
    const all = routes(doc);
    for (const route of all) {
      operations++;
      const schemas = operationSchemas(doc, route, { validateOutput: true });
      JSON.parse(JSON.stringify(schemas));
      for (const schema of [schemas.inputSchema, schemas.outputSchema]) {
        if (schema === undefined) continue;
        try {
          compileSchema(schema);
        } catch (error) {
          refused.push(
            `${file} ${route.method} ${route.path}: ${(error as Error).message.slice(0, 80)}`,
          );
        }
      }
    }
  }
  strictEqual(files.filter((f) => f.file.startsWith("2.0/")).length, 7);
  strictEqual(documents, 63);
  strictEqual(operations, 643);
  // toolshed's validator refuses what those documents get wrong as JSON Schema (3.0's boolean
  // exclusiveMaximum, a pattern JavaScript cannot compile): only the schema-validation documents.
  deepStrictEqual([...new Set(refused.map((line) => line.split(" ")[0]))], [
    "3.0/json/schema-validation.json",
    "3.1/json/schema-validation-local.json",
    "3.1/json/schema-validation-top-level.json",
  ]);
});

Deno.test("circular documents give schemas that serialize and compile", async () => {
  for (
    const file of [
      "3.0/json/circular.json",
      "3.0/json/circular-paths.json",
      "3.0/json/circular-request-bodies.json",
      "3.0/json/schema-circular.json",
      "3.0/json/response-schemas.json",
      "3.0/json/schema-types.json",
      "3.1/json/schema-types.json",
    ]
  ) {
    const { doc, all } = await corpusDoc(file);
    ok(all.length > 0, file);
    for (const route of all) {
      const schemas = operationSchemas(doc, route, { validateOutput: true });
      ok(JSON.stringify(schemas).length > 0);
      ok(
        !JSON.stringify(schemas).includes('"#/paths/'),
        `${file} ${route.path} keeps no ref into paths`,
      );
      compileSchema(schemas.inputSchema);
      if (schemas.outputSchema !== undefined) compileSchema(schemas.outputSchema);
    }
  }
  // A cycle stays a $ref cycle in $defs.
  for (const file of ["3.0/json/circular-request-bodies.json", "3.0/json/schema-circular.json"]) {
    const { doc, all } = await corpusDoc(file);
    const schemas = all.map((route) => operationSchemas(doc, route, { validateOutput: true }));
    ok(schemas.flatMap((s) => [s.inputSchema, s.outputSchema]).some(hasDefsCycle), file);
  }
});

Deno.test("schema-enums keeps each enum item once", async () => {
  const { doc, all } = await corpusDoc("3.0/json/schema-enums.json");
  let seen = 0;
  for (const route of all) {
    const schemas = operationSchemas(doc, route, { validateOutput: true });
    for (const list of enums([schemas.inputSchema, schemas.outputSchema])) {
      seen++;
      strictEqual(
        new Set(list.map((item) => JSON.stringify(item))).size,
        list.length,
        JSON.stringify(list),
      );
    }
  }
  ok(seen > 0);
});

Deno.test("schema-visibility drops readOnly from inputs and writeOnly from outputs", async () => {
  const { doc, all } = await corpusDoc("3.0/json/schema-visibility.json");
  const schemas = operationSchemas(doc, all[0], { validateOutput: true });
  const input = schemas.inputSchema.properties as JsonObject;
  ok(!("propWithReadOnly" in input) && "propWithWriteOnly" in input);
  const output = JSON.stringify(schemas.outputSchema);
  ok(output.includes("propWithReadOnly") && !output.includes("propWithWriteOnly"));
  ok(!schemas.body?.properties?.includes("propWithReadOnly"));
});

Deno.test("discriminators with a mapping merge their variants; unions without one stay one argument", async () => {
  const { doc, all, names } = await corpusDoc("3.0/json/discriminators.json");
  const byName = (name: string) =>
    operationSchemas(doc, all[names.indexOf(name)], { validateOutput: true });
  const mapped = byName("oneOfWithTopLevelDiscriminatorAndMapping");
  deepStrictEqual(mapped.body?.properties, ["discrim", "optionone", "optiontwo"]);
  ok(
    String(
      (mapped.inputSchema.properties as JsonObject & { discrim: JsonObject }).discrim.description,
    ).includes("Selects the variant."),
  );
  ok(!JSON.stringify(mapped.inputSchema).includes('"discriminator"'));
  deepStrictEqual(byName("oneOfWithTopLevelDiscriminatorNoMapping").body?.argument, "body");
  const poly = await corpusDoc("3.0/json/polymorphism.json");
  const polyBy = (name: string) =>
    operationSchemas(poly.doc, poly.all[poly.names.indexOf(name)], { validateOutput: true });
  deepStrictEqual(polyBy("allOf_with_listed_objects").body?.properties, ["a", "b", "c", "d"]);
  const union = polyBy("oneOf_object");
  strictEqual(union.body?.shape, "whole");
  ok(
    Array.isArray(((union.inputSchema.properties as JsonObject).body as JsonObject).anyOf),
    "oneOf becomes anyOf",
  );
});

Deno.test("parameters-style gives each place its style and explode with OpenAPI 3's defaults", async () => {
  for (const file of ["3.0/json/parameters-style.json", "3.1/json/parameters-style.json"]) {
    const { doc, all, names } = await corpusDoc(file);
    const places = (name: string) =>
      operationSchemas(doc, all[names.indexOf(name)], { validateOutput: true }).parameters;
    const brief = (name: string) =>
      Object.values(places(name)).map((p) => `${p.in}:${p.name}:${p.style}:${p.explode}`);
    deepStrictEqual(brief("cookies_standard"), [
      "cookie:primitive:form:true",
      "cookie:array:form:true",
      "cookie:object:form:true",
    ]);
    deepStrictEqual(brief("headers_standard"), [
      "header:primitive:simple:false",
      "header:array:simple:false",
      "header:object:simple:false",
    ]);
    deepStrictEqual(brief("paths_standard"), [
      "path:primitive:simple:false",
      "path:array:simple:false",
      "path:object:simple:false",
    ]);
    deepStrictEqual(brief("paths_matrix_exploded"), [
      "path:primitive:matrix:true",
      "path:array:matrix:true",
      "path:object:matrix:true",
    ]);
    deepStrictEqual(brief("paths_label_nonExploded"), [
      "path:primitive:label:false",
      "path:array:label:false",
      "path:object:label:false",
    ]);
    deepStrictEqual(brief("query_standard"), [
      "query:primitive:form:true",
      "query:array:form:true",
      "query:object:form:true",
    ]);
    deepStrictEqual(brief("query_pipeDelimited_nonExploded"), [
      "query:array:pipeDelimited:false",
      "query:object:pipeDelimited:false",
    ]);
    deepStrictEqual(brief("query_deepObject_nonExploded"), ["query:object:deepObject:true"]);
  }
});

Deno.test("pipeDelimited, spaceDelimited and deepObject with explode omitted do not explode", async () => {
  const parameters = ["pipeDelimited", "spaceDelimited", "deepObject"].map((style) => ({
    name: style,
    in: "query",
    style,
    schema: { type: "array", items: { type: "string" } },
  }));
  const doc = await parseDocument(
    JSON.stringify({ openapi: "3.1.0", paths: { "/a": { get: { parameters, responses: {} } } } }),
    "styles.json",
  );
  const places = operationSchemas(doc, routes(doc)[0], { validateOutput: true }).parameters;
  deepStrictEqual(Object.values(places).map((p) => [p.style, p.explode, p.allowReserved]), [
    ["pipeDelimited", false, false],
    ["spaceDelimited", false, false],
    ["deepObject", false, false],
  ]);
});

Deno.test("star-trek's 120 operations without operationId get the fallback names", async () => {
  const { all, names } = await corpusDoc("3.0/json/star-trek.json");
  strictEqual(all.length, 120);
  ok(all.every((route) => route.operationId === undefined));
  all.forEach((route, i) => {
    const base = slugify(route.summary || `${route.method}_${route.path}`).slice(0, NAME_CAP);
    ok(names[i] === base || names[i].startsWith(`${base}_`), names[i]);
  });
  ok(names.includes("GET_animalsearch") && names.includes("POST_animalsearch"));
  strictEqual(new Set(names).size, 120);
});
