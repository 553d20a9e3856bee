// Hot reload (--watch): the server directory's folders are watched; a burst of changes is
// waited out (debounced), then the whole directory is loaded again and the registry's
// snapshot swapped in one assignment, so requests in flight finish on the snapshot they
// started with and connections are told what changed (methods/change_notices.ts). A load that
// fails keeps the snapshot being served and says on stderr exactly what is wrong: an edit
// never stops the server. Files whose modification time did not change are not imported
// again (discovery/import_module.ts).
//
// A folder removed and made again (a `git checkout`, `rm -rf tools && cp -r …`) is a new
// directory that the first watch never sees: the kernel drops a watch with its directory,
// and Deno keeps one watch per path for as long as any watcher of that path is open, so
// watching the path again beside the dead watcher watches nothing. Each folder therefore
// has a watcher of its own, and each folder's parent a non-recursive one that sees the
// folder itself come and go; a change that names a folder (removed, made, renamed) closes
// its watcher and, once Deno has let go of it, opens a new one before the reload, which
// then reads whatever the new folder already holds. A folder absent at start is watched
// when it appears.
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Registry } from "../primitives/registry.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { folderOf } from "./folder.ts";
import {
  contentsOfServer,
  type LoadedServer,
  loadServerParts,
  type ServerFolders,
  type ServerLoadOptions,
  serverOf,
} from "./server_dir.ts";

/** A burst of file events (an editor's save, a git checkout) is one reload after this quiet. */
const RELOAD_DEBOUNCE_MS = 100;

/**
 * What one reload did: whether it swapped what is served (a folder with problems keeps the
 * last good version of its files), and the problems it found (none: all of it went in).
 */
export interface ReloadOutcome {
  readonly swapped: boolean;
  readonly problems: readonly string[];
}

export interface Reloader {
  /** Resolves after the reload a change started (for tests); undefined while nothing is due. */
  settled(): Promise<void>;
  /** Loads the directory again after the usual quiet (a mount's upstream changed its tools). */
  reloadSoon(): void;
  close(): void;
}

/** An open Deno.watchFs whose events go to `onEvent` until it is closed. */
interface Watch {
  /** Closes the watcher; resolves once its events have ended and Deno has let go of it. */
  close(): Promise<void>;
}

function watch(
  path: string,
  recursive: boolean,
  onEvent: (event: Deno.FsEvent) => void,
  onStop: (error: unknown) => void,
): Watch {
  const watcher = Deno.watchFs(path, { recursive });
  let closing = false;
  const ended = (async () => {
    try {
      for await (const event of watcher) onEvent(event);
    } catch (error) {
      if (!closing) onStop(error);
    }
  })();
  return {
    close() {
      closing = true;
      try {
        watcher.close();
      } catch { /* closed already (its folder went away) */ }
      return ended;
    },
  };
}

/** A folder's absolute path, as Deno's events name it (no trailing "/", dot segments gone). */
function absolutePath(location: string | URL): string {
  const path = decodeURIComponent(folderOf(location).url.pathname).replace(/\/+$/, "");
  return /^\/[A-Za-z]:/.test(path) ? path.slice(1) : path || "/";
}

