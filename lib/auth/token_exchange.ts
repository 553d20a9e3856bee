// RFC 8693 token exchange at toolshed's own authorization server (the `--auth-issuer`), for a tool
// toolshed made that calls an upstream on a caller's behalf (adr/0071 §5, "identity across the
// hop, never passthrough"): the caller's token (the `subject_token`) is traded for an access token
// whose audience is the upstream, and only that one goes upstream.
//
// - The token endpoint comes from the issuer's metadata (RFC 8414 / OpenID Discovery,
//   issuer_metadata.ts), fetched once and kept an hour (cached_document.ts).
// - toolshed authenticates as its client with HTTP Basic (client_secret_basic, RFC 6749 §2.3.1:
//   each part form-encoded first).
// - An answer is kept until its `expires_in` less a skew (default 30 s: a call that takes a kept
//   token has that long to reach the upstream before the token dies), by the SHA-256 of the
//   caller's token (never the token: a dump of the cache gives nobody a credential), the client,
//   the audience, the resource and the scopes; at most `maxCached` answers (default 1024, ~1.5
//   KiB each with a JWT of 1 KiB: ~1.5 MiB), least recently used out first. An answer without
//   `expires_in`, or one shorter than the skew, is used once and not kept.
// - Callers asking the same at once share one request to the issuer; it ends when every one of
//   them has given up (their signals), or at the issuer's deadline (issuer_fetch.ts, 5 s), and
//   its answer is read up to 256 KiB.
// - A refusal (`invalid_grant`, `invalid_target`, …) rejects with an Error saying what the issuer
//   said and what to fix; no message carries the caller's token, the token answered or the secret.
import { isObject, type JsonObject } from "../util/json.ts";
import type { ExchangeRequest, TokenExchange } from "../primitives/front_token.ts";
import { cachedDocument } from "./cached_document.ts";
import { askIssuer, IssuerUnavailable } from "./issuer_fetch.ts";
import { endpointOf, fetchIssuerMetadata } from "./issuer_metadata.ts";
import { tokenKey } from "./token_key.ts";
import { quoted } from "./token_shape.ts";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";

/** The most exchanged tokens kept, by default. */
const DEFAULT_MAX_CACHED = 1024;
/** How long before its expiry a kept token stops being handed out, by default, in seconds. */
const DEFAULT_SKEW_SECONDS = 30;
/** How long the issuer's metadata is used before it is fetched again, in seconds. */
const METADATA_MAX_AGE_SECONDS = 3600;
/** The longest part of an issuer's `error_description` repeated in a message. */
const MAX_DESCRIPTION_CHARS = 300;

interface TokenExchangeOptions {
  /**
   * The authorization server's issuer identifier (`--auth-issuer`), as its metadata's `issuer`
   * says it: https, or http on a loopback host (development and tests).
   */
  readonly issuer: string;
  /** The fetch to use; default globalThis.fetch. */
  readonly fetch?: typeof fetch;
  /** The most exchanged tokens kept (default 1024); 0 keeps none. */
  readonly maxCached?: number;
  /** How long before its expiry a kept token stops being used, in seconds (default 30). */
  readonly skewSeconds?: number;
  /** Seconds since the epoch; default Date.now()/1000 (tests drive it). */
  readonly now?: () => number;
}

interface Kept {
  readonly token: string;
  /** Seconds since the epoch from which it is not handed out. */
  readonly until: number;
}

/** A request to the issuer that callers share, ended when all of them have given up. */
interface Flight {
  readonly answer: Promise<string>;
  readonly controller: AbortController;
  waiting: number;
}

