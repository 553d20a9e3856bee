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
import { DirectoryLoadError } from "../discovery/load_error.ts";
import { folderOf } from "../discovery/folder.ts";
import { ToolLoadError } from "../discovery/tools_dir.ts";
import type { Tool } from "../primitives/tools.ts";
import {
  loadServerParts,
  type ServerFolders,
  type ServerLoadOptions,
} from "../discovery/server_dir.ts";

/** A burst of file events (an editor's save, a git checkout) is one reload after this quiet. */
export const RELOAD_DEBOUNCE_MS = 100;

/**
 * The tools of a reload with bad files: those of the good files, and the previous version of
 * the tools of each bad file (a new bad file has none). Without the detail, all the previous.
 */
function lastGood(previous: readonly Tool[], error: DirectoryLoadError | undefined): Tool[] {
  if (!(error instanceof ToolLoadError)) return [...previous];
  const names = new Set(error.loaded.map((tool) => tool.name));
  const kept = previous.filter((tool) => error.failed.has(tool.file) && !names.has(tool.name));
  return [...error.loaded, ...kept];
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
      const kept: string[] = [];
      const problems: string[] = [];
      const take = <T>(kind: string, part: { loaded: T } | { problems: readonly string[] }) => {
        if ("loaded" in part) return part.loaded;
        kept.push(
          kind === "tools"
            ? "tools/ keeps the last good version of each bad file"
            : `${kind}/ keeps what it served`,
        );
        problems.push(...part.problems);
        return undefined;
      };
      const tools = take("tools", parts.tools)?.tools ??
        lastGood(before.tools.items, "error" in parts.tools ? parts.tools.error : undefined);
      const resources = take("resources", parts.resources);
      const prompts = take("prompts", parts.prompts) ?? before.prompts.items;
      registry.swap(contentsOf(tools, {
        resources: resources?.resources ?? before.resources.items,
        templates: resources?.templates ?? before.templates.items,
        prompts,
      }));
      if (problems.length > 0) {
        diagnostics.error(
          `Reloaded, but ${kept.join("; ")}: ${problems.length} problem(s)\n  ` +
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
