// Prompt discovery: every Markdown file in the prompts directory is a prompt, and so is
// every module (its default export a prompt definition). A bad prompt stops start-up with a
// message naming its file; all problems are reported together so an author fixes them in
// one pass. Checking one prompt is primitives/markdown_prompts.ts's and prompt_modules.ts's.
import { messageOf } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Prompt } from "../primitives/prompts.ts";
import { markdownPrompt } from "../primitives/markdown_prompts.ts";
import { modulePrompt } from "../primitives/prompt_modules.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { byUniqueName, importDefault } from "./import_module.ts";
import { folderOf } from "./folder.ts";

interface PromptLoadOptions {
  /** Serve prompt files that are symlinks to files outside the directory. */
  allowOutsideSymlinks: boolean;
  /** Where notes about prompts go. */
  diagnostics: Diagnostics;
}

const MODULE_EXTENSIONS = /\.(ts|mts|js|mjs)$/;
const MARKDOWN_EXTENSION = /\.md$/;

/** One file that may be a prompt. */
interface Entry {
  fileName: string;
  isSymlink: boolean;
}

/**
 * Loads every prompt in `dir`, a path (relative to the working directory) or a directory
 * URL: Markdown files (`.md`) and modules (`.ts`, `.mts`, `.js`, `.mjs`), sorted by name.
 * Files whose names start with `_` or `.`, subdirectories and other files are not prompts.
 * Throws a DirectoryLoadError holding every problem found.
 */
export async function loadPrompts(
  dir: string | URL,
  options: PromptLoadOptions,
): Promise<Prompt[]> {
  const { url: dirUrl, shown: shownDir } = folderOf(dir);
  const entries: Entry[] = [];
  try {
    for (const entry of Deno.readDirSync(dirUrl)) {
      if (entry.isDirectory || /^[_.]/.test(entry.name)) continue;
      if (MODULE_EXTENSIONS.test(entry.name) || MARKDOWN_EXTENSION.test(entry.name)) {
        entries.push({ fileName: entry.name, isSymlink: entry.isSymlink });
      }
    }
  } catch (error) {
    throw new DirectoryLoadError([
      `Cannot read the prompts directory "${shownDir}": ${messageOf(error)}`,
    ]);
  }
  entries.sort((a, b) => a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0);
  const inside = options.allowOutsideSymlinks || !entries.some((entry) => entry.isSymlink)
    ? undefined
    : Promise.resolve().then(() => `${Deno.realPathSync(dirUrl)}/`);
  // Prompts load in parallel; names are checked in file order, so messages are stable.
  const loaded = await Promise.allSettled(
    entries.map((entry) => loadPrompt(dirUrl, shownDir, entry, inside)),
  );
  const files = entries.map((entry) => `${shownDir}/${entry.fileName}`);
  const { byName, problems } = byUniqueName(loaded, files, "prompt");
  const prompts = [...byName.values()].map(({ item, file }) => Object.freeze({ ...item, file }))
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  if (problems.length > 0) {
    const good = new Set(prompts.map((prompt) => prompt.file));
    throw new DirectoryLoadError(problems, {
      loaded: prompts,
      failed: new Set(files.filter((file) => !good.has(file))),
    });
  }
  return prompts;
}

async function loadPrompt(
  dirUrl: URL,
  shownDir: string,
  entry: Entry,
  inside: Promise<string> | undefined,
): Promise<Prompt> {
  const { fileName } = entry;
  const url = new URL(fileName, dirUrl);
  if (entry.isSymlink && inside !== undefined) {
    const real = Deno.realPathSync(url);
    if (!real.startsWith(await inside)) {
      throw new Error(
        `"${shownDir}/${fileName}" is a symlink to "${real}", outside the prompts directory ` +
          `(--allow-outside-symlinks allows it)`,
      );
    }
  }
  if (MARKDOWN_EXTENSION.test(fileName)) {
    return markdownPrompt(await Deno.readTextFile(url), fileName.replace(MARKDOWN_EXTENSION, ""));
  }
  const definition = await importDefault(url, "prompts");
  return modulePrompt(definition, fileName.replace(MODULE_EXTENSIONS, ""));
}