/** A token exchange at `options.issuer`; throws at once when an option cannot work. */
export function createTokenExchange(options: TokenExchangeOptions): TokenExchange {
  const { issuer } = options;
  checkIssuer(issuer);
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  if (!(Number.isInteger(maxCached) && maxCached >= 0)) {
    throw new Error(`Cannot keep ${maxCached} exchanged tokens: the bound must be 0 or more`);
  }
  const skew = options.skewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (!(Number.isFinite(skew) && skew >= 0)) {
    throw new Error(`Cannot use a skew of ${skew} s for exchanged tokens: it must be 0 or more`);
  }
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? (() => Date.now() / 1000);
  const metadata = cachedDocument<JsonObject>({
    fetchDocument: () => fetchIssuerMetadata(fetchFn, issuer),
    maxAgeSeconds: METADATA_MAX_AGE_SECONDS,
    now,
    // Said to the caller, in the error it gets; the tool's result carries it.
    onFailure: () => {},
  });
  // A Map iterates in insertion order: re-inserting on each hit keeps the least recently used
  // first, where eviction takes from.
  const kept = new Map<string, Kept>();
  const flights = new Map<string, Flight>();

  const keep = (key: string, token: string, expiresIn: number | undefined) => {
    if (expiresIn === undefined || maxCached === 0) return;
    const until = now() + expiresIn - skew;
    if (until <= now()) return;
    kept.delete(key);
    while (kept.size >= maxCached) kept.delete(kept.keys().next().value!);
    kept.set(key, { token, until });
  };

  const ask = async (request: ExchangeRequest, key: string, signal: AbortSignal) => {
    const endpoint = await tokenEndpoint(issuer, metadata.get);
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: request.subjectToken,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      audience: request.audience,
    });
    if (request.resource !== undefined) body.set("resource", request.resource);
    if (request.scopes.length > 0) body.set("scope", request.scopes.join(" "));
    const asked = `for the audience ${quoted(request.audience)}${
      request.resource === undefined ? "" : ` and the resource ${quoted(request.resource)}`
    }`;
    let answer;
    try {
      answer = await askIssuer(fetchFn, endpoint, {
        method: "POST",
        headers: {
          authorization: basic(request.clientId, request.clientSecret),
          "content-type": "application/x-www-form-urlencoded",
        },
        body,
        signal,
      });
    } catch (error) {
      if (error instanceof IssuerUnavailable) {
        throw new Error(
          `Cannot exchange the caller's token ${asked} at ${quoted(issuer)}: ${error.message}`,
        );
      }
      throw error;
    }
    const { status, body: given } = answer;
    if (status !== 200) {
      throw new Error(refusal(issuer, asked, request, status, given));
    }
    const token = issuedToken(issuer, asked, given);
    keep(key, token.value, token.expiresIn);
    return token.value;
  };

  return {
    async tokenFor(request, signal) {
      checkRequest(request);
      signal.throwIfAborted();
      const key = JSON.stringify([
        tokenKey(request.subjectToken),
        request.clientId,
        request.audience,
        request.resource ?? null,
        [...request.scopes].sort(),
      ]);
      const found = kept.get(key);
      if (found !== undefined) {
        kept.delete(key);
        if (now() < found.until) {
          kept.set(key, found);
          return found.token;
        }
      }
      let flight = flights.get(key);
      if (flight === undefined) {
        const controller = new AbortController();
        const started: Flight = {
          controller,
          waiting: 0,
          answer: ask(request, key, controller.signal).finally(() => flights.delete(key)),
        };
        // Nobody may be left to read a refusal: it is not an unhandled rejection.
        started.answer.catch(() => {});
        flights.set(key, started);
        flight = started;
      }
      return await waitFor(flight, signal);
    },
  };
}

/** The flight's answer, or the signal's reason when it aborts first (the last gone ends it). */
function waitFor(flight: Flight, signal: AbortSignal): Promise<string> {
  flight.waiting++;
  return new Promise<string>((resolve, reject) => {
    const leave = () => {
      if (--flight.waiting === 0) flight.controller.abort(signal.reason);
      reject(signal.reason);
    };
    signal.addEventListener("abort", leave, { once: true });
    flight.answer.then(
      (token) => {
        signal.removeEventListener("abort", leave);
        flight.waiting--;
        resolve(token);
      },
      (error) => {
        signal.removeEventListener("abort", leave);
        flight.waiting--;
        reject(error);
      },
    );
  });
}

async function tokenEndpoint(issuer: string, metadata: () => Promise<JsonObject>) {
  let found: JsonObject;
  try {
    found = await metadata();
  } catch (error) {
    throw new Error(
      `Cannot exchange tokens at ${quoted(issuer)}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const endpoint = endpointOf(found, "token_endpoint");
  if (endpoint === undefined) {
    throw new Error(
      `Cannot exchange tokens at ${quoted(issuer)}: its metadata names no "token_endpoint"`,
    );
  }
  const grants = found.grant_types_supported;
  if (Array.isArray(grants) && !grants.includes(TOKEN_EXCHANGE)) {
    throw new Error(
      `Cannot exchange tokens at ${quoted(issuer)}: its metadata's "grant_types_supported" ` +
        `lacks "${TOKEN_EXCHANGE}" (RFC 8693); enable token exchange there`,
    );
  }
  return endpoint;
}

/** The token of a 200 answer, or throws saying what is wrong with the answer. */
function issuedToken(
  issuer: string,
  asked: string,
  body: unknown,
): { value: string; expiresIn: number | undefined } {
  const wrong = (what: string) =>
    new Error(
      `The authorization server ${
        quoted(issuer)
      } exchanged the caller's token ${asked}, but ${what}`,
    );
  if (!isObject(body)) throw wrong("its answer is not a JSON object");
  const { access_token: value, token_type: type, issued_token_type: issued } = body;
  if (typeof value !== "string" || value === "") throw wrong('its answer has no "access_token"');
  if (issued !== undefined && issued !== ACCESS_TOKEN) {
    throw wrong(`it issued a token of type ${quoted(issued)}, not an access token`);
  }
  if (typeof type !== "string" || type.toLowerCase() !== "bearer") {
    throw wrong(`its token_type is ${quoted(type)}, and toolshed sends Bearer tokens only`);
  }
  const expiresIn = body.expires_in;
  return {
    value,
    expiresIn: typeof expiresIn === "number" && Number.isFinite(expiresIn) ? expiresIn : undefined,
  };
}

