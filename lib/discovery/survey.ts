// What loads but is probably a mistake: the cases the folder loaders pass over without a
// word, because a file there may be anything (a note, a helper, data). A prompt in a
// subdirectory, a `.tsx` module, a script without its executable bit: each is a tool the
// author expects and no client sees. Start-up prints these as warnings, so the survey is
// cheap (one readDir per folder, and per subdirectory of prompts/, plus a stat
// for the few files that look like programs) and never throws.
import type { LoadedServer, ServerFolders } from "./server_dir.ts";
import { folderOf } from "./folder.ts";

/** One warning: the path it is about (a file or a folder, as messages show it) and why. */
interface SurveyWarning {
  readonly path: string;
  /** One sentence, naming the path. */
  readonly message: string;
}

const MODULE = /\.(ts|mts|js|mjs)$/;
const MODULE_LIST = '".ts", ".mts", ".js" or ".mjs"';
/** Module extensions the loaders do not import: TSX/JSX and CommonJS, in any case. */
const NEAR_MODULE = /\.(ts|mts|js|mjs|tsx|jsx|cjs|cts)$/i;
/** Extensions of scripts that are tools only with the executable bit and a sidecar. */
const SCRIPT = /\.(sh|bash|zsh|fish|py|rb|pl|php|lua|r|ps1|exe|bin)$/i;
/** Files that look meant as prompts but are not ".md". */
const NEAR_PROMPT = /\.(markdown|mdx|txt|md)$/i;
const HIDDEN = /^[_.]/;
/** At most this many files named in one message. */
const NAMED = 5;

/**
 * Warnings about the server directory `folders` names, which loaded into `loaded`: nothing
 * served at all, a folder that serves nothing, and files the loaders leave out silently.
 */
export function surveyServer(folders: ServerFolders, loaded: LoadedServer): SurveyWarning[] {
  try {
    const tools = folders.tools ? surveyTools(folders.tools.location) : undefined;
    const resources = folders.resources ? listFolder(folders.resources.location) : undefined;
    const prompts = folders.prompts ? surveyPrompts(folders.prompts.location) : undefined;
    const warnings: SurveyWarning[] = [];
    const served = {
      tools: loaded.tools.tools.length + loaded.tools.skipped.length,
      resources: loaded.resources.length + loaded.templates.length,
      prompts: loaded.prompts.length,
    };
    const empty = [
      tools && served.tools === 0 ? tools.shown : undefined,
      resources && served.resources === 0 ? resources.shown : undefined,
      prompts && served.prompts === 0 ? prompts.shown : undefined,
    ].filter((shown) => shown !== undefined);
    if (served.tools + served.resources + served.prompts === 0 && empty.length > 0) {
      warnings.push({
        path: empty[0],
        message: `Serving nothing: ${quoted(empty)} ${
          empty.length > 1 ? "hold" : "holds"
        } no tool, resource or prompt`,
      });
    } else {
      if (tools && served.tools === 0) {
        warnings.push({
          path: tools.shown,
          message: `The tools folder "${tools.shown}" serves no tool: it holds no module ` +
            `(${MODULE_LIST}) and no program with a ".json" sidecar`,
        });
      }
      if (resources && served.resources === 0) {
        warnings.push({
          path: resources.shown,
          message: `The resources folder "${resources.shown}" serves no resource: it holds ` +
            `no file, or only files whose names start with "_" or "."`,
        });
      }
      if (prompts && served.prompts === 0) {
        warnings.push({
          path: prompts.shown,
          message: `The prompts folder "${prompts.shown}" serves no prompt: it holds no ".md" ` +
            `file and no module (${MODULE_LIST})`,
        });
      }
    }
    warnings.push(...tools?.warnings ?? [], ...prompts?.warnings ?? []);
    return warnings;
  } catch {
    // A survey is advice: whatever stops it (a folder removed meanwhile) is no reason to
    // stop the server, and the loaders report what really cannot be read.
    return [];
  }
}

/** A folder's entries, or undefined when it is not there (or cannot be read). */
interface Listing {
  url: URL;
  shown: string;
  entries: Deno.DirEntry[];
}

function listFolder(location: string | URL): Listing | undefined {
  const { url, shown } = folderOf(location);
  try {
    const entries: Deno.DirEntry[] = [];
    for (const entry of Deno.readDirSync(url)) entries.push(entry);
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return { url, shown, entries };
  } catch {
    return undefined;
  }
}

function surveyTools(
  location: string | URL,
): { shown: string; warnings: SurveyWarning[] } | undefined {
  const listing = listFolder(location);
  if (listing === undefined) return undefined;
  // Folders of tools/ are toolsets (adr/0045), loaded like tools/ itself: surveyed alike.
  const sets = listing.entries.filter((entry) => entry.isDirectory && !HIDDEN.test(entry.name))
    .map((entry) => {
      const set = listFolder(new URL(`${encodeURIComponent(entry.name)}/`, listing.url));
      return set && { ...set, shown: `${listing.shown}/${entry.name}` };
    });
  const warnings: SurveyWarning[] = [];
  for (const each of [listing, ...sets]) {
    if (each !== undefined) warnings.push(...surveyToolFiles(each));
  }
  return { shown: listing.shown, warnings };
}

