// Running an author's handler that is not a tool (a resource's `read`, a prompt's `get`, a
// completer): under the request's abort signal and a timeout, so a handler that never
// settles holds its request no longer than the timeout. Tools have their own runner
// (tool_call.ts), because what goes wrong in a tool is a result, not an error.
import { isThenable } from "../util/maybe.ts";

/** The reason a request's signal carries when its handler's time is up. */
class HandlerTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

/**
 * Calls `handler` and waits for its value. Rejects with what it threw, with a HandlerTimeout
 * after `timeoutMs` (aborting `controller` with it), or with the signal's reason once the
 * request is cancelled. A synchronous handler needs no timer.
 */
export function runHandler(
  handler: () => unknown,
  options: { controller: AbortController; timeoutMs: number; what: string },
): Promise<unknown> {
  let value: unknown;
  try {
    value = handler();
  } catch (error) {
    return Promise.reject(error);
  }
  if (!isThenable(value)) return Promise.resolve(value);
  const { controller, timeoutMs, what } = options;
  const timer = setTimeout(() => controller.abort(new HandlerTimeout(what, timeoutMs)), timeoutMs);
  const aborted = new Promise<never>((_, reject) => {
    const signal = controller.signal;
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  // The handler may ignore its signal; the race still answers on time.
  return Promise.race([value, aborted]).finally(() => clearTimeout(timer));
}
