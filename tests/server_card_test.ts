// The server card and the AI catalog over HTTP (SEP-2127's draft; adr/0050): main.ts serving
// examples/hello, read with plain fetch as a browser or a crawler would (the official SDKs,
// @modelcontextprotocol/sdk 1.32.2 and @modelcontextprotocol/client 2.4.0, have no server-card
// discovery to drive it with); the card checked against the draft's JSON Schema and against
// what `server/discover` and `initialize` say once connected; and the same through `fetch`,
// embedded. The schema is modelcontextprotocol/experimental-ext-server-card's schema.json at
// commit 8924e08682b4a936e6464b57845ec2ff17dc8776 (2026-07-24), kept byte for byte in
// tests/fixtures/server_card/.
import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { createServer } from "../lib/server/create_server.ts";
import { compileSchema } from "../lib/schema/compile.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { SESSION_VERSIONS, STATELESS_VERSIONS } from "../lib/wire/versions.ts";
import { modernHeaders, postInitialize } from "./_http_server.ts";
import { FIXTURE_TOOLS, spawnHttpServer } from "./_server_process.ts";
import { recorder } from "./_diagnostics.ts";

const HELLO = new URL("../examples/hello", import.meta.url).pathname;
const TOOLSETS = new URL("../examples/toolsets", import.meta.url).pathname;
const TOKEN = "card-test-token";
const CARD_SCHEMA = JSON.parse(
  await Deno.readTextFile(
    new URL("./fixtures/server_card/server-card.schema.json", import.meta.url),
  ),
);
const checkCard = compileSchema(CARD_SCHEMA);
const HELLO_META = JSON.parse(await Deno.readTextFile(`${HELLO}/server.meta.json`));

/** The 2026-07-28 `server/discover` request body. */
const DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});

/** The result of an `initialize` POST of `version`. */
async function initialize(
  url: string,
  version: string,
  headers: Record<string, string>,
): Promise<JsonObject> {
  const response = await postInitialize(url, version, headers);
  strictEqual(response.status, 200, `initialize ${version}`);
  const text = await response.text();
  // JSON, or one SSE event.
  const json = text.startsWith("{") ? text : text.split("\n").find((l) => l.startsWith("data: "))!
    .slice("data: ".length);
  return (JSON.parse(json) as { result: JsonObject }).result;
}

