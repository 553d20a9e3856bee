// Name globs as a mount's include/exclude and an API sidecar's operations write them: "*" is any
// run of characters, "?" one, everything else itself.

const GLOBS = new Map<string, RegExp>();

/** The anchored pattern of `glob`, kept for the next time (at most 1,024 kept). */
function globPattern(glob: string): RegExp {
  let pattern = GLOBS.get(glob);
  if (pattern === undefined) {
    const body = [...glob].map((c) =>
      c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")
    ).join("");
    pattern = new RegExp(`^${body}$`, "s");
    if (GLOBS.size < 1024) GLOBS.set(glob, pattern);
  }
  return pattern;
}

/** Whether `name` matches one of `globs`. */
export function namesMatch(globs: readonly string[], name: string): boolean {
  return globs.some((glob) => globPattern(glob).test(name));
}

/** Whether `text` has a wildcard ("*" or "?"). */
export function isGlob(text: string): boolean {
  return /[*?]/.test(text);
}
