// A floor for HTTP (bench:floor, adr/0053): the bare `Deno.serve` answer (bare_http.ts), with
// the work toolshed asks of Deno on every request and nothing of its own: each connection
// accepted and served through `serveHttpOnConnection` (toolshed's listener, adr/0021), the
// delivery promise awaited, the eight headers its steps read, the body taken as bytes and
// decoded strictly before `JSON.parse`, a JSON answer with its Content-Type.
//
// Run: deno run -A bench/contestants/floor_http.ts   (prints `listening on http://…/mcp`)
const encoder = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true });
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
  info?.completed.then(count, count);
  let headerBytes = 0;
  for (const name of READ) headerBytes += request.headers.get(name)?.length ?? 0;
  if (request.method !== "POST" || headerBytes === 0) return new Response(null, { status: 400 });
  const { id, method, params } = JSON.parse(strict.decode(await request.bytes()));
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
const internal = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[
  (Deno as unknown as { internal: symbol }).internal
];
const serveConnection = internal?.serveHttpOnConnection as ServeConnection | undefined;
if (serveConnection === undefined) throw new Error("this Deno has no serveHttpOnConnection");
const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
Deno.stderr.writeSync(encoder.encode(`listening on http://127.0.0.1:${listener.addr.port}/mcp\n`));
const closer = new AbortController();
const failed = () => new Response("the handler failed", { status: 500 });
const ignore = () => {};
for await (const connection of listener) {
  // A client that resets its connection ends it with a rejection, as toolshed's listener sees.
  serveConnection(connection, closer.signal, handler, failed, ignore).finished.catch(ignore);
}
