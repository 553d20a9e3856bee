// A weighted semaphore: at most `max` units held at once, the rest wait in arrival order, and
// one whose signal aborts leaves the line without ever holding anything. A unit is a slot for
// live programs (--max-programs: a cancelled call frees its request at once, while its program
// may take the SIGTERM grace to die) and HTTP requests across connections (--max-concurrency),
// and a byte for resource files read at once (adr/0058): 60 clients asking for an 8 MiB file
// hold a few of them in memory at a time, not 60. A holder wanting more than `max` goes alone,
// when nobody holds anything.

export interface Slots {
  /**
   * Waits until `units` (1 unless said) fit and gives the function that frees them (calling
   * it again does nothing). Rejects with the signal's reason if the signal aborts first.
   */
  acquire(signal: AbortSignal | undefined, units?: number): Promise<() => void>;
  /** One free slot at once (its release), or undefined when the caller must wait. */
  take(): (() => void) | undefined;
  /** Units held now. */
  held(): number;
  /** Holders waiting. */
  waiting(): number;
}

interface Waiter {
  readonly units: number;
  grant(): void;
}

export function createSlots(max: number): Slots {
  let held = 0;
  // A Set keeps insertion order and lets an aborted waiter leave from anywhere in O(1).
  const line = new Set<Waiter>();
  const fits = (units: number) => held === 0 || held + units <= max;

  /** Lets waiters in, in arrival order: the first goes before any later one that would fit. */
  function admit(): void {
    for (const next of line) {
      if (!fits(next.units)) break;
      line.delete(next);
      next.grant();
    }
  }

  function hold(units: number): () => void {
    held += units;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held -= units;
      admit();
    };
  }

  return {
    take() {
      if (line.size > 0 || held + 1 > max) return undefined;
      return hold(1);
    },
    acquire(signal, units = 1) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (line.size === 0 && fits(units)) return Promise.resolve(hold(units));
      return new Promise((resolve, reject) => {
        const leave = () => {
          line.delete(waiter);
          reject(signal!.reason);
          // A large waiter that leaves may have kept smaller ones behind it waiting.
          admit();
        };
        const waiter: Waiter = {
          units,
          grant() {
            signal?.removeEventListener("abort", leave);
            resolve(hold(units));
          },
        };
        line.add(waiter);
        signal?.addEventListener("abort", leave, { once: true });
      });
    },
    held: () => held,
    waiting: () => line.size,
  };
}
