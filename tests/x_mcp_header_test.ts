// `x-mcp-header` (SEP-2243, HTTP.md §2.1): what checkDefinition() accepts and refuses at
// start-up, and over HTTP the `Mcp-Param-*` headers a 2026-07-28 tools/call must carry for
// the arguments it marks (400 -32020 otherwise). In process over loopback with real fetch.
import { deepStrictEqual, match, ok, strictEqual, throws } from "node:assert/strict";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { loadTools, ToolLoadError } from "../lib/discovery/tools_dir.ts";
import { recorder } from "./_diagnostics.ts";
import { modernHeaders, serveForTest } from "./_http_server.ts";

function define(inputSchema: JsonObject, name = "t"): Tool {
  return checkDefinition({ description: "d", inputSchema, handler: () => "ok" }, name, name);
}

Deno.test("checkDefinition() records the arguments marked x-mcp-header, nested ones by their path", () => {
  const tool = define({
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      count: { type: "integer", "x-mcp-header": "Count" },
      dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
      plain: { type: "string" },
      options: {
        type: "object",
        properties: { tenant: { type: "string", "x-mcp-header": "Tenant_1" } },
      },
      // A property named like the annotation is just a property.
      "x-mcp-header": { type: "string" },
      // Data keywords hold values, not schemas.
      fixed: { const: { "x-mcp-header": 1 } },
    },
  });
  deepStrictEqual(tool.headerParams, [
    { header: "Region", path: ["region"] },
    { header: "Count", path: ["count"] },
    { header: "Dry-Run", path: ["dry"] },
    { header: "Tenant_1", path: ["options", "tenant"] },
  ]);
  deepStrictEqual(define({ type: "object" }).headerParams, []);
});

Deno.test("checkDefinition() refuses an x-mcp-header that clients would drop the tool for", () => {
  const property = (schema: JsonObject) => ({ type: "object", properties: { p: schema } });
  const cases: [JsonObject, RegExp][] = [
    [property({ type: "string", "x-mcp-header": "" }), /"p" has an invalid "x-mcp-header": ""/],
    [property({ type: "string", "x-mcp-header": "My Region" }), /is not a non-empty HTTP header/],
    [property({ type: "string", "x-mcp-header": "Region:1" }), /is not a non-empty HTTP header/],
    [property({ type: "string", "x-mcp-header": "Région" }), /is not a non-empty HTTP header/],
    [property({ type: "string", "x-mcp-header": "Region\t1" }), /is not a non-empty HTTP header/],
    [property({ type: "string", "x-mcp-header": 7 }), /invalid "x-mcp-header": 7/],
    [property({ type: "number", "x-mcp-header": "Score" }), /its type is "number": only/],
    [property({ type: "object", "x-mcp-header": "Data" }), /its type is "object"/],
    [property({ type: "array", "x-mcp-header": "Items" }), /its type is "array"/],
    [property({ type: "null", "x-mcp-header": "Nil" }), /its type is "null"/],
    [property({ "x-mcp-header": "Untyped" }), /its type is null/],
    [
      property({ type: ["string", "null"], "x-mcp-header": "Maybe" }),
      /its type is \["string","null"\]/,
    ],
    [
      {
        type: "object",
        properties: {
          a: { type: "string", "x-mcp-header": "MyField" },
          b: { type: "string", "x-mcp-header": "myfield" },
        },
      },
      /properties "a" and "b" have the same "x-mcp-header" "myfield" \(header names ignore case\)/,
    ],
    [
      {
        type: "object",
        properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } },
      },
      /"x-mcp-header" at "\/properties\/list\/items": it may only mark a property reachable/,
    ],
    [
      { type: "object", anyOf: [{ properties: { p: { type: "string", "x-mcp-header": "P" } } }] },
      /at "\/anyOf\/0\/properties\/p"/,
    ],
    [{ type: "object", "x-mcp-header": "Root" }, /"x-mcp-header" at "": it may only mark/],
  ];
  for (const [schema, message] of cases) {
    throws(() => define(schema), message, JSON.stringify(schema));
  }
});

Deno.test("loadTools() refuses to start with a bad x-mcp-header, naming the tool's file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolshed_x_mcp_header_" });
  try {
    await Deno.writeTextFile(
      `${dir}/scored.ts`,
      `export default {
  description: "d",
  inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
  handler: () => "ok",
};
`,
    );
    const error = await loadTools(dir, { diagnostics: recorder() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    ok(error instanceof ToolLoadError, String(error));
    strictEqual(error.problems.length, 1);
    match(
      error.problems[0],
      /scored\.ts.*inputSchema property "score" has "x-mcp-header" but its type is "number"/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------------------
// Over HTTP.

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const marked = checkDefinition(
  {
    description: "echoes its region",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        dry: { type: "boolean", "x-mcp-header": "Dry" },
        options: {
          type: "object",
          properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } },
        },
      },
    },
    handler: (args: { region?: string }) => `region ${args.region}`,
  },
  "marked",
  "marked",
);

