// Finding the authorization server's metadata from its issuer identifier, where the MCP
// authorization spec tells clients to look
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization, "Authorization
// Server Metadata Discovery"): RFC 8414's path-aware well-known URI first, then OpenID Connect
// Discovery's. A document is used only when its `issuer` is the configured one, character for
// character (RFC 8414 §3.3; OpenID Connect Discovery §4.3): otherwise an attacker who can serve
// one of these URLs could name other keys.
import { isObject, type JsonObject } from "../util/json.ts";
import { askIssuer, IssuerUnavailable } from "./issuer_fetch.ts";
import { quoted } from "./token_shape.ts";

/**
 * The URLs to try, in order. For `https://as.example.com/tenant`: RFC 8414's
 * `/.well-known/oauth-authorization-server/tenant`, OpenID's path-inserted
 * `/.well-known/openid-configuration/tenant` and its appended
 * `/tenant/.well-known/openid-configuration`; without a path, the first and the last are the
 * root ones.
 */
function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const at = (pathname: string) => `${url.origin}${pathname}`;
  if (path === "") {
    return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  }
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * The first metadata document found for `issuer` that names it. Throws IssuerUnavailable saying
 * what each URL answered when none does.
 */
export async function fetchIssuerMetadata(
  fetchFn: typeof fetch,
  issuer: string,
): Promise<JsonObject> {
  const tried: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    const { status, body } = await askIssuer(fetchFn, url);
    if (status !== 200) {
      tried.push(`"${url}" answered ${status}`);
    } else if (!isObject(body)) {
      tried.push(`"${url}" answered something that is not a JSON object`);
    } else if (body.issuer !== issuer) {
      tried.push(`"${url}" names the issuer ${quoted(body.issuer)}, not ${quoted(issuer)}`);
    } else {
      return body;
    }
  }
  throw new IssuerUnavailable(
    `Cannot find the metadata of the authorization server ${quoted(issuer)}: ${tried.join("; ")}`,
  );
}

/** The metadata's `name` as an absolute http(s) URL, or undefined when it has none. */
export function endpointOf(metadata: JsonObject, name: string): string | undefined {
  const value = metadata[name];
  if (typeof value !== "string") return undefined;
  const url = URL.parse(value);
  return url && (url.protocol === "https:" || url.protocol === "http:") ? url.href : undefined;
}
