// A server directory: a folder of each kind (discovery/kinds.ts): tools/, resources/ and
// prompts/, each optional under the directory and each replaceable by a folder of its own
// (--tools, --resources, --prompts), which must then exist; skills/, optional, served as the
// skills extension says (adr/0047); middleware/, optional, around every request (adr/0025); and
// ui/, optional, its MCP Apps served as `ui://` resources beside resources/'s (adr/0048). Folders
// named on their own without --dir are all that is served (so `--tools DIR` alone serves what it
// always did, whatever the working directory holds). All load at once and every problem is
// reported together. Here too: where server.meta.json is, beside the folders, and its reading.
import { contentsOf, type Snapshot } from "../primitives/registry.ts";
import { SERVER_META_FILE, type ServerMeta } from "../primitives/server_identity.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { folderOf } from "./folder.ts";
import {
  type Folder,
  type FolderKind,
  type Kind,
  type KindLoads,
  KINDS,
  type LoadedServer,
  type Part,
  type Parts,
  type ServerDraft,
  type ServerFolders,
  type ServerLoadOptions,
} from "./kinds.ts";

export type {
  Folder,
  FolderKind,
  LoadedServer,
  ServerFolders,
  ServerLoadOptions,
} from "./kinds.ts";

/** The folders a flag names on its own (`--tools DIR`), each by its kind's name. */
export type NamedFolders = { readonly dir?: string } & { readonly [K in FolderKind]?: string };

/**
 * The folders to serve: each one named on its own, else DIR/<kind> (DIR: `dir`, else
 * `base`, else the working directory), except that folders named on their own without a
 * `dir` are served alone. `base` is where a compiled binary embeds them.
 */
export function serverFolders(given: NamedFolders, base?: URL): ServerFolders {
  const alone = namedAlone(given);
  const folder = (kind: Kind): Folder | undefined => {
    const named = kind.named ? given[kind.folder] : undefined;
    if (named !== undefined) return { location: named, required: true };
    if (alone) return undefined;
    if (given.dir !== undefined) {
      const dir = given.dir.replace(/\/+$/, "");
      const name = kind.folder;
      return { location: dir === "" ? `/${name}` : `${dir}/${name}`, required: false };
    }
    return { location: base ? new URL(`./${kind.folder}/`, base) : kind.folder, required: false };
  };
  const folders: Partial<Record<FolderKind, Folder>> = {};
  for (const kind of KINDS) {
    const found = folder(kind);
    if (found !== undefined) folders[kind.folder] = found;
  }
  return folders;
}

/** Whether folders are named on their own without a directory: then they are all that is served. */
function namedAlone(given: NamedFolders): boolean {
  return given.dir === undefined &&
    KINDS.some((kind) => kind.named && given[kind.folder] !== undefined);
}

/** What each folder loaded into, or its problems (a folder absent loaded nothing). */
type LoadedParts = { readonly [K in FolderKind]: Part<KindLoads[K]> };

/** Loads every folder that is there; throws a DirectoryLoadError listing every problem. */
export async function loadServerDir(
  folders: ServerFolders,
  options: ServerLoadOptions,
): Promise<LoadedServer> {
  const parts = await loadServerParts(folders, options);
  const problems = KINDS.flatMap((kind) => {
    const part = parts[kind.folder];
    return "problems" in part ? part.problems : [];
  });
  if (problems.length > 0) throw new DirectoryLoadError(problems);
  return await serverOf((kind) => (parts[kind.folder] as { loaded: KindLoads[FolderKind] }).loaded);
}

/**
 * What the server serves, each kind's load (`loadedOf`) put in, in the order of KINDS (a reload
 * gives what a kind with problems keeps).
 */
export async function serverOf(
  loadedOf: (kind: Kind) => KindLoads[FolderKind],
): Promise<LoadedServer> {
  const server: ServerDraft = {
    tools: { tools: [], byName: new Map(), skipped: [] },
    resources: [],
    templates: [],
    prompts: [],
    skills: [],
    skillFiles: undefined,
    middleware: [],
  };
  for (const kind of KINDS) await kind.serve(loadedOf(kind), server);
  return server;
}

