// The flags that make toolshed an OAuth 2.1 resource server over HTTP (issue 24, adr/0038):
// --auth-issuer, --public-url, --auth-scope, --auth-lists, and the introspection credentials
// from the environment: rows of lib/settings/table.ts, checked there and in its rules.
export { INTROSPECTION_ID_ENV, INTROSPECTION_SECRET_ENV } from "../settings/table.ts";

export type { OAuthFlags } from "../settings/table.ts";