/** What to do about each error code of RFC 6749 §5.2 and RFC 8693 §2.2.2. */
const FIXES: Record<string, (request: ExchangeRequest) => string> = {
  invalid_grant: () =>
    "the caller's token is not one it exchanges (expired, revoked, or not its own): the caller signs in again",
  invalid_target: (request) =>
    `it does not know the upstream: register ${quoted(request.resource ?? request.audience)} ` +
    "as a resource there, or correct the mount's audience and resource",
  invalid_scope: () =>
    "ask only for scopes the caller's token has and the upstream offers: correct the mount's scopes",
  invalid_client: (request) =>
    `it refused the credentials of client ${
      quoted(request.clientId)
    }: correct the client id and secret`,
  unauthorized_client: (request) =>
    `client ${quoted(request.clientId)} may not exchange tokens: allow it the grant type ` +
    `"${TOKEN_EXCHANGE}" there`,
  unsupported_grant_type: () => `it does not offer token exchange ("${TOKEN_EXCHANGE}"): enable it`,
  invalid_request: () => "it found the request malformed",
};

function refusal(
  issuer: string,
  asked: string,
  request: ExchangeRequest,
  status: number,
  body: unknown,
): string {
  const code = isObject(body) && typeof body.error === "string" ? body.error : undefined;
  const description = isObject(body) && typeof body.error_description === "string"
    ? said(body.error_description, request)
    : undefined;
  const what = code === undefined
    ? `HTTP ${status}`
    : `${code}${description === undefined ? "" : ` (${description})`}`;
  const fix = code !== undefined && Object.hasOwn(FIXES, code)
    ? FIXES[code](request)
    : status === 401
    ? FIXES.invalid_client(request)
    : "see its logs for why";
  return `The authorization server ${
    quoted(issuer)
  } refused to exchange the caller's token ${asked}: ${what}; ${fix}`;
}

/** An issuer's description, short, on one line, with neither credential in it. */
function said(description: string, request: ExchangeRequest): string {
  // deno-lint-ignore no-control-regex -- control characters are what it takes out
  let text = description.replace(/[\u0000-\u001f\u007f]+/g, " ");
  for (const secret of [request.subjectToken, request.clientSecret]) {
    if (secret !== "") text = text.replaceAll(secret, "[redacted]");
  }
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
}

/** RFC 6749 §2.3.1: each part form-encoded, which also makes the pair ASCII for btoa. */
function basic(clientId: string, clientSecret: string): string {
  return `Basic ${btoa(`${formEncoded(clientId)}:${formEncoded(clientSecret)}`)}`;
}

/** application/x-www-form-urlencoded (a space is "+"), as §2.3.1 asks of each part. */
function formEncoded(value: string): string {
  return new URLSearchParams({ "": value }).toString().slice(1);
}

/** A scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function checkRequest(request: ExchangeRequest): void {
  const badScope = request.scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  const problem = request.subjectToken === ""
    ? "the caller's token is empty"
    : request.audience === ""
    ? "the audience is empty"
    : request.clientId === ""
    ? "the client id is empty"
    : request.resource !== undefined && !isResource(request.resource)
    ? `the resource ${quoted(request.resource)} is not an absolute URI without a fragment`
    : badScope !== undefined
    ? `the scope ${quoted(badScope)} is not one scope token (RFC 6749 §3.3)`
    : undefined;
  if (problem !== undefined) throw new Error(`Cannot exchange the caller's token: ${problem}`);
}

function isResource(resource: string): boolean {
  const url = URL.parse(resource);
  return url !== null && url.hash === "" && !resource.includes("#");
}

function checkIssuer(issuer: string): void {
  const url = URL.parse(issuer);
  const loopback = url !== null &&
    (url.hostname === "localhost" || url.hostname === "[::1]" ||
      /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
  const problem = url === null
    ? "it is not a URL"
    : url.search !== "" || url.hash !== ""
    ? "an issuer has no query or fragment (RFC 8414 §2)"
    : url.protocol === "https:" || (url.protocol === "http:" && loopback)
    ? undefined
    : "it must be an https URL (http only on a loopback host, for development)";
  if (problem) {
    throw new Error(`Cannot exchange tokens at the issuer ${quoted(issuer)}: ${problem}`);
  }
}
