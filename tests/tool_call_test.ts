import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { type CallOptions, callTool } from "../lib/primitives/tool_call.ts";
import { checkDefinition, type Tool } from "../lib/primitives/tools.ts";
import { recorder } from "./_diagnostics.ts";

function tool(definition: Record<string, unknown>): Tool {
  return checkDefinition(
    { description: "test", inputSchema: { type: "object" }, ...definition },
    "t",
    "tools/t.ts",
  );
}

function options(controller = new AbortController(), defaultTimeoutMs = 10_000): CallOptions {
  return {
    controller,
    defaultTimeoutMs,
    diagnostics: recorder(),
    context: {
      requestId: 1,
      protocolVersion: "2026-07-28",
      clientInfo: undefined,
      clientCapabilities: {},
    },
  };
}

const text = (value: string) => ({ content: [{ type: "text", text: value }] });
const failure = (value: string) => ({ content: [{ type: "text", text: value }], isError: true });

Deno.test("callTool() sends a returned string as one text block", async () => {
  deepStrictEqual(await callTool(tool({ handler: () => "hi" }), {}, options()), text("hi"));
});

Deno.test("callTool() takes a returned object with a content array as the result", async () => {
  const result = {
    content: [{ type: "image", data: "AA==", mimeType: "image/png" }],
    isError: false,
  };
  deepStrictEqual(await callTool(tool({ handler: () => result }), {}, options()), result);
});

Deno.test("callTool() sends any other JSON value as structuredContent plus its JSON text", async () => {
  for (const value of [{ a: [1, "b"] }, [1, 2], 42, null, true]) {
    deepStrictEqual(await callTool(tool({ handler: () => value }), {}, options()), {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    });
  }
});

Deno.test("callTool() sends no content when the handler returns nothing", async () => {
  deepStrictEqual(await callTool(tool({ handler: () => {} }), {}, options()), { content: [] });
});

Deno.test("callTool() turns a thrown or rejected error into an isError result", async () => {
  const thrown = tool({
    handler: () => {
      throw new Error("it broke");
    },
  });
  deepStrictEqual(await callTool(thrown, {}, options()), failure("it broke"));
  const rejected = tool({ handler: () => Promise.reject("plain string") });
  deepStrictEqual(await callTool(rejected, {}, options()), failure("plain string"));
});

Deno.test("callTool() answers a value JSON cannot carry with an isError result", async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const cycle = await callTool(tool({ handler: () => cyclic }), {}, options());
  strictEqual(cycle.isError, true);
  strictEqual(
    (cycle.content[0] as { text: string }).text.startsWith(
      'Tool "t" returned a value that is not JSON: ',
    ),
    true,
  );
  deepStrictEqual(
    await callTool(tool({ handler: () => 10n }), {}, options()),
    failure('Tool "t" returned a value that is not JSON: Do not know how to serialize a BigInt'),
  );
  deepStrictEqual(
    await callTool(tool({ handler: () => Symbol("s") }), {}, options()),
    failure('Tool "t" returned a value that is not JSON: symbol'),
  );
});

Deno.test("callTool() validates arguments before the handler runs", async () => {
  let ran = false;
  const strict = tool({
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    handler: () => {
      ran = true;
      return "ran";
    },
  });
  deepStrictEqual(
    await callTool(strict, { n: "1" }, options()),
    failure(
      'Invalid arguments for tool "t": at "/n": expected a number, got a string',
    ),
  );
  strictEqual(ran, false);
});

Deno.test("callTool() enforces outputSchema on structured content", async () => {
  const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => ({ n: 1 }) }), {}, options()),
    { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } },
  );
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => ({ m: 1 }) }), {}, options()),
    failure(
      'Tool "t" returned structured content that does not match its outputSchema: missing required property "n"',
    ),
  );
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => "text only" }), {}, options()),
    failure('Tool "t" declares an outputSchema but returned no structured content'),
  );
  // An error result need not match: it carries no structured content.
  const failing = { content: [{ type: "text", text: "no" }], isError: true };
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => failing }), {}, options()),
    failing,
  );
});

Deno.test("callTool() answers on time when a tool ignores its signal past the timeout", async () => {
  const stuck = tool({ handler: () => new Promise(() => {}) });
  deepStrictEqual(
    await callTool(stuck, {}, options(undefined, 30)),
    failure('Tool "t" timed out after 30 ms'),
  );
  const ownTimeout = tool({ timeoutMs: 20, handler: () => new Promise(() => {}) });
  deepStrictEqual(
    await callTool(ownTimeout, {}, options(undefined, 10_000)),
    failure('Tool "t" timed out after 20 ms'),
  );
});

Deno.test("callTool() aborts the handler's signal when the request is cancelled", async () => {
  const controller = new AbortController();
  let handlerSignal: AbortSignal | undefined;
  const waiting = tool({
    handler: (_args: unknown, ctx: { signal: AbortSignal }) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    },
  });
  const pending = callTool(waiting, {}, options(controller));
  await Promise.resolve();
  controller.abort("client said stop");
  deepStrictEqual(await pending, failure('Tool "t" was cancelled: client said stop'));
  strictEqual(handlerSignal?.aborted, true);
});

Deno.test("callTool() checks and sends structured content as JSON will carry it", async () => {
  const outputSchema = {
    type: "object",
    properties: { ratio: { type: "number" }, when: { type: "string" } },
  };
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => ({ when: new Date(0) }) }), {}, options()),
    {
      content: [{ type: "text", text: '{"when":"1970-01-01T00:00:00.000Z"}' }],
      structuredContent: { when: "1970-01-01T00:00:00.000Z" },
    },
  );
  // NaN travels as null, which the schema does not allow: the model is told, not the client.
  deepStrictEqual(
    await callTool(tool({ outputSchema, handler: () => ({ ratio: NaN }) }), {}, options()),
    failure(
      'Tool "t" returned structured content that does not match its outputSchema: at "/ratio": expected a number, got null',
    ),
  );
});

Deno.test("callTool() answers a malformed CallToolResult from a handler with an isError result", async () => {
  deepStrictEqual(
    await callTool(
      tool({ handler: () => ({ content: [{ type: "text" }, 42], isError: "nope" }) }),
      {},
      options(),
    ),
    failure(
      'Tool "t" returned an invalid CallToolResult: at "/content/0": missing required property "text"; at "/content/1": expected an object, got a number; at "/isError": expected a boolean, got a string',
    ),
  );
});

Deno.test("callTool() survives thrown values that cannot be shown as text", async () => {
  deepStrictEqual(
    await callTool(
      tool({
        handler: () => {
          throw Object.create(null);
        },
      }),
      {},
      options(),
    ),
    failure("a thrown value that cannot be shown as text"),
  );
});

Deno.test("callTool() answers arguments too deep for a recursive schema with an isError result", async () => {
  const tree = tool({
    inputSchema: {
      type: "object",
      properties: { node: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } },
    },
    handler: () => "unreachable",
  });
  let deep: unknown[] = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const result = await callTool(tree, { node: deep }, options());
  strictEqual(result.isError, true);
  strictEqual(
    (result.content[0] as { text: string }).text.startsWith(
      'Invalid arguments for tool "t": they could not be validated: ',
    ),
    true,
  );
});
