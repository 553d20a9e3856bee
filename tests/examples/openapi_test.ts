// examples/openapi: what its README promises, with real processes on loopback: the example's own
// api_server.ts (the pet store the document describes, standing in for a real service) and
// `toolshed check`, `list` and `call` on the directory, as the README runs them.
//
// The document's reads are served and so are the two writes the sidecar names, each annotated by
// its method, with the sidecar's description; the same document without `operations` serves its
// reads alone; calls reach the store with the key from the environment (a wrong key is the
// store's 401, as an isError result), a query array goes as the document's style says, a write
// lands and a read sees it, and the write the sidecar leaves out is no tool.
import assert from "node:assert/strict";
import { parse } from "npm:yaml@2.9.1";
import { exampleDir, type Run, startExampleProcess, toolshed } from "./_example.ts";

const DIR = exampleDir("openapi");
/** The key the store is started with and toolshed is given; a run of its own each time. */
const KEY = `example-${crypto.randomUUID()}`;
/** For runs that never reach the store: nothing listens on port 9. */
const NOWHERE = { PETSTORE_URL: "http://127.0.0.1:9/v1", PETSTORE_API_KEY: KEY };

interface Listed {
  name: string;
  title?: string;
  description: string;
  annotations?: Record<string, boolean>;
}

/** `toolshed list --dir DIR --json`'s tools, by name. */
async function listTools(dir: string, env: Record<string, string>): Promise<Listed[]> {
  const listed = await toolshed(["list", "--dir", dir, "--json"], env);
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout).tools as Listed[];
}

/** `deno run -A examples/openapi/api_server.ts --port 0`, the README's command on a free port. */
function startStore(): Promise<{ url: string; stop(): Promise<void> }> {
  return startExampleProcess(
    "examples/openapi/api_server.ts",
    /(http:\/\/127\.0\.0\.1:\d+\/v1)$/,
    "the pet store",
    { PETSTORE_API_KEY: KEY },
  );
}

/** The structured content of a `toolshed call … --json` that succeeded. */
function structured(run: Run): unknown {
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const result = JSON.parse(run.stdout);
  assert.notEqual(result.isError, true, run.stdout);
  return result.structuredContent;
}

Deno.test("examples/openapi passes toolshed check with its variables set", async () => {
  const run = await toolshed(["check", "--dir", "examples/openapi"], NOWHERE);
  assert.equal(run.code, 0, `toolshed check --dir examples/openapi:\n${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /^0 errors, 0 warnings in /m, run.stdout);
});

Deno.test("examples/openapi: list serves the reads and the writes the sidecar names, annotated by method", async () => {
  const tools = await listTools("examples/openapi", NOWHERE);
  assert.deepEqual(tools.map((tool) => tool.name), [
    "Count_pets_by_tag",
    "createPet",
    "getPet",
    "listPets",
    "updatePet",
  ]);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const read of ["Count_pets_by_tag", "getPet", "listPets"]) {
    assert.deepEqual(byName.get(read)?.annotations, { readOnlyHint: true, openWorldHint: true });
  }
  assert.deepEqual(byName.get("createPet")?.annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: true,
  });
  assert.deepEqual(byName.get("updatePet")?.annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  });
  assert.equal(byName.get("listPets")?.title, "List pets");
  assert.equal(
    byName.get("listPets")?.description,
    "Lists the pets in the store, the most recently added last.",
  );
  const sidecar = JSON.parse(await Deno.readTextFile(`${DIR}tools/petstore.api.json`));
  assert.equal(byName.get("createPet")?.description, sidecar.tools.createPet.description);
});

Deno.test("examples/openapi: without operations in the sidecar, only the document's reads are served", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "toolshed_openapi_curated_" });
  try {
    await Deno.mkdir(`${scratch}/tools`);
    await Deno.copyFile(
      `${DIR}tools/petstore.openapi.yaml`,
      `${scratch}/tools/petstore.openapi.yaml`,
    );
    const sidecar = JSON.parse(await Deno.readTextFile(`${DIR}tools/petstore.api.json`));
    delete sidecar.operations;
    delete sidecar.tools;
    await Deno.writeTextFile(`${scratch}/tools/petstore.api.json`, JSON.stringify(sidecar));
    const document = parse(await Deno.readTextFile(`${DIR}tools/petstore.openapi.yaml`));
    const reads = Object.values(document.paths as Record<string, Record<string, unknown>>)
      .flatMap((item) => Object.keys(item).filter((key) => key === "get" || key === "head"));
    const tools = await listTools(scratch, NOWHERE);
    assert.deepEqual(tools.map((tool) => tool.name), ["Count_pets_by_tag", "getPet", "listPets"]);
    assert.equal(tools.length, reads.length, "one tool for each GET and HEAD of the document");
    for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("examples/openapi: calls reach the store with the key, and the write the sidecar lists is served", async () => {
  const store = await startStore();
  try {
    const env = { PETSTORE_URL: store.url, PETSTORE_API_KEY: KEY };
    const call = (args: string[], callEnv: Record<string, string> = env) =>
      toolshed(["call", ...args, "--dir", "examples/openapi", "--json"], callEnv);

    // `style: form, explode: false`: both tags in one parameter, which the store splits.
    const both = structured(await call(["listPets", 'tags=["dog","cat"]'])) as {
      result: { name: string }[];
    };
    assert.deepEqual(both.result.map((pet) => pet.name), ["Rex", "Tom"]);

    const created = structured(await call(["createPet", "name=Bella", "tag=dog"])) as {
      id: number;
      name: string;
      tag: string;
    };
    assert.equal(created.name, "Bella");
    assert.deepEqual(structured(await call(["getPet", `petId=${created.id}`])), created);

    const wrongKey = await call(["createPet", "name=Nobody"], {
      ...env,
      PETSTORE_API_KEY: "wrong",
    });
    assert.equal(wrongKey.code, 1, wrongKey.stdout + wrongKey.stderr);
    assert.equal(JSON.parse(wrongKey.stdout).isError, true);
    assert.match(wrongKey.stdout, /HTTP 401 Unauthorized: .*The API key is missing or wrong/);

    const missing = await call(["getPet", "petId=999"]);
    assert.equal(missing.code, 1, missing.stdout + missing.stderr);
    assert.match(missing.stdout, /HTTP 404 Not Found: .*Nothing at \/v1\/pets\/999/);

    const notServed = await call(["deletePet", `petId=${created.id}`]);
    assert.notEqual(notServed.code, 0);
    assert.match(notServed.stderr, /Unknown tool: "deletePet"/);
    assert.deepEqual(structured(await call(["getPet", `petId=${created.id}`])), created);
  } finally {
    await store.stop();
  }
});
