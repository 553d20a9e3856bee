// Test helper for the end-to-end tests of an API in tools/ (adr/0072): an OpenAPI 3.1 petstore
// whose every answer is tests/_openapi_echo.ts's echo (method, path, query, body), a server
// directory holding it as `tools/pets.openapi.json` with its sidecar, and the official SDK
// client (`@modelcontextprotocol/sdk` 1.32.2) connected to a real toolshed process serving it,
// over stdio or HTTP.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { JsonObject } from "../lib/util/json.ts";
import type { Arrival, EchoServer } from "./_openapi_echo.ts";
import { modernBody, modernHeaders } from "./_http_server.ts";
import { spawnHttpServer, withHangGuard } from "./_server_process.ts";

/** What the echo server answers, as the document declares it. */
const ECHO = {
  type: "object",
  properties: {
    method: { type: "string" },
    path: { type: "string" },
    query: { type: "string" },
    body: { type: "string" },
  },
  required: ["method", "path", "query", "body"],
};

const PET = {
  type: "object",
  properties: { name: { type: "string" }, tag: { type: "string" } },
  required: ["name"],
};

function answers(status: string): JsonObject {
  return {
    [status]: {
      description: "What the API received.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Echo" } } },
    },
  };
}

function operation(
  operationId: string,
  summary: string | undefined,
  more: JsonObject = {},
): JsonObject {
  return {
    operationId,
    ...(summary === undefined ? {} : { summary }),
    responses: answers("200"),
    ...more,
  };
}

const PET_BODY = {
  required: true,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
};

/** The echo petstore's read operations (GET and HEAD), sorted: what it serves by default. */
export const PETSTORE_READS = [
  "getPet",
  "keyed_bearer",
  "keyed_cookie",
  "keyed_header",
  "keyed_query",
  "listPets",
  "open",
];

/** Every one of its operations' tool names, sorted. */
export const PETSTORE_TOOLS = [...PETSTORE_READS, "createPet", "deletePet", "replacePet"].sort();

/**
 * The petstore: `GET /pets` (listPets, query `limit` and `tags`, header `X-Trace`), `POST /pets`
 * (createPet, which needs the OAuth scope "pets:write"), `GET`/`PUT`/`DELETE /pets/{petId}`
 * (getPet, replacePet, deletePet; `petId` a string), and one `GET /keyed/<scheme>` per
 * credential scheme (keyed_header, _query, _cookie, _bearer: the schemes keyHeader,
 * keyQuery, keyCookie, bearer) with `GET /open` naming none.
 * `extraPaths` adds paths (a reload's edit).
 */
export function echoPetstore(extraPaths: JsonObject = {}): JsonObject {
  const keyed = (operationId: string, scheme: string) => ({
    get: operation(operationId, undefined, { security: [{ [scheme]: [] }] }),
  });
  return {
    openapi: "3.1.0",
    info: { title: "Echo petstore", version: "1.0.0" },
    servers: [{ url: "https://petstore.example/v1" }],
    paths: {
      "/pets": {
        get: operation("listPets", "List all pets", {
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer" } },
            {
              name: "tags",
              in: "query",
              explode: false,
              schema: { type: "array", items: { type: "string" } },
            },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
        }),
        post: operation("createPet", "Create a pet", {
          requestBody: PET_BODY,
          security: [{ petsAuth: ["pets:write"] }],
          responses: answers("201"),
        }),
      },
      "/pets/{petId}": {
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        get: operation("getPet", "Get a pet"),
        put: operation("replacePet", "Replace a pet", { requestBody: PET_BODY }),
        delete: operation("deletePet", "Delete a pet"),
      },
      "/keyed/header": keyed("keyed_header", "keyHeader"),
      "/keyed/query": keyed("keyed_query", "keyQuery"),
      "/keyed/cookie": keyed("keyed_cookie", "keyCookie"),
      "/keyed/bearer": keyed("keyed_bearer", "bearer"),
      "/open": { get: operation("open", undefined) },
      ...extraPaths,
    },
    components: {
      schemas: { Echo: ECHO, Pet: PET },
      securitySchemes: {
        petsAuth: {
          type: "oauth2",
          flows: {
            clientCredentials: {
              tokenUrl: "https://petstore.example/token",
              scopes: { "pets:write": "Change pets" },
            },
          },
        },
        keyHeader: { type: "apiKey", in: "header", name: "X-Api-Key" },
        keyQuery: { type: "apiKey", in: "query", name: "api_key" },
        keyCookie: { type: "apiKey", in: "cookie", name: "session" },
        bearer: { type: "http", scheme: "bearer" },
      },
    },
  };
}

