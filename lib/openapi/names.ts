// Tool names exactly as fastmcp-ts (and Python FastMCP's from_openapi) make them (adr/0072):
// the operationId cut at "__" (or the `names` override for the full operationId), else the
// summary, else METHOD_path; slugified, cut at 56 characters, then "_2", "_3" per base name.

import type { Route } from "./document.ts";

/** The longest base name before a clash suffix. */
export const NAME_CAP = 56;

/** Whitespace, "-" and "." runs become "_"; other characters outside [A-Za-z0-9_] go. */
export function slugify(text: string): string {
  return text.replace(/[\s\-.]+/g, "_").replace(/[^A-Za-z0-9_]/g, "").replace(/_+/g, "_").replace(
    /^_+|_+$/g,
    "",
  );
}

function baseName(route: Route, names: Record<string, string>): string {
  const raw = route.operationId
    ? (Object.hasOwn(names, route.operationId)
      ? names[route.operationId]
      : route.operationId.split("__")[0])
    : (route.summary || `${route.method}_${route.path}`);
  return slugify(raw).slice(0, NAME_CAP);
}

/**
 * One name per route, in route order. fastmcp-ts counts base names only, so an operation named
 * "a_2" can take the name a second "a" gets; toolshed refuses that clash naming both operations.
 */
export function toolNames(routes: Route[], names: Record<string, string> = {}): string[] {
  const counts = new Map<string, number>();
  const taken = new Map<string, Route>();
  return routes.map((route) => {
    const base = baseName(route, names);
    const count = (counts.get(base) ?? 0) + 1;
    counts.set(base, count);
    const name = count === 1 ? base : `${base}_${count}`;
    const other = taken.get(name);
    if (other !== undefined) {
      throw new Error(
        `the operations "${other.method} ${other.path}" and "${route.method} ${route.path}" both get the tool name "${name}": rename one with "names"`,
      );
    }
    taken.set(name, route);
    return name;
  });
}
