// The flags that make toolshed an OAuth 2.1 resource server over HTTP (issue 24, adr/0038):
// --auth-issuer, --public-url, --auth-scope, --auth-lists, and the introspection credentials
// from the environment. Each is checked here, once, so that a mistake is one line at start-up
// rather than every request refused later.
import { isScopeName } from "../primitives/scopes.ts";
import { isLoopbackHost, type ListenAddress } from "../settings/listen_address.ts";

/** Client credentials for RFC 7662 introspection of opaque tokens (both or neither). */
export const INTROSPECTION_ID_ENV = "TOOLSHED_INTROSPECTION_CLIENT_ID";
export const INTROSPECTION_SECRET_ENV = "TOOLSHED_INTROSPECTION_CLIENT_SECRET";

/** What the flags configure (ServerConfig.oauth). */
export interface OAuthFlags {
  readonly issuer: string;
  readonly publicUrl?: string;
  readonly scopes?: readonly string[];
  readonly lists?: "all" | "permitted";
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
}

interface GivenOAuthFlags {
  readonly issuer: string | undefined;
  readonly publicUrl: string | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly lists: string | undefined;
}

/** The configuration the flags give, or the one line that says what is wrong (usage: exit 2). */
export function oauthOf(
  given: GivenOAuthFlags,
  http: ListenAddress | undefined,
  env: (name: string) => string | undefined,
): { oauth: OAuthFlags | undefined } | { problem: string } {
  const { issuer } = given;
  // The public URL is the server card's too (adr/0050): it needs --http, not --auth-issuer.
  if (given.publicUrl !== undefined) {
    if (http === undefined) return { problem: "--public-url needs --http" };
    const problem = urlProblem(given.publicUrl, "--public-url");
    if (problem !== undefined) return { problem };
  }
  if (issuer === undefined) {
    for (
      const [flag, value] of [
        ["--auth-scope", given.scopes],
        ["--auth-lists", given.lists],
      ] as const
    ) {
      if (value !== undefined) return { problem: `${flag} needs --auth-issuer` };
    }
    return { oauth: undefined };
  }
  if (http === undefined) {
    return {
      problem: "--auth-issuer needs --http: over stdio the client starts the server, and " +
        "credentials come from its environment",
    };
  }
  const issuerProblem = urlProblem(issuer, "--auth-issuer");
  if (issuerProblem !== undefined) return { problem: issuerProblem };
  const publicUrl = given.publicUrl;
  if (publicUrl === undefined && (http.hostname === "0.0.0.0" || http.hostname === "::")) {
    return {
      problem: `--auth-issuer on the wildcard address "${http.hostname}" needs --public-url: ` +
        "tokens name the URL clients use (https://mcp.example.com/mcp), which toolshed " +
        "cannot know",
    };
  }
  const scopes = given.scopes === undefined ? undefined : [...new Set(given.scopes)];
  const badScope = scopes?.find((scope) => !isScopeName(scope));
  if (badScope !== undefined) {
    return {
      problem: `Invalid value for --auth-scope: "${badScope}" is not an OAuth scope name ` +
        '(printable ASCII without spaces, quotes or backslashes; never "offline_access")',
    };
  }
  if (given.lists !== undefined && given.lists !== "all" && given.lists !== "permitted") {
    return {
      problem: `Invalid value for --auth-lists: "${given.lists}" is not "all" or "permitted"`,
    };
  }
  const clientId = env(INTROSPECTION_ID_ENV);
  const clientSecret = env(INTROSPECTION_SECRET_ENV);
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    return {
      problem: `${INTROSPECTION_ID_ENV} and ${INTROSPECTION_SECRET_ENV} go together: set both ` +
        "(to introspect opaque tokens) or neither",
    };
  }
  return {
    oauth: {
      issuer,
      ...(publicUrl === undefined ? {} : { publicUrl }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(given.lists === undefined ? {} : { lists: given.lists }),
      ...(clientId === undefined ? {} : {
        introspection: { clientId, clientSecret: clientSecret! },
      }),
    },
  };
}

/**
 * Why `value` is no URL for `flag`: an absolute https URL (http only on a loopback host, for
 * development), without credentials, query or fragment.
 */
function urlProblem(value: string, flag: string): string | undefined {
  const url = URL.parse(value);
  const invalid = `Invalid value for ${flag}: "${value}"`;
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return `${invalid} is not an http(s) URL`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (url.protocol === "http:" && !isLoopbackHost(host) && host !== "localhost") {
    return `${invalid} must be https (http only on a loopback host, for development)`;
  }
  if (url.username !== "" || url.password !== "") return `${invalid} has credentials in it`;
  if (url.search !== "" || url.hash !== "") return `${invalid} has a query or a fragment`;
  return undefined;
}