/** The path an event names, written as absolutePath writes one. */
function eventPath(path: string): string {
  return path.replaceAll("\\", "/").replace(/(.)\/+$/, "$1");
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Watches the folders that exist, and their parents for folders that appear, go or are made
 * again, and reloads into `registry` when anything in them changes. With `watch` false it
 * watches nothing and reloads only when asked (`reloadSoon`).
 */
export function watchAndReload(options: {
  /** Whether the folders are watched (the default); false: reloads only when asked. */
  watch?: boolean;
  folders: ServerFolders;
  load: ServerLoadOptions;
  registry: Registry;
  /** What the registry serves now, as loaded: what a folder with problems keeps of it. */
  loaded: LoadedServer;
  diagnostics: Diagnostics;
  /** Told of each reload's outcome, after the swap (`toolshed dev` shows it on its page). */
  onReload?: (outcome: ReloadOutcome) => void;
  debounceMs?: number;
}): Reloader {
  const { folders, registry, diagnostics } = options;
  const debounceMs = options.debounceMs ?? RELOAD_DEBOUNCE_MS;
  /** Each folder: its path, its watcher while it has one, and whether an event named it. */
  const watched = Object.values(folders).map((folder) => {
    const path = absolutePath(folder.location);
    let real = path;
    try {
      real = eventPath(Deno.realPathSync(path)); // where a platform's events name it resolved
    } catch { /* not there yet */ }
    return { path, real, watch: undefined as Watch | undefined, named: false };
  });
  let served = options.loaded;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const schedule = (work: () => Promise<void>) => {
    clearTimeout(timer);
    timer = setTimeout(() => running = running.then(work), debounceMs);
  };

  const stopped = (error: unknown) =>
    diagnostics.error(`Watching the server directory stopped: ${messageOf(error)}`);
  /** Notes the folders an event names itself; true when there was any. */
  const noteFolders = (event: Deno.FsEvent): boolean => {
    let named = false;
    for (const path of event.paths.map(eventPath)) {
      for (const folder of watched) {
        if (path === folder.path || path === folder.real) folder.named = named = true;
      }
    }
    return named;
  };
  const onEvent = (event: Deno.FsEvent, fromParent: boolean) => {
    if (closed || event.kind === "access" || event.kind === "other") return;
    // A parent's watcher hears of its other entries too: only its folders' own events count.
    if (!noteFolders(event) && fromParent) return;
    schedule(rewatchAndReload);
  };
  const open = (path: string, recursive: boolean, fromParent: boolean): Watch | undefined => {
    try {
      return watch(path, recursive, (event) => onEvent(event, fromParent), stopped);
    } catch (error) {
      // Gone between the look and the watch: its parent's watcher says when it is back.
      if (!(error instanceof Deno.errors.NotFound)) stopped(error);
      return undefined;
    }
  };
  const watching = options.watch ?? true;
  const parents = !watching ? [] : [...new Set(watched.map((folder) => parentOf(folder.path)))]
    .filter(isDirectory)
    .map((parent) => open(parent, false, true));
  for (const folder of watched) {
    if (watching && isDirectory(folder.path)) folder.watch = open(folder.path, true, false);
  }

  /** A new watcher for each folder an event named or that appeared, then the reload. */
  async function rewatchAndReload(): Promise<void> {
    for (const folder of watching ? watched : []) {
      if (closed) return;
      const there = isDirectory(folder.path);
      if (!folder.named && there === (folder.watch !== undefined)) continue;
      folder.named = false;
      await folder.watch?.close();
      folder.watch = there && !closed ? open(folder.path, true, false) : undefined;
    }
    await reload();
  }

  async function reload(): Promise<void> {
    try {
      const parts = await loadServerParts(folders, options.load);
      if (closed) return;
      const kept = new Set<string>();
      const problems: string[] = [];
      const next = await serverOf((kind) => {
        const part = parts[kind.folder];
        if ("loaded" in part) return part.loaded;
        const { partial } = part.error;
        problems.push(...part.problems);
        kept.add(
          partial
            ? `${kind.folder}/ keeps the last good version of each bad file`
            : `${kind.folder}/ keeps what it served`,
        );
        return kind.keep(served, partial);
      });
      registry.swap(contentsOfServer(next));
      served = next;
      if (problems.length > 0) {
        diagnostics.error(
          `Reloaded, but ${[...kept].join("; ")}: ${problems.length} problem(s)\n  ` +
            problems.join("\n  "),
        );
      }
      options.onReload?.({ swapped: true, problems });
    } catch (error) {
      const problems = error instanceof DirectoryLoadError ? error.problems : [messageOf(error)];
      diagnostics.error(`Not reloading: ${problems.join("; ")}`);
      options.onReload?.({ swapped: false, problems });
    }
  }

  return {
    settled: () => running,
    reloadSoon() {
      if (!closed) schedule(rewatchAndReload);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      for (const each of [...parents, ...watched.map((folder) => folder.watch)]) each?.close();
    },
  };
}
