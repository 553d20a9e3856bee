// A counting semaphore: at most `max` holders at once, the rest wait in arrival order, and
// one whose signal aborts leaves the line without ever holding a slot. It bounds live
// programs (--max-programs: a cancelled call frees its request at once, while its program
// may take the SIGTERM grace to die) and HTTP requests across connections (--max-concurrency).

export interface Slots {
  /**
   * Waits for a free slot and gives the function that frees it (calling it again does
   * nothing). Rejects with the signal's reason if the signal aborts first.
   */
  acquire(signal: AbortSignal): Promise<() => void>;
  /** A free slot at once (its release), or undefined when the caller must wait. */
  take(): (() => void) | undefined;
  /** Slots held now. */
  held(): number;
  /** Calls waiting for a slot. */
  waiting(): number;
}

interface Waiter {
  grant(): void;
}

export function createSlots(max: number): Slots {
  let held = 0;
  // A Set keeps insertion order and lets an aborted waiter leave from anywhere in O(1).
  const line = new Set<Waiter>();

  function releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.values().next();
      if (next.done) {
        held--;
      } else {
        line.delete(next.value);
        next.value.grant(); // the slot passes on, so `held` stays as it is
      }
    };
  }

  return {
    take() {
      if (held >= max || line.size > 0) return undefined;
      held++;
      return releaser();
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (held < max && line.size === 0) {
        held++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const leave = () => {
          line.delete(waiter);
          reject(signal.reason);
        };
        const waiter: Waiter = {
          grant() {
            signal.removeEventListener("abort", leave);
            resolve(releaser());
          },
        };
        line.add(waiter);
        signal.addEventListener("abort", leave, { once: true });
      });
    },
    held: () => held,
    waiting: () => line.size,
  };
}
