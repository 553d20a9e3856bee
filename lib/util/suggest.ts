// "Did you mean …?" for a mistyped name: the closest of the names it could have been, by edit
// distance (insertions, deletions, substitutions and swaps of neighbours), when it is close
// enough to be a typo rather than another word.

/** The candidate closest to `given`, or undefined when none is within a typo of it. */
export function closest(given: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - given.length) > limit) continue;
    const distance = editDistance(given.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** `; did you mean "x"?` for the closest candidate, or "" when there is none. */
export function didYouMean(given: string, candidates: Iterable<string>): string {
  const match = closest(given, candidates);
  return match === undefined ? "" : `; did you mean "${match}"?`;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}
