// Test helper: a module's graph as `deno info --json` gives it, and the modules reachable from
// its roots through imports that remain at run time (`import type` is erased and gives none).
import assert from "node:assert/strict";

const REPO_PATH = decodeURIComponent(new URL("../", import.meta.url).pathname);

export interface ModuleGraph {
  roots: string[];
  modules: {
    specifier: string;
    kind?: string;
    error?: string;
    npmPackage?: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
  redirects: Record<string, string>;
  /** The whole npm snapshot (lockfile included), not only what the graph reaches. */
  npmPackages?: Record<string, NpmPackage>;
}

export interface NpmPackage {
  name: string;
  version: string;
  dependencies?: string[];
  localPath?: string;
}

/** `deno info --json root`, run in the repository (`root` relative to it). */
export async function moduleGraph(root = "main.ts"): Promise<ModuleGraph> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: REPO_PATH,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  assert.equal(code, 0, text.decode(stderr));
  return JSON.parse(text.decode(stdout));
}

/**
 * The specifiers reachable from the graph's roots through imports that remain at run time;
 * with `loadedAtOnce`, only through static ones (what loading the roots loads, before any
 * `import()` runs).
 */
export function reachable(graph: ModuleGraph, loadedAtOnce = false): Set<string> {
  const bySpecifier = new Map(graph.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const pending = [...graph.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    const resolved = graph.redirects[specifier] ?? specifier;
    if (reached.has(resolved)) continue;
    reached.add(resolved);
    for (const dependency of bySpecifier.get(resolved)?.dependencies ?? []) {
      if (dependency.code && !(loadedAtOnce && dependency.isDynamic)) {
        pending.push(dependency.code.specifier);
      }
    }
  }
  return reached;
}

/** The repository files among `specifiers`, as paths relative to it (`lib/core/handle.ts`). */
export function repositoryFiles(specifiers: Iterable<string>): string[] {
  const files: string[] = [];
  for (const specifier of specifiers) {
    if (!specifier.startsWith("file:")) continue;
    const path = decodeURIComponent(new URL(specifier).pathname);
    if (path.startsWith(REPO_PATH)) files.push(path.slice(REPO_PATH.length));
  }
  return files.sort();
}
