// lib/openapi/api_file.ts (adr/0072 decisions 1, 2, 4 and 6): an API's sidecar read and checked
// as a mount's block is, `${NAME}` from the environment and no literal secrets; the curated
// default (GET and HEAD); selectors by operationId, tool name and "METHOD /path" with globs; and
// the entries that would do nothing once the document is known. Pure: no process, no network.
import { deepStrictEqual, match, ok, strictEqual, throws } from "node:assert/strict";
import {
  API_DEFAULTS,
  type ApiFile,
  credentialProblems,
  operationSelected,
  parseApiFile,
  unmatchedEntries,
} from "../lib/openapi/api_file.ts";
import {
  type OpenApiDocument,
  parseDocument,
  type Route,
  routes,
} from "../lib/openapi/document.ts";
import { toolNames } from "../lib/openapi/names.ts";
import { MAX_TIMER_MS } from "../lib/util/json.ts";

const ENV: Record<string, string> = {
  PETSTORE_KEY: "k-123",
  PETSTORE_TOKEN: "t-456",
  API_HOST: "api.example.com",
  EXCHANGE_SECRET: "s3cret",
  EMPTY: "",
  MULTILINE: "a\r\nX-Injected: 1",
};
const env = (name: string) => Object.hasOwn(ENV, name) ? ENV[name] : undefined;
const FILE = "tools/petstore.api.json";

function api(value: unknown): ApiFile {
  return parseApiFile(JSON.stringify(value), FILE, env);
}

/** The message parseApiFile throws for `value`, checked to match every pattern. */
function refusal(value: unknown, ...patterns: RegExp[]): string {
  let message: string | undefined;
  try {
    api(value);
  } catch (error) {
    message = (error as Error).message;
  }
  ok(message !== undefined, `expected a refusal of ${JSON.stringify(value)}`);
  for (const pattern of patterns) match(message, pattern);
  ok(!/\n/.test(message) && !/\.$/.test(message), `one sentence, no period: ${message}`);
  return message;
}

const ok200 = { "200": { description: "OK" } };
const op = (operationId?: string, extra: Record<string, unknown> = {}) => ({
  ...(operationId === undefined ? {} : { operationId }),
  responses: ok200,
  ...extra,
});

/** A small API: every method, an operation without operationId, a /store section, schemes. */
const DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "pets", version: "1" },
  servers: [{ url: "https://api.example.com/v1" }],
  paths: {
    "/pets": { get: op("listPets"), post: op("createPet") },
    "/pets/{petId}": {
      get: op("getPetById__internal"),
      put: op("replacePet"),
      delete: op("deletePet"),
      head: op("petExists"),
      patch: op("updatePet"),
    },
    "/pets/{petId}/photos": { get: op(undefined, { summary: "List photos" }) },
    "/store/inventory": { get: op("getInventory") },
    "/store/order": { post: op("placeOrder") },
  },
  components: {
    securitySchemes: {
      api_key: { type: "apiKey", in: "header", name: "X-Api-Key" },
      raw_authorization: { type: "apiKey", in: "header", name: "Authorization" },
      session: { type: "apiKey", in: "cookie", name: "sid" },
      bearer: { type: "http", scheme: "bearer" },
      basic: { type: "http", scheme: "Basic" },
      digest: { type: "http", scheme: "digest" },
      oauth: { type: "oauth2", flows: {} },
      oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com" },
    },
  },
};

const doc: OpenApiDocument = await parseDocument(JSON.stringify(DOCUMENT), "petstore.openapi.json");
const ROUTES: Route[] = routes(doc);

/** The operations `value` serves, as "METHOD /path name", in route order. */
function served(value: unknown): string[] {
  const file = api(value);
  const names = toolNames(ROUTES, file.names);
  return ROUTES.flatMap((route, i) =>
    operationSelected(file, route, names[i]) ? [`${route.method} ${route.path} ${names[i]}`] : []
  );
}

/** What unmatchedEntries says of `value` against DOCUMENT. */
function unmatched(value: unknown): string[] {
  const file = api(value);
  return unmatchedEntries(file, ROUTES, toolNames(ROUTES, file.names));
}

