// The HTTP floor program (floor_http.ts, every part) in toolshed's process (bench:floor-process,
// adr/0074): what being a process that holds toolshed costs a request that none of toolshed's
// code handles.
//
//   loaded   toolshed's server and HTTP modules imported, nothing of them run
//   serving  toolshed's server built over bench/tools and serving HTTP, idle, on a port of its own
//
// Run: deno run -A bench/contestants/floor_in_toolshed.ts loaded|serving   (prints `listening on …`)
import { createServer } from "../../lib/server/create_server.ts";
import * as httpSide from "../../lib/server/http_side.ts";

const MODES = ["loaded", "serving"];
const mode = Deno.args[0];
if (!MODES.includes(mode)) {
  throw new Error(`floor_in_toolshed.ts: give one of ${MODES.join(", ")}, not "${mode}"`);
}
/** Held for the process's life, so that nothing of it is collected. */
const held: unknown[] = [createServer, httpSide];
if (mode === "serving") {
  const tools = new URL("../tools", import.meta.url).pathname;
  const server = await createServer({ tools, http: true });
  const serving = server.serveHttp({ hostname: "127.0.0.1", port: 0 });
  held.push(server, serving);
  // Not "listening on": that line is the floor's, which the benchmark loads.
  Deno.stderr.writeSync(new TextEncoder().encode(`toolshed beside it on ${serving.url}\n`));
}
(globalThis as Record<string, unknown>).toolshedHeld = held;
await import("./floor_http.ts");
