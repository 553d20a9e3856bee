// A diagnostic said at most once per interval, however often its cause recurs (a flood of
// refused connections, of dropped answers): the first is said, later ones are counted, and the
// next one said after the interval tells how many were not.
import type { Diagnostics } from "./diagnostics.ts";

export function throttledReport(
  diagnostics: Diagnostics,
  everyMs: number,
): (message: string) => void {
  let last = -Infinity;
  let unsaid = 0;
  return (message) => {
    const now = performance.now();
    if (now - last < everyMs) {
      unsaid++;
      return;
    }
    const more = unsaid > 0 ? ` (and ${unsaid} more since the last report)` : "";
    unsaid = 0;
    last = now;
    diagnostics.error(`${message}${more}`);
  };
}
