// A server directory: up to three folders of primitives, tools/, resources/ and prompts/, each
// optional under the directory and each replaceable by a folder of its own (--tools,
// --resources, --prompts), which must then exist; skills/, optional, served as the skills
// extension says (adr/0047); middleware/, optional, around every request (adr/0025); and ui/,
// optional, its MCP Apps served as `ui://` resources beside resources/'s (adr/0048). Folders
// named on their own without --dir are all that is served (so
// `--tools DIR` alone serves what it always did, whatever the working directory holds). All
// load at once and every problem is reported together.
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import type { Prompt } from "../primitives/prompts.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { type LoadedTools, type LoadOptions, loadTools } from "./tools_dir.ts";
import { folderOf } from "./folder.ts";
import type { LoadedMiddleware } from "./middleware_dir.ts";
import type { Skill } from "../primitives/skills.ts";

type FolderKind = "tools" | "resources" | "prompts" | "skills" | "middleware" | "ui";

/** Where one folder is, and whether it must exist (it was named on its own). */
export interface Folder {
  readonly location: string | URL;
  readonly required: boolean;
}

/** The folders to load; an absent one is not served. */
export type ServerFolders = Readonly<Partial<Record<FolderKind, Folder>>>;

export interface LoadedServer {
  readonly tools: LoadedTools;
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /** The skills of skills/, by URI (their files are served as resources besides). */
  readonly skills: readonly Skill[];
  /**
   * With skills, `resources` and `templates` and what serves the skills' files after them
   * (primitives/skills.ts): what the registry serves.
   */
  readonly skillFiles?: {
    readonly resources: readonly Resource[];
    readonly templates: readonly ResourceTemplate[];
  };
  /** The directory's middleware, in file-name order (empty without a middleware/ folder). */
  readonly middleware: readonly LoadedMiddleware[];
}

export interface ServerLoadOptions extends LoadOptions {
  /** Largest contents one resources/read may return. */
  maxResourceBytes: number;
}

/**
 * The folders to serve: each one named on its own, else DIR/<kind> (DIR: `dir`, else
 * `base`, else the working directory), except that folders named on their own without a
 * `dir` are served alone. `base` is where a compiled binary embeds them.
 */
export function serverFolders(
  given: { dir?: string; tools?: string; resources?: string; prompts?: string },
  base?: URL,
): ServerFolders {
  const alone = given.dir === undefined &&
    KINDS.some((kind) => given[kind] !== undefined);
  const folder = (kind: FolderKind): Folder | undefined => {
    const named = kind === "middleware" || kind === "skills" || kind === "ui"
      ? undefined
      : given[kind];
    if (named !== undefined) return { location: named, required: true };
    if (alone) return undefined;
    if (given.dir !== undefined) {
      const dir = given.dir.replace(/\/+$/, "");
      return { location: dir === "" ? `/${kind}` : `${dir}/${kind}`, required: false };
    }
    return { location: base ? new URL(`./${kind}/`, base) : kind, required: false };
  };
  const folders: Partial<Record<FolderKind, Folder>> = {};
  for (const kind of [...KINDS, "skills", "middleware", "ui"] as const) {
    const found = folder(kind);
    if (found !== undefined) folders[kind] = found;
  }
  return folders;
}

/** The kinds of folder that hold what is served (middleware/ serves nothing by itself). */
const KINDS = ["tools", "resources", "prompts"] as const;

/**
 * One folder's load: what it holds, or every problem found in it (with what the good files
 * held and which files failed, when only some did: DirectoryLoadError.partial).
 */
type Part<T> = { loaded: T } | { problems: readonly string[]; error: DirectoryLoadError };

/** What each folder loaded into, or its problems (a folder absent loaded nothing). */
interface LoadedParts {
  readonly tools: Part<LoadedTools>;
  readonly resources: Part<{ resources: Resource[]; templates: ResourceTemplate[] }>;
  readonly prompts: Part<Prompt[]>;
  readonly skills: Part<Skill[]>;
  readonly middleware: Part<LoadedMiddleware[]>;
}

/** Loads every folder that is there; throws a DirectoryLoadError listing every problem. */
export async function loadServerDir(
  folders: ServerFolders,
  options: ServerLoadOptions,
): Promise<LoadedServer> {
  const parts = await loadServerParts(folders, options);
  const problems = Object.values(parts).flatMap((part) => "problems" in part ? part.problems : []);
  if (problems.length > 0) throw new DirectoryLoadError(problems);
  const loaded = <T>(part: Part<T>) => (part as { loaded: T }).loaded;
  const { resources, templates } = loaded(parts.resources);
  const skills = loaded(parts.skills);
  return {
    tools: loaded(parts.tools),
    resources,
    templates,
    prompts: loaded(parts.prompts),
    skills,
    skillFiles: skills.length === 0
      ? undefined
      : (await import("../primitives/skills.ts")).withSkillResources(
        { resources, templates },
        skills,
      ),
    middleware: loaded(parts.middleware),
  };
}

/**
 * Loads every folder that is there, each on its own: a reload keeps serving what a folder
 * with problems held before (discovery/reload.ts). Throws only when there is nothing to serve.
 */
