// The floor program's answer to one request (floor_http.ts, adr/0053), with nothing started: the
// eight headers toolshed's steps read, the body as bytes decoded as toolshed's extractor does
// (strictly only when the lax decoding shows a U+FFFD) before `JSON.parse`, the echo as JSON
// with its Content-Type. bench:floor-cuts (floor_cuts.ts) puts the same answer inside copies of
// toolshed, so that the floor's work is written here once.

/** What the floor's answer does of Deno's share when asked: the header reads, the body as bytes. */
export interface AnswerParts {
  readonly headers: boolean;
  readonly body: boolean;
}

const lax = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/** The body's text, refused (by a throw) where it is not UTF-8, as lib/wire/extract.ts does. */
function textOf(bytes: Uint8Array): string {
  const text = lax.decode(bytes);
  if (text.includes("\uFFFD")) strict.decode(bytes);
  return text;
}
const READ = [
  "host",
  "origin",
  "content-type",
  "content-length",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "accept",
];
const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Answers an echo `tools/call` as the floor does; without `headers`, no header is read, and
 * without `body`, the body is taken with `request.json()` (as the bare server does).
 */
export async function floorAnswer(request: Request, parts: AnswerParts): Promise<Response> {
  if (parts.headers) {
    let headerBytes = 0;
    for (const name of READ) headerBytes += request.headers.get(name)?.length ?? 0;
    if (headerBytes === 0) return new Response(null, { status: 400 });
  }
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const { id, method, params } = parts.body
    ? JSON.parse(textOf(await request.bytes()))
    : await request.json();
  if (method !== "tools/call" || params?.name !== "echo") {
    const error = { code: -32601, message: "Method not found" };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), { headers: JSON_HEADERS });
  }
  const result = {
    resultType: "complete",
    content: [{ type: "text", text: params.arguments.text }],
  };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), { headers: JSON_HEADERS });
}
