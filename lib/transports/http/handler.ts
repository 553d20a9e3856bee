// Streamable HTTP as a web-standard handler (adr/0012, adr/0025): a route table (the MCP
// endpoint, /healthz, /readyz) and the endpoint's steps, in order: CORS (when on), the guard, the
// bearer token (when one is set), the HTTP method and media type, the body, the validation
// ladder, and the dispatch to the connection engines. The listener (server.ts) hands it each
// request with the connection it came on; embedded in someone else's server (`fetch`), it
// gets a stand-in connection that can close nothing. A new step (an authentication scheme, a
// span per request) is a file of this folder and one line in `named` below, composed only when
// its feature is on; a step may add routes of its own.
import { messageOf } from "../../util/json.ts";
import { compose } from "../../util/compose.ts";
import { activeSpan } from "../../util/active_span.ts";
import { type Diagnostics, inform } from "../../util/diagnostics.ts";
import { clientText, clientWord, quotedClientText } from "../../util/client_text.ts";
import { internalError } from "../../wire/errors.ts";
import { setFact } from "../../methods/facts.ts";
import { admissionStep, type MirroredArguments } from "./admission.ts";
import { bearerStep } from "./auth.ts";
import { bodyStep } from "./body.ts";
import { AI_CATALOG_PATH, SERVER_CARD_SUFFIX } from "./card_paths.ts";
import { corsOriginsOf, corsStep } from "./cors.ts";
import { createDispatch } from "./dispatch.ts";
import { createEndpoint, type Endpoint, type EndpointOptions } from "./endpoint.ts";
import type { Exchange, HttpHandler, HttpStep, RequestNote } from "./exchange.ts";
import { allowedHostNames, createHostGuard, guardStep } from "./guard.ts";
import type { Connection } from "./listener.ts";
import type { Slice } from "../../settings/table.ts";
import { methodAndTypeStep } from "./method_and_type.ts";
import {
  type OAuthHttpOptions,
  oauthStep,
  resourceOf,
  type ResourceServer,
  resourceServerOf,
} from "./oauth.ts";
import { metadataRoute } from "./oauth_metadata.ts";
import { createSessionStreams } from "./streams.ts";
import { toolsetsStep } from "./toolsets.ts";
import { CODE_ROUTE } from "../../primitives/toolsets.ts";
import type { ToolView } from "../../primitives/toolsets.ts";
import type { ServerMeta } from "../../primitives/server_meta.ts";
import { refuse } from "./statuses.ts";

/** The MCP endpoint's path unless told otherwise. */
export const MCP_PATH = "/mcp";

/**
 * What the endpoint serves by: the HTTP settings `fetch` reads too (`Slice<"embedded-http">`, the
 * defaults applied), the endpoint's, and what it serves with.
 */
export interface McpHttpOptions extends EndpointOptions, Slice<"embedded-http"> {
  /** The names of the address the server is bound to, as Host headers carry them. */
  readonly boundNames?: readonly string[];
  /** When set, callers bring OAuth access tokens from this authorization server (adr/0038). */
  readonly oauth?: OAuthHttpOptions;
  /**
   * The endpoint's URL at the address served (`http://127.0.0.1:8080/mcp`), the canonical URI
   * by default with OAuth; undefined when embedded or bound to a wildcard address.
   */
  readonly servedUrl?: string;
  /** Where the endpoint is served (default /mcp). */
  readonly path?: string;
  /**
   * Steps the composition root puts around the endpoint's own, outermost first (the count of
   * answers by status, with --metrics); none unless a feature that needs one is on.
   */
  readonly outerSteps?: readonly HttpStep[];
  /**
   * What this instance cannot do now while staying ready (Redis unreachable: adr/0022), a
   * sentence /readyz adds to its 200; undefined when nothing.
   */
  readonly degraded?: () => string | undefined;
  /**
   * Read each request's remote address for the core (a rate limit keys callers without a token
   * or a session by it, adr/0043); off, nothing is read.
   */
  readonly callerAddresses?: boolean;
  /**
   * Serve toolsets (adr/0045): `/mcp/<set>` and the `Mcp-Toolsets` header choose among them,
   * within `base` (the server's own view, when it has one); with `code`, `/mcp/code` and
   * `/mcp/<set>/code` are code mode's views of them (adr/0073). Undefined: none is read.
   */
  readonly toolsets?: {
    readonly base: ToolView | undefined;
    readonly code?: { readonly destructive: boolean };
  };
  /**
   * Who the server is (server.meta.json): the server card at `<path>/server-card` and the AI
   * catalog at `/.well-known/ai-catalog.json` say it (adr/0050); undefined: both are 404.
   */
  readonly meta?: ServerMeta;
}

