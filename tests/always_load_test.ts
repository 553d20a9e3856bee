// `alwaysLoad` (adr/0073 §6): a tool kept loaded by hosts that defer MCP tools, listed with
// `_meta["anthropic/alwaysLoad"]: true` (the key Claude Code 2.1.332 reads) — from a module, an
// executable's sidecar, an API's and a mount's corrections, and on code mode's own tools; a value
// that is no boolean, or an own `_meta` saying otherwise, refused. In process (createServer's
// `request`; mountedTool itself for a mount, whose upstream is never reached).
import assert from "node:assert/strict";
import { createServer } from "../mod.ts";
import { checkDefinition } from "../lib/primitives/tools.ts";
import { withHangGuard } from "./_server_process.ts";
import { parseMountFile } from "../lib/mounts/mount_file.ts";
import { seenOfTool } from "../lib/mounts/pins.ts";
import { mountedTool } from "../lib/mounts/mounted_tool.ts";

const KEY = "anthropic/alwaysLoad";

const OPENAPI = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/pets": { get: { operationId: "listPets" } },
    "/owners": { get: { operationId: "listOwners" } },
  },
};

/** A tools directory of a module, an executable with its sidecar, and an API with its sidecar. */
async function directory(): Promise<string> {
  const dir = await Deno.makeTempDir();
  const write = (name: string, text: string) => Deno.writeTextFile(`${dir}/tools/${name}`, text);
  await Deno.mkdir(`${dir}/tools`);
  await write(
    "kept.ts",
    `export default {
      description: "A module tool kept loaded",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      alwaysLoad: true,
      _meta: { "example.com/own": 1 },
      handler: () => ({ content: [{ type: "text", text: "kept" }] }),
    };`,
  );
  await write(
    "deferred.ts",
    `export default {
      description: "A module tool left to the host",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      alwaysLoad: false,
      handler: () => ({ content: [{ type: "text", text: "deferred" }] }),
    };`,
  );
  await write("hello.sh", "#!/bin/sh\necho hello\n");
  await Deno.chmod(`${dir}/tools/hello.sh`, 0o755);
  await write(
    "hello.json",
    JSON.stringify({
      description: "An executable kept loaded",
      inputSchema: { type: "object" },
      alwaysLoad: true,
    }),
  );
  await write("pets.openapi.json", JSON.stringify(OPENAPI));
  await write(
    "pets.api.json",
    JSON.stringify({ baseUrl: "http://127.0.0.1:9/v1", tools: { listPets: { alwaysLoad: true } } }),
  );
  return dir;
}

type Listed = { name: string; _meta?: Record<string, unknown> };

async function listed(config: Parameters<typeof createServer>[0]): Promise<Map<string, Listed>> {
  const server = await createServer({ codePool: 0, ...config });
  try {
    const answer = await withHangGuard(server.request("tools/list", {}), "tools/list", 60_000);
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const tools = (answer.result as { tools: Listed[] }).tools;
    return new Map(tools.map((tool) => [tool.name, tool]));
  } finally {
    await server.close();
  }
}

Deno.test("alwaysLoad lists a module tool, a sidecar tool and a corrected operation with anthropic/alwaysLoad", async () => {
  const tools = await listed({ dir: await directory() });
  assert.deepEqual(tools.get("kept")?._meta, { "example.com/own": 1, [KEY]: true });
  assert.deepEqual(tools.get("hello")?._meta, { [KEY]: true });
  assert.deepEqual(tools.get("listPets")?._meta, { [KEY]: true });
  assert.equal(tools.get("listOwners")?._meta?.[KEY], undefined, "no correction: nothing");
  assert.equal(tools.get("deferred")?._meta?.[KEY], undefined, "false: nothing");
});

Deno.test("alwaysLoad keeps code mode's three tools loaded", async () => {
  const tools = await listed({ dir: await directory(), codeMode: true });
  for (const name of ["search_tools", "describe_tools", "run_code"]) {
    assert.equal(
      tools.get(name)?._meta?.[KEY],
      true,
      `${name}: ${JSON.stringify(tools.get(name))}`,
    );
  }
});

Deno.test("alwaysLoad in a mount's correction lists the mounted tool with anthropic/alwaysLoad", async () => {
  const mount = (block: object) =>
    parseMountFile(
      JSON.stringify({ command: "true", toolshed: block }),
      "shed",
      "tools/shed.mcp.json",
      () => undefined,
    );
  const seen = seenOfTool({
    name: "echo",
    description: "Echoes its text",
    inputSchema: { type: "object" },
  });
  const relay = {
    file: "tools/shed.mcp.json",
    upstreamFor: () => {
      throw new Error("unreachable: the test never calls the tool");
    },
  };
  const kept = await mountedTool(seen, mount({ tools: { echo: { alwaysLoad: true } } }), relay);
  assert.deepEqual(kept.definition._meta, { [KEY]: true });
  const plain = await mountedTool(seen, mount({}), relay);
  assert.equal(plain.definition._meta, undefined);
  assert.throws(
    () => mount({ tools: { echo: { alwaysLoad: "yes" } } }),
    /alwaysLoad must be true or false/,
  );
});

const DEFINITION = {
  description: "d",
  inputSchema: { type: "object" },
  handler: () => ({ content: [] }),
};

Deno.test("alwaysLoad refuses an own _meta that says otherwise", () => {
  assert.throws(
    () =>
      checkDefinition({ ...DEFINITION, alwaysLoad: true, _meta: { [KEY]: false } }, "t", "t.ts"),
    { message: `_meta sets "${KEY}" to false but alwaysLoad is true: drop one of them` },
  );
  assert.throws(
    () =>
      checkDefinition({ ...DEFINITION, alwaysLoad: false, _meta: { [KEY]: true } }, "t", "t.ts"),
    { message: `_meta sets "${KEY}" to true but alwaysLoad is false: drop one of them` },
  );
  const agreed = checkDefinition(
    { ...DEFINITION, alwaysLoad: true, _meta: { [KEY]: true } },
    "t",
    "t.ts",
  );
  assert.deepEqual(agreed.definition._meta, { [KEY]: true });
});

Deno.test("alwaysLoad refuses a value that is no boolean, in a module and an API's correction", async () => {
  assert.throws(
    () => checkDefinition({ ...DEFINITION, alwaysLoad: "yes" }, "t", "t.ts"),
    {
      message:
        'alwaysLoad must be true (hosts that defer tools keep it loaded) or false (the default), not "yes"',
    },
  );
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(`${dir}/tools/pets.openapi.json`, JSON.stringify(OPENAPI));
  await Deno.writeTextFile(
    `${dir}/tools/pets.api.json`,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/v1",
      tools: { listPets: { alwaysLoad: "yes" } },
    }),
  );
  await assert.rejects(() => createServer({ dir }), /alwaysLoad must be true or false/);
});
