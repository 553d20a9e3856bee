// Bytes being made at once, bounded (adr/0058): each maker waits, in arrival order, until what
// it is about to allocate fits beside what the others hold; one larger than the bound alone
// goes when nobody else holds anything. It bounds the resource files read at once, so that 60
// clients asking for an 8 MiB file hold a few of them in memory at a time, not 60.

interface ByteGate {
  /** Waits until `bytes` fit, and gives the function that gives them back (once). */
  enter(bytes: number): Promise<() => void>;
  /** Bytes held now. */
  held(): number;
}

/** Resource bytes read at once across the process. */
const MAX_READING_BYTES = 16 * 1024 * 1024;

export function createByteGate(max: number): ByteGate {
  let held = 0;
  const line: { bytes: number; go(): void }[] = [];
  const fits = (bytes: number) => held === 0 || held + bytes <= max;
  const admit = (bytes: number) => {
    held += bytes;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      held -= bytes;
      // In arrival order: the first waiting goes before any later one that would fit.
      while (line.length > 0 && fits(line[0].bytes)) line.shift()!.go();
    };
  };
  return {
    enter(bytes) {
      if (line.length === 0 && fits(bytes)) return Promise.resolve(admit(bytes));
      return new Promise((resolve) => {
        line.push({ bytes, go: () => resolve(admit(bytes)) });
      });
    },
    held: () => held,
  };
}

/** The gate of resource files read by this process. */
export const reading: ByteGate = createByteGate(MAX_READING_BYTES);
