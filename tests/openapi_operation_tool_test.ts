// operation_tool.ts and load_api.ts through discovery, in process (testServer): what each
// operation's tool says of itself (annotations from the method, title from the summary, scopes
// from security when asked), the operator's credentials reaching only the operations whose
// `security` names their scheme, and the files discovery refuses.
import assert from "node:assert/strict";
import { testServer } from "../mod.ts";
import { loadTools } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";
import { type EchoServer, serveEcho } from "./_openapi_echo.ts";

const DOC = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  servers: [{ url: "https://api.example.com/v1" }],
  components: {
    securitySchemes: {
      key_header: { type: "apiKey", in: "header", name: "X-Api-Key" },
      key_query: { type: "apiKey", in: "query", name: "api_key" },
      key_cookie: { type: "apiKey", in: "cookie", name: "sid" },
      bearer: { type: "http", scheme: "bearer" },
      basic: { type: "http", scheme: "basic" },
      oauth: {
        type: "oauth2",
        flows: {
          clientCredentials: {
            tokenUrl: "https://auth.example/token",
            scopes: { "pets:read": "", "pets:write": "" },
          },
        },
      },
    },
  },
  paths: {
    "/pets": {
      get: { operationId: "listPets", summary: "List pets", security: [{ key_header: [] }] },
      post: { operationId: "createPet", security: [{ oauth: ["pets:write"] }, { bearer: [] }] },
    },
    "/pets/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "getPet", security: [{ key_query: [] }, { oauth: ["pets:read"] }] },
      put: { operationId: "putPet", security: [{ key_cookie: [] }] },
      delete: { operationId: "deletePet", security: [{ basic: [] }] },
      patch: { operationId: "patchPet" },
      head: { operationId: "headPet", security: [] },
    },
  },
};

async function dirOf(sidecar: Record<string, unknown> | undefined, echo: EchoServer) {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(`${dir}/tools/pets.openapi.json`, JSON.stringify(DOC));
  if (sidecar !== undefined) {
    await Deno.writeTextFile(
      `${dir}/tools/pets.api.json`,
      JSON.stringify({ baseUrl: `${echo.origin}/v1`, ...sidecar }),
    );
  }
  return dir;
}

async function serverOf(sidecar: Record<string, unknown> | undefined, echo: EchoServer) {
  const dir = await dirOf(sidecar, echo);
  return { dir, server: await testServer({ dir }) };
}

Deno.test("an API's tools carry annotations from the method and a title from the summary", async () => {
  await using echo = withClose(serveEcho());
  const { server } = await serverOf({ operations: ["*"] }, echo);
  await using _ = server;
  const byName = new Map((await server.list()).map((tool) => [tool.name, tool]));
  assert.deepEqual([...byName.keys()].sort(), [
    "createPet",
    "deletePet",
    "getPet",
    "headPet",
    "listPets",
    "patchPet",
    "putPet",
  ]);
  assert.deepEqual(byName.get("listPets")!.title, "List pets");
  assert.deepEqual(byName.get("getPet")!.title, undefined);
  const hints = (name: string) => byName.get(name)!.annotations;
  assert.deepEqual(hints("listPets"), { readOnlyHint: true, openWorldHint: true });
  assert.deepEqual(hints("headPet"), { readOnlyHint: true, openWorldHint: true });
  assert.deepEqual(hints("deletePet"), {
    readOnlyHint: false,
    destructiveHint: true,
    openWorldHint: true,
  });
  assert.deepEqual(hints("putPet"), {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  });
  assert.deepEqual(hints("createPet"), {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: true,
  });
});

Deno.test("an API serves only its reads when the sidecar lists no operations", async () => {
  await using echo = withClose(serveEcho());
  const { server } = await serverOf({}, echo);
  await using _ = server;
  assert.deepEqual((await server.list()).map((tool) => tool.name).sort(), [
    "getPet",
    "headPet",
    "listPets",
  ]);
});

Deno.test("an API's corrections override what the method and summary give", async () => {
  await using echo = withClose(serveEcho());
  const { server } = await serverOf({
    operations: ["*"],
    annotations: { openWorldHint: false },
    tools: { deletePet: { title: "Remove", annotations: { destructiveHint: false } } },
  }, echo);
  await using _ = server;
  const tool = (await server.list()).find((each) => each.name === "deletePet")!;
  assert.deepEqual(tool.title, "Remove");
  assert.deepEqual(tool.annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
  });
});

