// Importing a module of a server directory: what every folder's loader does the same way.
import { messageOf } from "../util/json.ts";

/**
 * The default export of the module at `url`. Throws, saying why, when the import fails;
 * `what` names the kind of module in the hint a compiled binary adds ("tools").
 *
 * A file on disk is imported under its modification time (`?mtime=…`): Deno keeps a module
 * for the life of the process by its URL, so a reload imports again exactly the files that
 * changed, and the others stay the modules already loaded. (A module's own imports are not
 * imported again: they keep their first version.)
 */
export async function importDefault(url: URL, what: string): Promise<unknown> {
  let module: Record<string, unknown>;
  try {
    module = await import(versioned(url));
  } catch (error) {
    // Deno cannot import into a compiled binary a module that was not embedded in it.
    const hint = Deno.build.standalone
      ? ` (a compiled binary can only load the ${what} embedded when it was compiled)`
      : "";
    throw new Error(`the module failed to import: ${messageOf(error)}${hint}`);
  }
  return module.default;
}

/**
 * Primitives loaded from files, by name: one sentence per file that failed or whose name is
 * taken already (files in order, so messages are stable). `kind` is "tool" or "prompt".
 */
export function byUniqueName<P extends { name: string }>(
  outcomes: readonly PromiseSettledResult<P>[],
  files: readonly string[],
  kind: string,
): { byName: Map<string, { item: P; file: string }>; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map<string, { item: P; file: string }>();
  outcomes.forEach((outcome, index) => {
    const file = files[index];
    if (outcome.status === "rejected") {
      problems.push(`Cannot load ${kind} "${file}": ${messageOf(outcome.reason)}`);
      return;
    }
    const item = outcome.value;
    const clash = byName.get(item.name);
    if (clash) {
      problems.push(
        `Cannot load ${kind} "${file}": the name "${item.name}" is already used by "${clash.file}"`,
      );
      return;
    }
    byName.set(item.name, { item, file });
  });
  return { byName, problems };
}

/**
 * `text` (a stack) with the modification times taken out of module URLs: Deno shows an
 * author's file as imported (`tools/boom.ts?mtime=…:5:11`) when it has no cached emit to map
 * the stack back, and a terminal or an editor opens `tools/boom.ts:5:11`.
 */
export function withoutModuleVersions(text: string): string {
  return text.includes("?mtime=") ? text.replaceAll(/\?mtime=\d+(?=:\d+:\d+)/g, "") : text;
}

/** `url` with the file's modification time, for a file on disk outside a compiled binary. */
function versioned(url: URL): string {
  if (url.protocol !== "file:" || Deno.build.standalone) return url.href;
  const { mtime } = Deno.statSync(url);
  return mtime === null ? url.href : `${url.href}?mtime=${mtime.getTime()}`;
}
