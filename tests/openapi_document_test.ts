// lib/openapi/document.ts (adr/0072 decisions 1 and 7): JSON or YAML, OpenAPI 3.0/3.1 only,
// Swagger 2.0 refused naming a converter, local refs resolved by RFC 6901 pointers, external refs
// and ref loops refused for their operation only, routes in fastmcp-ts's order.
import { deepStrictEqual, match, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { parseDocument, pointerTarget, routes } from "../lib/openapi/document.ts";
import { operationSchemas } from "../lib/openapi/schemas.ts";

const text = (value: unknown) => JSON.stringify(value);
const ok200 = { "200": { description: "OK" } };

Deno.test("parseDocument reads JSON and YAML alike", async () => {
  const yaml =
    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n      responses: {'200': {description: OK}}\n";
  const fromYaml = await parseDocument(yaml, "a.openapi.yaml");
  const fromJson = await parseDocument(
    text({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { operationId: "a", responses: ok200 } } },
    }),
    "a.openapi.json",
  );
  deepStrictEqual(fromYaml.root, fromJson.root);
  strictEqual(fromYaml.version, "3.1");
});

Deno.test("parseDocument refuses Swagger 2.0 naming a converter", async () => {
  await rejects(
    () => parseDocument(text({ swagger: "2.0", paths: {} }), "old.openapi.json"),
    /"old\.openapi\.json".*npx swagger2openapi/,
  );
});

Deno.test("parseDocument accepts 3.0.x and 3.1.x only", async () => {
  strictEqual((await parseDocument(text({ openapi: "3.0.3", paths: {} }), "x")).version, "3.0");
  for (const openapi of ["3.2.0", "4.0.0", 3.1, undefined]) {
    await rejects(
      () => parseDocument(text({ openapi, paths: {} }), "x.json"),
      /OpenAPI 3\.0\.x and 3\.1\.x only/,
    );
  }
  await rejects(() => parseDocument("{not json", "bad.json"), /"bad\.json" is not valid JSON/);
  await rejects(() => parseDocument("[1, 2]", "list.json"), /top level is not an object/);
});

Deno.test("pointerTarget follows RFC 6901 escapes and percent-encoding", async () => {
  const doc = await parseDocument(
    text({ openapi: "3.1.0", paths: { "/a/{id}": { get: { "x~y": [10, 20] } } } }),
    "p",
  );
  deepStrictEqual(pointerTarget(doc, "#/paths/~1a~1%7Bid%7D/get/x~0y/1"), 20);
  strictEqual(pointerTarget(doc, "#/paths/nothing"), undefined);
  throws(() => pointerTarget(doc, "other.json#/a"), /external ref "other\.json#\/a"/);
});

Deno.test("routes lists paths in document order and methods in fastmcp-ts's order", async () => {
  const item = Object.fromEntries(
    ["trace", "patch", "head", "options", "delete", "post", "put", "get"].map((
      m,
    ) => [m, { responses: ok200 }]),
  );
  const doc = await parseDocument(
    text({ openapi: "3.0.0", paths: { "/z": item, "/a": { get: { responses: ok200 } } } }),
    "o",
  );
  deepStrictEqual(
    routes(doc).map((route) => `${route.method} ${route.path}`),
    [
      "GET /z",
      "PUT /z",
      "POST /z",
      "DELETE /z",
      "OPTIONS /z",
      "HEAD /z",
      "PATCH /z",
      "TRACE /z",
      "GET /a",
    ],
  );
});

Deno.test("routes puts operation parameters before path-level ones, each name and place once", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.0.0",
      components: {
        parameters: { Limit: { name: "limit", in: "query", schema: { type: "integer" } } },
      },
      paths: {
        "/a/{id}": {
          parameters: [{
            name: "id",
            in: "path",
            required: true,
            schema: { type: "string" },
            description: "shared",
          }, {
            name: "id",
            in: "header",
            schema: { type: "string" },
          }],
          get: {
            parameters: [{
              name: "id",
              in: "path",
              required: true,
              schema: { type: "integer" },
              description: "own",
            }, {
              $ref: "#/components/parameters/Limit",
            }],
            security: [],
            responses: ok200,
          },
        },
      },
      security: [{ key: [] }],
    }),
    "p",
  );
  const [route] = routes(doc);
  deepStrictEqual(route.parameters.map((p) => `${p.in} ${p.name} ${p.description ?? ""}`), [
    "path id own",
    "query limit ",
    "header id ",
  ]);
  deepStrictEqual(route.security, []);
});