Deno.test("an API's scopes come from security only when scopesFromSecurity is true", async () => {
  await using echo = withClose(serveEcho());
  for (const scopesFromSecurity of [false, true]) {
    const dir = await dirOf({ operations: ["*"], scopesFromSecurity }, echo);
    const { byName } = await loadTools(`${dir}/tools`, { diagnostics: recorder() });
    // The first requirement naming an OAuth scheme: getPet's first is an apiKey, its second oauth.
    assert.deepEqual(byName.get("createPet")!.scopes, scopesFromSecurity ? ["pets:write"] : []);
    assert.deepEqual(byName.get("getPet")!.scopes, scopesFromSecurity ? ["pets:read"] : []);
    assert.deepEqual(byName.get("listPets")!.scopes, []);
  }
});

Deno.test("an API's credentials reach only the operations whose security names their scheme", async () => {
  await using echo = withClose(serveEcho());
  Deno.env.set("OT_KEY", "k-123");
  Deno.env.set("OT_BEARER", "b-456");
  Deno.env.set("OT_BASIC", "ann:pässword");
  const { server } = await serverOf({
    operations: ["*"],
    credentials: {
      key_header: "${OT_KEY}",
      key_query: "${OT_KEY}",
      key_cookie: "${OT_KEY}",
      bearer: "${OT_BEARER}",
      basic: "${OT_BASIC}",
    },
  }, echo);
  await using _ = server;
  const sent = async (name: string, args: Record<string, unknown>) => {
    const before = echo.arrivals.length;
    const result = await server.call(name, args);
    assert.ok(result.isError !== true, JSON.stringify(result));
    assert.deepEqual(echo.arrivals.length, before + 1);
    return echo.arrivals.at(-1)!;
  };
  assert.deepEqual((await sent("listPets", {})).headers["x-api-key"], "k-123");
  const got = await sent("getPet", { id: "7" });
  assert.deepEqual(got.query, "api_key=k-123");
  assert.deepEqual(got.headers["x-api-key"], undefined);
  assert.deepEqual((await sent("putPet", { id: "7" })).headers.cookie, "sid=k-123");
  assert.deepEqual((await sent("createPet", {})).headers.authorization, "Bearer b-456");
  const basic = (await sent("deletePet", { id: "7" })).headers.authorization;
  assert.deepEqual(
    new TextDecoder().decode(Uint8Array.fromBase64(basic.slice("Basic ".length))),
    "ann:pässword",
  );
  for (const name of ["patchPet", "headPet"]) {
    const headers = (await sent(name, { id: "7" })).headers;
    assert.deepEqual([headers.authorization, headers["x-api-key"], headers.cookie], [
      undefined,
      undefined,
      undefined,
    ]);
  }
});

Deno.test("an API's query key never shows in a refusal the model reads", async () => {
  await using echo = withClose(serveEcho());
  Deno.env.set("OT_KEY", "k-secret-789");
  const { server } = await serverOf({
    operations: ["getPet"],
    credentials: { key_query: "${OT_KEY}" },
  }, echo);
  await using _ = server;
  const result = await server.call("getPet", { id: ".." });
  assert.deepEqual(result.isError, true);
  assert.ok(!JSON.stringify(result).includes("k-secret-789"), JSON.stringify(result));
  assert.deepEqual(echo.arrivals.length, 0);
});

Deno.test("discovery refuses an API sidecar without its document, and an API in a toolset", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools/set`, { recursive: true });
  await Deno.writeTextFile(`${dir}/tools/lonely.api.json`, "{}");
  await rejectsWith(
    () => testServer({ dir }),
    `/tools/lonely.api.json": there is no document beside it`,
  );
  await Deno.remove(`${dir}/tools/lonely.api.json`);
  await Deno.writeTextFile(`${dir}/tools/set/pets.openapi.json`, JSON.stringify(DOC));
  await rejectsWith(
    () => testServer({ dir }),
    `/tools/set/pets.openapi.json": an API's file name is its own toolset`,
  );
});

Deno.test("an API whose servers[0] is plain http to another machine needs a baseUrl", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/tools`);
  await Deno.writeTextFile(
    `${dir}/tools/pets.openapi.json`,
    JSON.stringify({ ...DOC, servers: [{ url: "http://petstore.example/v1" }] }),
  );
  await rejectsWith(
    () => testServer({ dir }),
    `servers[0].url "http://petstore.example/v1" is not https (plain http only to this machine): ` +
      `set "baseUrl" in "${dir}/tools/pets.api.json"`,
  );
});

/** `load` rejects with an error whose message includes `text`. */
async function rejectsWith(load: () => Promise<unknown>, text: string): Promise<void> {
  await assert.rejects(load, (error: Error) => {
    assert.ok(error.message.includes(text), error.message);
    return true;
  });
}

function withClose(echo: EchoServer): EchoServer & AsyncDisposable {
  return Object.assign(echo, { [Symbol.asyncDispose]: () => echo.close() });
}
