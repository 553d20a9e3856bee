// The flags that make toolshed an OAuth 2.1 resource server over HTTP (issue 24, adr/0038):
// --auth-issuer, --public-url, --auth-scope, --auth-lists, and the introspection credentials
// from the environment: rows of lib/settings/table.ts, checked there and in its rules.
export { INTROSPECTION_ID_ENV, INTROSPECTION_SECRET_ENV } from "../settings/table.ts";

/** What the flags configure (ServerConfig.oauth). */
export interface OAuthFlags {
  readonly issuer: string;
  readonly publicUrl?: string;
  readonly scopes?: readonly string[];
  readonly lists?: "all" | "permitted";
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
}