async function callMarked(url: string, args: JsonObject, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...modernHeaders("tools/call", "marked"), ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "marked", arguments: args, _meta: META },
    }),
  });
  return { status: response.status, json: await response.json() };
}

function mismatch(message: string) {
  return { status: 400, json: { jsonrpc: "2.0", id: 5, error: { code: -32020, message } } };
}

Deno.test("serveHttp() serves a tools/call whose Mcp-Param-* headers mirror its marked arguments", async () => {
  const http = await serveForTest([marked]);
  try {
    const accepted: [JsonObject, Record<string, string>][] = [
      [{ region: "us-west1" }, { "mcp-param-region": "us-west1" }],
      [{ region: "Hello" }, { "Mcp-Param-Region": `=?base64?${btoa("Hello")}?=` }],
      // Without both markers, or with upper-case ones, the value is literal.
      [{ region: btoa("Hello") }, { "mcp-param-region": btoa("Hello") }],
      [{ region: "=?base64?SGVsbG8=" }, { "mcp-param-region": "=?base64?SGVsbG8=" }],
      [{ region: "=?BASE64?SGVsbG8=?=" }, { "mcp-param-region": "=?BASE64?SGVsbG8=?=" }],
      [{ region: "  padded " }, { "mcp-param-region": `=?base64?${btoa("  padded ")}?=` }],
      [{ count: 42 }, { "mcp-param-count": "42.0" }],
      [{ count: -7 }, { "mcp-param-count": "-7" }],
      [{ dry: false }, { "mcp-param-dry": "false" }],
      [{ options: { tenant: "acme" } }, { "mcp-param-tenant": "acme" }],
      // Absent or null: no header expected (and one sent anyway is not looked at).
      [{}, {}],
      [{ region: null, options: null }, { "mcp-param-count": "whatever" }],
    ];
    for (const [args, headers] of accepted) {
      const answer = await callMarked(http.url, args, headers);
      strictEqual(answer.status, 200, JSON.stringify([args, headers, answer.json]));
      strictEqual(answer.json.error, undefined, JSON.stringify(answer.json));
    }
  } finally {
    await http.close();
  }
});

Deno.test("serveHttp() answers a missing, undecodable or different Mcp-Param-* header with 400 -32020", async () => {
  const http = await serveForTest([marked]);
  try {
    deepStrictEqual(
      await callMarked(http.url, { region: "test-value" }),
      mismatch("Missing required header: Mcp-Param-Region"),
    );
    deepStrictEqual(
      await callMarked(http.url, { region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }),
      mismatch(
        'Invalid Mcp-Param-Region header: "=?base64?SGVsbG8?=" is not base64-encoded UTF-8 text ' +
          'inside "=?base64?" and "?="',
      ),
    );
    strictEqual(
      (await callMarked(http.url, { region: "Hello" }, {
        "mcp-param-region": "=?base64?SGVs!!!bG8=?=",
      })).json.error.code,
      -32020,
    );
    deepStrictEqual(
      await callMarked(http.url, { region: "us-west1" }, { "mcp-param-region": "us-east1" }),
      mismatch(
        'Header mismatch: Mcp-Param-Region header value "us-east1" does not match body value ' +
          '"us-west1"',
      ),
    );
    deepStrictEqual(
      await callMarked(http.url, { count: 42 }, { "mcp-param-count": "0x2a" }),
      mismatch(
        'Header mismatch: Mcp-Param-Count header value "0x2a" does not match body value "42"',
      ),
    );
    strictEqual(
      (await callMarked(http.url, { dry: true }, { "mcp-param-dry": "True" })).status,
      400,
    );
    // Not visible ASCII: it had to be sent base64-encoded.
    deepStrictEqual(
      await callMarked(http.url, { region: "caf\u00e9" }, { "mcp-param-region": "caf\u00e9" }),
      mismatch(
        'Invalid Mcp-Param-Region header: "caf\u00e9" has characters that must be sent ' +
          'base64-encoded inside "=?base64?" and "?="',
      ),
    );
    deepStrictEqual(
      await callMarked(http.url, { options: { tenant: "acme" } }),
      mismatch("Missing required header: Mcp-Param-Tenant"),
    );
  } finally {
    await http.close();
  }
});
