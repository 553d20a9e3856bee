// The WWW-Authenticate challenges (lib/transports/http/oauth_challenge.ts): an error_description
// is a quoted string of RFC 6750 §3's characters, so what toolshed's messages quote in double
// quotes arrives in single ones, and anything else outside printable ASCII as "?".
import { strictEqual } from "node:assert/strict";
import { challenge } from "../lib/transports/http/oauth_challenge.ts";

const of = {
  metadataUrl: "http://127.0.0.1:1/.well-known/oauth-protected-resource",
  algorithms: [],
};

Deno.test('challenge() turns a description\'s double quotes into single ones, not "?"', () => {
  strictEqual(
    challenge(of, "Bearer", "invalid_token", 'The token has no issuer ("iss")', []),
    `Bearer error="invalid_token", resource_metadata="${of.metadataUrl}", ` +
      `error_description="The token has no issuer ('iss')"`,
  );
});

Deno.test("challenge() keeps a description within RFC 6750's characters", () => {
  const header = challenge(of, "Bearer", "invalid_token", "a\\b\u00e9c\r\nd", []);
  strictEqual(header.endsWith('error_description="a?b?c??d"'), true, header);
});
