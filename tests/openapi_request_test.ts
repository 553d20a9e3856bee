// buildRequest() (lib/openapi/request.ts): each request is built, sent to a loopback echo
// server, and held to what arrived there byte for byte: the OpenAPI 3 style table, the mapping
// bugs the two FastMCPs had (adr/0072), and SSRF attempts through a path parameter.
import assert from "node:assert/strict";
import type { BodyPlace, ParameterPlace } from "../lib/openapi/places.ts";
import { buildRequest, type OperationRequest } from "../lib/openapi/request.ts";
import { type Arrival, serveEcho } from "./_openapi_echo.ts";

/** A parameter with OpenAPI 3's defaults: form in query and cookie, simple elsewhere. */
function at(
  location: ParameterPlace["in"],
  name: string,
  style?: string,
  explode?: boolean,
  allowReserved = false,
): ParameterPlace {
  const chosen = style ?? (location === "query" || location === "cookie" ? "form" : "simple");
  return {
    in: location,
    name,
    style: chosen,
    explode: explode ?? chosen === "form",
    allowReserved,
    schema: {},
  };
}

/** Sends `request` as built and returns what the echo server saw. */
async function arrived(
  origin: string,
  arrivals: Arrival[],
  request: OperationRequest,
): Promise<Arrival> {
  assert.equal(request.url.origin, origin);
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  await response.body?.cancel();
  return arrivals[arrivals.length - 1];
}

/** Runs `body` against a fresh echo server whose base URL is `<origin>/v1`. */
async function withEcho(
  body: (base: URL, send: (request: OperationRequest) => Promise<Arrival>) => Promise<void>,
): Promise<void> {
  const echo = serveEcho();
  try {
    await body(
      new URL(`${echo.origin}/v1`),
      (request) => arrived(echo.origin, echo.arrivals, request),
    );
  } finally {
    await echo.close();
  }
}

/** What the echo server saw of the request `buildRequest(<origin>/v1, ...args)` built. */
async function seenFor(...args: DropFirst<Parameters<typeof buildRequest>>): Promise<Arrival> {
  let seen: Arrival | undefined;
  await withEcho(async (base, send) => {
    seen = await send(buildRequest(base, ...args));
  });
  return seen!;
}
type DropFirst<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

const BLUE = "blue";
const COLORS = ["blue", "black", "brown"];
const RGB = { R: 100, G: 200, B: 150 };

