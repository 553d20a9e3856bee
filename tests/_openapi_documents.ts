// OpenAPI documents the tests of more than one file load.

/** An API whose GET /bad and POST /worse have a parameter ref that dangles. */
export const BROKEN_API = JSON.stringify({
  openapi: "3.1.0",
  info: { title: "broken", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/good": { get: { operationId: "good", responses: { "200": { description: "OK" } } } },
    "/bad": {
      get: {
        operationId: "bad",
        parameters: [{ $ref: "#/components/parameters/missing" }],
        responses: { "200": { description: "OK" } },
      },
    },
    "/worse": {
      post: {
        operationId: "worse",
        parameters: [{ $ref: "#/components/parameters/missing" }],
        responses: { "200": { description: "OK" } },
      },
    },
  },
});
