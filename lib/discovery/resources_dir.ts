// Resource discovery: the resources directory, walked with its subdirectories. A module
// (`.ts`, `.mts`, `.js`, `.mjs`) default-exports a resource or a template; every other file is
// a resource itself, served as it is. A bad entry stops start-up with a message naming its
// file, all problems together. Building the resources is primitives/resource_*.ts's.
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import { fileResource, mimeLookup, type ResourceFile } from "../primitives/resource_files.ts";
import { type ModuleResource, resourceFromModule } from "../primitives/resource_modules.ts";
import { uriTemplatesReady } from "../primitives/uri_template.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { importDefault } from "./import_module.ts";
import { folderOf } from "./folder.ts";

/** What loadResources() found: resources sorted by URI, templates by name. */
export interface LoadedResources {
  resources: Resource[];
  templates: ResourceTemplate[];
}

export interface ResourceLoadOptions {
  /** Largest contents one read may return, in bytes (text as UTF-8, blob decoded). */
  maxResourceBytes: number;
  /** Serve files and directories that are symlinks to places outside the directory. */
  allowOutsideSymlinks: boolean;
  /** Where warnings go (a file over the byte limit). */
  diagnostics: Diagnostics;
}

/** Most files a resources directory may hold (modules and other files together). */
export const MAX_RESOURCE_FILES = 10_000;

const MODULE_EXTENSIONS = /\.(ts|mts|js|mjs)$/;

/** What the walk found, each list in path order. */
interface Walk {
  files: ResourceFile[];
  modules: { path: string; url: URL }[];
  problems: string[];
  /** The paths the problems are about. */
  failed: string[];
  /** The walk stopped short (too many files): what it found is not the whole folder. */
  truncated: boolean;
}

/**
 * Loads every resource and resource template in `dir`, a path (relative to the working
 * directory) or a directory URL, with its subdirectories. Files and directories whose names
 * start with `_` or `.` are left out. Throws a DirectoryLoadError with every problem found.
 */
export async function loadResources(
  dir: string | URL,
  options: ResourceLoadOptions,
): Promise<LoadedResources> {
  const { url: dirUrl, shown: shownDir } = folderOf(dir);
  const shown = (path: string) => `${shownDir}/${path}`;
  let walk: Walk;
  let realDir: string;
  try {
    realDir = Deno.realPathSync(dirUrl);
    walk = walkDirectory(dirUrl, realDir, shownDir, options.allowOutsideSymlinks);
  } catch (error) {
    throw new DirectoryLoadError([
      `Cannot read the resources directory "${shownDir}": ${messageOf(error)}`,
    ]);
  }
  const problems = [...walk.problems];
  const failed = new Set(walk.failed);

  const insideDir = options.allowOutsideSymlinks ? undefined : `${realDir}/`;
  const readOptions = { maxResourceBytes: options.maxResourceBytes, insideDir };
  const typeOf = walk.files.length > 0 ? await mimeLookup() : undefined;
  const fromFiles = walk.files.map((file) => ({
    path: file.path,
    resource: fileResource(file, typeOf!(file.path), readOptions),
  }));
  const fromModules = await Promise.all(walk.modules.map(async ({ path, url }) => ({
    path,
    outcome: await loadModule(url, path, options.maxResourceBytes),
  })));

  // Clashes are looked for in path order, so that messages are stable.
  const byUri = new Map<string, { resource: Resource; path: string }>();
  const byName = new Map<string, { template: ResourceTemplate; path: string }>();
  const addResource = (resource: Resource, path: string) => {
    const clash = byUri.get(resource.uri);
    if (clash !== undefined) {
      failed.add(path);
      problems.push(
        `Cannot load resource "${shown(path)}": the URI "${resource.uri}" is already used by ` +
          `"${shown(clash.path)}"`,
      );
    } else byUri.set(resource.uri, { resource, path });
  };
  const entries = [
    ...fromFiles.map(({ path, resource }) => ({ path, outcome: { kind: "resource", resource } })),
    ...fromModules,
  ] as { path: string; outcome: ModuleResource }[];
  entries.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  for (const { path, outcome } of entries) {
    if (outcome.kind === "invalid") {
      failed.add(path);
      for (const problem of outcome.problems) {
        problems.push(`Cannot load resource "${shown(path)}": ${problem}`);
      }
    } else if (outcome.kind === "resource") {
      addResource(outcome.resource, path);
    } else {
      const { template } = outcome;
      const clash = byName.get(template.name);
      if (clash !== undefined) {
        failed.add(path);
        problems.push(
          `Cannot load resource "${shown(path)}": the template name "${template.name}" is ` +
            `already used by "${shown(clash.path)}"`,
        );
      } else byName.set(template.name, { template, path });
    }
  }
  for (const file of walk.files) {
    if (file.size > options.maxResourceBytes) {
      options.diagnostics.error(
        `Resource "${shown(file.path)}" is ${file.size} bytes, over the limit of ` +
          `${options.maxResourceBytes} bytes (--max-resource-bytes): reading it will fail`,
      );
    }
  }
  const resources = [...byUri.values()].map(({ resource, path }) =>
    Object.freeze({ ...resource, file: shown(path) })
  ).sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  const templates = [...byName.values()].map(({ template, path }) =>
    Object.freeze({ ...template, file: shown(path) })
  ).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  // Scopes are checked before a read, at once: a template that asks for some must match then.
  if (templates.some((template) => template.scopes.length > 0)) await uriTemplatesReady();
  if (problems.length > 0) {
    throw new DirectoryLoadError(
      problems,
      walk.truncated ? undefined : {
        loaded: { resources, templates },
        failed: new Set([...failed].map(shown)),
      },
    );
  }
  return { resources, templates };
}

