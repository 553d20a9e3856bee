// Answer bytes written for clients that have not taken them yet, counted across every
// connection (adr/0021). A client that asks and never reads leaves its answer in the
// server's memory; past the bound, the answers whose readers made progress longest ago are
// dropped (their connections close), so that a stalled reader loses its answer and never
// the server's memory. The newest answer is never the one dropped for its own sake: one
// answer larger than the bound alone is still sent.

/** One answer body's bytes, as the ledger counts them. */
interface UnsentAccount {
  /** `size` more bytes wait for the client. */
  add(size: number): void;
  /** The client took `size` bytes. */
  taken(size: number): void;
  /** The body is over (sent, or dropped): whatever it still counts is forgotten. */
  close(): void;
}

export interface UnsentLedger {
  /**
   * An account for a new body; `evict` drops that body when the bound calls for it. `stream`:
   * the body is an event stream, counted by `streams()` until its account closes.
   */
  open(evict: () => void, stream?: boolean): UnsentAccount;
  /** Bytes unsent now, and answers dropped so far. */
  counts(): { bytes: number; evicted: number };
  /** Event streams open now: their bodies have neither ended nor lost their client. */
  streams(): number;
}

interface Entry {
  bytes: number;
  /** When its reader last took something (or it opened). */
  progress: number;
  evict(): void;
}

/**
 * `maxBytes` is --max-unsent-bytes; `dropped(bytes)` hears of each answer dropped, with the bytes it held (for the operator's
 * log).
 */
export function createUnsentLedger(
  maxBytes: number,
  dropped: (bytes: number) => void = () => {},
): UnsentLedger {
  const holding = new Set<Entry>();
  let total = 0;
  let evicted = 0;
  let streams = 0;

  /** Drops the stalest entries but `keep` until the total fits. */
  const fit = (keep: Entry) => {
    while (total > maxBytes) {
      let stalest: Entry | undefined;
      for (const entry of holding) {
        if (entry !== keep && (stalest === undefined || entry.progress < stalest.progress)) {
          stalest = entry;
        }
      }
      if (stalest === undefined) return;
      dropped(stalest.bytes);
      total -= stalest.bytes;
      stalest.bytes = 0;
      holding.delete(stalest);
      evicted++;
      stalest.evict();
    }
  };

  return {
    open(evict, stream = false) {
      const entry: Entry = { bytes: 0, progress: performance.now(), evict };
      let closed = false;
      if (stream) streams++;
      return {
        add(size) {
          if (closed || size === 0) return;
          entry.bytes += size;
          total += size;
          holding.add(entry);
          if (total > maxBytes) fit(entry);
        },
        taken(size) {
          entry.progress = performance.now();
          if (closed || size === 0) return;
          const freed = Math.min(size, entry.bytes);
          entry.bytes -= freed;
          total -= freed;
          if (entry.bytes === 0) holding.delete(entry);
        },
        close() {
          if (closed) return;
          closed = true;
          if (stream) streams--;
          total -= entry.bytes;
          entry.bytes = 0;
          holding.delete(entry);
        },
      };
    },
    counts: () => ({ bytes: total, evicted }),
    streams: () => streams,
  };
}

/**
 * The ledger as one connection's answers see it: dropping one of them also closes the
 * connection, since Deno keeps what it was given of the answer for as long as the connection
 * lives (its slice holds the whole answer's buffer).
 */
export function closingWith(ledger: UnsentLedger, close: () => void): UnsentLedger {
  return {
    open: (evict, stream) =>
      ledger.open(() => {
        evict();
        close();
      }, stream),
    counts: ledger.counts,
    streams: ledger.streams,
  };
}