/**
 * A path of the petstore answered by the echo (a reload's edit, a test's own case): its `GET`
 * named `operationId`, with `more` of the operation's fields (`security`).
 */
export function echoPath(
  operationId: string,
  summary: string | undefined,
  more: JsonObject = {},
): JsonObject {
  return { get: operation(operationId, summary, more) };
}

/**
 * A fresh temporary server directory whose `tools/` holds `files` (name → JSON value, written
 * as JSON); its path. The caller removes it.
 */
export async function toolsFolder(files: Record<string, unknown>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolshed-openapi-" });
  await Deno.mkdir(`${dir}/tools`);
  for (const [name, value] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/tools/${name}`, JSON.stringify(value, null, 2));
  }
  return dir;
}

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const CLIENT_INFO = { name: "toolshed-openapi-test", version: "1.0.0" };

export interface ListedTool {
  name: string;
  title?: string;
  annotations?: Record<string, unknown>;
}

export interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A server directory serving every operation of the petstore at `echo` (`sidecar` adds to its
 * sidecar, `extraPaths` to its paths).
 */
export function servedFolder(
  echo: EchoServer,
  sidecar: Record<string, unknown> = {},
  extraPaths: JsonObject = {},
): Promise<string> {
  return toolsFolder({
    "pets.openapi.json": echoPetstore(extraPaths),
    "pets.api.json": { baseUrl: `${echo.origin}/v1`, operations: ["*"], ...sidecar },
  });
}

/**
 * The SDK client connected to `main.ts --dir <dir> <flags>` over stdio; `run` (given what the
 * server wrote on stderr so far), then all closed.
 */
export async function overStdio(
  dir: string,
  env: Record<string, string>,
  run: (client: Client, stderr: () => string) => Promise<void>,
  flags: readonly string[] = [],
): Promise<void> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "--dir", dir, ...flags],
    // The SDK passes on only HOME, PATH and a few others; Deno may need more (DENO_DIR).
    env: { ...Deno.env.toObject(), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  const client = new Client(CLIENT_INFO);
  try {
    await withHangGuard(client.connect(transport), "the SDK client connecting over stdio");
    await run(client, () => stderr);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nThe server's stderr:\n${stderr}`, {
      cause: error,
    });
  } finally {
    await client.close();
  }
}

/** The SDK client connected to `main.ts --http … --dir <dir>`; `run`, then all closed. */
export async function overHttp(
  dir: string,
  env: Record<string, string>,
  run: (client: Client) => Promise<void>,
): Promise<void> {
  const server = await spawnHttpServer(["--dir", dir], env);
  const client = new Client(CLIENT_INFO);
  try {
    await withHangGuard(
      client.connect(new StreamableHTTPClientTransport(new URL(server.url))),
      "the SDK client connecting over HTTP",
    );
    await run(client);
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\nThe server's stderr:\n${server.stderr().join("\n")}`,
      {
        cause: error,
      },
    );
  } finally {
    await client.close();
    await server.stop();
  }
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallResult> {
  return await withHangGuard(
    client.callTool({ name, arguments: args }),
    `tools/call ${name}`,
  ) as CallResult;
}

/** The one request the echo server received since `before` arrivals; fails on none or more. */
export function onlyArrival(echo: EchoServer, before: number, what: string): Arrival {
  const since = echo.arrivals.slice(before);
  assert.equal(since.length, 1, `${what}: ${JSON.stringify(since.map((a) => a.path))}`);
  return since[0];
}

let nextId = 0;

/** A 2026-07-28 `tools/call` of `name` with `token`: the status, the challenge, the body. */
export async function callWith(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...modernHeaders("tools/call", name), authorization: `Bearer ${token}` },
    body: modernBody(++nextId, "tools/call", { name, arguments: args }),
  });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: text === "" ? {} : JSON.parse(text),
  };
}