/** The endpoint's steps, by name: `outer` is one the composition root put around them. */
type StepName =
  | "outer"
  | "cors"
  | "guard"
  | "bearer"
  | "oauth"
  | "toolsets"
  | "methodAndType"
  | "body"
  | "admission";

export interface McpHttp {
  /** The endpoint's path (`/mcp`). */
  readonly path: string;
  /** The endpoint's steps as composed, outermost first: none of a feature that is off. */
  readonly steps: readonly StepName[];
  /** What the steps share: the engines, the sessions, the drain. */
  readonly endpoint: Endpoint;
  /** The routes by path: the endpoint's, the probes, and what else is added. */
  readonly routes: RouteTable;
  /** Answers one request that arrived on `connection` (the listener's). */
  handle(
    request: Request,
    connection: Connection,
    info?: Deno.ServeHandlerInfo,
  ): Response | Promise<Response>;
  /**
   * Answers one request as a web-standard handler, for a server of someone else's (Deno.serve,
   * Hono): its connection is theirs, so a body that arrives too late gets 408 but nothing
   * closes their connection.
   */
  fetch(request: Request): Promise<Response>;
}

/** The routes: paths and their handlers; a step may add its own (a metadata document). */
type RouteTable = Map<string, HttpHandler>;

const TEXT = { "content-type": "text/plain; charset=utf-8" };

