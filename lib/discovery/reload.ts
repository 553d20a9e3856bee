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
import { contentsOf, type Registry } from "../primitives/registry.ts";
import { DirectoryLoadError, type PartialLoad } from "./load_error.ts";
import { folderOf } from "./folder.ts";
import type { LoadedResources } from "./resources_dir.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Tool } from "../primitives/tools.ts";
import { SKILLS_EXTENSION } from "../primitives/skill_id.ts";
import { loadServerParts, type ServerFolders, type ServerLoadOptions } from "./server_dir.ts";

/** A burst of file events (an editor's save, a git checkout) is one reload after this quiet. */
const RELOAD_DEBOUNCE_MS = 100;

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
 * again, and reloads into `registry` when anything in them changes.
 */
export function watchAndReload(options: {
  folders: ServerFolders;
  load: ServerLoadOptions;
  registry: Registry;
  diagnostics: Diagnostics;
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

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
    clearTimeout(timer);
    timer = setTimeout(() => running = running.then(rewatchAndReload), debounceMs);
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
  const parents = [...new Set(watched.map((folder) => parentOf(folder.path)))]
    .filter(isDirectory)
    .map((parent) => open(parent, false, true));
  for (const folder of watched) {
    if (isDirectory(folder.path)) folder.watch = open(folder.path, true, false);
  }

  /** A new watcher for each folder an event named or that appeared, then the reload. */
  async function rewatchAndReload(): Promise<void> {
    for (const folder of watched) {
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
      // What skills made of resources is made again below, from the skills now served.
      const ownResources = resources.filter((each) => !before.skills.byKey.has(each.uri));
      const ownTemplates = before.skills.items.length === 0
        ? templates
        : templates.filter((each) => each.name !== SKILLS_EXTENSION);
      let skills = before.skills.items;
      if ("loaded" in parts.skills) skills = parts.skills.loaded;
      else partialOf("skills", parts.skills.error);
      ({ resources, templates } = skills.length === 0
        ? { resources: ownResources, templates: ownTemplates }
        : (await import("../primitives/skills.ts")).withSkillResources(
          { resources: ownResources, templates: ownTemplates },
          skills,
        ));
      let prompts = before.prompts.items;
      if ("loaded" in parts.prompts) prompts = parts.prompts.loaded;
      else {
        const partial = partialOf<readonly Prompt[]>("prompts", parts.prompts.error);
        if (partial) prompts = lastGood(partial.loaded, partial.failed, prompts, (p) => p.name);
      }
      // Middleware is kept whole while any of its files has a problem: a deny rule must not
      // go because its file was saved half-written.
      let middleware = before.middleware;
      if ("loaded" in parts.middleware) {
        middleware = parts.middleware.loaded.map((each) => each.middleware);
      } else partialOf("middleware", parts.middleware.error);
      registry.swap(contentsOf(tools, { resources, templates, prompts, skills, middleware }));
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

  return {
    settled: () => running,
    close() {
      closed = true;
      clearTimeout(timer);
      for (const each of [...parents, ...watched.map((folder) => folder.watch)]) each?.close();
    },
  };
}
