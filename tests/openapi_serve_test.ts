// An OpenAPI document in tools/ served end to end (adr/0072, issue 40's "Done when"): the
// official SDK client (`@modelcontextprotocol/sdk` 1.32.2) lists and calls the operations of
// tests/_openapi_served.ts's petstore through a real toolshed process, over stdio and over HTTP,
// and the loopback echo server (tests/_openapi_echo.ts) records what arrived: the path, query,
// body and headers each call made; and a path parameter cannot send a request anywhere else.
import assert from "node:assert/strict";
import type { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { type EchoServer, serveEcho } from "./_openapi_echo.ts";
import {
  call,
  echoPath,
  type ListedTool,
  onlyArrival,
  overHttp,
  overStdio,
  PETSTORE_READS,
  PETSTORE_TOOLS,
  servedFolder,
} from "./_openapi_served.ts";

/**
 * What the SDK client lists and what its calls send, the same over either transport: names,
 * titles and annotations from the document; a GET with its query and header, a POST's and a
 * PUT's JSON body, a DELETE, each arriving as the document says and answered with the echo.
 */
async function listAndCall(client: Client, echo: EchoServer): Promise<void> {
  const { tools } = await client.listTools() as { tools: ListedTool[] };
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.deepEqual([...byName.keys()].sort(), PETSTORE_TOOLS);
  const shown = (name: string) => {
    const tool = byName.get(name)!;
    return { title: tool.title, annotations: tool.annotations };
  };
  assert.deepEqual(shown("getPet"), {
    title: "Get a pet",
    annotations: { readOnlyHint: true, openWorldHint: true },
  });
  assert.deepEqual(shown("deletePet"), {
    title: "Delete a pet",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  });
  assert.deepEqual(shown("replacePet"), {
    title: "Replace a pet",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
  });
  assert.deepEqual(shown("createPet"), {
    title: "Create a pet",
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  });
  // No summary, no title (fastmcp-ts sets none; toolshed's comes from the summary only).
  assert.equal(byName.get("open")!.title, undefined);

  let before = echo.arrivals.length;
  const listed = await call(client, "listPets", { limit: 5, tags: ["a b", "c"], "X-Trace": "t-1" });
  assert.notEqual(listed.isError, true, JSON.stringify(listed));
  const list = onlyArrival(echo, before, "listPets");
  assert.equal(list.method, "GET");
  assert.equal(list.path, "/v1/pets");
  assert.equal(list.query, "limit=5&tags=a%20b,c");
  assert.equal(list.headers["x-trace"], "t-1");
  assert.deepEqual(listed.structuredContent, {
    method: "GET",
    path: "/v1/pets",
    query: "limit=5&tags=a%20b,c",
    body: "",
  });

  before = echo.arrivals.length;
  const created = await call(client, "createPet", { name: "Rex", tag: "dog" });
  assert.notEqual(created.isError, true, JSON.stringify(created));
  const create = onlyArrival(echo, before, "createPet");
  assert.equal(create.method, "POST");
  assert.equal(create.path, "/v1/pets");
  assert.equal(create.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(create.body)), { name: "Rex", tag: "dog" });

  before = echo.arrivals.length;
  const replaced = await call(client, "replacePet", { petId: "p 7", name: "Max" });
  assert.notEqual(replaced.isError, true, JSON.stringify(replaced));
  const replace = onlyArrival(echo, before, "replacePet");
  assert.equal(replace.method, "PUT");
  assert.equal(replace.path, "/v1/pets/p%207");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(replace.body)), { name: "Max" });

  before = echo.arrivals.length;
  const deleted = await call(client, "deletePet", { petId: "7" });
  assert.notEqual(deleted.isError, true, JSON.stringify(deleted));
  const remove = onlyArrival(echo, before, "deletePet");
  assert.equal(remove.method, "DELETE");
  assert.equal(remove.path, "/v1/pets/7");
  assert.equal(remove.body.length, 0);
}

