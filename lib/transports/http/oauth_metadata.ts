// The protected resource metadata (RFC 9728 §2) of toolshed as a resource server: where a
// client, told by a 401, learns which authorization server issues tokens for this endpoint.
// It is public: readable from any origin, for browser clients.

/** Where RFC 9728 puts a resource's metadata, before the resource's path. */
export const METADATA_PREFIX = "/.well-known/oauth-protected-resource";

interface ResourceMetadata {
  /** The endpoint's canonical URI. */
  readonly resource: string;
  readonly issuer: string;
  /** The scopes for basic use, what a client asks for when a challenge names none. */
  readonly scopes: readonly string[];
  /** The DPoP proof algorithms accepted. */
  readonly algorithms: readonly string[];
}

/** The handler of the metadata's paths. */
export function metadataRoute(of: ResourceMetadata): (exchange: { request: Request }) => Response {
  const document: Record<string, unknown> = {
    resource: of.resource,
    authorization_servers: [of.issuer],
    bearer_methods_supported: ["header"],
    dpop_signing_alg_values_supported: of.algorithms,
  };
  if (of.scopes.length > 0) document.scopes_supported = of.scopes;
  const body = JSON.stringify(document);
  const open = { "access-control-allow-origin": "*" };
  return ({ request }) => {
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...open,
          "access-control-allow-methods": "GET, HEAD, OPTIONS",
          "access-control-allow-headers": "MCP-Protocol-Version",
          "access-control-max-age": "600",
        },
      });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: use GET\n", {
        status: 405,
        headers: { ...open, allow: "GET, HEAD, OPTIONS", "content-type": "text/plain" },
      });
    }
    return new Response(request.method === "HEAD" ? null : body, {
      status: 200,
      headers: {
        ...open,
        "content-type": "application/json",
        "cache-control": "public, max-age=300",
      },
    });
  };
}