Deno.test("main.ts --http serves the server card and the AI catalog as the draft says, with no token", async () => {
  const server = await spawnHttpServer(["--dir", HELLO], { TOOLSHED_HTTP_TOKEN: TOKEN });
  try {
    const cardUrl = `${server.url}/server-card`;
    const catalogUrl = new URL("/.well-known/ai-catalog.json", server.url).href;
    const auth = { authorization: `Bearer ${TOKEN}` };

    // The endpoint refuses a request without the token; the documents do not need it.
    const refused = await fetch(server.url, {
      method: "POST",
      headers: modernHeaders("server/discover"),
      body: DISCOVER,
    });
    await refused.body?.cancel();
    strictEqual(refused.status, 401);

    const got = await fetch(cardUrl, { headers: { accept: "application/mcp-server-card+json" } });
    strictEqual(got.status, 200);
    strictEqual(got.headers.get("content-type"), "application/mcp-server-card+json");
    strictEqual(got.headers.get("access-control-allow-origin"), "*");
    strictEqual(got.headers.get("access-control-expose-headers"), "ETag");
    strictEqual(got.headers.get("cache-control"), "public, max-age=3600");
    const etag = got.headers.get("etag")!;
    match(etag, /^"[A-Za-z0-9_-]+"$/, "a strong tag");
    const card = await got.json() as JsonObject;
    strictEqual(checkCard(card), undefined, "the card passes the draft's schema");
    deepStrictEqual(card, {
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: HELLO_META.name,
      version: HELLO_META.version,
      description: HELLO_META.description,
      title: HELLO_META.title,
      repository: HELLO_META.repository,
      remotes: [{
        type: "streamable-http",
        url: server.url,
        headers: [{
          name: "Authorization",
          description: "The bearer token the server's operator gave you",
          isRequired: true,
          isSecret: true,
          value: "Bearer {token}",
          variables: {
            token: { description: "The access token", isRequired: true, isSecret: true },
          },
        }],
        supportedProtocolVersions: [...STATELESS_VERSIONS, ...SESSION_VERSIONS],
      }],
    });

    // Revalidation (RFC 9110 §13.1.2): the tag as sent, weak, in a list, or `*` gives 304;
    // another tag, or this one unquoted, 200.
    for (
      const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, ` "other" , W/${etag}`, "*"]
    ) {
      const again = await fetch(cardUrl, { headers: { "if-none-match": ifNoneMatch } });
      strictEqual(again.status, 304, ifNoneMatch);
      strictEqual(await again.text(), "");
      strictEqual(again.headers.get("etag"), etag);
      strictEqual(again.headers.get("cache-control"), "public, max-age=3600");
      strictEqual(again.headers.get("access-control-allow-origin"), "*");
    }
    const changed = await fetch(cardUrl, { headers: { "if-none-match": '"other"' } });
    strictEqual(changed.status, 200);
    deepStrictEqual(await changed.json(), card);
    const unquoted = await fetch(cardUrl, { headers: { "if-none-match": etag.slice(1, -1) } });
    strictEqual(unquoted.status, 200);
    deepStrictEqual(await unquoted.json(), card);

    const head = await fetch(cardUrl, { method: "HEAD" });
    strictEqual(head.status, 200);
    strictEqual(await head.text(), "");
    strictEqual(head.headers.get("etag"), etag);
    strictEqual(head.headers.get("content-type"), "application/mcp-server-card+json");

    // A page of any origin may read it: the preflight, and a GET with an Origin the endpoint
    // refuses.
    const preflight = await fetch(cardUrl, {
      method: "OPTIONS",
      headers: {
        origin: "https://pages.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match",
      },
    });
    await preflight.body?.cancel();
    strictEqual(preflight.status, 204);
    strictEqual(preflight.headers.get("access-control-allow-origin"), "*");
    strictEqual(preflight.headers.get("access-control-allow-methods"), "GET");
    strictEqual(
      preflight.headers.get("access-control-allow-headers"),
      "Content-Type, If-None-Match",
    );
    const fromPage = await fetch(cardUrl, { headers: { origin: "https://pages.example" } });
    strictEqual(fromPage.status, 200);
    strictEqual(fromPage.headers.get("etag"), etag);
    await fromPage.body?.cancel();
    const pageToEndpoint = await fetch(server.url, {
      method: "POST",
      headers: { ...modernHeaders("server/discover"), ...auth, origin: "https://pages.example" },
      body: DISCOVER,
    });
    await pageToEndpoint.body?.cancel();
    strictEqual(pageToEndpoint.status, 403);

    const posted = await fetch(cardUrl, { method: "POST", body: "{}" });
    await posted.body?.cancel();
    strictEqual(posted.status, 405);
    strictEqual(posted.headers.get("allow"), "GET, HEAD, OPTIONS");

    // The catalog points at the card.
    const listed = await fetch(catalogUrl);
    strictEqual(listed.status, 200);
    strictEqual(listed.headers.get("content-type"), "application/ai-catalog+json");
    strictEqual(listed.headers.get("access-control-allow-origin"), "*");
    strictEqual(listed.headers.get("cache-control"), "public, max-age=3600");
    const catalogTag = listed.headers.get("etag")!;
    const catalog = await listed.json() as { specVersion: string; entries: JsonObject[] };
    deepStrictEqual(catalog, {
      specVersion: "1.0",
      entries: [{
        identifier: "urn:air:toolshed-examples.github.io:mcp:hello",
        type: "application/mcp-server-card+json",
        url: cardUrl,
      }],
    });
    const followed = await fetch(catalog.entries[0].url as string);
    deepStrictEqual(await followed.json(), card);
    const catalogAgain = await fetch(catalogUrl, { headers: { "if-none-match": catalogTag } });
    strictEqual(catalogAgain.status, 304);
    await catalogAgain.body?.cancel();

    // Consistency: what the card says, server/discover and initialize say once connected.
    const discovered = await fetch(server.url, {
      method: "POST",
      headers: { ...modernHeaders("server/discover"), ...auth },
      body: DISCOVER,
    });
    const discover = (await discovered.json() as { result: JsonObject }).result;
    const discoverInfo = (discover._meta as JsonObject)["io.modelcontextprotocol/serverInfo"];
    const identity = (info: JsonObject) => ({
      name: info.name,
      version: info.version,
      title: info.title,
      description: info.description,
    });
    const cardIdentity = identity(card);
    deepStrictEqual(identity(discoverInfo as JsonObject), cardIdentity);
    const remote = (card.remotes as JsonObject[])[0];
    const claimed = remote.supportedProtocolVersions as string[];
    // Every version the card claims is one the endpoint accepts: discover's list, and each
    // session version initialize agrees to.
    for (const version of claimed) {
      if ((discover.supportedVersions as string[]).includes(version)) continue;
      const result = await initialize(server.url, version, auth);
      strictEqual(result.protocolVersion, version, `initialize accepts ${version}`);
      deepStrictEqual(identity(result.serverInfo as JsonObject), cardIdentity, version);
    }
  } finally {
    await server.stop();
  }
});

