// The kinds of folder a server directory holds (adr/0061), each declared once: its folder, how
// it loads, what it serves, what a reload keeps of it, how the start-up line and `toolshed
// check` count it, and what crosses into other kinds. Loading (server_dir.ts), reload
// (reload.ts), main.ts's start-up line, `toolshed check` and createServer loop over KINDS, so a
// new kind is a descriptor here (its loader a file of its own) and its entry in KINDS. The six
// share this one module: start-up loads no more modules for them (adr/0051), and every loader
// but tools/'s is imported only when its folder is there.
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Skill } from "../primitives/skills.ts";
import type { Tool } from "../primitives/tools.ts";
import { DirectoryLoadError, type PartialLoad } from "./load_error.ts";
import { type LoadedTools, type LoadOptions, loadTools } from "./tools_dir.ts";
import { MOUNT_SUFFIX } from "../mounts/names.ts";
import type { LoadedResources } from "./resources_dir.ts";
// Static: assembly.ts loads this module at every start anyway (checkMiddleware), and a dynamic
// import of a module a start loads splits the npm bundle's start chunk (adr/0074).
import { type LoadedMiddleware, loadMiddleware } from "./middleware_dir.ts";

/** What each kind's folder loads into; its keys are the kinds (and their folders' names). */
export interface KindLoads {
  tools: LoadedTools;
  resources: LoadedResources;
  ui: readonly Resource[];
  prompts: readonly Prompt[];
  skills: readonly Skill[];
  middleware: readonly LoadedMiddleware[];
}

export type FolderKind = keyof KindLoads;

/** Where one folder is, and whether it must exist (it was named on its own). */
export interface Folder {
  readonly location: string | URL;
  readonly required: boolean;
}

/** The folders to load; an absent one is not served. */
export type ServerFolders = Readonly<Partial<Record<FolderKind, Folder>>>;

export interface ServerLoadOptions extends LoadOptions {
  /** Largest contents one resources/read may return. */
  maxResourceBytes: number;
}

/** What the server directory serves, every kind's share put in (`serve`). */
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

/**
 * One folder's load: what it holds, or every problem found in it (with what the good files
 * held and which files failed, when only some did: DirectoryLoadError.partial).
 */
export type Part<T> = { loaded: T } | { problems: readonly string[]; error: DirectoryLoadError };

/** Each folder's load, before the kinds are linked; a folder that is not there has none. */
export type Parts = { readonly [K in FolderKind]?: Part<KindLoads[K]> };

/** A server being put together from its kinds' loads. */
export type ServerDraft = { -readonly [K in keyof LoadedServer]: LoadedServer[K] };

/** One kind's share of the start-up line ("2 tools"), and its fields in the JSON log. */
interface Counted {
  /** Undefined: nothing of it to say (it serves none). */
  readonly said?: string;
  readonly fields?: Readonly<Record<string, number>>;
}

interface KindOf<K extends FolderKind> {
  /** Its folder under the server directory (DIR/tools), and the kind's name in messages. */
  readonly folder: K;
  /** A flag names its folder on its own (`--tools DIR`), which must then exist. */
  readonly named: boolean;
  /** It serves by itself: a directory with none of these folders has nothing to serve. */
  readonly serves: boolean;
  /** Loads the folder at `location`; throws a DirectoryLoadError listing every problem. */
  load(location: string | URL, settings: ServerLoadOptions): Promise<KindLoads[K]>;
  /** What a folder that is not there loads. */
  readonly empty: KindLoads[K];
  /** What crosses kinds, once every folder is loaded: the parts, with this kind's links made. */
  link?(parts: Parts): Parts;
  /** Puts what the folder loaded into the server (after the kinds before it in KINDS). */
  serve(loaded: KindLoads[K], server: ServerDraft): void | Promise<void>;
  /**
   * Reload's last good: what the kind serves when its folder has problems, from what was
   * served `before` and what its good files hold now (`partial`, when only some failed).
   */
  keep(before: LoadedServer, partial: PartialLoad<unknown> | undefined): KindLoads[K];
  /** Its share of the start-up line. */
  count(loaded: LoadedServer): Counted;
  /** What `toolshed check` does with it. */
  readonly check: {
    /** Its TypeScript modules are type-checked: those of the folder, or of its subfolders too. */
    readonly types?: "folder" | "deep";
    /** Counted in the summary line as `noun`s, when `count` gives a number. */
    readonly summary?: { noun: string; count(loaded: LoadedServer): number | undefined };
  };
}

/** Any kind, as the loops over KINDS take it. */
export type Kind = KindOf<FolderKind>;

/** "1 tool", "2 tools". */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

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

/** Not from a mounted server: its mount brings it again, from tools/ (adr/0071). */
const notMounted = (primitive: { file?: string }) => !primitive.file?.endsWith(MOUNT_SUFFIX);

