// Evidence for adr/0069 step 2: what a Standard Schema inputSchema's own validator adds to one
// tools/call. The same tool (the arguments of bench/validator_bench.ts: a string, an integer
// and a list of objects with an enum) written as a JSON Schema (baseline), with Zod 4, with
// Valibot (wrapped in toStandardJsonSchema) and with ArkType, each answered by the request core
// (the library's tools pay the JSON Schema check and then their library's validate), 1,000
// calls an iteration; then each library's validate alone on the same arguments, beside
// toolshed's JSON Schema check.
//
//   deno bench -A bench/standard_schema_bench.ts
import { z } from "npm:zod@4.6.7";
import * as v from "npm:valibot@1.5.0";
import { toStandardJsonSchema } from "npm:@valibot/to-json-schema@1.8.0";
import { type } from "npm:arktype@2.2.10";
import { IN_PROCESS, type RequestContext } from "../lib/methods/context.ts";
import { createServer } from "../lib/server/create_server.ts";
import { extract, type Request } from "../lib/wire/extract.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import type { JsonObject } from "../lib/util/json.ts";
import { recorder } from "../tests/_diagnostics.ts";

const jsonSchema = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 500 },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    filters: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { enum: ["title", "body", "author"] }, value: { type: "string" } },
        required: ["field", "value"],
        additionalProperties: false,
      },
    },
  },
  required: ["query"],
  additionalProperties: false,
};
const zodSchema = z.strictObject({
  query: z.string().min(1).max(500),
  limit: z.number().int().min(1).max(100).optional(),
  filters: z.array(
    z.strictObject({ field: z.enum(["title", "body", "author"]), value: z.string() }),
  ).optional(),
});
const valibotSchema = toStandardJsonSchema(v.strictObject({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
  filters: v.optional(v.array(
    v.strictObject({ field: v.picklist(["title", "body", "author"]), value: v.string() }),
  )),
}));
const arkSchema = type({
  "+": "reject",
  query: "0 < string <= 500",
  "limit?": "1 <= number.integer <= 100",
  "filters?": type({ "+": "reject", field: "'title' | 'body' | 'author'", value: "string" })
    .array(),
});
const args = {
  query: "deno mcp server",
  limit: 10,
  filters: [{ field: "title", value: "toolshed" }, { field: "author", value: "someone" }],
};

const handler = ({ query }: { query: string }) => query;
const tools: Tool[] = ([
  ["json_schema", jsonSchema],
  ["zod", zodSchema],
  ["valibot", valibotSchema],
  ["arktype", arkSchema],
] as const).map(([name, inputSchema]) =>
  checkDefinition(
    { description: name, inputSchema: inputSchema as unknown as JsonObject, handler },
    name,
    `tools/${name}.ts`,
  )
);
const { core } = await createServer({
  primitives: { tools },
  diagnostics: recorder(),
  toolTimeoutMs: 60_000,
});

const encoder = new TextEncoder();
function callOf(name: string): Request {
  const message = extract(encoder.encode(JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  })));
  if (message.kind !== "request") throw new Error("not a request");
  return message;
}
const outlet = { notify() {}, outbound: undefined };
const contextOf = (request: Request): RequestContext => ({
  request,
  controller: new AbortController(),
  closing: undefined,
  session: undefined,
  outlet,
  origin: IN_PROCESS,
});

// Every contestant answers the same text, synchronously: checked once before measuring.
for (const tool of tools) {
  const answer = core.handle(contextOf(callOf(tool.name)));
  const text = (answer as { result?: { content?: { text?: string }[] } }).result?.content?.[0]
    ?.text;
  if (answer instanceof Promise || text !== args.query) {
    throw new Error(`${tool.name} answered ${JSON.stringify(answer)}`);
  }
}

// 1,000 calls an iteration, so that a collection or a stray wake-up on shared cores is spread
// over many calls (the figure per call is the time over 1,000).
const CALLS = 1_000;
for (const tool of tools) {
  const call = callOf(tool.name);
  Deno.bench(`core: 1,000 tools/call, ${tool.name.replace("_", " ")} inputSchema`, {
    group: "1,000 tools/call",
    baseline: tool.name === "json_schema",
  }, () => {
    for (let i = 0; i < CALLS; i++) core.handle(contextOf(call));
  });
}

const [json, zod, valibot, arktype] = tools;
Deno.bench(
  "toolshed's JSON Schema check",
  { group: "the arguments' check", baseline: true },
  () => {
    json.validateInput(args);
  },
);
for (const tool of [zod, valibot, arktype]) {
  Deno.bench(`${tool.name}'s ~standard.validate`, { group: "the arguments' check" }, () => {
    tool.parseArguments!(args);
  });
}