export function createMcpHttp(options: McpHttpOptions): McpHttp {
  const { diagnostics } = options;
  const path = options.path ?? MCP_PATH;
  const resourceServer = options.oauth && resourceServerFor(options.oauth, options, path);
  const endpoint = createEndpoint(options);

  const { bodyTimeoutMs } = options;
  const mirroredOf: MirroredArguments = (tool) =>
    options.registry.current().tools.byKey.get(tool)?.headerParams;
  const routes: RouteTable = new Map();
  const cors = options.corsOrigins?.length ? corsOriginsOf(options.corsOrigins) : undefined;
  // What the guard lets through in Host (and Origin), the endpoint's and the server card's.
  const allowedNames = allowedHostNames(options.boundNames ?? [], options.allowedHosts);
  // The endpoint's steps, in order, each named; the dispatch to the engines is the last. A
  // feature that is off adds no step.
  const named: (readonly [StepName, HttpStep])[] = [
    ...(options.outerSteps ?? []).map((step) => ["outer", step] as const),
  ];
  if (cors !== undefined) named.push(["cors", corsStep(cors)]);
  named.push(["guard", guardStep(allowedNames, cors)]);
  if (options.bearerToken !== undefined) named.push(["bearer", bearerStep(options.bearerToken)]);
  if (resourceServer !== undefined) named.push(["oauth", oauthStep(resourceServer)]);
  if (options.toolsets !== undefined) {
    const { base, code } = options.toolsets;
    named.push(["toolsets", toolsetsStep(options.registry, base, code)]);
  }
  named.push(
    ["methodAndType", methodAndTypeStep(createSessionStreams(endpoint))],
    [
      "body",
      bodyStep({ limitBytes: options.maxMessageBytes, budget: endpoint.bodies, bodyTimeoutMs }),
    ],
    ["admission", admissionStep(mirroredOf)],
  );
  const steps = named.map(([, step]) => step);
  routes.set(path, compose(steps, createDispatch(endpoint)));
  if (options.toolsets?.code !== undefined) {
    // `/mcp/code`: the endpoint, in code mode's view (adr/0073).
    const served = routes.get(path)!;
    routes.set(`${path}/${CODE_ROUTE}`, (exchange) => {
      exchange.codePath = true;
      return served(exchange);
    });
  }
  if (resourceServer !== undefined) {
    const metadata = metadataRoute(resourceServer);
    for (const at of resourceServer.metadataPaths) routes.set(at, metadata);
  }
  // The server card and the AI catalog (adr/0050), public: their module loads at the first
  // request for either.
  const publicUrl = options.publicUrl ?? options.oauth?.publicUrl;
  const card = lazyRoutes(async () => {
    const { cardRoutes } = await import("./server_card.ts");
    return cardRoutes({
      meta: options.meta,
      publicUrl: publicUrl === undefined ? undefined : resourceOf(publicUrl, path),
      path,
      authorization: options.oauth !== undefined
        ? "oauth"
        : options.bearerToken !== undefined
        ? "bearer"
        : undefined,
      hostGuard: createHostGuard(allowedNames, undefined, false),
    });
  });
  routes.set(`${path}${SERVER_CARD_SUFFIX}`, card("card"));
  routes.set(AI_CATALOG_PATH, card("catalog"));
  const setsPrefix = `${path}/`;
  routes.set("/healthz", probe(() => [200, "ok"]));
  routes.set("/readyz", probe(() => [endpoint.draining ? 503 : 200, readiness()]));

  /** The readiness probe's text: `ready (2 running, 1 waiting)`, and what is degraded. */
  function readiness(): string {
    const degraded = options.degraded?.();
    const state = `${endpoint.draining ? "draining" : "ready"} (${endpoint.load()})`;
    return degraded === undefined ? state : `${state}; ${degraded}`;
  }

  function route(exchange: Exchange): Response | Promise<Response> {
    const pathname = pathnameOf(exchange.request.url);
    if (pathname === undefined) {
      // Deno takes the URL from the Host header: one it cannot parse is the client's
      // mistake, answered before the guard, and what it said is not echoed anywhere.
      return new Response("Bad Request: the Host header is not a valid host\n", {
        status: 400,
        headers: TEXT,
      });
    }
    const handler = routes.get(pathname);
    if (handler !== undefined) return handler(exchange);
    // `/mcp/<set>`: the endpoint, for the toolsets the rest of the path names; with code mode,
    // `/mcp/code` and `/mcp/<set>/code` its view of them (adr/0073).
    if (options.toolsets !== undefined && pathname.startsWith(setsPrefix)) {
      let sets = pathname.slice(setsPrefix.length);
      if (options.toolsets.code !== undefined && sets.endsWith(`/${CODE_ROUTE}`)) {
        exchange.codePath = true;
        sets = sets.slice(0, -CODE_ROUTE.length - 1);
      }
      if (sets !== "" && !sets.includes("/")) {
        exchange.toolsetPath = sets;
        return routes.get(path)!(exchange);
      }
    }
    return new Response(`Not found: MCP is served on ${path}\n`, { status: 404, headers: TEXT });
  }

  /** `route`, then one line on the diagnostics once the answer is sent or abandoned. */
  async function logged(
    request: Request,
    connection: Connection,
    info: Deno.ServeHandlerInfo | undefined,
  ): Promise<Response> {
    const started = performance.now();
    // The request's span is current only while it is being handled, not once it is sent.
    const span = activeSpan();
    const note: RequestNote = {};
    const exchange: Exchange = { request, connection, note };
    if (options.callerAddresses) addressed(exchange, info);
    const response = await route(exchange);
    const log = () => {
      const ms = performance.now() - started;
      // What the client wrote is bounded in the keys and, in the line, quoted (the JSON-RPC
      // method, the subject) or, for what HTTP's own parsing already keeps to one word (the
      // method, the path), quoted when it is not a plain word (adr/0057): it can neither end
      // the line nor pose as another field.
      const { rpcMethod, tool, subject } = note;
      const path = pathnameOf(request.url) ?? "";
      const method = rpcMethod === undefined ? "-" : quotedClientText(rpcMethod);
      const who = subject === undefined ? "" : ` by ${quotedClientText(subject)}`;
      inform(
        diagnostics,
        `${clientWord(request.method)} ${clientWord(path)} ${response.status} ${method}${who} ${
          ms.toFixed(1)
        } ms`,
        {
          http_method: clientText(request.method),
          path: clientText(path),
          status: response.status,
          method: rpcMethod === undefined ? undefined : clientText(rpcMethod),
          tool: tool === undefined ? undefined : clientText(tool),
          subject: subject === undefined ? undefined : clientText(subject),
          duration_ms: Math.round(ms * 10) / 10,
          trace_id: span?.traceId,
          span_id: span?.spanId,
        },
      );
    };
    if (info) info.completed.then(log, log);
    else log();
    return response;
  }

  const handle = options.logRequests
    ? logged
    : options.callerAddresses
    ? (request: Request, connection: Connection, info: Deno.ServeHandlerInfo | undefined) =>
      route(addressed({ request, connection, note: undefined }, info))
    : (request: Request, connection: Connection) => route({ request, connection, note: undefined });
  const embedded = embeddedConnection(bodyTimeoutMs);
  return {
    path,
    steps: named.map(([name]) => name),
    endpoint,
    routes,
    handle,
    async fetch(request) {
      try {
        return await handle(withHost(request), embedded, undefined);
      } catch (error) {
        return failed(diagnostics, error);
      }
    },
  };
}

