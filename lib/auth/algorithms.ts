// The JWS algorithms toolshed accepts by default, for access tokens and DPoP proofs alike: the
// asymmetric ones RFC 7518 and RFC 8037 define. Apart from jose, so that naming them (in the
// protected resource metadata) loads nothing.
export const DEFAULT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];
