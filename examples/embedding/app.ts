// app.ts: an app of one's own that serves toolshed's MCP endpoint at /mcp beside its own pages.
//   deno run -A examples/embedding/app.ts      (PORT picks the port, default 8000)
import { createServer } from "@toolshed/toolshed";

// The tools/ beside this file, served as `toolshed serve --dir` would serve them. Behind a
// public name, list it: the endpoint refuses Host and Origin headers that name another host.
const mcp = await createServer({
  dir: new URL("./", import.meta.url),
  http: { allowedHosts: Deno.env.get("ALLOWED_HOSTS")?.split(",") ?? [] },
});

const app = Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.env.get("PORT") ?? "8000") },
  (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp") return mcp.fetch(request);
    if (pathname === "/") return new Response("The app's own page; MCP is served at /mcp\n");
    return new Response("Not found\n", { status: 404 });
  },
);

// Ctrl+C or SIGTERM: toolshed drains first (calls in flight finish), then the app stops.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await mcp.close();
    await app.shutdown();
  });
}