Deno.test("main.ts --http answers 404 naming server.meta.json when the directory has none", async () => {
  const server = await spawnHttpServer(["--tools", FIXTURE_TOOLS]);
  try {
    for (
      const url of [
        `${server.url}/server-card`,
        new URL("/.well-known/ai-catalog.json", server.url).href,
      ]
    ) {
      const response = await fetch(url);
      strictEqual(response.status, 404, url);
      strictEqual(response.headers.get("access-control-allow-origin"), "*");
      match(
        await response.text(),
        /no server card; add server\.meta\.json to its server directory/,
      );
    }
  } finally {
    await server.stop();
  }
});

Deno.test("createServer().fetch serves the card at the public URL, its Host checked", async () => {
  const server = await createServer({
    dir: HELLO,
    http: { publicUrl: "https://mcp.example.com/mcp", allowedHosts: ["mcp.example.com"] },
    diagnostics: recorder(),
  });
  try {
    const card = await server.fetch(new Request("http://127.0.0.1/mcp/server-card"));
    strictEqual(card.status, 200);
    const body = await card.json() as JsonObject;
    strictEqual(checkCard(body), undefined);
    const [remote] = body.remotes as JsonObject[];
    strictEqual(remote.url, "https://mcp.example.com/mcp");
    strictEqual(remote.headers, undefined, "no credentials asked for: none is required");
    const catalog = await server.fetch(
      new Request("https://mcp.example.com/.well-known/ai-catalog.json"),
    );
    const { entries } = await catalog.json() as { entries: JsonObject[] };
    strictEqual(entries[0].url, "https://mcp.example.com/mcp/server-card");
    // A Host that names no allowed host is refused, as at the endpoint.
    const rebound = await server.fetch(new Request("http://evil.example/mcp/server-card"));
    strictEqual(rebound.status, 403);
    match(await rebound.text(), /Host header "evil\.example" names no allowed host/);
  } finally {
    await server.close();
  }
});

Deno.test("createServer().fetch derives the card's URL from the request; toolset paths have none", async () => {
  const withMeta = await createServer({
    dir: HELLO,
    http: { bearerToken: TOKEN, path: "/tools/mcp" },
    diagnostics: recorder(),
  });
  // examples/toolsets has toolsets (served at /mcp/<set>) and no server.meta.json.
  const without = await createServer({ dir: TOOLSETS, http: {}, diagnostics: recorder() });
  try {
    const card = await withMeta.fetch(new Request("http://localhost:8080/tools/mcp/server-card"));
    const [remote] = (await card.json() as { remotes: JsonObject[] }).remotes;
    strictEqual(remote.url, "http://localhost:8080/tools/mcp");
    strictEqual((remote.headers as JsonObject[])[0].name, "Authorization");
    for (const path of ["/mcp/server-card", "/.well-known/ai-catalog.json"]) {
      const missing = await without.fetch(new Request(`http://localhost${path}`));
      strictEqual(missing.status, 404, path);
      match(await missing.text(), /no server card; add server\.meta\.json/);
    }
    // One card per server: a toolset's path is the endpoint, and has none of its own.
    const ofSet = await without.fetch(new Request("http://localhost/mcp/issues/server-card"));
    strictEqual(ofSet.status, 404);
    strictEqual(await ofSet.text(), "Not found: MCP is served on /mcp\n");
  } finally {
    await Promise.all([withMeta.close(), without.close()]);
  }
});
