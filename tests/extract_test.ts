import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { extract } from "../lib/wire/extract.ts";

const encoder = new TextEncoder();
const line = (text: string) => encoder.encode(text);
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
};

Deno.test("extract() returns a request with its envelope read from _meta", () => {
  const params = { name: "echo", _meta: { ...META, progressToken: 7 } };
  deepStrictEqual(
    extract(line(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }))),
    {
      kind: "request",
      id: 1,
      method: "tools/call",
      params,
      envelope: {
        protocolVersion: "2026-07-28",
        clientCapabilities: { sampling: {} },
        clientInfo: undefined,
        logLevel: undefined,
      },
      progressToken: 7,
    },
  );
});

Deno.test("extract() returns a request without envelope when _meta has no version claim", () => {
  const message = {
    jsonrpc: "2.0",
    id: "a",
    method: "ping",
    params: { _meta: { progressToken: 1 } },
  };
  deepStrictEqual(extract(line(JSON.stringify(message))), {
    kind: "request",
    id: "a",
    method: "ping",
    params: message.params,
    envelope: undefined,
    progressToken: 1,
  });
});

Deno.test("extract() gives params an empty object when they are absent", () => {
  const result = extract(line('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
  deepStrictEqual(result.kind === "request" && result.params, {});
});

Deno.test("extract() returns a notification for a message without id", () => {
  deepStrictEqual(
    extract(line('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}')),
    { kind: "notification", method: "notifications/cancelled", params: { requestId: 3 } },
  );
});

Deno.test("extract() answers invalid UTF-8 with -32700 and a null id", () => {
  deepStrictEqual(extract(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), {
    kind: "rejected",
    id: null,
    error: { code: -32700, message: "Parse error: the message is not valid UTF-8" },
  });
});

Deno.test("extract() tolerates a UTF-8 byte order mark before the message", () => {
  const bytes = new Uint8Array([
    0xef,
    0xbb,
    0xbf,
    ...line('{"jsonrpc":"2.0","id":1,"method":"ping"}'),
  ]);
  strictEqual(extract(bytes).kind, "request");
});

Deno.test("extract() ignores a line of whitespace", () => {
  deepStrictEqual(extract(line(" \t ")), { kind: "ignored", reason: "blank line" });
});

Deno.test("extract() answers truncated JSON with -32700", () => {
  const result = extract(line('{"jsonrpc":"2.0","id":1,'));
  strictEqual(result.kind === "rejected" && result.error.code, -32700);
});

Deno.test("extract() answers a JSON array with -32600", () => {
  deepStrictEqual(extract(line('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')), {
    kind: "rejected",
    id: null,
    error: { code: -32600, message: "Invalid request: batch arrays are not supported" },
  });
});

Deno.test("extract() rejects ids that are null, fractional, unsafe or not scalars", () => {
  for (const id of ["null", "true", "1.5", "1e400", "9007199254740993", '{"a":1}', "[1]"]) {
    deepStrictEqual(extract(line(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)), {
      kind: "rejected",
      id: null,
      error: { code: -32600, message: "Invalid request: id must be a string or an integer" },
    }, `id ${id}`);
  }
});

Deno.test("extract() keeps the id of a request it rejects when the id is usable", () => {
  const result = extract(line('{"jsonrpc":"2.0","id":"x","method":5}'));
  deepStrictEqual(result.kind === "rejected" && result.id, "x");
});

Deno.test("extract() returns responses sent by the client, for the requests the server sent", () => {
  deepStrictEqual(extract(line('{"jsonrpc":"2.0","id":"toolshed-1","result":{"a":1}}')), {
    kind: "response",
    id: "toolshed-1",
    result: { a: 1 },
    error: undefined,
  });
  deepStrictEqual(extract(line('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}')), {
    kind: "response",
    id: 1,
    result: undefined,
    error: { code: 1, message: "m" },
  });
  // JSON-RPC sends id null when it could not read one: nothing can claim it.
  strictEqual(
    (extract(line('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}')) as {
      id: unknown;
    }).id,
    null,
  );
});

Deno.test("extract() reads the log level a 2026-07-28 request asks for", () => {
  const params = { _meta: { ...META, "io.modelcontextprotocol/logLevel": "warning" } };
  const message = extract(line(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params })));
  strictEqual(message.kind === "request" && message.envelope?.logLevel, "warning");
});

Deno.test("extract() ignores a notification whose params are not an object", () => {
  strictEqual(extract(line('{"jsonrpc":"2.0","method":"x","params":[1]}')).kind, "ignored");
});

Deno.test("extract() answers wrong _meta fields of a 2026-07-28 request with -32602", () => {
  const cases: [Record<string, unknown>, string][] = [
    [
      { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
      "Missing required _meta field: io.modelcontextprotocol/clientCapabilities",
    ],
    [
      { ...META, "io.modelcontextprotocol/clientCapabilities": null },
      "Invalid _meta field: io.modelcontextprotocol/clientCapabilities must be an object",
    ],
    [
      { ...META, "io.modelcontextprotocol/logLevel": "verbose" },
      "Invalid _meta field: io.modelcontextprotocol/logLevel must be one of debug, info, notice, warning, error, critical, alert, emergency",
    ],
  ];
  for (const [meta, message] of cases) {
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/list",
      params: { _meta: meta },
    });
    deepStrictEqual(extract(line(text)), {
      kind: "rejected",
      id: 9,
      error: { code: -32602, message },
    });
  }
});

Deno.test("extract() survives nesting 100,000 levels deep", () => {
  const deep = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + "[".repeat(100_000) +
    "]".repeat(100_000) + "}}";
  const result = extract(line(deep));
  strictEqual(result.kind, "request");
  const unclosed = extract(line("[".repeat(100_000)));
  strictEqual(unclosed.kind === "rejected" && unclosed.error.code, -32700);
});

Deno.test("extract() keeps __proto__ keys as plain data", () => {
  const result = extract(
    line('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"x":1}}}'),
  );
  strictEqual(result.kind, "request");
  strictEqual(({} as Record<string, unknown>).x, undefined);
  if (result.kind === "request") {
    deepStrictEqual(Object.keys(result.params), ["__proto__"]);
    strictEqual(Object.getPrototypeOf(result.params), Object.prototype);
  }
});
