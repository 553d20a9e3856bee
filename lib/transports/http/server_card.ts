// The server card and the AI catalog (SEP-2127, experimental; adr/0050): two public documents
// that say who the server is and where to connect, before a client connects. The card is at
// `<endpoint>/server-card` (`/mcp/server-card`), the catalog that points at it at
// `/.well-known/ai-catalog.json`. Both come from server.meta.json (adr/0049) and the endpoint's
// URL, and never contradict what `server/discover` and `initialize` answer: the same name,
// version, title and description, and the protocol versions the endpoint accepts. They are
// open to any page (CORS `*`), cacheable for an hour, and revalidated by a strong ETag of their
// bytes. This module is imported at the first request for either document, so a server no one
// asks loads nothing of it.
import type { JsonObject } from "../../util/json.ts";
import { SERVER_META_FILE, type ServerMeta } from "../../primitives/server_meta.ts";
import { SESSION_VERSIONS, STATELESS_VERSIONS } from "../../wire/versions.ts";
import type { HttpHandler } from "./exchange.ts";
import type { HostGuard } from "./guard.ts";
import { SERVER_CARD_SUFFIX } from "./card_paths.ts";

/** The card's media type, and its catalog entry's `type`. */
const SERVER_CARD_TYPE = "application/mcp-server-card+json";
const AI_CATALOG_TYPE = "application/ai-catalog+json";
/** The `$schema` every card names (experimental-ext-server-card, README "Schema URL conventions"). */
const SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/** How long a client or a shared cache may keep either document without asking (the draft's). */
const CARD_MAX_AGE_S = 3600;
/** Hosts whose documents are remembered (without a public URL, one per Host); then anew. */
const REMEMBERED_HOSTS = 16;

/** What both documents are made from. */
interface CardSource {
  /** Who the server is; undefined: no server.meta.json, and both documents are 404. */
  readonly meta: ServerMeta | undefined;
  /** The endpoint's URL as clients reach it (`--public-url`); undefined: read from the request. */
  readonly publicUrl: string | undefined;
  /** The endpoint's path here (`/mcp`). */
  readonly path: string;
  /** How callers are known: the card asks for an `Authorization` header then. */
  readonly authorization: "bearer" | "oauth" | undefined;
  /** The Host check of the DNS-rebinding guard (no Origin check: the documents are public). */
  readonly hostGuard: HostGuard;
}

/** The card of a server reached at `url` (a plain JSON object, as it is served). */
function serverCardOf(
  meta: ServerMeta,
  url: string,
  authorization: CardSource["authorization"],
): JsonObject {
  const remote: JsonObject = { type: "streamable-http", url };
  if (authorization !== undefined) {
    remote.headers = [{
      name: "Authorization",
      description: authorization === "oauth"
        ? "An OAuth access token for this server, from the authorization server its " +
          "protected resource metadata names"
        : "The bearer token the server's operator gave you",
      isRequired: true,
      isSecret: true,
      value: "Bearer {token}",
      variables: { token: { description: "The access token", isRequired: true, isSecret: true } },
    }];
  }
  // What the endpoint accepts: server/discover's list, then what initialize negotiates.
  remote.supportedProtocolVersions = [...STATELESS_VERSIONS, ...SESSION_VERSIONS];
  const card: JsonObject = {
    $schema: SERVER_CARD_SCHEMA,
    name: meta.name,
    version: meta.version,
    description: meta.description,
  };
  if (meta.title !== undefined) card.title = meta.title;
  if (meta.icons !== undefined) card.icons = [...meta.icons];
  if (meta.websiteUrl !== undefined) card.websiteUrl = meta.websiteUrl;
  if (meta.repository !== undefined) card.repository = { ...meta.repository };
  card.remotes = [remote];
  return card;
}

/** The AI catalog of one server whose card is at `cardUrl`. */
function aiCatalogOf(meta: ServerMeta, cardUrl: string): JsonObject {
  return {
    specVersion: "1.0",
    entries: [{ identifier: identifierOf(meta.name), type: SERVER_CARD_TYPE, url: cardUrl }],
  };
}

/**
 * The catalog identifier of a card named `com.example/weather`: `urn:air:example.com:mcp:weather`
 * (discovery.md, "Server Card Entries": the domain-anchored form).
 */
