// A floor for HTTP (bench:floor, adr/0053): the bare `Deno.serve` answer (bare_http.ts), with
// the work toolshed asks of Deno on every request and nothing of its own: each connection
// accepted and served through `serveHttpOnConnection` (toolshed's listener, adr/0021), the
// delivery promise awaited, and the answer of floor_answer.ts (the eight headers toolshed's
// steps read, the body as bytes checked as UTF-8, a JSON answer with its Content-Type).
//
// With PARTS (a comma list of listener, delivered, headers, body), only those parts are done;
// the others as the bare server does them (`Deno.serve`, no headers read, `request.json()`), so
// that bench:floor can show what each part costs alone.
//
// Run: deno run -A bench/contestants/floor_http.ts [PARTS]   (prints `listening on http://…/mcp`)
import { floorAnswer } from "./floor_answer.ts";

const PARTS = ["listener", "delivered", "headers", "body"];
// Imported (floor_in_toolshed.ts), it does every part: the arguments are its importer's.
const parts = new Set((import.meta.main ? Deno.args[0]?.split(",") : undefined) ?? PARTS);
for (const part of parts) {
  if (!PARTS.includes(part)) throw new Error(`floor_http.ts: no part "${part}" (${PARTS})`);
}
const encoder = new TextEncoder();
const answerParts = { headers: parts.has("headers"), body: parts.has("body") };
let delivered = 0;
const count = () => delivered++;

function handler(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
  if (parts.has("delivered")) info?.completed.then(count, count);
  return floorAnswer(request, answerParts);
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
