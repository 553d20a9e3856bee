// Waiting for something with a bound: shutdown waits for work in flight, but no longer
// than its grace period.

/** Races a promise against a timer that is cleared once either settles. */
export async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<"settled" | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timed out">((resolve) => {
    timer = setTimeout(() => resolve("timed out"), ms);
  });
  try {
    return await Promise.race([promise.then(() => "settled" as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
