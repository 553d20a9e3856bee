// The routes of `toolshed dev` on its one origin: the page, /dev/events and /dev/state, each
// behind the same Host guard as the MCP endpoint (a page of another name, a DNS rebinding, gets
// 403); everything else goes to what `toolshed --http` serves (the endpoint at /mcp, the server
// card, the probes), which answers 404 for what it does not serve.
import { devPage } from "./dev_page.ts";
import type { DevEvents } from "./dev_events.ts";
import { allowedHostNames, createHostGuard } from "../transports/http/guard.ts";

/** What /dev/state says. */
interface DevState {
  readonly dir: string;
  readonly endpoint: string;
  readonly version: string;
  readonly checked: object | null;
}

/** The request handler of a dev server listening on `bound` (its address). */
export function devRoutes(options: {
  bound: string;
  events: DevEvents;
  state: () => DevState;
  /** What toolshed --http serves (Server.fetch). */
  mcp: (request: Request) => Promise<Response>;
}): (request: Request) => Response | Promise<Response> {
  const { events, state, mcp } = options;
  const guard = createHostGuard(allowedHostNames([options.bound], []));
  const own: Record<string, () => Response> = {
    "/": () =>
      new Response(devPage(), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      }),
    "/dev/events": () => events.subscribe(),
    "/dev/state": () => Response.json(state(), { headers: { "cache-control": "no-store" } }),
  };
  return (request) => {
    const { pathname } = new URL(request.url);
    const handler = Object.hasOwn(own, pathname) ? own[pathname] : undefined;
    if (handler === undefined) return mcp(request);
    const refusal = guard(request.headers);
    if (refusal !== undefined) return text(403, `${refusal}\n`);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response(`Method "${request.method}" is not allowed here\n`, {
        status: 405,
        headers: { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" },
      });
    }
    return handler();
  };
}

/** A plain-text answer. */
export function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
