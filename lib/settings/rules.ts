// The rules between settings (adr/0061 §1): each a function named for what it refuses, run in
// this order on the settings as given, once every value has parsed. A usage error exits 2 with
// the usage hint; a refusal exits 2 with its line alone.
import { isLoopbackHost } from "./values.ts";
import {
  type Defaults,
  type Given,
  INTROSPECTION_ID_ENV,
  INTROSPECTION_SECRET_ENV,
  PREVIOUS_STATE_KEYS_ENV,
  ROWS,
  STATE_KEY_ENV,
  TABLE,
  TOKEN_ENV,
} from "./table.ts";

/** Why the settings cannot run together. */
interface Refusal {
  readonly kind: "usage-error" | "refused";
  readonly message: string;
}

/** A rule: the settings as given, and what each flag was given as written (for its message). */
type Rule = (given: Given, written: (flag: string) => string | undefined) => Refusal | undefined;

function usageError(message: string): Refusal {
  return { kind: "usage-error", message };
}

function refused(message: string): Refusal {
  return { kind: "refused", message };
}

const KEY_OF_FLAG = new Map(ROWS.flatMap((row) => row.flag ? [[row.flag, row.key]] : []));

/** Whether one of the flags `needs` names was given. */
export function needsMet(needs: readonly string[] | undefined, given: Given): boolean {
  return needs === undefined ||
    needs.some((flag) => given[KEY_OF_FLAG.get(flag)!] !== undefined);
}

/** A flag that works only beside another (`--max-sessions` needs `--http`). */
function flagWithoutTheFlagItNeeds(given: Given): Refusal | undefined {
  for (const row of ROWS) {
    if (row.flag === undefined || given[row.key] === undefined) continue;
    if (!needsMet(row.needs, given)) {
      return usageError(
        `--${row.flag} needs ${row.needs!.map((flag) => `--${flag}`).join(" or ")}`,
      );
    }
  }
  return undefined;
}

/** --auth-issuer over stdio, where the client starts the server. */
function authIssuerWithoutHttp(given: Given): Refusal | undefined {
  if (given.issuer === undefined || given.http !== undefined) return undefined;
  return usageError(
    "--auth-issuer needs --http: over stdio the client starts the server, and " +
      "credentials come from its environment",
  );
}

/** --max-body-bytes below --max-message-bytes: the longest message could never be read. */
function bodyBytesBelowAMessage(given: Given): Refusal | undefined {
  const maxMessageBytes = given.maxMessageBytes ?? TABLE.maxMessageBytes.default;
  if (given.maxBodyBytes === undefined || given.maxBodyBytes >= maxMessageBytes) return undefined;
  return usageError(
    `Invalid value for --max-body-bytes: "${given.maxBodyBytes}" is less than ` +
      `--max-message-bytes (${maxMessageBytes}), so the longest message could never be read`,
  );
}

/** --metrics on --http's address: metrics have a listener of their own. */
function metricsOnTheHttpAddress(
  given: Given,
  written: (flag: string) => string | undefined,
): Refusal | undefined {
  const { metrics, http } = given;
  if (metrics === undefined || metrics.port === 0) return undefined;
  if (http?.port !== metrics.port || http.hostname !== metrics.hostname) return undefined;
  return usageError(
    `Invalid value for --metrics: "${written("metrics")}" is --http's address; ` +
      "metrics are served on a listener of their own",
  );
}

/** Previous state keys with no current one. */
function previousStateKeysWithoutAKey(given: Given): Refusal | undefined {
  if (given.previousStateSecrets === undefined || given.stateSecret !== undefined) {
    return undefined;
  }
  return refused(
    `Cannot start: ${PREVIOUS_STATE_KEYS_ENV} is set but ${STATE_KEY_ENV} is not: ` +
      "set the new key there, and keep the old ones in the previous list",
  );
}

