// A full garbage collection when large, short-lived allocations have piled up in a process
// that is already large (adr/0058). V8 leaves garbage for its next full collection, and sizes
// that moment from the machine's memory, not the container's: a server that parses large
// requests or builds large answers peaked hundreds of MiB above what it still held (60 answers
// of 8 MiB: +1.2 GB, of which 136 MiB was live). Those who make such allocations say so with
// `allocated(bytes)`; past COLLECT_EVERY_BYTES since the last look, a collection is run at once
// if the process's resident memory is over COLLECT_ABOVE_RSS_BYTES. Below it, V8 collects as it
// likes: a forced collection costs ~20 ms, and honest traffic of 1 MiB calls took twice as long
// when every 48 MiB brought one. The collector comes from `node:v8` and `node:vm`, taken the
// first time one is due (a process that never gets that large never loads them) with
// process.getBuiltinModule, not imported: the one-file bundle must have no `node:` import to
// load at every start (build/bundle.ts refuses one, adr/0008).

/** Bytes of large allocations between two looks at the process's memory. */
const COLLECT_EVERY_BYTES = 48 * 1024 * 1024;
/** Resident memory past which a look collects. */
const COLLECT_ABOVE_RSS_BYTES = 128 * 1024 * 1024;

type Collect = () => void;

let since = 0;
/** The collector once loaded; undefined before, null when the runtime has none to give. */
let collect: Collect | null | undefined;

/** `bytes` were allocated for one request or answer and will be garbage soon. */
export function allocated(bytes: number): void {
  since += bytes;
  if (since < COLLECT_EVERY_BYTES || collect === null) return;
  since = 0;
  if (Deno.memoryUsage().rss < COLLECT_ABOVE_RSS_BYTES) return;
  collect ??= collector();
  collect?.();
}

function collector(): Collect | null {
  try {
    const v8 = process.getBuiltinModule("node:v8");
    const vm = process.getBuiltinModule("node:vm");
    // --expose-gc set now gives gc() to contexts made after it: one is made for it alone.
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    return typeof gc === "function" ? () => (gc as Collect)() : null;
  } catch {
    return null;
  }
}
