// Hot reload (--watch): the server directory's folders are watched; a burst of changes is
// waited out (debounced), then the whole directory is loaded again and the registry's
// snapshot swapped in one assignment, so requests in flight finish on the snapshot they
// started with and connections are told what changed (core/change_notices.ts). A load that
// fails keeps the snapshot being served and says on stderr exactly what is wrong: an edit
// never stops the server. Files whose modification time did not change are not imported
// again (discovery/import_module.ts).
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { contentsOf, type Registry } from "../primitives/registry.ts";
import { DirectoryLoadError, type PartialLoad } from "../discovery/load_error.ts";
import { folderOf } from "../discovery/folder.ts";
import type { LoadedResources } from "../discovery/resources_dir.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Tool } from "../primitives/tools.ts";
import {
  loadServerParts,
  type ServerFolders,
  type ServerLoadOptions,
} from "../discovery/server_dir.ts";

/** A burst of file events (an editor's save, a git checkout) is one reload after this quiet. */
export const RELOAD_DEBOUNCE_MS = 100;

/**
 * What a folder with bad files serves after a reload: the primitives of its good files, and
 * the previous version of those of each bad file (a new bad file has none), unless a good
 * file now holds the same key.
 */
function lastGood<T extends { file?: string }>(
  loaded: readonly T[],
  failed: ReadonlySet<string>,
  previous: readonly T[],
  keyOf: (item: T) => string,
): T[] {
  const keys = new Set(loaded.map(keyOf));
  const kept = previous.filter((item) =>
    item.file !== undefined && failed.has(item.file) && !keys.has(keyOf(item))
  );
  return [...loaded, ...kept];
}

export interface Reloader {
  /** Resolves after the reload a change started (for tests); undefined while nothing is due. */
  settled(): Promise<void>;
  close(): void;
}

/** Watches the folders that exist and reloads into `registry` when anything in them changes. */
export function watchAndReload(options: {
  folders: ServerFolders;
  load: ServerLoadOptions;
  registry: Registry;
  diagnostics: Diagnostics;
  debounceMs?: number;
}): Reloader {
  const { folders, registry, diagnostics } = options;
  const debounceMs = options.debounceMs ?? RELOAD_DEBOUNCE_MS;
  const paths = Object.values(folders).flatMap((folder) => {
    const path = folderOf(folder.location).shown;
    try {
      return Deno.statSync(path).isDirectory ? [path] : [];
    } catch {
      return []; // an optional folder that is not there: nothing to watch
    }
  });
  const watcher = paths.length > 0 ? Deno.watchFs(paths, { recursive: true }) : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  async function reload(): Promise<void> {
    try {
      const parts = await loadServerParts(folders, options.load);
      if (closed) return;
      const before = registry.current();
      const kept = new Set<string>();
      const problems: string[] = [];
      /** A folder's problems noted; what its good files held, when only some failed. */
      const partialOf = <T>(
        kind: string,
        error: DirectoryLoadError,
      ): PartialLoad<T> | undefined => {
        problems.push(...error.problems);
        kept.add(
          error.partial
            ? `${kind}/ keeps the last good version of each bad file`
            : `${kind}/ keeps what it served`,
        );
        return error.partial as PartialLoad<T> | undefined;
      };
      let tools = before.tools.items;
      if ("loaded" in parts.tools) tools = parts.tools.loaded.tools;
      else {
        const partial = partialOf<readonly Tool[]>("tools", parts.tools.error);
        if (partial) tools = lastGood(partial.loaded, partial.failed, tools, (t) => t.name);
      }
      let resources = before.resources.items;
      let templates = before.templates.items;
      if ("loaded" in parts.resources) ({ resources, templates } = parts.resources.loaded);
      else {
        const partial = partialOf<LoadedResources>("resources", parts.resources.error);
        if (partial) {
          resources = lastGood(partial.loaded.resources, partial.failed, resources, (r) => r.uri);
          templates = lastGood(partial.loaded.templates, partial.failed, templates, (t) => t.name);
        }
      }
      let prompts = before.prompts.items;
      if ("loaded" in parts.prompts) prompts = parts.prompts.loaded;
      else {
        const partial = partialOf<readonly Prompt[]>("prompts", parts.prompts.error);
        if (partial) prompts = lastGood(partial.loaded, partial.failed, prompts, (p) => p.name);
      }
      registry.swap(contentsOf(tools, { resources, templates, prompts }));
      if (problems.length > 0) {
        diagnostics.error(
          `Reloaded, but ${[...kept].join("; ")}: ${problems.length} problem(s)\n  ` +
            problems.join("\n  "),
        );
      }
    } catch (error) {
      const problems = error instanceof DirectoryLoadError ? error.problems : [messageOf(error)];
      diagnostics.error(`Not reloading: ${problems.join("; ")}`);
    }
  }

  (async () => {
    if (watcher === undefined) return;
    try {
      for await (const event of watcher) {
        if (event.kind === "access" || event.kind === "other") continue;
        clearTimeout(timer);
        timer = setTimeout(() => running = running.then(reload), debounceMs);
      }
    } catch (error) {
      if (!closed) diagnostics.error(`Watching the server directory stopped: ${messageOf(error)}`);
    }
  })();

  return {
    settled: () => running,
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