/**
 * The resource server of an endpoint at `path`: its canonical URI is the public URL, else the
 * address served; the verifier checks tokens for it. A shared token and OAuth are two ways to
 * know callers, never both.
 */
function resourceServerFor(
  oauth: OAuthHttpOptions,
  options: McpHttpOptions,
  path: string,
): ResourceServer {
  if (options.bearerToken !== undefined) {
    throw new Error("a shared bearer token and OAuth cannot both guard the endpoint: choose one");
  }
  const publicUrl = oauth.publicUrl ?? options.servedUrl;
  if (publicUrl === undefined) {
    throw new Error(
      "OAuth needs the endpoint's public URL (publicUrl, --public-url): the address served " +
        "is not one clients can use (a wildcard, or a server of one's own)",
    );
  }
  return resourceServerOf(oauth, { publicUrl, localPath: path }, options.diagnostics);
}

/** The answer to a request whose handling threw: a fault of the server's, 500. */
export function failed(diagnostics: Diagnostics, error: unknown): Response {
  diagnostics.error("An HTTP request failed", error);
  return refuse("failed", undefined, internalError(messageOf(error)));
}

/**
 * Handlers by name, made by `load` at the first request for any of them (a module imported
 * then), and the same ones from then on.
 */
function lazyRoutes<Name extends string>(
  load: () => Promise<Record<Name, HttpHandler>>,
): (name: Name) => HttpHandler {
  let loaded: Promise<Record<Name, HttpHandler>> | undefined;
  return (name) => async (exchange) => (await (loaded ??= load()))[name](exchange);
}

/** A probe answers GET and HEAD with one line of text. */
function probe(state: () => [number, string]): HttpHandler {
  return ({ request }) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: use GET\n", {
        status: 405,
        headers: { ...TEXT, allow: "GET, HEAD" },
      });
    }
    const [status, text] = state();
    return new Response(`${text}\n`, { status, headers: TEXT });
  };
}

/**
 * A request made in code (a test's, Hono's `app.request`) carries no Host header, which every
 * HTTP/1.1 request has: it is taken from its URL, as a server takes the URL from the header.
 */
function withHost(request: Request): Request {
  if (request.headers.has("host")) return request;
  const headers = new Headers(request.headers);
  headers.set("host", new URL(request.url).host);
  return new Request(request, { headers });
}

/**
 * The connection of a request served inside someone else's server: it can close nothing
 * (their server owns it), and a large body that is late ends its read (408) on a timer.
 */
function embeddedConnection(bodyTimeoutMs: number): Connection {
  return {
    close() {},
    closeWhenAnswered() {},
    bodyDeadline(expire) {
      const timer = setTimeout(expire, bodyTimeoutMs);
      return () => clearTimeout(timer);
    },
    readingStarted() {},
    readingEnded() {},
  };
}

/**
 * Sets the `address` fact: the address a request came from, as the listener saw it (behind a
 * proxy: the proxy's); the X-Forwarded-For a client or proxy writes is not read (adr/0043).
 */
function addressed(exchange: Exchange, info: Deno.ServeHandlerInfo | undefined): Exchange {
  const addr = info?.remoteAddr;
  if (addr !== undefined && "hostname" in addr) setFact(exchange, "address", addr.hostname);
  return exchange;
}

/** Request URLs whose path is remembered; past it the memory starts over. */
const REMEMBERED_URLS = 64;
const pathnames = new Map<string, string>();

/**
 * The path of a request's URL, as `new URL(url).pathname` reads it; undefined for a URL that
 * does not parse (Deno builds it from the Host header). Clients send the same few URLs on every
 * request, so each one's path is kept, in a bounded map, rather than a URL object parsed and
 * dropped per request (bench:http).
 */
function pathnameOf(url: string): string | undefined {
  let pathname = pathnames.get(url);
  if (pathname === undefined) {
    if (!URL.canParse(url)) return undefined;
    pathname = new URL(url).pathname;
    if (pathnames.size >= REMEMBERED_URLS) pathnames.clear();
    pathnames.set(url, pathname);
  }
  return pathname;
}