/** The registry's catalogs of what a server directory serves (skills' files among resources). */
export function contentsOfServer(loaded: LoadedServer): Omit<Snapshot, "version"> {
  return contentsOf(loaded.tools.tools, {
    ...loaded,
    // Skills add their files to resources (made when they loaded).
    ...loaded.skillFiles,
    middleware: loaded.middleware.map((each) => each.middleware),
  });
}

/**
 * Loads every folder that is there, each on its own: a reload keeps serving what a folder
 * with problems held before (discovery/reload.ts). Throws only when there is nothing to serve.
 */
export async function loadServerParts(
  folders: ServerFolders,
  options: ServerLoadOptions,
): Promise<LoadedParts> {
  const present = KINDS.map((kind) => {
    const folder = folders[kind.folder];
    if (folder === undefined) return false;
    return folder.required || exists(folder.location);
  });
  if (!KINDS.some((kind, index) => kind.serves && present[index])) {
    const looked = KINDS.flatMap((kind) => {
      const folder = folders[kind.folder];
      return kind.named && folder ? [`"${shown(folder)}"`] : [];
    });
    throw new DirectoryLoadError([
      `Nothing to serve: there is no ${looked.join(", ")} folder (see --dir)`,
    ]);
  }
  const loads = await Promise.all(KINDS.map(async (kind, index) => {
    if (!present[index]) return undefined;
    try {
      return { loaded: await kind.load(folders[kind.folder]!.location, options) };
    } catch (error) {
      if (!(error instanceof DirectoryLoadError)) throw error;
      return { problems: error.problems, error };
    }
  }));
  let parts: Parts = Object.fromEntries(KINDS.map((kind, index) => [kind.folder, loads[index]]));
  for (const kind of KINDS) if (kind.link) parts = kind.link(parts);
  return Object.fromEntries(
    KINDS.map((kind) => [kind.folder, parts[kind.folder] ?? { loaded: kind.empty }]),
  ) as unknown as LoadedParts;
}

/**
 * Where server.meta.json is for the folders `serverFolders` chose from the same arguments:
 * DIR's, else beside the embedded folders of a compiled binary, else the working directory's;
 * none when folders are named on their own without a directory.
 */
export function serverMetaLocation(given: NamedFolders, base?: URL): string | URL | undefined {
  if (given.dir !== undefined) {
    const dir = given.dir.replace(/\/+$/, "");
    return `${dir}/${SERVER_META_FILE}`;
  }
  if (namedAlone(given)) return undefined;
  return base ? new URL(SERVER_META_FILE, base) : SERVER_META_FILE;
}

/**
 * The server directory's server.meta.json (adr/0049): what it says; undefined when there is no
 * file. Read once at start-up (a change needs a restart, even with --watch); a file with
 * problems stops start-up like a bad tool does, each problem naming the file and the field.
 * Throws a DirectoryLoadError.
 */
export async function loadServerMeta(location: string | URL): Promise<ServerMeta | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(location);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new DirectoryLoadError([`"${metaShown(location)}" cannot be read: ${String(error)}`]);
  }
  // The parser loads only for a directory that has the file (adr/0051).
  const { parseServerMeta } = await import("../primitives/server_meta.ts");
  const parsed = parseServerMeta(text, metaShown(location));
  if ("problems" in parsed) throw new DirectoryLoadError(parsed.problems);
  return parsed.meta;
}

function metaShown(location: string | URL): string {
  return location instanceof URL ? decodeURIComponent(location.pathname) : location;
}

/**
 * False when nothing is at `location`; true otherwise, so that a file where the folder
 * should be, or one that cannot be read, is the folder loader's to report.
 */
function exists(location: string | URL): boolean {
  try {
    Deno.statSync(folderOf(location).url);
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
}

function shown(folder: Folder): string {
  return folderOf(folder.location).shown;
}