/**
 * Sentences for what a mount serves under a name or URI (`keyOf`) a folder's file serves too,
 * each with the mount file that fails for it.
 */
function clashes<P extends { file?: string }>(
  mounted: readonly P[],
  own: readonly P[],
  keyOf: (primitive: P) => string,
  what: string,
): { file: string; sentence: string }[] {
  const owners = new Map(own.map((primitive) => [keyOf(primitive), primitive.file]));
  return mounted.flatMap((primitive) => {
    const owner = owners.get(keyOf(primitive));
    const file = primitive.file ?? "";
    return owners.has(keyOf(primitive))
      ? [{
        file,
        sentence: `Cannot load the mounted server "${file}": the ${what} "${
          keyOf(primitive)
        }" is already served by "${owner}"`,
      }]
      : [];
  });
}

/** The apps of ui/ among resources (ui://, adr/0048). */
const isApp = (resource: Resource) => resource.uri.startsWith("ui://");

const TOOLS: KindOf<"tools"> = {
  folder: "tools",
  named: true,
  serves: true,
  load: (location, settings) => loadTools(location, settings),
  empty: { tools: [], byName: new Map(), skipped: [] },
  // Mounted servers' prompts, resources and templates join the folders' own (adr/0071): a
  // name or URI both serve fails the mount file.
  link(parts) {
    const tools = parts.tools;
    if (tools === undefined || !("loaded" in tools) || tools.loaded.mounted === undefined) {
      return parts;
    }
    const { mounted } = tools.loaded;
    const ownPrompts = parts.prompts && "loaded" in parts.prompts ? parts.prompts.loaded : [];
    const own = parts.resources && "loaded" in parts.resources
      ? parts.resources.loaded
      : RESOURCES.empty;
    const problems = [
      ...clashes(mounted.prompts, ownPrompts, (each) => each.name, "prompt name"),
      ...clashes(mounted.resources, own.resources, (each) => each.uri, "resource URI"),
      ...clashes(mounted.templates, own.templates, (each) => each.name, "template name"),
    ];
    if (problems.length === 0) return parts;
    const failed = new Set(problems.map(({ file }) => file));
    const kept = tools.loaded.tools.filter((tool) => !failed.has(tool.file));
    const sentences = problems.map(({ sentence }) => sentence);
    return {
      ...parts,
      tools: {
        problems: sentences,
        error: new DirectoryLoadError(sentences, { loaded: kept, failed }),
      },
    };
  },
  serve(loaded, server) {
    server.tools = loaded;
    if (loaded.mounted === undefined) return;
    server.prompts = [...server.prompts, ...loaded.mounted.prompts];
    server.resources = [...server.resources, ...loaded.mounted.resources];
    server.templates = [...server.templates, ...loaded.mounted.templates];
  },
  keep(before, partial) {
    const kept = partial === undefined ? before.tools.tools : lastGood(
      partial.loaded as readonly Tool[],
      partial.failed,
      before.tools.tools,
      (tool) => tool.name,
    );
    return {
      tools: kept,
      byName: new Map(kept.map((tool) => [tool.name, tool])),
      skipped: before.tools.skipped,
      ...(before.tools.mounted === undefined ? {} : { mounted: before.tools.mounted }),
    };
  },
  count(loaded) {
    const n = loaded.tools.tools.length;
    return { said: n > 0 ? counted(n, "tool") : undefined, fields: { tools: n } };
  },
  check: {
    types: "folder",
    summary: { noun: "tool", count: (loaded) => loaded.tools.tools.length },
  },
};

const RESOURCES: KindOf<"resources"> = {
  folder: "resources",
  named: true,
  serves: true,
  // Imported only when there is a folder to load: a server of tools alone never parses these
  // modules (a start-up cost, bench/startup.ts).
  load: async (location, settings) =>
    (await import("./resources_dir.ts")).loadResources(location, {
      maxResourceBytes: settings.maxResourceBytes,
      allowOutsideSymlinks: settings.allowOutsideSymlinks,
      diagnostics: settings.diagnostics,
    }),
  empty: { resources: [], templates: [] },
  serve(loaded, server) {
    server.resources = [...server.resources, ...loaded.resources];
    server.templates = [...server.templates, ...loaded.templates];
  },
  keep(before, partial) {
    if (partial === undefined) {
      return {
        resources: before.resources.filter(notMounted),
        templates: before.templates.filter(notMounted),
      };
    }
    const { resources, templates } = partial.loaded as LoadedResources;
    return {
      resources: lastGood(resources, partial.failed, before.resources, (each) => each.uri),
      templates: lastGood(templates, partial.failed, before.templates, (each) => each.name),
    };
  },
  count(loaded) {
    // The apps of ui/ are resources too, said apart (UI).
    const resources = loaded.resources.filter((resource) => !isApp(resource)).length;
    const templates = loaded.templates.length;
    return {
      said: resources + templates === 0
        ? undefined
        : templates === 0
        ? counted(resources, "resource")
        : `${counted(resources, "resource")} and ${counted(templates, "template")}`,
      fields: { resources, templates },
    };
  },
  check: {
    types: "deep",
    summary: {
      noun: "resource",
      count: (loaded) => loaded.resources.length + loaded.templates.length,
    },
  },
};

