// After the issuer fails to answer, it is not asked again until a wait has passed that doubles
// with each failure in a row (1 s, 2 s, 4 s … 60 s): meanwhile every request that needs it is
// told at once that the issuer is unavailable, so an issuer that is down or slow is not hammered
// by all the requests that arrive while it is, nor are they held for its deadline each
// (adr/0038).
import { IssuerUnavailable } from "./issuer_fetch.ts";

/** The first wait after a failure, in seconds. */
const FIRST_BACKOFF_SECONDS = 1;
/** The longest wait between two attempts, in seconds. */
const MAX_BACKOFF_SECONDS = 60;

interface Backoff {
  /** Why not to ask now, while a failure's wait runs; undefined when asking is allowed. */
  waiting(): IssuerUnavailable | undefined;
  /** Records a failure, saying `message`; returns it as an IssuerUnavailable to throw. */
  failed(message: string): IssuerUnavailable;
  /** Records a success: the next failure waits the first wait again. */
  succeeded(): void;
}

export function backoff(now: () => number): Backoff {
  let failures = 0;
  let retryAt = -Infinity;
  let lastFailure = "";
  return {
    waiting() {
      if (now() >= retryAt) return undefined;
      return new IssuerUnavailable(
        `${lastFailure} (asking again in ${Math.max(1, Math.ceil(retryAt - now()))} s)`,
      );
    },
    failed(message) {
      failures++;
      retryAt = now() +
        Math.min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** (failures - 1));
      lastFailure = message;
      return new IssuerUnavailable(message);
    },
    succeeded() {
      failures = 0;
      retryAt = -Infinity;
    },
  };
}
