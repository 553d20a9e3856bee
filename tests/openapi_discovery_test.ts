// An API in tools/ as discovery loads it (adr/0072 decisions 1 and 7): hot reload re-derives
// the tools and the SDK client (over stdio, a real `main.ts --watch`) hears of it, a broken
// edit keeps the tools being served; a YAML document (`.openapi.yaml`, `.yml`) serves as JSON does;
// a tool name two files define stops start-up naming both.
import assert from "node:assert/strict";
import { ToolListChangedNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { stringify } from "npm:yaml@2.9.1";
import { serveEcho } from "./_openapi_echo.ts";
import {
  call,
  echoPath,
  echoPetstore,
  type ListedTool,
  onlyArrival,
  overStdio,
  PETSTORE_READS,
  toolsFolder,
} from "./_openapi_served.ts";
import { spawnServer, withHangGuard } from "./_server_process.ts";

/** Waits (bounded: 20 s) until `done` holds, looking every 25 ms; fails saying `what`. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Still waiting for ${what}`);
}

Deno.test("openapi tools: --watch re-derives the tools of an edited document or sidecar and tells the SDK client; a broken edit keeps the last good tools serving", async () => {
  const echo = serveEcho();
  const sidecar = { baseUrl: `${echo.origin}/v1` };
  const dir = await toolsFolder({ "pets.openapi.json": echoPetstore(), "pets.api.json": sidecar });
  const document = `${dir}/tools/pets.openapi.json`;
  try {
    await overStdio(dir, {}, async (client, stderr) => {
      let notices = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        notices++;
      });
      const names = async () =>
        ((await client.listTools()) as { tools: ListedTool[] }).tools.map((tool) => tool.name);
      // Without `operations`, the read operations only.
      assert.deepEqual(await names(), PETSTORE_READS);

      await Deno.writeTextFile(
        document,
        JSON.stringify(echoPetstore({ "/owners": echoPath("listOwners", "List the owners") })),
      );
      await until(() => notices >= 1, "notifications/tools/list_changed after the edit");
      assert.ok((await names()).includes("listOwners"));
      const before = echo.arrivals.length;
      const owners = await call(client, "listOwners", {});
      assert.notEqual(owners.isError, true, JSON.stringify(owners));
      assert.equal(onlyArrival(echo, before, "listOwners").path, "/v1/owners");

      // The sidecar alone edited: its operations are the API's tools from then on.
      await Deno.writeTextFile(
        `${dir}/tools/pets.api.json`,
        JSON.stringify({ ...sidecar, operations: ["listOwners", "DELETE /pets/{petId}"] }),
      );
      await until(() => notices >= 2, "notifications/tools/list_changed after the sidecar's edit");
      assert.deepEqual(await names(), ["deletePet", "listOwners"]);

      // A document cut short: the reload says so, and the tools of the last good one serve on.
      const told = notices;
      await Deno.writeTextFile(document, '{"openapi": "3.1.0", "paths": {');
      await until(() => stderr().includes("keeps the last good version"), "the broken reload");
      assert.match(stderr(), /pets\.openapi\.json/);
      assert.deepEqual(await names(), ["deletePet", "listOwners"]);
      const still = echo.arrivals.length;
      const kept = await call(client, "listOwners", {});
      assert.notEqual(kept.isError, true, JSON.stringify(kept));
      assert.equal(onlyArrival(echo, still, "listOwners after the broken edit").path, "/v1/owners");
      assert.equal(notices, told, "a reload that changed nothing announced a change");
    }, ["--watch"]);
  } finally {
    await echo.close();
    await Deno.remove(dir, { recursive: true });
  }
});

for (const extension of ["yaml", "yml"]) {
  Deno.test(`openapi tools: a document written in YAML (.openapi.${extension}) is served as its JSON is`, async () => {
    const echo = serveEcho();
    const dir = await toolsFolder({ "pets.api.json": { baseUrl: `${echo.origin}/v1` } });
    const yaml = stringify(echoPetstore());
    assert.ok(!yaml.trimStart().startsWith("{"), "the document is YAML, not JSON");
    await Deno.writeTextFile(`${dir}/tools/pets.openapi.${extension}`, yaml);
    try {
      await overStdio(dir, {}, async (client) => {
        const { tools } = await client.listTools() as { tools: ListedTool[] };
        assert.ok(tools.some((tool) => tool.name === "getPet" && tool.title === "Get a pet"));
        const answered = await call(client, "getPet", { petId: "3" });
        assert.notEqual(answered.isError, true, JSON.stringify(answered));
        assert.equal(onlyArrival(echo, 0, "getPet").path, "/v1/pets/3");
      });
    } finally {
      await echo.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** `main.ts --dir <dir>` started and ended: its exit code and what it wrote on stderr. */
async function startUp(dir: string): Promise<{ code: number; stderr: string }> {
  const server = spawnServer(["--dir", dir]);
  const { code, stderr } = await withHangGuard(server.finish(), "the server's start-up");
  return { code, stderr };
}

Deno.test("openapi tools: two documents defining one tool name stop start-up naming both files", async () => {
  const zoo = {
    openapi: "3.0.3",
    info: { title: "Zoo", version: "1" },
    paths: {
      "/animals/{id}": {
        get: {
          operationId: "getPet",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "An animal." } },
        },
      },
    },
  };
  const dir = await toolsFolder({
    "pets.openapi.json": echoPetstore(),
    "zoo.openapi.json": zoo,
    "zoo.api.json": { baseUrl: "http://127.0.0.1:9/" },
  });
  try {
    const { code, stderr } = await startUp(dir);
    assert.notEqual(code, 0);
    assert.ok(
      stderr.includes(
        `Cannot load tool "${dir}/tools/zoo.openapi.json": the name "getPet" is already used by ` +
          `"${dir}/tools/pets.openapi.json"`,
      ),
      stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: a tool module and an operation with one name stop start-up naming both files", async () => {
  const dir = await toolsFolder({ "pets.openapi.json": echoPetstore() });
  await Deno.writeTextFile(
    `${dir}/tools/listPets.ts`,
    'export default { description: "Lists pets", inputSchema: { type: "object" }, handler: () => "none" };\n',
  );
  try {
    const { code, stderr } = await startUp(dir);
    assert.notEqual(code, 0);
    assert.ok(
      stderr.includes(
        `Cannot load tool "${dir}/tools/pets.openapi.json": the name "listPets" is already used ` +
          `by "${dir}/tools/listPets.ts"`,
      ),
      stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