/**
 * ui/'s apps are resources (ui://, adr/0048): linked, they join resources/'s part, so a
 * problem in either keeps both on reload, and the apps tools' `ui` names are checked.
 */
const UI: KindOf<"ui"> = {
  folder: "ui",
  named: false,
  serves: false,
  load: async (location, settings) =>
    (await import("./ui_dir.ts")).loadApps(location, {
      maxResourceBytes: settings.maxResourceBytes,
      allowOutsideSymlinks: settings.allowOutsideSymlinks,
    }),
  empty: [],
  link(parts) {
    const apps = parts.ui;
    const names = apps !== undefined && "loaded" in apps ? apps.loaded.map((app) => app.name) : [];
    const tools = parts.tools &&
      linkedTools(parts.tools, new Set(names), apps && "problems" in apps);
    if (apps === undefined) return { ...parts, tools };
    const resources = withApps(parts.resources ?? { loaded: RESOURCES.empty }, apps);
    return { ...parts, tools, resources, ui: { loaded: [] } };
  },
  serve() {}, // linked into resources/'s part
  keep: () => [],
  count(loaded) {
    const apps = loaded.resources.filter(isApp).length;
    return { said: apps > 0 ? counted(apps, "app") : undefined };
  },
  check: {},
};

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
  part: Part<LoadedResources>,
  apps: Part<readonly Resource[]>,
): Part<LoadedResources> {
  if ("loaded" in part && "loaded" in apps) {
    const clash = part.loaded.resources.find(isApp);
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

const PROMPTS: KindOf<"prompts"> = {
  folder: "prompts",
  named: true,
  serves: true,
  load: async (location, settings) =>
    (await import("./prompts_dir.ts")).loadPrompts(location, {
      allowOutsideSymlinks: settings.allowOutsideSymlinks,
      diagnostics: settings.diagnostics,
    }),
  empty: [],
  serve(loaded, server) {
    server.prompts = [...server.prompts, ...loaded];
  },
  keep: (before, partial) =>
    partial === undefined ? before.prompts.filter(notMounted) : lastGood(
      partial.loaded as readonly Prompt[],
      partial.failed,
      before.prompts,
      (p) => p.name,
    ),
  count(loaded) {
    const n = loaded.prompts.length;
    return { said: n > 0 ? counted(n, "prompt") : undefined, fields: { prompts: n } };
  },
  check: {
    types: "folder",
    summary: { noun: "prompt", count: (loaded) => loaded.prompts.length },
  },
};

/** Skills serve their files as resources after every other (primitives/skills.ts). */
const SKILLS: KindOf<"skills"> = {
  folder: "skills",
  named: false,
  serves: true,
  load: async (location, settings) =>
    (await import("./skills_dir.ts")).loadSkills(location, {
      diagnostics: settings.diagnostics,
      maxResourceBytes: settings.maxResourceBytes,
    }),
  empty: [],
  async serve(loaded, server) {
    server.skills = loaded;
    server.skillFiles = loaded.length === 0
      ? undefined
      : (await import("../primitives/skills.ts")).withSkillResources(server, loaded);
  },
  keep: (before) => before.skills,
  count(loaded) {
    const n = loaded.skills.length;
    return { said: n > 0 ? counted(n, "skill") : undefined };
  },
  check: {
    summary: {
      noun: "skill",
      count: (loaded) => loaded.skills.length > 0 ? loaded.skills.length : undefined,
    },
  },
};

/**
 * Middleware is kept whole on reload while any of its files has a problem: a deny rule must
 * not go because its file was saved half-written.
 */
const MIDDLEWARE: KindOf<"middleware"> = {
  folder: "middleware",
  named: false,
  serves: false,
  load: (location, settings) =>
    loadMiddleware(location, { allowOutsideSymlinks: settings.allowOutsideSymlinks }),
  empty: [],
  serve(loaded, server) {
    server.middleware = [...server.middleware, ...loaded];
  },
  keep: (before) => before.middleware,
  count(loaded) {
    const n = loaded.middleware.length;
    return { said: n > 0 ? `${n} middleware` : undefined };
  },
  check: { types: "folder" },
};

/**
 * Every kind, in the order the start-up line says them and load problems are listed (ui/
 * after resources/, which its apps join; skills after every kind that serves resources).
 */
export const KINDS: readonly Kind[] = [TOOLS, RESOURCES, UI, PROMPTS, SKILLS, MIDDLEWARE];