Deno.test("parseApiFile reads {} as the defaults, in objects of its own", () => {
  const file = api({});
  deepStrictEqual(file, { ...API_DEFAULTS, file: FILE });
  file.names.listPets = "changed";
  file.headers["X-Changed"] = "1";
  deepStrictEqual(API_DEFAULTS.names, {}, "changing one API's file leaves the defaults alone");
  deepStrictEqual(API_DEFAULTS.headers, {});
  strictEqual(API_DEFAULTS.validateOutput, true);
  strictEqual(API_DEFAULTS.scopesFromSecurity, false);
});

Deno.test("parseApiFile reads every field, ${NAME} expanded", () => {
  const file = api({
    baseUrl: "https://${API_HOST}/v2",
    operations: ["GET /pets/*", "createPet"],
    names: { listPets: "pets_index" },
    tools: { pets_index: { title: "Pets", description: "Every pet", timeoutMs: 5000 } },
    validateOutput: false,
    headers: { "X-Api-Key": "${PETSTORE_KEY}", "User-Agent": "toolshed" },
    credentials: { bearer: "${PETSTORE_TOKEN}", basic: "me:${PETSTORE_KEY}" },
    scopesFromSecurity: true,
    scopes: ["pets:read"],
    rateLimit: "10/min",
    timeoutMs: 20000,
    annotations: { openWorldHint: true },
  });
  deepStrictEqual(file, {
    file: FILE,
    baseUrl: "https://api.example.com/v2",
    operations: ["GET /pets/*", "createPet"],
    names: { listPets: "pets_index" },
    defaults: {
      annotations: { openWorldHint: true },
      scopes: ["pets:read"],
      rateLimit: "10/min",
      timeoutMs: 20000,
    },
    tools: { pets_index: { title: "Pets", description: "Every pet", timeoutMs: 5000 } },
    validateOutput: false,
    headers: { "X-Api-Key": "k-123", "User-Agent": "toolshed" },
    credentials: { bearer: "t-456", basic: "me:k-123" },
    auth: { kind: "none" },
    scopesFromSecurity: true,
  });
});

