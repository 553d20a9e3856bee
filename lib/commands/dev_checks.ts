// When `toolshed dev` runs `check`: at start, and after each save once saves stop coming for a
// moment (debounced). A save while a run is under way supersedes it: the run is aborted (its
// `deno check` killed) and its findings never reported; a run that takes longer than its bound
// is aborted too, and reports that it was.

/** Saves closer together than this are one check. */
const CHECK_DEBOUNCE_MS = 300;
/** How long one type check may take before it is killed and said to have taken too long. */
const CHECK_TIMEOUT_MS = 120_000;

interface CheckLoop {
  /** Runs a check now, superseding one under way. */
  runNow(): void;
  /** Runs a check once no other call comes for the debounce. */
  schedule(): void;
  /** Aborts the run under way, if any, and waits for it to end. */
  close(): Promise<void>;
}

/**
 * Runs `check` (given a signal that aborts it) as the loop decides, and gives each result of a
 * run that was not superseded to `report`.
 */
export function checkLoop<T>(
  check: (signal: AbortSignal) => Promise<T>,
  report: (result: T) => void,
  bounds: { debounceMs?: number; timeoutMs?: number } = {},
): CheckLoop {
  const debounceMs = bounds.debounceMs ?? CHECK_DEBOUNCE_MS;
  const timeoutMs = bounds.timeoutMs ?? CHECK_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: { superseded: AbortController; done: Promise<void> } | undefined;
  let closed = false;

  const runNow = () => {
    clearTimeout(timer);
    if (closed) return;
    current?.superseded.abort(new Error("superseded by a later save"));
    const superseded = new AbortController();
    const timeout = new AbortController();
    const bound = setTimeout(
      () => timeout.abort(new Error(`it took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const signal = AbortSignal.any([superseded.signal, timeout.signal]);
    const done = (async () => {
      try {
        const result = await check(signal);
        if (!superseded.signal.aborted) report(result);
      } finally {
        clearTimeout(bound);
      }
    })();
    current = { superseded, done };
  };

  return {
    runNow,
    schedule() {
      clearTimeout(timer);
      if (!closed) timer = setTimeout(runNow, debounceMs);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      current?.superseded.abort(new Error("toolshed dev is stopping"));
      await current?.done.catch(() => {});
    },
  };
}
