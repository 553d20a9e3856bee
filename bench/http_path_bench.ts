// The HTTP request path in process (adr/0052): toolshed's web-standard handler (`fetch`, the
// endpoint's steps, the engine, the core, the answer) against a handler that does the least any
// server must (read the body, parse it, answer). No sockets: what it shows is the path's own
// cost per request, steadier than `bench:http` on shared cores, without Deno's server around it.
import { createServer } from "../lib/server/create_server.ts";
import { recorder } from "../tests/_diagnostics.ts";
import { echoBody, HEADERS, LOAD_TEXT } from "./http/request.ts";

const server = await createServer({
  dir: new URL("./", import.meta.url),
  diagnostics: recorder(),
});
const URL_ = "http://127.0.0.1:8080/mcp";
const body = echoBody(1, LOAD_TEXT);
// As a client sends it: with its Host and its Content-Length (a body without one is read as a
// stream, the path of large bodies).
const headers = {
  ...HEADERS,
  host: "127.0.0.1:8080",
  "content-length": String(new TextEncoder().encode(body).length),
};
const request = () => new Request(URL_, { method: "POST", headers, body });

/** The floor: parse the body, answer with the echo. */
async function bare(incoming: Request): Promise<Response> {
  const { id, params } = await incoming.json();
  return Response.json({
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", content: [{ type: "text", text: params.arguments.text }] },
  });
}

// Both answer before the bench starts: a path that fails would measure its error.
const check = await (await server.fetch(request())).json();
if (check.result?.content?.[0]?.text !== LOAD_TEXT) throw new Error(JSON.stringify(check));

Deno.bench("bare handler (json in, Response.json out)", {
  group: "one tools/call echo",
  baseline: true,
}, async () => {
  await (await bare(request())).text();
});
Deno.bench("toolshed fetch (steps, engine, core)", { group: "one tools/call echo" }, async () => {
  await (await server.fetch(request())).text();
});
Deno.bench("making the Request alone", { group: "the harness" }, () => {
  request();
});