for (const [transport, over] of [["stdio", overStdio], ["HTTP", overHttp]] as const) {
  Deno.test(`openapi tools: the SDK client over ${transport} lists the petstore's operations with titles and annotations, and each call arrives as the document says`, async () => {
    const echo = serveEcho();
    const dir = await servedFolder(echo);
    try {
      await over(dir, {}, (client) => listAndCall(client, echo));
    } finally {
      await echo.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("openapi tools: a path parameter cannot send the request to another host or out of its place: dot segments refused, everything else one encoded segment under the operation's path", async () => {
  const echo = serveEcho();
  // The host an attacker wants reached: it must hear nothing.
  const elsewhere = serveEcho();
  const dir = await servedFolder(echo);
  const host = new URL(elsewhere.origin).host;
  try {
    await overStdio(dir, {}, async (client) => {
      for (const petId of ["..", ".", "%2e%2e", "%2E%2E"]) {
        const before = echo.arrivals.length;
        const result = await call(client, "deletePet", { petId });
        // "%2e%2e" is sent as "%252e%252e" (its "%" encoded), so only the first two are dot
        // segments once encoded; the others arrive, decoding to what the model sent.
        if (petId === ".." || petId === ".") {
          assert.equal(result.isError, true, `${petId}: ${JSON.stringify(result)}`);
          assert.match(result.content[0].text!, /would leave its place/);
          assert.equal(echo.arrivals.length, before, `${petId} reached the API`);
        } else {
          const arrival = onlyArrival(echo, before, petId);
          assert.equal(decodeURIComponent(arrival.path), `/v1/pets/${petId}`);
        }
      }
      for (
        const petId of [
          "../",
          "../../admin",
          "..%2f..%2fadmin",
          "%2e%2e/%2e%2e/admin",
          `http://${host}/stolen`,
          `//${host}/stolen`,
          `@${host}`,
          `x@${host}/stolen`,
          "\\..\\..\\admin",
          "a?admin=1#frag",
        ]
      ) {
        const before = echo.arrivals.length;
        const result = await call(client, "deletePet", { petId });
        assert.notEqual(result.isError, true, `${petId}: ${JSON.stringify(result)}`);
        const arrival = onlyArrival(echo, before, petId);
        // One segment under /v1/pets/, nothing in the query, and it decodes to the value sent.
        assert.match(arrival.path, /^\/v1\/pets\/[^/]+$/, petId);
        assert.equal(arrival.query, "", petId);
        assert.equal(decodeURIComponent(arrival.path.slice("/v1/pets/".length)), petId);
      }
      assert.deepEqual(elsewhere.arrivals, [], "a request reached the other host");
      // The server goes on serving.
      const before = echo.arrivals.length;
      const after = await call(client, "getPet", { petId: "9" });
      assert.notEqual(after.isError, true, JSON.stringify(after));
      assert.equal(onlyArrival(echo, before, "getPet").path, "/v1/pets/9");
    });
  } finally {
    await echo.close();
    await elsewhere.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: --read-only serves only the read operations, from the annotations the methods imply, with nothing in the sidecar", async () => {
  const echo = serveEcho();
  const dir = await servedFolder(echo);
  try {
    await overStdio(dir, {}, async (client) => {
      const { tools } = await client.listTools() as { tools: ListedTool[] };
      assert.deepEqual(tools.map((tool) => tool.name).sort(), PETSTORE_READS);
      await assert.rejects(() => call(client, "deletePet", { petId: "7" }), /deletePet/);
      assert.deepEqual(echo.arrivals, []);
    }, ["--read-only"]);
  } finally {
    await echo.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi tools: a sidecar's timeoutMs for one tool ends a call the API never answers as an isError result, and the next call is served", async () => {
  const echo = serveEcho();
  const dir = await servedFolder(
    echo,
    { tools: { stall: { timeoutMs: 200 } } },
    { "/stall": echoPath("stall", "Never answered") },
  );
  try {
    await overStdio(dir, {}, async (client) => {
      const stalled = await call(client, "stall", {});
      assert.equal(stalled.isError, true, JSON.stringify(stalled));
      assert.match(stalled.content[0].text!, /200 ?ms/);
      assert.equal(echo.arrivals.at(-1)?.path, "/v1/stall");
      const before = echo.arrivals.length;
      const next = await call(client, "getPet", { petId: "2" });
      assert.notEqual(next.isError, true, JSON.stringify(next));
      assert.equal(onlyArrival(echo, before, "getPet").path, "/v1/pets/2");
    });
  } finally {
    await echo.close();
    await Deno.remove(dir, { recursive: true });
  }
});