/** --auth-issuer on a wildcard address, whose URL toolshed cannot know. */
function authIssuerOnAWildcardWithoutPublicUrl(given: Given): Refusal | undefined {
  const hostname = given.http?.hostname;
  if (given.issuer === undefined || given.publicUrl !== undefined) return undefined;
  if (hostname !== "0.0.0.0" && hostname !== "::") return undefined;
  return usageError(
    `--auth-issuer on the wildcard address "${hostname}" needs --public-url: ` +
      "tokens name the URL clients use (https://mcp.example.com/mcp), which toolshed " +
      "cannot know",
  );
}

/** One of the introspection client's two credentials. */
function introspectionHalfGiven(given: Given): Refusal | undefined {
  if (
    (given.introspectionClientId === undefined) === (given.introspectionClientSecret === undefined)
  ) {
    return undefined;
  }
  return usageError(
    `${INTROSPECTION_ID_ENV} and ${INTROSPECTION_SECRET_ENV} go together: set both ` +
      "(to introspect opaque tokens) or neither",
  );
}

/** Both OAuth and a shared token: callers are known one way. */
function tokenBesideAuthIssuer(given: Given): Refusal | undefined {
  if (given.bearerToken === undefined || given.issuer === undefined) return undefined;
  return refused(
    `Refusing --auth-issuer with ${TOKEN_ENV} set: callers are known by OAuth or by ` +
      "one shared token, not both; unset one",
  );
}

/** Whether callers must prove who they are, or the operator said something in front does. */
function authenticated(given: Given): boolean {
  return given.bearerToken !== undefined || given.issuer !== undefined ||
    given.allowUnauthenticated === true;
}

/** An address beyond loopback that anyone could call. */
function notLoopbackWithoutAToken(given: Given): Refusal | undefined {
  const { http } = given;
  if (http === undefined || isLoopbackHost(http.hostname) || authenticated(given)) {
    return undefined;
  }
  return refused(
    `Refusing to serve --http on "${http.hostname}", which is not a loopback ` +
      `address, without a token: set ${TOKEN_ENV}, or pass --allow-unauthenticated if ` +
      "something in front of toolshed authenticates its clients",
  );
}

/** --cors-origin "*", which lets any page the user opens call the tools. */
function anyOriginWithoutAToken(given: Given): Refusal | undefined {
  if (given.corsOrigins?.[0] !== "*" || authenticated(given)) return undefined;
  return refused(
    `Refusing --cors-origin "*" without a token: any web page the user opens could ` +
      `call this server's tools: set ${TOKEN_ENV}, list the origins that may call, or pass ` +
      "--allow-unauthenticated if something in front of toolshed authenticates its clients",
  );
}

/** The rules, in the order they are asked. */
const RULES: readonly Rule[] = [
  flagWithoutTheFlagItNeeds,
  authIssuerWithoutHttp,
  bodyBytesBelowAMessage,
  metricsOnTheHttpAddress,
  previousStateKeysWithoutAKey,
  authIssuerOnAWildcardWithoutPublicUrl,
  introspectionHalfGiven,
  tokenBesideAuthIssuer,
  notLoopbackWithoutAToken,
  anyOriginWithoutAToken,
];

/** The first rule the settings break, or undefined. */
export function brokenRule(
  given: Given,
  written: (flag: string) => string | undefined,
): Refusal | undefined {
  for (const rule of RULES) {
    const refusal = rule(given, written);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * The settings with every row's default where none is given, applied once (createServer calls
 * it), and --max-body-bytes, unless given, twice --max-message-bytes: the one default made of
 * another setting.
 */
export function resolveSettings<S extends object>(settings: S): S & Defaults {
  const resolved: Record<string, unknown> = { ...settings as Record<string, unknown> };
  for (const row of ROWS) {
    if (row.default !== undefined && row.group === undefined) resolved[row.key] ??= row.default;
  }
  resolved.maxBodyBytes ??= maxBodyBytesOf(resolved.maxMessageBytes as number);
  return resolved as S & Defaults;
}

/** --max-body-bytes unless given: twice the longest message, so two can arrive at once. */
function maxBodyBytesOf(maxMessageBytes: number): number {
  return 2 * maxMessageBytes;
}
