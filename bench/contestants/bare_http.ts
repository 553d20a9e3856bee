// The HTTP ceiling: the barest `Deno.serve` that answers the benchmark's request correctly.
// It parses the JSON body once (`req.json()`) and answers a JSON-RPC result with
// `Response.json()`, the plainest pair Deno offers. Not a server: no
// headers, Host or Origin checked, no validation, no errors beyond "method not found".
//
// With a second argument N, every request first spends N µs of JavaScript on nothing: the
// calibration row of bench:http, which shows what a few µs of work per request cost this
// ceiling on this machine (on 2 shared cores, much more than those µs: less batching).
//
// Run: deno run --allow-net bench/contestants/bare_http.ts [HOST:PORT] [BUSY_US]
//      (default 127.0.0.1:0, no busy work)
// Prints `listening on http://HOST:PORT/mcp` on stderr, as toolshed does.

const [hostname, port] = (Deno.args[0] ?? "127.0.0.1:0").split(":");
const busyMs = Number(Deno.args[1] ?? 0) / 1000;
const encoder = new TextEncoder();

/** Spins for `busyMs` of wall time (a loop over the clock: the work of no particular kind). */
function busy(): void {
  const until = performance.now() + busyMs;
  while (performance.now() < until) { /* the work */ }
}

Deno.serve({
  hostname,
  port: Number(port),
  onListen: ({ port }) =>
    Deno.stderr.writeSync(encoder.encode(`listening on http://${hostname}:${port}/mcp\n`)),
}, async (req) => {
  if (busyMs > 0) busy();
  if (req.method !== "POST") return new Response(null, { status: 405 });
  const { id, method, params } = await req.json();
  if (method === "tools/call" && params?.name === "echo") {
    return Response.json({
      jsonrpc: "2.0",
      id,
      result: { resultType: "complete", content: [{ type: "text", text: params.arguments.text }] },
    });
  }
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: { code: -32601, message: "Method not found" },
  });
});