Deno.test("routes falls back to the document's security", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.1.0",
      security: [{ key: [] }],
      paths: { "/a": { get: { responses: ok200 } } },
    }),
    "s",
  );
  deepStrictEqual(routes(doc)[0].security, [{ key: [] }]);
});

Deno.test("a ref loop is an error naming the cycle for that operation only", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.0.0",
      components: {
        parameters: {
          A: { $ref: "#/components/parameters/B" },
          B: { $ref: "#/components/parameters/A" },
        },
        schemas: { X: { $ref: "#/components/schemas/Y" }, Y: { $ref: "#/components/schemas/X" } },
      },
      paths: {
        "/loop": { get: { parameters: [{ $ref: "#/components/parameters/A" }], responses: ok200 } },
        "/schema-loop": {
          post: {
            requestBody: {
              content: { "application/json": { schema: { $ref: "#/components/schemas/X" } } },
            },
            responses: ok200,
          },
        },
        "/fine": { get: { responses: ok200 } },
      },
    }),
    "loop.json",
  );
  const [loop, schemaLoop, fine] = routes(doc);
  throws(
    () => operationSchemas(doc, loop, { validateOutput: true }),
    /GET \/loop: .*"#\/components\/parameters\/A" → "#\/components\/parameters\/B" → "#\/components\/parameters\/A"/,
  );
  throws(
    () => operationSchemas(doc, schemaLoop, { validateOutput: true }),
    /POST \/schema-loop: .*"#\/components\/schemas\/X" → "#\/components\/schemas\/Y" → "#\/components\/schemas\/X"/,
  );
  strictEqual(
    operationSchemas(doc, fine, { validateOutput: true }).description,
    "Executes GET /fine",
  );
});

Deno.test("an external or dangling ref is refused for its operation, naming the ref", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.1.0",
      paths: {
        "/ext": { get: { parameters: [{ $ref: "common.yaml#/parameters/Id" }], responses: ok200 } },
        "/inner": {
          post: {
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { a: { $ref: "https://x.example/s.json" } },
                  },
                },
              },
            },
            responses: ok200,
          },
        },
        "/dangling": {
          get: {
            responses: {
              "200": {
                description: "OK",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: { a: { $ref: "#/components/schemas/Gone" } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }),
    "refs.json",
  );
  const [ext, inner, dangling] = routes(doc);
  throws(
    () => operationSchemas(doc, ext, { validateOutput: true }),
    /GET \/ext: the external ref "common\.yaml#\/parameters\/Id"/,
  );
  throws(
    () => operationSchemas(doc, inner, { validateOutput: true }),
    /POST \/inner: the external ref "https:\/\/x\.example\/s\.json"/,
  );
  throws(
    () => operationSchemas(doc, dangling, { validateOutput: true }),
    /GET \/dangling: the ref "#\/components\/schemas\/Gone" names nothing/,
  );
});

Deno.test("a local ref outside components is inlined, not left dangling", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.1.0",
      paths: {
        "/a": {
          post: {
            requestBody: {
              content: {
                "application/json": {
                  schema: { type: "object", properties: { n: { type: "integer" } } },
                },
              },
            },
            responses: {
              "200": {
                description: "OK",
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: {
                        echo: {
                          $ref: "#/paths/~1a/post/requestBody/content/application~1json/schema",
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }),
    "inline.json",
  );
  const schemas = operationSchemas(doc, routes(doc)[0], { validateOutput: true });
  deepStrictEqual(schemas.outputSchema, {
    type: "object",
    properties: { echo: { type: "object", properties: { n: { type: "integer" } } } },
  });
  ok(!JSON.stringify(schemas).includes("#/paths"));
  match(schemas.description, /Executes POST \/a/);
});

Deno.test("routes refuses a path item it cannot read, naming the path", async () => {
  const doc = await parseDocument(
    text({
      openapi: "3.1.0",
      paths: { "/a": { $ref: "#/paths/~1b" }, "/b": { $ref: "#/paths/~1a" } },
    }),
    "items.json",
  );
  throws(
    () => routes(doc),
    /"items\.json": the path "\/a": .*"#\/paths\/~1b" → "#\/paths\/~1a" → "#\/paths\/~1b"/,
  );
  const shared = await parseDocument(
    text({
      openapi: "3.1.0",
      paths: { "/a": { $ref: "#/paths/~1b" }, "/b": { get: { responses: ok200 } } },
    }),
    "shared.json",
  );
  deepStrictEqual(routes(shared).map((route) => route.path), ["/a", "/b"]);
});