/** Imports a module and builds what it defines; a failed import is a problem like any other. */
async function loadModule(
  url: URL,
  path: string,
  maxResourceBytes: number,
): Promise<ModuleResource> {
  let definition: unknown;
  try {
    definition = await importDefault(url, "modules");
  } catch (error) {
    return { kind: "invalid", problems: [messageOf(error)] };
  }
  const fileName = path.slice(path.lastIndexOf("/") + 1);
  return await resourceFromModule(definition, fileName.replace(MODULE_EXTENSIONS, ""), {
    maxResourceBytes,
  });
}

/**
 * Walks the directory depth first, entries in name order: files and modules by their path
 * under it, symlinks checked against it, at most MAX_RESOURCE_FILES files.
 */
function walkDirectory(
  rootUrl: URL,
  realRoot: string,
  shownDir: string,
  allowOutsideSymlinks: boolean,
): Walk {
  const walk: Walk = { files: [], modules: [], problems: [], failed: [], truncated: false };
  let count = 0;
  const visit = (dirUrl: URL, prefix: string, ancestors: string[]): boolean => {
    const names: { name: string; symlink: boolean; directory: boolean }[] = [];
    for (const entry of Deno.readDirSync(dirUrl)) {
      if (/^[_.]/.test(entry.name)) continue;
      names.push({ name: entry.name, symlink: entry.isSymlink, directory: entry.isDirectory });
    }
    names.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const files: ResourceFile[] = [];
    for (const { name, symlink, directory } of names) {
      const path = `${prefix}${name}`;
      const url = new URL(encodeURIComponent(name), dirUrl);
      let isDirectory = directory;
      let real: string | undefined;
      if (symlink) {
        try {
          real = Deno.realPathSync(url);
          isDirectory = Deno.statSync(url).isDirectory;
        } catch {
          continue; // A dangling symlink: nothing to serve.
        }
        if (!allowOutsideSymlinks && !real.startsWith(`${realRoot}/`)) {
          walk.failed.push(path);
          walk.problems.push(
            `Cannot load resource "${shownDir}/${path}": it is a symlink to "${real}", outside ` +
              `the resources directory (--allow-outside-symlinks allows it)`,
          );
          continue;
        }
      }
      if (isDirectory) {
        const realDir = real ?? Deno.realPathSync(url);
        if (ancestors.includes(realDir)) {
          walk.failed.push(path);
          walk.problems.push(
            `Cannot load resource "${shownDir}/${path}": it is a symlink to a directory that ` +
              `holds it, which would be walked forever`,
          );
          continue;
        }
        if (
          !visit(new URL(`${encodeURIComponent(name)}/`, dirUrl), `${path}/`, [
            ...ancestors,
            realDir,
          ])
        ) return false;
        continue;
      }
      if (++count > MAX_RESOURCE_FILES) {
        walk.truncated = true;
        walk.problems.push(
          `Cannot load the resources directory "${shownDir}": it holds more than ` +
            `${MAX_RESOURCE_FILES} files`,
        );
        return false;
      }
      if (MODULE_EXTENSIONS.test(name)) walk.modules.push({ path, url });
      else files.push({ path, url, size: 0, mtime: null });
    }
    // One stat per file: the size and the modification time the listing shows.
    for (const file of files) {
      let info: Deno.FileInfo;
      try {
        info = Deno.statSync(file.url);
      } catch {
        continue; // Gone since the directory was read.
      }
      // Not a regular file (a socket, a FIFO): not served.
      if (info.isFile) walk.files.push({ ...file, size: info.size, mtime: info.mtime });
    }
    return true;
  };
  visit(rootUrl, "", [realRoot]);
  walk.files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return walk;
}
