// Writes the bad-input corpus (issue 5): one file per kind of bad input, run by
// tests/corpus_test.ts. The files are committed; this script only rebuilds them:
//
//   deno run -A tests/corpus/_generate.ts
//
// Ids are unique across the whole corpus (each file has its own prefix or number range),
// so the corpus can also be run as one stream. Only the same-id file repeats ids, on purpose.
const DIR = new URL("./", import.meta.url);
const encoder = new TextEncoder();

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Line = string | Uint8Array;

function request(id: unknown, method: string, params?: unknown): string {
  return JSON.stringify(
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
  );
}

function call(id: unknown, name: string, args?: unknown, meta?: unknown): string {
  const params: Record<string, unknown> = { name };
  if (args !== undefined) params.arguments = args;
  if (meta !== undefined) params._meta = meta;
  return request(id, "tools/call", params);
}

function bytes(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((part) =>
    typeof part === "string" ? encoder.encode(part) : new Uint8Array(part)
  );
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return whole;
}

function write(name: string, lines: Line[], ending = "\n"): void {
  const parts = lines.flatMap((line) => [line, ending]);
  Deno.writeFileSync(
    new URL(name, DIR),
    bytes(...parts.map((part) => typeof part === "string" ? part : [...part])),
  );
}

/** mulberry32: the same garbage on every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEPTH = 100_000;
const deepArray = "[".repeat(DEPTH) + "]".repeat(DEPTH);
const deepObject = '{"":'.repeat(DEPTH) + "1" + "}".repeat(DEPTH);

write("not_json.jsonl", [
  "this is not json",
  "{foo: 1}",
  "{'jsonrpc': '2.0', 'id': 'nj-0', 'method': 'ping'}",
  "undefined",
  "NaN",
  "Infinity",
  "-",
  "+1",
  "0x10",
  ".5",
  "01",
  '{"jsonrpc":"2.0","id":"nj-1","method":"ping",}',
  '{"jsonrpc":"2.0","id":"nj-2","method":"ping"} trailing',
  '{"jsonrpc":"2.0","id":"nj-3","method":"ping"}{"jsonrpc":"2.0","id":"nj-4","method":"ping"}',
  "// a comment",
  "<html><body>502 Bad Gateway</body></html>",
  "Content-Length: 46",
  '{"jsonrpc":"2.0","id":"nj-5","method":"ping","params":{"a":"\t"}}',
  '{"jsonrpc":"2.0","id":"nj-6","method":"ping","params":{"a":"\\x41"}}',
  '{"jsonrpc":"2.0","id":"nj-7","method":"ping","params":{"a":"\\ud800"}}',
  request("nj-8", "ping"),
]);

const full = call("tr-0", "echo", { text: "hello" });
write("truncated_json.jsonl", [
  "{",
  "[",
  '"',
  '{"',
  '{"jsonrpc"',
  '{"jsonrpc":',
  '{"jsonrpc":"2.0"',
  '{"jsonrpc":"2.0",',
  ...[0.2, 0.4, 0.6, 0.8, 0.95].map((at) => full.slice(0, Math.floor(full.length * at))),
  full.slice(0, -1),
  full.slice(1),
  '{"jsonrpc":"2.0","id":"tr-1","method":"ping","params":{"a":"\\u12"}}',
  '{"jsonrpc":"2.0","id":"tr-2","method":"ping","params":{"a":"\\',
  '{"jsonrpc":"2.0","id":"tr-3","method":"ping","params":{"n":1e}}',
  '{"jsonrpc":"2.0","id":"tr-4","method":"ping","params":{"n":-}}',
  '{"jsonrpc":"2.0","id":"tr-5","method":"ping","params":{"b":tru}}',
  request("tr-6", "ping"),
]);

const echoOpen = '{"jsonrpc":"2.0","id":"u8-';
write("invalid_utf8.bin", [
  bytes(
    echoOpen,
    '1","method":"tools/call","params":{"name":"echo","arguments":{"text":"',
    [0xff],
    '"}}}',
  ),
  bytes(echoOpen, '2","method":"ping","params":{"a":"', [0xc0, 0xaf], '"}}'), // overlong "/"
  bytes(echoOpen, '3","method":"ping","params":{"a":"', [0xed, 0xa0, 0x80], '"}}'), // a surrogate
  bytes(echoOpen, '4","method":"ping","params":{"a":"', [0xe2, 0x82], '"}}'), // cut short
  bytes(echoOpen, '5","method":"ping","params":{"a":"', [0x80], '"}}'), // lone continuation
  bytes(echoOpen, '6","method":"ping","params":{"a":"', [0xf8, 0x88, 0x80, 0x80, 0x80], '"}}'),
  bytes(echoOpen, '7","method":"ping","params":{"a":"', [0xf4, 0x90, 0x80, 0x80], '"}}'), // > U+10FFFF
  bytes(echoOpen, '8","method":"ping"}', [0xe2, 0x82]), // a cut-off character after the object
  bytes([0xff, 0xfe], request("u8-9", "ping")), // a UTF-16 byte-order mark
  bytes('{"jsonrpc":"2.0","id":"u8-', [0xff], '","method":"ping"}'), // inside the id
  // Valid UTF-8 that must pass: a literal U+FFFD, astral characters, U+2028.
  call("u8-10", "echo", { text: "\uFFFD \u{1F600} \u2028 \u0000 \u{10FFFF}" }),
  request("u8-11", "ping"),
]);

const random = prng(5);
const garbage = Uint8Array.from({ length: 8 * 1024 }, () => Math.floor(random() * 256));
write("binary_garbage.bin", [
  garbage.subarray(0, 4096),
  new Uint8Array(64), // NUL bytes
  bytes([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]), // a gzip header
  bytes([0x1b], "[31mred", [0x1b], "[0m", [0x07, 0x08, 0x7f]), // terminal escapes
  bytes([0x00], request("bg-1", "ping")), // a NUL before a request
  bytes(request("bg-2", "ping"), [0x00]), // and after one
  garbage.subarray(4096),
  request("bg-3", "ping"),
]);

const BOM = "\uFEFF";
write("bom.jsonl", [
  BOM + request("bom-1", "ping"), // at the start of the stream: dropped, the request is served
  BOM + request("bom-2", "tools/list"), // at the start of a later line: the same
  BOM + BOM + request("bom-3", "ping"), // two: the second is not JSON whitespace
  '{"jsonrpc":"2.0",' + BOM + '"id":"bom-4","method":"ping"}', // between tokens
  call("bom-5", "echo", { text: BOM + "inside a string" + BOM }),
  BOM,
  request("bom-6", "ping"),
]);

write("scalars_and_arrays.jsonl", [
  "42",
  "-1.5",
  "0",
  "1e400",
  '"ping"',
  '""',
  "true",
  "false",
  "null",
  "[]",
  "[1,2,3]",
  "[[]]",
  "{}",
  `[${request("sa-1", "ping")}]`,
  `[${request("sa-2", "ping")},${request("sa-3", "tools/list")}]`,
  `[${request("sa-4", "ping")},42,"x"]`,
  `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
  request("sa-5", "ping"),
]);

write("jsonrpc_missing_or_wrong.jsonl", [
  '{"id":"jr-1","method":"ping"}',
  '{"jsonrpc":"1.0","id":"jr-2","method":"ping"}',
  '{"jsonrpc":2.0,"id":"jr-3","method":"ping"}',
  '{"jsonrpc":2,"id":"jr-4","method":"ping"}',
  '{"jsonrpc":"2","id":"jr-5","method":"ping"}',
  '{"jsonrpc":"2.0 ","id":"jr-6","method":"ping"}',
  '{"jsonrpc":null,"id":"jr-7","method":"ping"}',
  '{"jsonrpc":["2.0"],"id":"jr-8","method":"ping"}',
  '{"jsonrpc":{"version":"2.0"},"id":"jr-9","method":"ping"}',
  '{"JSONRPC":"2.0","id":"jr-10","method":"ping"}',
  '{"jsonrpc":"1.0","id":"jr-11","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}',
  '{"jsonrpc":"1.0","method":"notifications/initialized"}', // a notification in the wrong dialect
  '{"method":"notifications/cancelled","params":{"requestId":"jr-12"}}',
  '{"jsonrpc":"1.0","id":"jr-13","result":{}}', // a response in the wrong dialect
  request("jr-14", "ping"),
]);

write("bad_ids.jsonl", [
  '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  '{"jsonrpc":"2.0","id":true,"method":"ping"}',
  '{"jsonrpc":"2.0","id":false,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":{},"method":"ping"}',
  '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
  '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
  '{"jsonrpc":"2.0","id":[],"method":"ping"}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-2.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-1e400,"method":"ping"}',
  '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}',
  '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1e-7,"method":"ping"}',
  '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"slow"}}', // must not start
  // Usable ids, each answered under its own value.
  '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1000,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1001.0,"method":"ping"}', // the integer 1001
  '{"jsonrpc":"2.0","id":1.002e3,"method":"ping"}', // the integer 1002
  '{"jsonrpc":"2.0","id":-1003,"method":"ping"}',
  '{"jsonrpc":"2.0","id":"","method":"ping"}',
  '{"jsonrpc":"2.0","id":"1004","method":"ping"}', // a string, not the number 1004
  '{"jsonrpc":"2.0","id":"id with \\"quotes\\", \\\\ and \\n","method":"ping"}',
  '{"jsonrpc":"2.0","id":"\\u0000\\ud800\\u2028","method":"ping"}',
  '{"jsonrpc":"2.0","id":"id-unknown-method","method":"no/such/method"}',
  // An unusable id on a line with no method, or with both a result and a method.
  '{"jsonrpc":"2.0","id":1.5}',
  '{"jsonrpc":"2.0","id":true,"method":"ping","result":{}}',
]);

write("bad_method.jsonl", [
  '{"jsonrpc":"2.0","id":"bm-1"}',
  '{"jsonrpc":"2.0","id":"bm-2","method":null}',
  '{"jsonrpc":"2.0","id":"bm-3","method":7}',
  '{"jsonrpc":"2.0","id":"bm-4","method":true}',
  '{"jsonrpc":"2.0","id":"bm-5","method":{}}',
  '{"jsonrpc":"2.0","id":"bm-6","method":["ping"]}',
  request("bm-7", ""),
  request("bm-8", "PING"),
  request("bm-9", " ping"),
  request("bm-10", "ping\u0000"),
  request("bm-11", "x".repeat(10_000)),
  request("bm-12", "__proto__"),
  request("bm-13", "constructor"),
  request("bm-14", "toString"),
  request("bm-15", "hasOwnProperty"),
  request("bm-16", "tools/call/"),
  request("bm-17", "rpc.discover"),
  request("bm-18", "tools/list", { _meta: META }).replace('"tools/list"', '"tools/LIST"'),
  '{"jsonrpc":"2.0","method":7}', // a notification whose method is not a string
  '{"jsonrpc":"2.0","method":null,"params":{}}',
  '{"jsonrpc":"2.0"}',
  request("bm-19", "ping"),
]);

write("params_not_object.jsonl", [
  '{"jsonrpc":"2.0","id":"pa-1","method":"ping","params":[]}',
  '{"jsonrpc":"2.0","id":"pa-2","method":"ping","params":[1]}',
  '{"jsonrpc":"2.0","id":"pa-3","method":"tools/list","params":"x"}',
  '{"jsonrpc":"2.0","id":"pa-4","method":"tools/list","params":1}',
  '{"jsonrpc":"2.0","id":"pa-5","method":"tools/call","params":true}',
  '{"jsonrpc":"2.0","id":"pa-6","method":"tools/call","params":null}', // null: as if absent
  '{"jsonrpc":"2.0","id":"pa-7","method":"initialize","params":["2025-11-25"]}',
  '{"jsonrpc":"2.0","id":"pa-8","method":"server/discover","params":"_meta"}',
  '{"jsonrpc":"2.0","id":"pa-9","method":"ping","params":null}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":["pa-1"]}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":5}',
  '{"jsonrpc":"2.0","id":"pa-10","method":"tools/list","params":{"cursor":7}}',
  '{"jsonrpc":"2.0","id":"pa-11","method":"tools/list","params":{"cursor":"not base64!"}}',
  '{"jsonrpc":"2.0","id":"pa-12","method":"tools/list","params":{"cursor":{}}}',
  request("pa-13", "ping"),
]);

const PV = "io.modelcontextprotocol/protocolVersion";
const CC = "io.modelcontextprotocol/clientCapabilities";
const CI = "io.modelcontextprotocol/clientInfo";
const LL = "io.modelcontextprotocol/logLevel";
// server/discover never pins the connection's era, so the sentinel ping stays legacy.
const discover = (id: string, meta: unknown) => request(id, "server/discover", { _meta: meta });
write("bad_meta.jsonl", [
  discover("me-1", []),
  discover("me-2", "2026-07-28"),
  discover("me-3", 1),
  discover("me-4", null),
  discover("me-5", true),
  discover("me-6", {}), // no version claim: served as a claim-less request
  discover("me-7", { [PV]: 20260728, [CC]: {} }),
  discover("me-8", { [PV]: null, [CC]: {} }),
  discover("me-9", { [PV]: ["2026-07-28"], [CC]: {} }),
  discover("me-10", { [PV]: "2026-07-28" }),
  discover("me-11", { [PV]: "2026-07-28", [CC]: [] }),
  discover("me-12", { [PV]: "2026-07-28", [CC]: "all" }),
  discover("me-13", { [PV]: "2026-07-28", [CC]: null }),
  discover("me-14", { [PV]: "2026-07-28", [CC]: {}, [CI]: "me" }),
  discover("me-15", { [PV]: "2026-07-28", [CC]: {}, [CI]: [] }),
  discover("me-16", { [PV]: "2026-07-28", [CC]: {}, [LL]: "loud" }),
  discover("me-17", { [PV]: "2026-07-28", [CC]: {}, [LL]: 5 }),
  discover("me-18", { [PV]: "2026-07-28", [CC]: {}, progressToken: {} }),
  discover("me-19", { [PV]: "2026-07-28", [CC]: {}, progressToken: true }),
  discover("me-20", { [PV]: "1999-01-01", [CC]: {} }),
  discover("me-21", { [PV]: "", [CC]: {} }),
  discover("me-22", { [PV]: "2026-07-28", [CC]: {}, [CI]: { name: 5 }, progressToken: 1 }),
  // The same wrong _meta on the other methods (none pins: each is refused first).
  request("me-23", "tools/list", { _meta: [] }),
  request("me-24", "tools/call", { name: "echo", arguments: { text: "x" }, _meta: "x" }),
  request("me-25", "tools/list", { _meta: { [PV]: "2026-07-28", [CC]: 1 } }),
  request("me-26", "tools/call", { name: "echo", _meta: { [PV]: 2026, [CC]: {} } }),
  request("me-27", "tools/list", { _meta: { [PV]: "3000-01-01", [CC]: {} } }),
  request("me-28", "ping", { _meta: { [PV]: "2026-07-28", [CC]: [] } }),
  request("me-29", "initialize", { protocolVersion: "2025-11-25", _meta: { [PV]: 1 } }),
  request("me-30", "tools/call", {
    name: "echo",
    arguments: { text: "_meta inside arguments is data", _meta: { [PV]: 5 } },
  }),
  request("me-31", "ping"),
]);

write("bad_tools_call.jsonl", [
  request("tc-1", "tools/call", {}),
  request("tc-2", "tools/call", { arguments: { text: "x" } }),
  request("tc-3", "tools/call", { name: null }),
  request("tc-4", "tools/call", { name: 5 }),
  request("tc-5", "tools/call", { name: ["echo"] }),
  request("tc-6", "tools/call", { name: { name: "echo" } }),
  call("tc-7", "echo", "text"),
  call("tc-8", "echo", ["x"]),
  call("tc-9", "echo", 5),
  call("tc-10", "echo", null),
  call("tc-11", "echo", true),
  call("tc-12", "nope", {}),
  call("tc-13", "", {}),
  call("tc-14", "__proto__", {}),
  call("tc-15", "constructor", {}),
  call("tc-16", "toString", {}),
  call("tc-17", "hasOwnProperty", {}),
  call("tc-18", "ECHO", { text: "x" }),
  call("tc-19", "echo ", { text: "x" }),
  call("tc-20", "_helper", {}),
  call("tc-21", "README", {}),
  // Arguments that break the tool's inputSchema: isError results, not protocol errors.
  call("tc-22", "echo", {}),
  call("tc-23", "echo", { text: 5 }),
  call("tc-24", "echo", { text: "x", extra: 1 }),
  call("tc-25", "numbers", { n: -1 }),
  call("tc-26", "numbers", { n: 2.5 }),
  call("tc-27", "numbers", { n: "3" }),
  // Faults inside tools: isError results.
  call("tc-28", "boom", {}),
  call("tc-29", "liar", {}),
  call("tc-30", "stubborn", {}),
  // The same in the 2026-07-28 era (this pins the connection modern: the ping sentinel is
  // then refused with -32602 by design, and server/discover answers instead).
  call("tc-31", "echo", "text", META),
  call("tc-32", "nope", {}, META),
  request("tc-33", "tools/call", { _meta: META }),
  call("tc-34", "echo", { text: 5 }, META),
]);

write("deep_nesting.jsonl", [
  deepArray, // the whole line
  `{"jsonrpc":"2.0","id":"dn-1","method":"ping","params":{"deep":${deepObject}}}`,
  `{"jsonrpc":"2.0","id":"dn-2","method":"tools/call","params":{"name":"numbers","arguments":{"deep":${deepArray}}}}`,
  `{"jsonrpc":"2.0","id":"dn-3","method":"server/discover","params":{"_meta":{"${PV}":"2026-07-28","${CC}":{"deep":${deepArray}}}}}`,
  request("dn-4", "ping"),
]);

const digits = "9".repeat(10_000);
write("huge_numbers.jsonl", [
  '{"jsonrpc":"2.0","id":"hn-1","method":"tools/call","params":{"name":"numbers","arguments":{"n":1e400}}}',
  '{"jsonrpc":"2.0","id":"hn-2","method":"tools/call","params":{"name":"numbers","arguments":{"n":-1e400}}}',
  '{"jsonrpc":"2.0","id":"hn-3","method":"tools/call","params":{"name":"numbers","arguments":{"n":1e-400}}}',
  '{"jsonrpc":"2.0","id":"hn-4","method":"tools/call","params":{"name":"numbers","arguments":{"n":123456789012345678901234567890}}}',
  '{"jsonrpc":"2.0","id":"hn-5","method":"tools/call","params":{"name":"numbers","arguments":{"n":4.000000000000000000000001}}}',
  `{"jsonrpc":"2.0","id":"hn-6","method":"tools/call","params":{"name":"numbers","arguments":{"n":${digits}}}}`,
  '{"jsonrpc":"2.0","id":"hn-7","method":"tools/call","params":{"name":"echo","arguments":{"text":1e400}}}',
  '{"jsonrpc":"2.0","id":"hn-8","method":"tools/call","params":{"name":"boom","arguments":{"x":1.7976931348623157e309}}}',
  '{"jsonrpc":"2.0","id":"hn-9","method":"tools/list","params":{"cursor":1e400}}',
  '{"jsonrpc":"2.0","id":"hn-10","method":"ping","params":{"a":1e400,"b":-0,"c":0.1e-999999}}',
  `{"jsonrpc":"2.0","id":"hn-11","method":"server/discover","params":{"_meta":{"${PV}":"2026-07-28","${CC}":{},"progressToken":1e400}}}`,
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e400}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1e400}}',
  request("hn-12", "ping"),
]);

const KIB = 1024;
write("long_strings.jsonl", [
  call("ls-1", "echo", { text: "a".repeat(256 * KIB) }),
  call("ls-2", "echo", { text: "\u{1F600}".repeat(16 * KIB) }), // 64 KiB of 4-byte characters
  call("ls-3", "echo", { text: '\\"\u0000\n'.repeat(8 * KIB) }), // escapes on the way out
  request("ls-4-" + "i".repeat(32 * KIB), "ping"), // a long id comes back as it was
  call("ls-5", "t".repeat(32 * KIB), {}), // an unknown tool with a long name
  `{"jsonrpc":"2.0","id":"ls-6","method":"ping","params":{"${"k".repeat(32 * KIB)}":1}}`,
  request("ls-7", "ping"),
]);

// Run with maxMessageBytes 64 KiB (corpus_test.ts): each over-long line gets -32600 with
// id null, and the server resynchronizes at its newline.
const LIMIT = 64 * KIB;
function callOfLength(id: string, length: number): string {
  const empty = call(id, "echo", { text: "" });
  return call(id, "echo", { text: "x".repeat(length - empty.length) });
}
write("oversize_line.jsonl", [
  callOfLength("ov-1", LIMIT), // exactly the limit: served
  callOfLength("ov-2", LIMIT + 1), // one byte over
  request("ov-3", "ping"),
  "z".repeat(70 * KIB),
  request("ov-4", "ping"),
  callOfLength("ov-5", LIMIT + 10 * KIB) + "\r", // over the limit, and with CRLF
  "x".repeat(LIMIT) + request("ov-6", "ping"), // a request in the skipped tail: never served
  request("ov-7", "ping"),
  request("ov-8", "ping"),
  "",
  request("ov-9", "ping"),
]);

write("crlf.jsonl", [
  request("cr-1", "ping"),
  request("cr-2", "tools/list") + "\r", // "\r\r\n": the second CR is JSON whitespace
  '{"jsonrpc":"2.0",\r"id":"cr-3",\r"method":"ping"}', // bare CRs between tokens
  call("cr-4", "echo", { text: "a\r\nb" }), // an escaped CRLF inside a string is data
  '{"jsonrpc":"2.0","id":"cr-5","method":"ping","params":{"a":"\r"}}', // a raw CR in a string
  "",
  "\r",
  request("cr-6", "ping"),
], "\r\n");

write("blank_lines.jsonl", [
  "",
  "",
  " ",
  "\t",
  "   \t  ",
  "\r",
  "\r\r",
  "\u00a0", // not JSON whitespace: answered with -32700 or skipped, never more
  "\u3000",
  "",
  request("bl-1", "ping"),
  "",
  "",
  "",
  request("bl-2", "ping"),
]);

const POLLUTE = { polluted: true, jsonrpc: "1.0", id: "hijacked", method: "hijacked" };
const proto = (json: string) => json.replaceAll('"PROTO"', '"__proto__"');
write("proto_keys.jsonl", [
  proto(`{"PROTO":${JSON.stringify(POLLUTE)},"jsonrpc":"2.0","id":"pk-1","method":"ping"}`),
  proto(`{"jsonrpc":"2.0","id":"pk-2","method":"ping","params":{"PROTO":{"polluted":true}}}`),
  proto(
    `{"jsonrpc":"2.0","id":"pk-3","method":"tools/call","params":{"name":"echo","arguments":{"text":"x","PROTO":{"polluted":true}}}}`,
  ),
  proto(
    `{"jsonrpc":"2.0","id":"pk-4","method":"tools/call","params":{"name":"numbers","arguments":{"PROTO":{"n":5,"polluted":true}}}}`,
  ),
  proto(
    `{"jsonrpc":"2.0","id":"pk-5","method":"tools/call","params":{"PROTO":{"name":"echo"},"arguments":{"text":"x"}}}`,
  ),
  proto(
    `{"jsonrpc":"2.0","id":"pk-6","method":"tools/list","params":{"_meta":{"PROTO":{"${PV}":"2026-07-28","${CC}":{}}}}}`,
  ),
  proto(
    `{"jsonrpc":"2.0","id":"pk-7","method":"server/discover","params":{"_meta":{"${PV}":"2026-07-28","${CC}":{"PROTO":{"polluted":true}},"${CI}":{"PROTO":{"polluted":true}}}}}`,
  ),
  proto(`{"jsonrpc":"2.0","id":"pk-8","method":"tools/list","params":{"PROTO":[]}}`),
  '{"jsonrpc":"2.0","id":"pk-9","method":"ping","params":{"constructor":{"prototype":{"polluted":true}}}}',
  '{"jsonrpc":"2.0","id":"pk-10","method":"tools/call","params":{"name":"numbers","arguments":{"constructor":{"prototype":{"polluted":true}}}}}',
  '{"jsonrpc":"2.0","id":"pk-11","method":"tools/call","params":{"name":"boom","arguments":{"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}}}',
  `{"jsonrpc":"2.0","id":"pk-12","method":"server/discover","params":{"_meta":{"${PV}":"2026-07-28","${CC}":{"constructor":{"prototype":{"polluted":true}}}}}}`,
  '{"jsonrpc":"2.0","id":"pk-13","method":"tools/list","params":{"constructor":{"prototype":{"polluted":true}}}}',
  proto(
    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"PROTO":{"requestId":"pk-1"}}}`,
  ),
  // Ids and names that are Object.prototype members.
  request("__proto__", "ping"),
  request("constructor", "ping"),
  request("toString", "tools/list"),
  request("hasOwnProperty", "no/such/method"),
  call("valueOf", "slow", {}), // in flight under a prototype name, then cancelled by it
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"valueOf"}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"__proto__"}}',
  request("pk-14", "__defineGetter__"),
  proto(
    `{"jsonrpc":"2.0","id":"pk-15","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"PROTO":{"polluted":true}},"clientInfo":{"PROTO":{"polluted":true},"name":"x","version":"1"}}}`,
  ),
  proto(
    `{"jsonrpc":"2.0","id":"pk-16","method":"tools/call","params":{"name":"numbers","arguments":{"PROTO":null}}}`,
  ),
  request("pk-17", "ping"),
]);

// Documented: a request whose id is still in flight gets -32600 "already in use" (id null) and the
// first goes on; once cancelled, the first is never answered.
const cancelled = (requestId: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
write("same_id_in_flight.jsonl", [
  call("dup-1", "slow", {}),
  call("dup-1", "echo", { text: "second" }), // -32600 already in use
  request("dup-1", "ping"), // -32600 already in use
  cancelled("dup-1"), // the slow call: never answered
  call(2001, "slow", {}),
  call("2001", "echo", { text: "a string id is another id" }), // answered
  request(2001, "tools/list"), // -32600 already in use
  cancelled("2001"), // names the string id, which is already answered: nothing happens
  cancelled(2001), // the slow call: never answered
  call("dup-2", "slow", {}), // still running at end of input: answered after the grace period
  request("dup-3", "ping"),
]);

write("client_responses.jsonl", [
  '{"jsonrpc":"2.0","id":"rs-1","result":{}}',
  '{"jsonrpc":"2.0","id":3001,"result":{"content":[]}}',
  '{"jsonrpc":"2.0","id":"rs-2","error":{"code":-32601,"message":"Method not found"}}',
  '{"jsonrpc":"2.0","id":"rs-3","result":null}',
  '{"jsonrpc":"2.0","id":"rs-4","result":{},"error":{"code":1,"message":"both"}}',
  '{"jsonrpc":"2.0","id":"sentinel-never-sent","result":{}}', // an id the server never used
  request("rs-5", "ping"),
]);

write("client_responses_unusable_id.jsonl", [
  // JSON-RPC 2.0 requires id null on an error response when the request's id could not be
  // read, so a client may legitimately send these. A response never gets a reply.
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":{"a":1},"error":{"code":-32600,"message":"Invalid request"}}',
  request("ru-1", "ping"),
]);

write("notifications.jsonl", [
  '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled"}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"no-such-request"}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4001}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"id":1}}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5,"reason":7}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":{}}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}',
  '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}',
  '{"jsonrpc":"2.0","method":"notifications/unknown","params":{"a":[1,2,3]}}',
  '{"jsonrpc":"2.0","method":""}',
  '{"jsonrpc":"2.0","method":"ping"}', // a request method sent as a notification
  '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow"}}', // must not run
  '{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}}',
  request("no-1", "ping"),
]);
