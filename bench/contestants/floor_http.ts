// A floor for HTTP (bench:floor, adr/0053): the bare `Deno.serve` answer (bare_http.ts), with
// the work toolshed asks of Deno on every request and nothing of its own: each connection
// accepted and served through `serveHttpOnConnection` (toolshed's listener, adr/0021), the
// delivery promise awaited, the eight headers its steps read, the body taken as bytes and
// decoded as toolshed's extractor does (strictly only when the lax decoding shows a U+FFFD)
// before `JSON.parse`, a JSON answer with its Content-Type.
//
// With PARTS (a comma list of listener, delivered, headers, body), only those parts are done;
// the others as the bare server does them (`Deno.serve`, no headers read, `request.json()`), so
// that bench:floor can show what each part costs alone.
//
// Run: deno run -A bench/contestants/floor_http.ts [PARTS]   (prints `listening on http://…/mcp`)
const PARTS = ["listener", "delivered", "headers", "body"];
// Imported (floor_in_toolshed.ts), it does every part: the arguments are its importer's.
const parts = new Set((import.meta.main ? Deno.args[0]?.split(",") : undefined) ?? PARTS);
for (const part of parts) {
  if (!PARTS.includes(part)) throw new Error(`floor_http.ts: no part "${part}" (${PARTS})`);
}
const encoder = new TextEncoder();
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
let delivered = 0;
const count = () => delivered++;

async function handler(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
  if (parts.has("delivered")) info?.completed.then(count, count);
  if (parts.has("headers")) {
    let headerBytes = 0;
    for (const name of READ) headerBytes += request.headers.get(name)?.length ?? 0;
    if (headerBytes === 0) return new Response(null, { status: 400 });
  }
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const { id, method, params } = parts.has("body")
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

type ServeConnection = (
  connection: Deno.Conn,
  signal: AbortSignal,
  handler: (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => { finished: Promise<void> };
const listening = (port: number) =>
  Deno.stderr.writeSync(encoder.encode(`listening on http://127.0.0.1:${port}/mcp\n`));
if (!parts.has("listener")) {
  Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => listening(port) }, handler);
} else {
  const internal = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[
    (Deno as unknown as { internal: symbol }).internal
  ];
  const serveConnection = internal?.serveHttpOnConnection as ServeConnection | undefined;
  if (serveConnection === undefined) throw new Error("this Deno has no serveHttpOnConnection");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listening(listener.addr.port);
  const closer = new AbortController();
  const failed = () => new Response("the handler failed", { status: 500 });
  const ignore = () => {};
  for await (const connection of listener) {
    // A client that resets its connection ends it with a rejection, as toolshed's listener sees.
    serveConnection(connection, closer.signal, handler, failed, ignore).finished.catch(ignore);
  }
}
