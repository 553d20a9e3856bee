// Asking the authorization server something over HTTP, within bounds: every request has a
// deadline and every answer a size limit, so a slow or hostile issuer holds a verification for
// seconds at most and never fills memory.
import { concatBytes } from "../util/bytes.ts";

/**
 * The authorization server could not answer what the verifier needed (unreachable, an error
 * status, an answer that is not what the specification says): the verifier cannot decide, and
 * fails closed (`unavailable`).
 */
export class IssuerUnavailable extends Error {
  override name = "IssuerUnavailable";
}

/** How long one request to the issuer may take. */
const ISSUER_DEADLINE_MS = 5_000;

/**
 * The largest answer read: metadata and introspection answers are a few KiB, a JWKS of many RSA
 * keys with certificate chains a few tens.
 */
const MAX_ANSWER_BYTES = 256 * 1024;

interface IssuerAnswer {
  readonly status: number;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
  /** The body's length in bytes. */
  readonly bytes: number;
}

/**
 * Sends `init` to `url` and reads the JSON answer; throws IssuerUnavailable when it cannot. An
 * `init.signal` (a caller's) ends it early too, rejecting with the signal's reason.
 */
export async function askIssuer(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit = {},
): Promise<IssuerAnswer> {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), ISSUER_DEADLINE_MS);
  const caller = init.signal ?? undefined;
  try {
    const response = await fetchFn(url, {
      ...init,
      redirect: "error", // RFC 8414 and RFC 7662 name the URLs; a redirect is not followed
      signal: caller === undefined
        ? controller.signal
        : AbortSignal.any([controller.signal, caller]),
      headers: { accept: "application/json", ...init.headers },
    });
    const text = await boundedText(response, url);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body, bytes: text.length };
  } catch (error) {
    if (error instanceof IssuerUnavailable) throw error;
    if (caller?.aborted && !controller.signal.aborted) throw caller.reason;
    const why = controller.signal.aborted
      ? `no answer within ${ISSUER_DEADLINE_MS / 1000} s`
      : error instanceof Error
      ? error.message
      : String(error);
    throw new IssuerUnavailable(`Cannot fetch "${url}": ${why}`);
  } finally {
    clearTimeout(deadline);
  }
}

async function boundedText(response: Response, url: string): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new IssuerUnavailable(
        `Cannot fetch "${url}": its answer is longer than ${MAX_ANSWER_BYTES / 1024} KiB`,
      );
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(concatBytes(chunks));
}