/** OpenAPI 3.0.3 / 3.1.0 "Style Examples", the value named `color`: string, array, object. */
const STYLE_TABLE: [ParameterPlace["in"], string, boolean, string?, string?, string?][] = [
  ["path", "matrix", false, ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"],
  [
    "path",
    "matrix",
    true,
    ";color=blue",
    ";color=blue;color=black;color=brown",
    ";R=100;G=200;B=150",
  ],
  ["path", "label", false, ".blue", ".blue.black.brown", ".R.100.G.200.B.150"],
  ["path", "label", true, ".blue", ".blue.black.brown", ".R=100.G=200.B=150"],
  ["path", "simple", false, "blue", "blue,black,brown", "R,100,G,200,B,150"],
  ["path", "simple", true, "blue", "blue,black,brown", "R=100,G=200,B=150"],
  ["query", "form", false, "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"],
  ["query", "form", true, "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"],
  [
    "query",
    "spaceDelimited",
    false,
    undefined,
    "color=blue%20black%20brown",
    "color=R%20100%20G%20200%20B%20150",
  ],
  ["query", "pipeDelimited", false, undefined, "color=blue|black|brown", "color=R|100|G|200|B|150"],
  ["query", "deepObject", true, undefined, undefined, "color[R]=100&color[G]=200&color[B]=150"],
  ["header", "simple", false, "blue", "blue,black,brown", "R,100,G,200,B,150"],
  ["header", "simple", true, "blue", "blue,black,brown", "R=100,G=200,B=150"],
  ["cookie", "form", false, "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"],
  [
    "cookie",
    "form",
    true,
    "color=blue",
    "color=blue; color=black; color=brown",
    "R=100; G=200; B=150",
  ],
];

Deno.test("buildRequest() serializes every row of OpenAPI 3's style table as specified", async () => {
  await withEcho(async (base, send) => {
    const problems: string[] = [];
    for (const [location, style, explode, ...expected] of STYLE_TABLE) {
      for (const [index, value] of [BLUE, COLORS, RGB].entries()) {
        const want = expected[index];
        if (want === undefined) continue;
        const request = buildRequest(
          base,
          "GET",
          location === "path" ? "/pets/{color}" : "/pets",
          { color: value },
          { color: at(location, "color", style, explode) },
          undefined,
          {},
        );
        const seen = await send(request);
        const got = location === "path"
          ? seen.path.slice("/v1/pets/".length)
          : location === "query"
          ? seen.query
          : seen.headers[location === "header" ? "color" : "cookie"];
        if (got !== want) {
          problems.push(`${location} ${style} explode=${explode} ${JSON.stringify(value)}: ${got}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });
});

Deno.test("buildRequest() sends a dictionary body as the dictionary, never wrapped in its argument", async () => {
  await withEcho(async (base, send) => {
    const body: BodyPlace = { mediaType: "application/json", shape: "whole", argument: "labels" };
    const seen = await send(
      buildRequest(base, "PUT", "/pets/labels", { labels: { team: "infra" } }, {}, body, {}),
    );
    assert.equal(new TextDecoder().decode(seen.body), '{"team":"infra"}');
    assert.equal(seen.headers["content-type"], "application/json");
  });
});

Deno.test("buildRequest() sends a properties body with the present properties only", async () => {
  await withEcho(async (base, send) => {
    const body: BodyPlace = {
      mediaType: "application/json",
      shape: "properties",
      properties: ["name", "tag", "age"],
    };
    const seen = await send(
      buildRequest(base, "POST", "/pets", { name: "Rex", age: 3, other: 1 }, {}, body, {}),
    );
    assert.deepEqual(JSON.parse(new TextDecoder().decode(seen.body)), { name: "Rex", age: 3 });
  });
});

Deno.test("buildRequest() sends pipeDelimited with explode left out as one joined value", async () => {
  const seen = await seenFor(
    "GET",
    "/pets",
    { ids: ["a", "b"] },
    { ids: at("query", "ids", "pipeDelimited") },
    undefined,
    {},
  );
  assert.equal(seen.query, "ids=a|b");
});

Deno.test("buildRequest() fills several path parameters and every occurrence of a repeated one", async () => {
  const seen = await seenFor(
    "GET",
    "/{tenant}/{tenant}/pets/{petId}/photos/{photoId}",
    { tenant: "acme", petId: 7, photoId: "p1" },
    {
      tenant: at("path", "tenant"),
      petId: at("path", "petId"),
      photoId: at("path", "photoId"),
    },
    undefined,
    {},
  );
  assert.equal(seen.path, "/v1/acme/acme/pets/7/photos/p1");
});

Deno.test("buildRequest() joins an array path value with a bare comma, its items' own commas encoded", async () => {
  const seen = await seenFor(
    "GET",
    "/pets/{ids}",
    { ids: ["x", "y,z"] },
    { ids: at("path", "ids") },
    undefined,
    {},
  );
  assert.equal(seen.path, "/v1/pets/x,y%2Cz");
});

Deno.test("buildRequest() sends objects in headers and cookies by their style, never [object Object]", async () => {
  const seen = await seenFor(
    "GET",
    "/pets",
    { h: { a: 1, b: "two" }, c: { x: 1 }, d: ["p", "q"] },
    {
      h: at("header", "X-Filter", "simple", true),
      c: at("cookie", "prefs", "form", false),
      d: at("cookie", "list", "form", false),
    },
    undefined,
    { cookie: "session=s1" },
  );
  assert.equal(seen.headers["x-filter"], "a=1,b=two");
  assert.equal(seen.headers.cookie, "session=s1; prefs=x,1; list=p,q");
});

Deno.test("buildRequest() keeps reserved characters only where allowReserved says so", async () => {
  await withEcho(async (base, send) => {
    const value = "a/b?c=d&e#f g";
    const seen = await send(
      buildRequest(
        base,
        "GET",
        "/pets",
        { kept: value, strict: value },
        {
          kept: at("query", "kept", "form", true, true),
          strict: at("query", "strict"),
        },
        undefined,
        {},
      ),
    );
    assert.equal(seen.query, "kept=a/b?c=d&e%23f%20g&strict=a%2Fb%3Fc%3Dd%26e%23f%20g");
  });
});

Deno.test("buildRequest() leaves out null and undefined arguments", async () => {
  const seen = await seenFor(
    "GET",
    "/pets",
    { a: null, b: undefined, c: "" },
    { a: at("query", "a"), b: at("query", "b"), c: at("query", "c") },
    undefined,
    { "x-static": "1" },
  );
  assert.equal(seen.query, "c=");
});

Deno.test("buildRequest() keeps a path parameter's hostile value inside its segment or refuses it", async () => {
  await withEcho(async (base, send) => {
    const cases: Record<string, string> = {
      "../admin": "/v1/pets/%2E%2E%2Fadmin/photos",
      "%2e%2e": "/v1/pets/%252e%252e/photos",
      "//evil.example": "/v1/pets/%2F%2Fevil%2Eexample/photos",
      "http://evil.example/": "/v1/pets/http%3A%2F%2Fevil%2Eexample%2F/photos",
      "?x=1#y": "/v1/pets/%3Fx%3D1%23y/photos",
      "a b;c=d": "/v1/pets/a%20b%3Bc%3Dd/photos",
    };
    for (const [value, path] of Object.entries(cases)) {
      const seen = await send(
        buildRequest(
          base,
          "GET",
          "/pets/{petId}/photos",
          { petId: value },
          { petId: at("path", "petId") },
          undefined,
          {},
        ),
      );
      assert.equal(seen.path, path, value);
      assert.equal(seen.query, "", value);
    }
  });
});

Deno.test("buildRequest() refuses a path that dot segments would move, naming the operation", () => {
  const base = new URL("http://127.0.0.1:1/v1");
  for (const value of [".", ["", ""]]) {
    assert.throws(
      () =>
        buildRequest(
          base,
          "get",
          "/{petId}",
          { petId: value },
          { petId: at("path", "petId", "label", false) },
          undefined,
          {},
        ),
      (error: Error) => error.message.startsWith(`Cannot call "GET /{petId}": `),
    );
  }
  assert.throws(
    () =>
      buildRequest(
        base,
        "GET",
        "/{petId}",
        { petId: ".." },
        { petId: at("path", "petId") },
        undefined,
        {},
      ),
    {
      message:
        'Cannot call "GET /{petId}": its path "/%2E%2E" has a "%2E%2E" segment, which would leave its place',
    },
  );
});

Deno.test("buildRequest() refuses a URL off the base origin or outside the base path", () => {
  const base = new URL("http://127.0.0.1:1/v1");
  assert.throws(
    () => buildRequest(base, "GET", "/../admin", {}, {}, undefined, {}),
    {
      message:
        'Cannot call "GET /../admin": its path "/../admin" has a ".." segment, which would leave its place',
    },
  );
  assert.throws(
    () => buildRequest(base, "GET", "/..\\..\\admin", {}, {}, undefined, {}),
    {
      message:
        'Cannot call "GET /..\\..\\admin": its URL "http://127.0.0.1:1/admin" is not under "/v1/"',
    },
  );
});

Deno.test("buildRequest() refuses an argument that would set an operator's, a reserved or a hop-by-hop header", () => {
  const base = new URL("http://127.0.0.1:1/v1");
  for (const name of ["X-Api-Key", "authorization", "Connection", "Transfer-Encoding", "Host"]) {
    assert.throws(
      () =>
        buildRequest(
          base,
          "GET",
          "/pets",
          { h: "mine" },
          { h: at("header", name) },
          undefined,
          { "x-api-key": "operator's" },
        ),
      { message: `Cannot call "GET /pets": argument "h" may not set the header "${name}"` },
    );
  }
  assert.throws(
    () =>
      buildRequest(
        base,
        "GET",
        "/pets",
        { c: "mine" },
        { c: at("cookie", "session") },
        undefined,
        { cookie: "session=operator" },
      ),
    { message: 'Cannot call "GET /pets": an argument may not set the cookie "session"' },
  );
  assert.throws(
    () =>
      buildRequest(
        base,
        "GET",
        "/pets",
        { h: "a\r\nx-evil: 1" },
        { h: at("header", "X-Note") },
        undefined,
        {},
      ),
    { message: 'Cannot call "GET /pets": argument "h" has a character a header cannot carry' },
  );
});

Deno.test("buildRequest() encodes form-urlencoded and multipart bodies as such", async () => {
  await withEcho(async (base, send) => {
    const form: BodyPlace = {
      mediaType: "application/x-www-form-urlencoded",
      shape: "properties",
      properties: ["name", "tags", "meta"],
      encoding: { tags: { style: "pipeDelimited" }, meta: { contentType: "application/json" } },
    };
    const seen = await send(
      buildRequest(
        base,
        "POST",
        "/pets",
        { name: "Rex & co", tags: ["a", "b"], meta: { k: 1 } },
        {},
        form,
        {},
      ),
    );
    assert.equal(
      new TextDecoder().decode(seen.body),
      "name=Rex%20%26%20co&tags=a|b&meta=%7B%22k%22%3A1%7D",
    );
    assert.equal(seen.headers["content-type"], "application/x-www-form-urlencoded");

    const multipart: BodyPlace = {
      mediaType: "multipart/form-data",
      shape: "properties",
      properties: ["name", "tags", "meta"],
    };
    const parts = await send(
      buildRequest(
        base,
        "POST",
        "/pets",
        { name: "Rex", tags: ["a", "b"], meta: { k: 1 } },
        {},
        multipart,
        {},
      ),
    );
    const parsed = await new Request("http://x/", {
      method: "POST",
      headers: { "content-type": parts.headers["content-type"] },
      body: new Uint8Array(parts.body),
    }).formData();
    assert.equal(parsed.get("name"), "Rex");
    assert.deepEqual(parsed.getAll("tags"), ["a", "b"]);
    const meta = parsed.get("meta") as File;
    assert.equal(meta.type, "application/json");
    assert.equal(await meta.text(), '{"k":1}');
  });
});

Deno.test("buildRequest() sends a string body of another media type as it is, and refuses anything else", async () => {
  await withEcho(async (base, send) => {
    const body: BodyPlace = { mediaType: "application/xml", shape: "whole", argument: "doc" };
    const seen = await send(buildRequest(base, "POST", "/pets", { doc: "<pet/>" }, {}, body, {}));
    assert.equal(new TextDecoder().decode(seen.body), "<pet/>");
    assert.equal(seen.headers["content-type"], "application/xml");
    assert.throws(
      () => buildRequest(base, "POST", "/pets", { doc: { a: 1 } }, {}, body, {}),
      {
        message:
          'Cannot call "POST /pets": its "application/xml" body must be a string, sent as it is',
      },
    );
  });
});
