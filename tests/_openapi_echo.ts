// A petstore-like HTTP server on 127.0.0.1 for the OpenAPI request and call tests: every
// request is recorded exactly as it arrived (method, raw path, raw query, headers, body bytes)
// and, on most routes, echoed back as JSON. A few routes misbehave on purpose.

/** One request as the server saw it. */
export interface Arrival {
  method: string;
  /** The request target's path, as sent (not decoded, not normalized). */
  path: string;
  /** The request target's query without "?", as sent; "" when none. */
  query: string;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
}

export interface EchoServer {
  /** The origin, `http://127.0.0.1:<port>`. */
  origin: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/** Bytes the routes /huge streams before it ends (without a Content-Length). */
const HUGE_BYTES = 32 * 1024 * 1024;

/**
 * Routes: `/redirect/same` (302 to `/v1/pets/landed`; `/redirect/see-other` and
 * `/redirect/temporary` likewise with 303 and 307), `/redirect/cross` (302 to the host
 * "evil.example"), `/redirect/loop` (302 to itself), `/missing` (404 with a 1 MiB body),
 * `/huge` (200 streaming 32 MiB), `/huge-declared` (200 with a 32 MiB Content-Length),
 * `/stall` (never answers), `/text` (text/plain), `/list` (a JSON array); any other path echoes
 * the arrival as JSON.
 */
export function serveEcho(): EchoServer {
  const arrivals: Arrival[] = [];
  const stalls = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const raw = request.url.slice(request.url.indexOf("/", "http://".length));
      const mark = raw.indexOf("?");
      const path = mark === -1 ? raw : raw.slice(0, mark);
      const arrival: Arrival = {
        method: request.method,
        path,
        query: mark === -1 ? "" : raw.slice(mark + 1),
        headers: Object.fromEntries(request.headers),
        body: new Uint8Array(await request.arrayBuffer()),
      };
      arrivals.push(arrival);
      const route = path.replace(/^\/v1/, "");
      if (route === "/redirect/same") return redirect("/v1/pets/landed");
      if (route === "/redirect/cross") return redirect("http://evil.example/v1/pets");
      if (route === "/redirect/loop") return redirect("/v1/redirect/loop");
      if (route === "/redirect/see-other") return redirect("/v1/pets/landed", 303);
      if (route === "/redirect/temporary") return redirect("/v1/pets/landed", 307);
      if (route === "/missing") {
        return new Response("x".repeat(1024 * 1024), { status: 404 });
      }
      if (route === "/huge" || route === "/huge-declared") return huge(route === "/huge-declared");
      if (route === "/stall") {
        await new Promise((resolve) => stalls.signal.addEventListener("abort", resolve));
        return new Response("late");
      }
      if (route === "/text") {
        return new Response("plain words", { headers: { "content-type": "text/plain" } });
      }
      if (route === "/list") return Response.json([1, 2, 3]);
      return Response.json({
        method: arrival.method,
        path: arrival.path,
        query: arrival.query,
        body: new TextDecoder().decode(arrival.body),
      });
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    arrivals,
    async close() {
      stalls.abort();
      await server.shutdown();
    },
  };
}

function redirect(location: string, status = 302): Response {
  return new Response(null, { status, headers: { location } });
}

function huge(declared: boolean): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= HUGE_BYTES) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (declared) headers["content-length"] = String(HUGE_BYTES);
  return new Response(body, { headers });
}
