// The installed toolshed, as the benchmarks run it (bench:floor, bench:e2e): what
// `npm install -g` gives (adr/0065, adr/0074), the split, minified bundle built afresh from this
// commit, run with the Deno flags the npm bin gives it (build/npm/toolshed.cjs:
// `deno run -A ...NPM_BUNDLE_FLAGS <bundle> ...args`). Built and invoked here once, for every
// benchmark that measures it.
import { bundle } from "../build/bundle.ts";
import { NPM_BUNDLE_FLAGS } from "../lib/commands/invocation.ts";

/**
 * Builds the npm package's split bundle into `folder/installed/` (which must not exist yet) and
 * returns the path of its entry.
 */
export async function buildInstalled(folder: string): Promise<string> {
  const entry = `${folder}/installed/toolshed.js`;
  await Deno.mkdir(`${folder}/installed`);
  await bundle(entry, { split: true });
  return entry;
}

/**
 * The arguments after `deno run -A` that run the bundle at `entry` as the npm bin does, with
 * toolshed's own arguments `args` after it.
 */
export function installedArgs(entry: string, args: readonly string[]): string[] {
  return [...NPM_BUNDLE_FLAGS, entry, ...args];
}
