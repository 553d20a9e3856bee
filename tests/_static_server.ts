// Test and benchmark helper: a static file server on 127.0.0.1 and a free port, for runs of
// the server from a URL. `fileOf` maps a request path to a file and its Content-Type; what
// it does not map, or what cannot be read, is 404. Every path asked for is recorded.

export interface StaticServer {
  readonly origin: string;
  /** The paths requested, in order. */
  readonly requested: string[];
  readonly server: Deno.HttpServer;
}

export function serveStatic(
  fileOf: (path: string) => { file: string | URL; type: string | null } | undefined,
): StaticServer {
  const requested: string[] = [];
  let origin = "";
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ hostname, port }) => {
      origin = `http://${hostname}:${port}`;
    },
  }, async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("read-only", { status: 405 });
    }
    const path = decodeURIComponent(new URL(request.url).pathname);
    requested.push(path);
    const found = path.split("/").includes("..") || path.includes("\\") ? undefined : fileOf(path);
    if (found === undefined) return new Response("not found", { status: 404 });
    try {
      const body = await Deno.readFile(found.file);
      return new Response(request.method === "HEAD" ? null : body, {
        headers: found.type === null ? {} : { "content-type": found.type },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    get origin() {
      return origin;
    },
    requested,
    server,
  };
}