function identifierOf(name: string): string {
  const [namespace, server] = name.split("/");
  const domain = namespace.split(".").reverse().join(".");
  return `urn:air:${domain}:mcp:${server}`;
}

/** A document as served: its bytes and their strong entity tag. */
interface Served {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly etag: string;
}

/** The handlers of the card's path and the catalog's. */
export function cardRoutes(source: CardSource): { card: HttpHandler; catalog: HttpHandler } {
  const cards = new Map<string, Promise<Served>>();
  const catalogs = new Map<string, Promise<Served>>();
  /** The endpoint's URL for this request: the public one, else the request's own origin. */
  const endpointUrl = (request: Request) =>
    source.publicUrl ?? `${new URL(request.url).origin}${source.path}`;
  const remembered = (
    memory: Map<string, Promise<Served>>,
    key: string,
    make: () => JsonObject,
  ) => {
    let served = memory.get(key);
    if (served === undefined) {
      if (memory.size >= REMEMBERED_HOSTS) memory.clear();
      served = servedOf(make());
      memory.set(key, served);
    }
    return served;
  };
  return {
    card: publicDocument(source, SERVER_CARD_TYPE, (meta, request) => {
      const url = endpointUrl(request);
      return remembered(cards, url, () => serverCardOf(meta, url, source.authorization));
    }),
    catalog: publicDocument(source, AI_CATALOG_TYPE, (meta, request) => {
      const url = endpointUrl(request);
      return remembered(catalogs, url, () => aiCatalogOf(meta, url + SERVER_CARD_SUFFIX));
    }),
  };
}

/** The CORS headers of both documents, on every answer (the draft's, "CORS Requirements"). */
const OPEN = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag",
};
const TEXT = { ...OPEN, "content-type": "text/plain; charset=utf-8" };

/**
 * One public document's handler: GET and HEAD (200, or 304 when `If-None-Match` names its
 * tag), OPTIONS (a preflight, 204), 405 otherwise; 403 for a Host that names no allowed host,
 * and 404 without server.meta.json.
 */
function publicDocument(
  source: CardSource,
  type: string,
  document: (meta: ServerMeta, request: Request) => Promise<Served>,
): HttpHandler {
  return async ({ request }) => {
    const forbidden = source.hostGuard(request.headers);
    if (forbidden !== undefined) {
      return new Response(`${forbidden}\n`, { status: 403, headers: TEXT });
    }
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...OPEN,
          "access-control-allow-methods": "GET",
          "access-control-allow-headers": "Content-Type, If-None-Match",
          "access-control-max-age": String(CARD_MAX_AGE_S),
        },
      });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: use GET\n", {
        status: 405,
        headers: { ...TEXT, allow: "GET, HEAD, OPTIONS" },
      });
    }
    if (source.meta === undefined) {
      return new Response(
        `Not found: this server has no server card; add ${SERVER_META_FILE} to its server ` +
          "directory (its name, version and description) and restart it\n",
        { status: 404, headers: TEXT },
      );
    }
    const { bytes, etag } = await document(source.meta, request);
    const headers = {
      ...OPEN,
      etag,
      "cache-control": `public, max-age=${CARD_MAX_AGE_S}`,
    };
    if (matches(request.headers.get("if-none-match"), etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(request.method === "HEAD" ? null : bytes, {
      status: 200,
      headers: { ...headers, "content-type": type, "content-length": String(bytes.length) },
    });
  };
}

/** The bytes of `document` and a strong tag of them: `"` + SHA-256, base64url, 22 chars + `"`. */
async function servedOf(document: JsonObject): Promise<Served> {
  const bytes = new TextEncoder().encode(JSON.stringify(document, null, 2) + "\n");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const tag = digest.subarray(0, 16).toBase64({ alphabet: "base64url", omitPadding: true });
  return { bytes, etag: `"${tag}"` };
}

/**
 * Whether `If-None-Match` names `etag`: `*`, or a list of tags compared weakly, as RFC 9110
 * §13.1.2 says (a `W/` tag matches its strong twin).
 */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((part) => {
    const tag = part.trim();
    return (tag.startsWith("W/") ? tag.slice(2) : tag) === etag;
  });
}
