// "Say it once per culprit": a bounded memory of the keys already seen, so that a mistake
// repeated on every request (another instance's session or task reaching this one) is said
// once each, for the first few culprits, and a client sending endless new keys costs nothing.

/** How many distinct keys are remembered; past it, none is said any more. */
const REMEMBERED_KEYS = 16;

/** A function that is true the first time it sees each key, for up to `max` keys. */
export function firstTimeOf(max = REMEMBERED_KEYS): (key: string) => boolean {
  const seen = new Set<string>();
  return (key) => {
    if (seen.has(key) || seen.size >= max) return false;
    seen.add(key);
    return true;
  };
}