export async function loadServerParts(
  folders: ServerFolders,
  options: ServerLoadOptions,
): Promise<LoadedParts> {
  const present = await Promise.all(KINDS.map(async (kind) => {
    const folder = folders[kind];
    if (folder === undefined) return undefined;
    return folder.required || await exists(folder.location) ? kind : undefined;
  }));
  const kinds = new Set<FolderKind>(present.filter((kind) => kind !== undefined));
  const skillsFolder = folders.skills;
  if (skillsFolder !== undefined && await exists(skillsFolder.location)) kinds.add("skills");
  if (kinds.size === 0) {
    const looked = KINDS.flatMap((kind) => folders[kind] ? [`"${shown(folders[kind])}"`] : []);
    throw new DirectoryLoadError([
      `Nothing to serve: there is no ${looked.join(", ")} folder (see --dir)`,
    ]);
  }
  const collect = async <T>(load: () => Promise<T>): Promise<Part<T>> => {
    try {
      return { loaded: await load() };
    } catch (error) {
      if (!(error instanceof DirectoryLoadError)) throw error;
      return { problems: error.problems, error };
    }
  };
  const noTools: Part<LoadedTools> = { loaded: { tools: [], byName: new Map(), skipped: [] } };
  const noResources: Part<{ resources: Resource[]; templates: ResourceTemplate[] }> = {
    loaded: { resources: [], templates: [] },
  };
  const noPrompts: Part<Prompt[]> = { loaded: [] };
  const middlewareFolder = folders.middleware;
  const uiFolder = folders.ui;
  const [tools, resources, prompts, skills, middleware, apps] = await Promise.all([
    kinds.has("tools") ? collect(() => loadTools(folders.tools!.location, options)) : noTools,
    kinds.has("resources")
      ? collect(
        async () =>
          // Imported only when there is a folder to load: a server of tools alone never
          // parses these modules (a start-up cost, bench/startup.ts).
          (await import("./resources_dir.ts")).loadResources(folders.resources!.location, {
            maxResourceBytes: options.maxResourceBytes,
            allowOutsideSymlinks: options.allowOutsideSymlinks,
            diagnostics: options.diagnostics,
          }),
      )
      : noResources,
    kinds.has("prompts")
      ? collect(
        async () =>
          (await import("./prompts_dir.ts")).loadPrompts(folders.prompts!.location, {
            allowOutsideSymlinks: options.allowOutsideSymlinks,
            diagnostics: options.diagnostics,
          }),
      )
      : noPrompts,
    kinds.has("skills")
      ? collect(async () =>
        (await import("./skills_dir.ts")).loadSkills(skillsFolder!.location, {
          diagnostics: options.diagnostics,
          maxResourceBytes: options.maxResourceBytes,
        })
      )
      : { loaded: [] },
    middlewareFolder !== undefined && await exists(middlewareFolder.location)
      ? collect(async () =>
        (await import("./middleware_dir.ts")).loadMiddleware(middlewareFolder.location, {
          allowOutsideSymlinks: options.allowOutsideSymlinks,
        })
      )
      : { loaded: [] },
    uiFolder !== undefined && await exists(uiFolder.location)
      ? collect(async () =>
        (await import("./ui_dir.ts")).loadApps(uiFolder.location, {
          maxResourceBytes: options.maxResourceBytes,
          allowOutsideSymlinks: options.allowOutsideSymlinks,
        })
      )
      : undefined,
  ]);
  if (apps === undefined) {
    return { tools: linkedTools(tools, new Set()), resources, prompts, skills, middleware };
  }
  const names = "loaded" in apps ? apps.loaded.map((app) => app.name) : [];
  return {
    tools: linkedTools(tools, new Set(names), "problems" in apps),
    resources: withApps(resources, apps),
    prompts,
    skills,
    middleware,
  };
}

/**
 * The tools part with every tool whose `ui` names no app in `apps` refused (its file fails,
 * the rest load). When ui/ itself failed to load, links are not judged (its problems say why).
 */
function linkedTools(
  part: Part<LoadedTools>,
  apps: ReadonlySet<string>,
  unknown = false,
): Part<LoadedTools> {
  if (!("loaded" in part) || unknown) return part;
  const unlinked = part.loaded.tools.filter((tool) =>
    tool.app !== undefined && !apps.has(tool.app)
  );
  if (unlinked.length === 0) return part;
  const problems = unlinked.map((tool) =>
    `Cannot load tool "${tool.file}": ui names the app "${tool.app}", but there is no ` +
    `ui/${tool.app}.html`
  );
  const failed = new Set(unlinked.map((tool) => tool.file));
  const tools = part.loaded.tools.filter((tool) => !failed.has(tool.file));
  return { problems, error: new DirectoryLoadError(problems, { loaded: tools, failed }) };
}

/** The resources part with the apps of ui/ added (their problems with its own). */
function withApps(
  part: Part<{ resources: Resource[]; templates: ResourceTemplate[] }>,
  apps: Part<Resource[]>,
): Part<{ resources: Resource[]; templates: ResourceTemplate[] }> {
  if ("loaded" in part && "loaded" in apps) {
    const clash = part.loaded.resources.find((resource) => resource.uri.startsWith("ui://"));
    if (clash === undefined) {
      return { loaded: { ...part.loaded, resources: [...part.loaded.resources, ...apps.loaded] } };
    }
    const problems = [
      `Cannot load resource "${clash.file}": its URI "${clash.uri}" is under ui://, which ` +
      `ui/ serves (put the app in ui/)`,
    ];
    return { problems, error: new DirectoryLoadError(problems) };
  }
  const problems = [
    ...("problems" in part ? part.problems : []),
    ...("problems" in apps ? apps.problems : []),
  ];
  return { problems, error: new DirectoryLoadError(problems) };
}

/**
 * False when nothing is at `location`; true otherwise, so that a file where the folder
 * should be, or one that cannot be read, is the folder loader's to report.
 */
async function exists(location: string | URL): Promise<boolean> {
  try {
    await Deno.stat(folderOf(location).url);
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
}

function shown(folder: Folder): string {
  return folderOf(folder.location).shown;
}