Deno.test("parseApiFile refuses text that is not a JSON object", () => {
  throws(() => parseApiFile("{", FILE, env), /the file is not JSON: /);
  for (const value of [[], "x", 1, null]) {
    refusal(value, /^the file must be a JSON object, such as \{"baseUrl"/);
  }
});

Deno.test("parseApiFile refuses unknown keys, with did you mean", () => {
  refusal(
    { operation: ["listPets"] },
    /^the file has "operation", which is not one of its fields \(baseUrl, operations,.*\); did you mean "operations"\?$/,
  );
  refusal({ baseURL: "https://a.example" }, /did you mean "baseUrl"\?$/);
  refusal(
    { tools: { listPets: { timeout: 5 } } },
    /^tools "listPets" has "timeout", which is not one of its fields .*; did you mean "timeoutMs"\?$/,
  );
  refusal(
    { auth: { exchange: { audiance: "x" } } },
    /^auth\.exchange has "audiance", which is not one of its fields .*; did you mean "audience"\?$/,
  );
  refusal({ title: "Pets" }, /^title would give every tool the same title: put it under "tools"/);
  refusal({ description: "Pets" }, /^description would give every tool the same description/);
  refusal(
    { openapi: "3.1.0", paths: {} },
    /^the file has "openapi", so it is an API description, not a sidecar: name it "<stem>\.openapi\.json"/,
  );
});

Deno.test("parseApiFile takes baseUrl absolute, https or http to this machine, without userinfo", () => {
  strictEqual(api({ baseUrl: "http://127.0.0.1:8080/api" }).baseUrl, "http://127.0.0.1:8080/api");
  strictEqual(api({ baseUrl: "http://localhost/api" }).baseUrl, "http://localhost/api");
  strictEqual(api({ baseUrl: "http://[::1]:9/" }).baseUrl, "http://[::1]:9/");
  strictEqual(
    api({ baseUrl: "https://api.example.com/?api_key=${PETSTORE_KEY}" }).baseUrl,
    "https://api.example.com/?api_key=k-123",
  );
  refusal(
    { baseUrl: "http://api.example.com" },
    /^baseUrl "http:\/\/api\.example\.com" is plain HTTP to "api\.example\.com", which is not this machine: use https/,
  );
  refusal(
    { baseUrl: "ftp://api.example.com" },
    /^baseUrl "ftp:\/\/api\.example\.com" has the scheme "ftp": use https$/,
  );
  refusal({ baseUrl: "/v1" }, /^baseUrl "\/v1" is not a URL$/);
  refusal({ baseUrl: "https://me:pw@api.example.com" }, /carries a user name or password/);
  const secret = refusal(
    { baseUrl: "https://api.example.com/?api_key=abc123" },
    /^baseUrl has the query parameter "api_key" with a literal value where a secret goes/,
  );
  ok(!secret.includes("abc123"), "the secret is not quoted");
  refusal({ baseUrl: "" }, /^baseUrl must be a non-empty string/);
  refusal({ baseUrl: 8080 }, /^baseUrl must be a non-empty string/);
});

Deno.test("parseApiFile refuses headers toolshed sets, bad names and literal secrets", () => {
  for (
    const name of [
      "Content-Type",
      "accept",
      "Content-Length",
      "Host",
      "Connection",
      "Transfer-Encoding",
      "Cookie",
      "Upgrade",
    ]
  ) {
    refusal({ headers: { [name]: "x" } }, new RegExp(`^header "${name}" is (set|made|hop-by-hop)`));
  }
  refusal({ headers: { Cookie: "sid=1" } }, /"credentials" under the document's apiKey scheme$/);
  refusal({ headers: { "Bad Name": "x" } }, /^headers has "Bad Name", which is not a header name$/);
  refusal({ headers: { "X-A": "1", "x-a": "2" } }, /^headers has both "X-A" and "x-a": keep one$/);
  refusal({ headers: { "X-A": 1 } }, /^header "X-A" must be a string$/);
  refusal({ headers: ["X-A"] }, /^headers must be an object of strings/);
  refusal(
    { headers: { "X-Trace": "${MULTILINE}" } },
    /^header "X-Trace" holds a line break or NUL once expanded/,
  );
  const literal = refusal(
    { headers: { "X-Api-Key": "k-literal" } },
    /^header "X-Api-Key" has a literal value where a secret goes: .*write "\$\{X_API_KEY\}"/,
  );
  ok(!literal.includes("k-literal"), "the secret is not quoted");
  refusal(
    { headers: { Authorization: "Bearer ${PETSTORE_TOKEN:-abc}" } },
    /^header "Authorization" has a default for "\$\{PETSTORE_TOKEN\}" where a secret goes/,
  );
  deepStrictEqual(api({ headers: { "User-Agent": "toolshed/1" } }).headers, {
    "User-Agent": "toolshed/1",
  });
});

Deno.test("parseApiFile takes credentials only from the environment", () => {
  refusal(
    { credentials: { api_key: "k-literal" } },
    /^credentials "api_key" has a literal value where a secret goes: .*write "\$\{API_KEY\}" and set API_KEY/,
  );
  refusal(
    { credentials: { bearer: "${PETSTORE_TOKEN:-t-literal}" } },
    /^credentials "bearer" has a default for "\$\{PETSTORE_TOKEN\}" where a secret goes/,
  );
  refusal({ credentials: { bearer: "" } }, /^credentials "bearer" must be a non-empty string/);
  refusal({ credentials: { bearer: 5 } }, /^credentials "bearer" must be a non-empty string/);
  refusal({ credentials: { bearer: "${EMPTY}" } }, /^credentials "bearer" is empty once expanded/);
  refusal({ credentials: { bearer: "${MULTILINE}" } }, /holds a line break or NUL once expanded/);
  refusal(
    { credentials: "${PETSTORE_KEY}" },
    /^credentials must be an object by security scheme name/,
  );
  deepStrictEqual(api({ credentials: { basic: "me:${PETSTORE_KEY}" } }).credentials, {
    basic: "me:k-123",
  });
});

Deno.test("parseApiFile says which variable is missing, wherever ${NAME} is", () => {
  refusal(
    { headers: { "X-Api-Key": "${NOPE}" } },
    /^header "X-Api-Key" needs the variable "NOPE", which is not set$/,
  );
  refusal(
    { credentials: { bearer: "${NOPE}" } },
    /^credentials "bearer" needs the variable "NOPE", which is not set$/,
  );
  refusal(
    { baseUrl: "https://${NOPE}/v1" },
    /^baseUrl needs the variable "NOPE", which is not set$/,
  );
  refusal(
    { auth: { exchange: { audience: "a", clientId: "c", clientSecret: "${NOPE}" } } },
    /^auth\.exchange\.clientSecret needs the variable "NOPE", which is not set$/,
  );
  refusal(
    { headers: { "X-Api-Key": "${input:key}" } },
    /a prompt for a value that toolshed cannot show/,
  );
  strictEqual(api({ headers: { "X-Tag": "${NOPE:-v1}" } }).headers["X-Tag"], "v1");
});

Deno.test("parseApiFile reads auth as a mount's and keeps one of exchange and Authorization", () => {
  const exchange = {
    exchange: {
      audience: "https://api.example.com",
      clientId: "toolshed",
      clientSecret: "${EXCHANGE_SECRET}",
    },
  };
  deepStrictEqual(api({ auth: exchange }).auth, {
    kind: "exchange",
    audience: "https://api.example.com",
    resource: undefined,
    scopes: [],
    clientId: "toolshed",
    clientSecret: "s3cret",
  });
  deepStrictEqual(api({ auth: "none" }).auth, { kind: "none" });
  refusal(
    { auth: exchange, headers: { authorization: "Bearer ${PETSTORE_TOKEN}" } },
    /^headers has "authorization" and auth is "exchange", which sets it per caller: keep one$/,
  );
  refusal({ auth: "exchange" }, /^auth must be "none" or \{"exchange"/);
  refusal(
    { auth: { exchange: { ...exchange.exchange, clientSecret: "s3cret" } } },
    /^auth\.exchange\.clientSecret has a literal value where a secret goes/,
  );
});

Deno.test("parseApiFile checks the correction fields as a mount's block does", () => {
  refusal({ timeoutMs: 0 }, new RegExp(`^timeoutMs must be an integer from 1 to ${MAX_TIMER_MS}`));
  refusal({ jobReuseMs: 1.5 }, /^jobReuseMs must be an integer/);
  refusal({ task: "always" }, /^task must be "optional" or "required"$/);
  refusal({ annotations: { readOnlyHint: "yes" } }, /^annotations are invalid: /);
  refusal(
    { tools: { listPets: { timeoutMs: -1 } } },
    /^tools "listPets": timeoutMs must be an integer/,
  );
  refusal(
    { tools: { listPets: { title: "" } } },
    /^tools "listPets": title must be a non-empty string$/,
  );
  refusal({ tools: { listPets: 5 } }, /^tools "listPets" must be an object of fields/);
  refusal({ tools: { "": {} } }, /^tools has an empty key/);
  refusal({ tools: [] }, /^tools must be an object by tool name/);
  refusal(
    { validateOutput: "no" },
    /^validateOutput must be true or false \(the default is true\)$/,
  );
  refusal(
    { scopesFromSecurity: 1 },
    /^scopesFromSecurity must be true or false \(the default is false\)$/,
  );
  deepStrictEqual(api({ tools: { listPets: { task: "optional", jobAfterMs: 0 } } }).tools, {
    listPets: { task: "optional", jobAfterMs: 0 },
  });
});

Deno.test("parseApiFile takes operations as a non-empty list of non-empty strings with known methods", () => {
  for (const operations of [[], "listPets", [""], ["  "], [1], {}]) {
    refusal(
      { operations },
      /^operations must be a non-empty list of operationIds, tool names or "METHOD \/path"/,
    );
  }
  refusal(
    { operations: ["GTE /pets"] },
    /^operations has "GTE \/pets", whose method "GTE" is not one of OpenAPI's \(GET, .*\); did you mean "GET"\?$/,
  );
  deepStrictEqual(api({ operations: ["get /pets", "G?T /pets", "listPets"] }).operations, [
    "get /pets",
    "G?T /pets",
    "listPets",
  ]);
});

Deno.test("parseApiFile takes names as tool names fastmcp-ts's naming keeps, each once", () => {
  refusal(
    { names: { listPets: "pets index!" } },
    /^names "listPets" must be a tool name: .* \(not "pets index!"\)$/,
  );
  refusal({ names: { listPets: 7 } }, /^names "listPets" must be a tool name/);
  refusal(
    { names: { listPets: "pets-index" } },
    /^names "listPets" gives "pets-index", which fastmcp-ts's naming turns into "pets_index" .*: write "pets_index"$/,
  );
  const long = "p".repeat(60);
  refusal({ names: { listPets: long } }, new RegExp(`turns into "${"p".repeat(56)}"`));
  refusal(
    { names: { listPets: "pets", getInventory: "pets" } },
    /^names gives "pets" to both "listPets" and "getInventory": keep one$/,
  );
  refusal({ names: ["pets"] }, /^names must be an object by operationId/);
});

Deno.test("operationSelected serves GET and HEAD only without operations", () => {
  deepStrictEqual(served({}), [
    "GET /pets listPets",
    "GET /pets/{petId} getPetById",
    "HEAD /pets/{petId} petExists",
    "GET /pets/{petId}/photos List_photos",
    "GET /store/inventory getInventory",
  ]);
  ok(!served({}).some((line) => /^(POST|PUT|PATCH|DELETE) /.test(line)));
});

Deno.test("operationSelected takes operationIds, tool names and METHOD /path", () => {
  deepStrictEqual(served({ operations: ["createPet"] }), ["POST /pets createPet"]);
  deepStrictEqual(
    served({ operations: ["getPetById__internal"] }),
    ["GET /pets/{petId} getPetById"],
    "the full operationId",
  );
  deepStrictEqual(
    served({ operations: ["getPetById"] }),
    ["GET /pets/{petId} getPetById"],
    "the tool name",
  );
  deepStrictEqual(served({ operations: ["List_photos"] }), [
    "GET /pets/{petId}/photos List_photos",
  ]);
  deepStrictEqual(
    served({ operations: ["pets_index"], names: { listPets: "pets_index" } }),
    ["GET /pets pets_index"],
    "a name given by names",
  );
  deepStrictEqual(served({ operations: ["DELETE /pets/{petId}"] }), [
    "DELETE /pets/{petId} deletePet",
  ]);
  deepStrictEqual(served({ operations: ["delete /pets/{petId}"] }), [
    "DELETE /pets/{petId} deletePet",
  ], "any case");
  deepStrictEqual(served({ operations: ["Patch   /pets/{petId}"] }), [
    "PATCH /pets/{petId} updatePet",
  ]);
  deepStrictEqual(
    served({ operations: ["GET /pets/{petid}"] }),
    [],
    "a path is matched in its own case",
  );
});

Deno.test("operationSelected reads * and ? in every selector", () => {
  deepStrictEqual(served({ operations: ["GET /pets/*"] }), [
    "GET /pets/{petId} getPetById",
    "GET /pets/{petId}/photos List_photos",
  ]);
  deepStrictEqual(served({ operations: ["* /store/*"] }), [
    "GET /store/inventory getInventory",
    "POST /store/order placeOrder",
  ]);
  deepStrictEqual(served({ operations: ["p* /pets/{petId}"] }), [
    "PUT /pets/{petId} replacePet",
    "PATCH /pets/{petId} updatePet",
  ]);
  deepStrictEqual(served({ operations: ["?et /pets"] }), ["GET /pets listPets"]);
  deepStrictEqual(served({ operations: ["*Pet"] }), [
    "POST /pets createPet",
    "PUT /pets/{petId} replacePet",
    "DELETE /pets/{petId} deletePet",
    "PATCH /pets/{petId} updatePet",
  ]);
  deepStrictEqual(served({ operations: ["*"] }).length, ROUTES.length);
  deepStrictEqual(
    served({ operations: ["* *"] }),
    [],
    '"* *" is no METHOD /path: a path starts with "/"',
  );
});

Deno.test("unmatchedEntries names entries that would do nothing, with did you mean", () => {
  deepStrictEqual(unmatched({ operations: ["listPet", "GET /pet", "* /nothing/*", "createPet"] }), [
    'operations has "listPet", which matches no operation of the document; did you mean "listPets"?',
    'operations has "GET /pet", which matches no operation of the document; did you mean "GET /pets"?',
  ]);
  deepStrictEqual(unmatched({ tools: { listPet: {}, listPets: {} } }), [
    'tools has "listPet", which is no operation\'s tool name; did you mean "listPets"?',
  ]);
  deepStrictEqual(unmatched({ tools: { getPetById__internal: {} } }), [
    'tools has "getPetById__internal", an operationId whose tool is named "getPetById": key the entry by the tool name',
  ]);
  deepStrictEqual(unmatched({ names: { listPet: "pets" } }), [
    'names has "listPet", which is no operation\'s operationId; did you mean "listPets"?',
  ]);
  deepStrictEqual(unmatched({ names: { listPets: "pets" }, tools: { pets: {} } }), []);
  deepStrictEqual(unmatched({ operations: ["GET /pets/{petId}"], tools: { getPetById: {} } }), []);
});

Deno.test("unmatchedEntries names a tools entry for an operation that is not served", () => {
  deepStrictEqual(unmatched({ tools: { createPet: { timeoutMs: 5 } } }), [
    'tools has "createPet" ("POST /pets"), an operation not served, so the entry would do nothing: without "operations" only GET and HEAD are served; list it in "operations"',
  ]);
  deepStrictEqual(unmatched({ operations: ["listPets"], tools: { getInventory: {} } }), [
    'tools has "getInventory" ("GET /store/inventory"), an operation not served, so the entry would do nothing: add it to "operations"',
  ]);
});

Deno.test("unmatchedEntries names a names value another operation's tool already has", () => {
  deepStrictEqual(unmatched({ names: { listPets: "getInventory" } }), [
    'names gives "getInventory" to "listPets" and "GET /store/inventory" is named "getInventory" too, so one of them would become "getInventory_2": give another name',
  ]);
  deepStrictEqual(unmatched({ names: { getInventory: "getInventory" } }), [], "its own name");
  deepStrictEqual(
    unmatched({ names: { listPets: "getInventory", getInventory: "inventory" } }),
    [],
    "the other renamed too",
  );
});

Deno.test("credentialProblems names schemes the document lacks or toolshed cannot send", () => {
  const problems = (value: unknown) => credentialProblems(api(value), doc);
  deepStrictEqual(
    problems({
      credentials: {
        api_key: "${PETSTORE_KEY}",
        session: "${PETSTORE_KEY}",
        bearer: "${PETSTORE_TOKEN}",
        basic: "me:${PETSTORE_KEY}",
        oauth: "${PETSTORE_TOKEN}",
      },
    }),
    [],
  );
  deepStrictEqual(
    problems({
      credentials: {
        apikey: "${PETSTORE_KEY}",
        oidc: "${PETSTORE_TOKEN}",
        digest: "${PETSTORE_TOKEN}",
        basic: "${PETSTORE_KEY}",
      },
    }),
    [
      'credentials "apikey" names no security scheme of the document; did you mean "api_key"?',
      'credentials "oidc" is for a "openIdConnect" scheme, which toolshed cannot send (apiKey, http and oauth2 it can)',
      'credentials "digest" is for the http scheme "digest", which toolshed cannot send (bearer and basic it can)',
      'credentials "basic" is for the http basic scheme and holds no ":" once expanded: write "user:password", e.g. "${API_USER}:${API_PASSWORD}"',
    ],
  );
});

Deno.test("credentialProblems keeps one of an exchange and a credential sent as Authorization", () => {
  const auth = {
    exchange: {
      audience: "https://api.example.com",
      clientId: "toolshed",
      clientSecret: "${EXCHANGE_SECRET}",
    },
  };
  const problems = (credentials: Record<string, string>) =>
    credentialProblems(api({ auth, credentials }), doc);
  for (const scheme of ["bearer", "oauth", "raw_authorization"]) {
    deepStrictEqual(problems({ [scheme]: "${PETSTORE_TOKEN}" }), [
      `credentials "${scheme}" is sent as Authorization and auth is "exchange", which sets it per caller: keep one`,
    ]);
  }
  deepStrictEqual(problems({ basic: "me:${PETSTORE_KEY}" }).length, 1);
  deepStrictEqual(problems({ api_key: "${PETSTORE_KEY}", session: "${PETSTORE_KEY}" }), []);
});
