// An opaque token (anything not a JWT) is asked of the issuer: RFC 7662 introspection at its
// `introspection_endpoint`, authenticated as this server with HTTP Basic (RFC 6749 §2.3.1). The
// answer is kept by the token's SHA-256: an active one until the token expires but 5 minutes at
// most (a revocation shows within that), a refusal for a minute (a bad token replayed in a flood
// costs the issuer one question a minute). Callers asking about one token at once share one
// question. What cannot be asked (the issuer down, refusing our credentials, answering nonsense)
// is never kept: the next request asks again, within the issuer's deadline.
import { isObject } from "../util/json.ts";
import { type AnswerCache, answerCache } from "./answer_cache.ts";
import { backoff } from "./backoff.ts";
import { claimsProblem } from "./claims.ts";
import { tokenKey } from "./token_key.ts";
import { askIssuer, type IssuerUnavailable } from "./issuer_fetch.ts";
import { quoted } from "./token_shape.ts";
import type { Outcome } from "./types.ts";

/** The longest an active answer is used, in seconds. */
const ACTIVE_ANSWER_SECONDS = 300;
/** How long a refusal (inactive, or active but not for this server) is used, in seconds. */
const REFUSAL_SECONDS = 60;

interface IntrospectionContext {
  readonly fetch: typeof fetch;
  /** The issuer's `introspection_endpoint`, or undefined when its metadata names none. */
  readonly endpoint: () => Promise<string | undefined>;
  readonly credentials: { readonly clientId: string; readonly clientSecret: string };
  readonly issuer: string;
  readonly resource: string;
  readonly leeway: number;
  readonly now: () => number;
  /** Told of trouble with the issuer (the caller throttles what reaches a person). */
  readonly onTrouble: (message: string) => void;
}

interface Introspector {
  check(token: string): Promise<Outcome>;
}

export function introspector(
  context: IntrospectionContext,
  cache: AnswerCache = answerCache(),
): Introspector {
  const asking = new Map<string, Promise<Outcome>>();
  const wait = backoff(context.now);
  const { clientId, clientSecret } = context.credentials;
  // RFC 6749 §2.3.1: each part form-encoded, which also makes the pair ASCII for btoa.
  const authorization = `Basic ${
    btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)
  }`;

  const trouble = (message: string): IssuerUnavailable => {
    context.onTrouble(message);
    return wait.failed(message);
  };

  const ask = async (token: string, key: string): Promise<Outcome> => {
    const waiting = wait.waiting();
    if (waiting) throw waiting;
    const endpoint = await context.endpoint();
    if (endpoint === undefined) {
      // Not the token's fault: this server is set up for an issuer that cannot answer.
      const problem = `The authorization server ${
        quoted(context.issuer)
      } offers no introspection endpoint, so this server cannot check a token that is not a JWT`;
      throw trouble(problem);
    }
    const { status, body, bytes } = await askIssuer(context.fetch, endpoint, {
      method: "POST",
      headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
    }).catch((error: IssuerUnavailable) => {
      throw trouble(error.message);
    });
    if (status !== 200 || !isObject(body) || typeof body.active !== "boolean") {
      const message = status === 401 || status === 403
        ? `The authorization server refused the introspection credentials of client ${
          quoted(clientId)
        } (HTTP ${status})`
        : `The introspection endpoint "${endpoint}" answered ${status}${
          status === 200 ? ' without an "active" field' : ""
        }`;
      throw trouble(message);
    }
    wait.succeeded();
    const now = context.now();
    const outcome = outcomeOf(body, context, now);
    const until = "claims" in outcome
      ? Math.min(typeof body.exp === "number" ? body.exp : Infinity, now + ACTIVE_ANSWER_SECONDS)
      : now + REFUSAL_SECONDS;
    cache.set(key, outcome, until, bytes);
    return outcome;
  };

  return {
    async check(token) {
      const key = tokenKey(token);
      const kept = cache.get(key, context.now());
      if (kept) return kept;
      let pending = asking.get(key);
      if (pending === undefined) {
        pending = ask(token, key).finally(() => asking.delete(key));
        asking.set(key, pending);
      }
      return await pending;
    },
  };
}

function outcomeOf(
  body: Record<string, unknown>,
  context: IntrospectionContext,
  now: number,
): Outcome {
  if (body.active !== true) {
    return { problem: "The authorization server says the token is not active" };
  }
  const { issuer, resource, leeway } = context;
  const problem = claimsProblem(body, { issuer, resource, now, leeway, complete: false });
  if (problem) return { problem };
  // Bearer, or DPoP (RFC 9449 §6.2: a key-bound token, checked against its proof by the caller).
  const type = typeof body.token_type === "string" ? body.token_type.toLowerCase() : "bearer";
  if (type !== "bearer" && type !== "dpop") {
    return { problem: `The token's type ${quoted(body.token_type)} is not an access token's` };
  }
  return { claims: body };
}
