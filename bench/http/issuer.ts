// The authorization server of bench:http's OAuth contestant: a stand-in, served on loopback by
// the benchmark process itself. It publishes only what a resource server reads — RFC 8414
// metadata (`issuer`, `jwks_uri`) at /.well-known/oauth-authorization-server and its key set —
// and mints RFC 9068 access tokens (`typ: at+jwt`) with jose, the library toolshed's verifier
// uses. It runs no sign-in, no token endpoint and no introspection: a resource server holding
// JWTs asks a real issuer only for its metadata and keys, and toolshed's verification of each
// token (lib/auth) is the real one. Every request it answers is counted, so the benchmark can
// say how often the verifier came back during its timed runs.
import { exportJWK, generateKeyPair, SignJWT } from "npm:jose@6.2.18";

/** RS256: what most issuers sign access tokens with by default (Auth0, Entra ID, Okta, Keycloak). */
export const DEFAULT_ALGORITHM = "RS256";

/** Where RFC 8414 puts the metadata of an issuer without a path, and where the keys are. */
export const METADATA_PATH = "/.well-known/oauth-authorization-server";
export const JWKS_PATH = "/jwks";

/** One issuer's signing key: its metadata and key set as documents, and tokens it signs. */
export interface Signer {
  readonly issuer: string;
  readonly algorithm: string;
  readonly metadata: { issuer: string; jwks_uri: string };
  readonly jwks: { keys: Record<string, unknown>[] };
  /** An access token for `audience` (the MCP endpoint's URL), good for an hour. */
  mint(audience: string): Promise<string>;
}

/** A fresh key pair of `algorithm` for the issuer `issuer`. */
export async function signer(issuer: string, algorithm = DEFAULT_ALGORITHM): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(algorithm);
  const kid = crypto.randomUUID();
  const key = { ...(await exportJWK(publicKey)), kid, alg: algorithm, use: "sig" };
  return {
    issuer,
    algorithm,
    metadata: { issuer, jwks_uri: `${issuer}${JWKS_PATH}` },
    jwks: { keys: [key] },
    mint: (audience) =>
      new SignJWT({ client_id: "bench-client", scope: "mcp" })
        .setProtectedHeader({ alg: algorithm, kid, typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject("bench-user")
        .setJti(crypto.randomUUID())
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey),
  };
}

/** The answer the issuer gives at `pathname`: its metadata, its keys, or 404. */
export function answerOf(signer: Signer, pathname: string): Response {
  if (pathname === METADATA_PATH) return Response.json(signer.metadata);
  if (pathname === JWKS_PATH) return Response.json(signer.jwks);
  return new Response("Not found\n", { status: 404 });
}

export interface StandInIssuer {
  /** The issuer identifier, `http://127.0.0.1:PORT`, as its metadata names it. */
  readonly url: string;
  /** Requests answered so far, every path together. */
  requests(): number;
  /** An access token for `audience` (the MCP endpoint's URL), good for an hour. */
  mint(audience: string): Promise<string>;
  close(): Promise<void>;
}

/** The stand-in, listening on 127.0.0.1 on a port of the system's choosing. */
export async function startIssuer(): Promise<StandInIssuer> {
  let answered = 0;
  // The key names the issuer, whose URL has the port: it is made once the server listens.
  const keys = Promise.withResolvers<Signer>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      answered++;
      return answerOf(await keys.promise, new URL(request.url).pathname);
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const made = await signer(url);
  keys.resolve(made);
  return {
    url,
    requests: () => answered,
    mint: made.mint,
    close: () => server.shutdown(),
  };
}