/** The files of one folder of tools that look meant as tools but are not served. */
function surveyToolFiles(listing: Listing): SurveyWarning[] {
  const { url, shown, entries } = listing;
  const names = new Set(entries.map((entry) => entry.name));
  // A file with a sidecar is the loader's to judge (it reports a program that is not
  // executable); only files nothing claims are passed over in silence.
  const hasSidecar = (name: string) => {
    const dot = name.lastIndexOf(".");
    return names.has(`${name}.json`) || (dot > 0 && names.has(`${name.slice(0, dot)}.json`));
  };
  const warnings: SurveyWarning[] = [];
  const candidates = entries.filter((entry) =>
    !entry.isDirectory && !HIDDEN.test(entry.name) && !MODULE.test(entry.name) &&
    !entry.name.endsWith(".json") && !hasSidecar(entry.name) &&
    (NEAR_MODULE.test(entry.name) || SCRIPT.test(entry.name))
  );
  const executable = candidates.map((entry) => {
    try {
      return (Deno.statSync(new URL(encodeURIComponent(entry.name), url)).mode ?? 0) & 0o111;
    } catch {
      return 0;
    }
  });
  candidates.forEach((entry, index) => {
    // An executable without a sidecar already stops start-up with a message of its own.
    if (executable[index] !== 0) return;
    const path = `${shown}/${entry.name}`;
    if (NEAR_MODULE.test(entry.name)) {
      warnings.push({
        path,
        message: `Not serving "${path}": tool modules end in ${MODULE_LIST} (rename it, or ` +
          `start its name with "_" if it is not a tool)`,
      });
    } else {
      const dot = entry.name.lastIndexOf(".");
      warnings.push({
        path,
        message: `Not serving "${path}": a program is a tool only with the executable bit ` +
          `(chmod +x) and a sidecar "${shown}/${entry.name.slice(0, dot)}.json" (start its ` +
          `name with "_" if it is not a tool)`,
      });
    }
  });
  return warnings;
}

function surveyPrompts(
  location: string | URL,
): { shown: string; warnings: SurveyWarning[] } | undefined {
  const listing = listFolder(location);
  if (listing === undefined) return undefined;
  const { shown, entries } = listing;
  const warnings: SurveyWarning[] = [];
  for (const entry of entries) {
    if (entry.isDirectory || HIDDEN.test(entry.name)) continue;
    if (MODULE.test(entry.name) || entry.name.endsWith(".md")) continue;
    if (!NEAR_MODULE.test(entry.name) && !NEAR_PROMPT.test(entry.name)) continue;
    const path = `${shown}/${entry.name}`;
    warnings.push({
      path,
      message: `Not serving "${path}": prompts are ".md" files or modules (${MODULE_LIST}) ` +
        `(rename it, or start its name with "_" if it is not a prompt)`,
    });
  }
  warnings.push(
    ...nested(listing, (name) => MODULE.test(name) || name.endsWith(".md"), "prompts"),
  );
  return { shown, warnings };
}

/**
 * One warning per subdirectory (not hidden) that holds files which would be served one
 * level up: the loader of `kind` reads its folder alone, not what is below it.
 */
function nested(
  listing: Listing,
  wouldServe: (name: string) => boolean,
  kind: "prompts",
): SurveyWarning[] {
  const subdirectories = listing.entries.filter((entry) =>
    entry.isDirectory && !HIDDEN.test(entry.name)
  );
  const found = subdirectories.map((entry) => {
    const inner = listFolder(new URL(`${encodeURIComponent(entry.name)}/`, listing.url));
    const files = (inner?.entries ?? []).filter((file) =>
      !file.isDirectory && !HIDDEN.test(file.name) && wouldServe(file.name)
    );
    return { name: entry.name, files: files.map((file) => file.name) };
  });
  return found.filter(({ files }) => files.length > 0).map(({ name, files }) => {
    const folder = `${listing.shown}/${name}`;
    const shown = files.map((file) => `${folder}/${file}`);
    const listed = files.length > NAMED
      ? `${shown.slice(0, NAMED).map((file) => `"${file}"`).join(", ")} and ` +
        `${files.length - NAMED} more`
      : quoted(shown);
    return {
      path: folder,
      message: `Not serving ${listed}: ${kind} in subdirectories of ` +
        `"${listing.shown}" are not loaded (move them up, or rename the folder "_${name}" ` +
        `if it holds helpers)`,
    };
  });
}

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`. */
function quoted(values: readonly string[]): string {
  const all = values.map((value) => `"${value}"`);
  return all.length < 2 ? all.join("") : `${all.slice(0, -1).join(", ")} and ${all.at(-1)}`;
}
