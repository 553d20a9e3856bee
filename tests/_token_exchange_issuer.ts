// Test helper: the real authorization server of tests/_oidc.ts (oidc-provider) that also answers
// RFC 8693 token exchange, which oidc-provider has no built-in grant for: the grant is registered
// with oidc-provider's `registerGrantType` (its documented way to add one) for the confidential
// client `exchanger` alone (toolshed's credentials, client_secret_basic).
//
//   const as = await startExchangeIssuer({ upstreams: [upstreamUrl], exchangeSeconds: 60 });
//   const { accessToken } = await as.server.login({ scope: "tools:read", resource: frontUrl });
//   … toolshed's exchange trades accessToken at as.issuer; as.exchanges counts what was asked.
//
// What the grant does: the `subject_token` must be an access token this server signed (a JWT of
// its own keys, its own issuer, not expired) — else `invalid_grant`; the target is `resource`,
// else `audience`, and must be one of `upstreams` — else `invalid_target`; the scopes are those
// asked (`scope`; all of the subject token's when none is asked) narrowed to the subject token's.
// The token issued is a JWT (at+jwt, ES256, the server's keys) with `sub` the subject token's,
// `aud` the target, those scopes, `client_id` the exchanging client, and `expires_in` of
// `exchangeSeconds`, so a toolshed started with `--auth-issuer` this server and
// the target as its resource accepts it.
import * as jose from "npm:jose@6.2.18";
import { type AuthServer, type ClientCredentials, startAuthServer } from "./_oidc.ts";

const PROVIDER = "npm:oidc-provider@9.13.3";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";

export interface ExchangeIssuerOptions {
  /** The resources (or audiences) it issues tokens for. */
  readonly upstreams: readonly string[];
  /** The lifetime of an exchanged token, in seconds (default 300). */
  readonly exchangeSeconds?: number;
  /** The scopes every resource offers (space-separated), as tests/_oidc.ts takes them. */
  readonly scopes?: string;
}

export interface ExchangeIssuer {
  /** The authorization server (its logins, its sign-in as another user). */
  readonly server: AuthServer;
  readonly issuer: string;
  /** The client allowed to exchange tokens (toolshed's). */
  readonly exchanger: ClientCredentials;
  /** How many token-exchange requests reached the grant (answered or refused). */
  readonly exchanges: number;
  stop(): Promise<void>;
}

/** The part of oidc-provider's API the grant uses (the package has no types of its own). */
interface GrantProvider {
  registerGrantType(
    name: string,
    handler: (ctx: GrantContext) => Promise<void>,
    parameters: readonly string[],
    duplicates: readonly string[],
  ): void;
  AccessToken: new (fields: Record<string, unknown>) => {
    save(): Promise<string>;
    readonly expiration: number;
  };
  ResourceServer: new (identifier: string, info: Record<string, unknown>) => unknown;
}

interface GrantContext {
  oidc: { params: Record<string, string | undefined>; client: { clientId: string } };
  body: unknown;
}

type OidcError = new (description: string) => Error;

export async function startExchangeIssuer(
  options: ExchangeIssuerOptions,
): Promise<ExchangeIssuer> {
  /**
   * What the grant needs once the server runs: the server (its keys, its issuer) and
   * oidc-provider's errors, loaded once startAuthServer has (it quiets the import's notice).
   */
  const late: {
    server?: AuthServer;
    errors?: Record<"InvalidGrant" | "InvalidTarget" | "InvalidRequest", OidcError>;
  } = {};
  const upstreams = new Set(options.upstreams);
  const lifetime = options.exchangeSeconds ?? 300;
  const exchanger = {
    clientId: "toolshed-exchange",
    clientSecret: jose.base64url.encode(crypto.getRandomValues(new Uint8Array(32))),
  };
  let exchanges = 0;

  /** The subject token's claims, when this server signed it and it is alive. */
  const subjectClaims = async (token: string): Promise<jose.JWTPayload> => {
    const keys = late.server!.keys.map(({ d: _private, ...key }) => key);
    try {
      const { payload } = await jose.jwtVerify(token, jose.createLocalJWKSet({ keys }), {
        issuer: late.server!.issuer,
        typ: "at+jwt",
      });
      return payload;
    } catch (error) {
      throw new late.errors!.InvalidGrant(
        `subject_token is not valid here: ${(error as Error).message}`,
      );
    }
  };

  const exchange = (provider: GrantProvider) => async (ctx: GrantContext) => {
    exchanges++;
    const { params, client } = ctx.oidc;
    if (params.subject_token === undefined || params.subject_token_type !== ACCESS_TOKEN) {
      throw new late.errors!.InvalidRequest(
        `subject_token and subject_token_type ${ACCESS_TOKEN} needed`,
      );
    }
    if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN) {
      throw new late.errors!.InvalidRequest("only access tokens are issued");
    }
    const subject = await subjectClaims(params.subject_token);
    const target = params.resource ?? params.audience;
    if (target === undefined || !upstreams.has(target)) {
      throw new late.errors!.InvalidTarget(`no upstream is known as ${JSON.stringify(target)}`);
    }
    const held = new Set(typeof subject.scope === "string" ? subject.scope.split(" ") : []);
    const asked = params.scope === undefined ? [...held] : params.scope.split(" ");
    const scope = asked.filter((one) => held.has(one)).join(" ");
    const token = new provider.AccessToken({
      accountId: subject.sub,
      client,
      scope: scope || undefined,
      gty: TOKEN_EXCHANGE,
      expiresIn: lifetime,
      resourceServer: new provider.ResourceServer(target, {
        scope,
        accessTokenFormat: "jwt",
        accessTokenTTL: lifetime,
      }),
    });
    ctx.body = {
      access_token: await token.save(),
      issued_token_type: ACCESS_TOKEN,
      token_type: "Bearer",
      expires_in: token.expiration,
      ...(scope === "" ? {} : { scope }),
    };
  };

  const server = await startAuthServer({
    scopes: options.scopes,
    clients: [{
      client_id: exchanger.clientId,
      client_secret: exchanger.clientSecret,
      grant_types: [TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: [],
    }],
    extend: (made) => {
      const provider = made as GrantProvider;
      provider.registerGrantType(
        TOKEN_EXCHANGE,
        exchange(provider),
        [
          "subject_token",
          "subject_token_type",
          "requested_token_type",
          "actor_token",
          "actor_token_type",
          "audience",
          "resource",
          "scope",
        ],
        ["audience", "resource"],
      );
    },
  });
  late.server = server;
  late.errors = (await import(PROVIDER)).errors;
  return {
    server,
    issuer: server.issuer,
    exchanger,
    get exchanges() {
      return exchanges;
    },
    stop: () => server.stop(),
  };
}
