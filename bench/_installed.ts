// The installed toolshed, as the benchmarks run it (bench:floor, bench:e2e): what
// `npm install -g` gives (adr/0065, adr/0074), the npm package written afresh from this commit
// (build/npm_package.ts), its bundle run in place with the Deno flags the npm bin gives it
// (build/npm/toolshed.cjs: `deno run -A ...npmBundleFlags(root) <bundle> ...args`). In place, so
// that a start meets what an installed one meets (before the bin passed `--no-config`, a bundle
// run from a folder of its own measured 1.4 MB lighter than an installed one, which read the
// package's configuration). Built and invoked here once, for every benchmark that measures it.
import { writePackage } from "../build/npm_package.ts";
import { NPM_BUNDLE_PATH, npmBundleFlags } from "../lib/commands/invocation.ts";

/**
 * Writes the npm package into `folder/installed/` (which must not exist yet) and returns the
 * path of its bundle's entry.
 */
export async function buildInstalled(folder: string): Promise<string> {
  const root = `${folder}/installed`;
  try {
    await Deno.lstat(root);
    throw new Error(`Cannot build the installed toolshed: "${root}" exists already`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await writePackage(root);
  return `${root}/${NPM_BUNDLE_PATH}`;
}

/**
 * The arguments after `deno run -A` that run the bundle at `entry` as the npm bin does, with
 * toolshed's own arguments `args` after it.
 */
export function installedArgs(entry: string, args: readonly string[]): string[] {
  if (!entry.endsWith(`/${NPM_BUNDLE_PATH}`)) {
    throw new Error(`Cannot run "${entry}" as installed: it is not a package's ${NPM_BUNDLE_PATH}`);
  }
  const root = entry.slice(0, -NPM_BUNDLE_PATH.length - 1);
  return [...npmBundleFlags(root), entry, ...args];
}
