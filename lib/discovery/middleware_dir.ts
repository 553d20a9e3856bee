// Middleware discovery (adr/0025): every module in the server directory's `middleware/` folder
// default-exports one middleware, `(next) => (call) => …`, and they run in file-name order, the
// first outermost (name them `10_audit.ts`, `20_deny.ts` to order them). A bad file stops
// start-up with a message naming it; all problems are reported together. A reload that finds a
// problem keeps every middleware it served (discovery/reload.ts): a deny rule must not vanish
// because its file was saved half-written.
import { messageOf } from "../util/json.ts";
import type { CallHandler, Middleware } from "../primitives/types.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { importDefault } from "./import_module.ts";
import { folderOf } from "./folder.ts";

/** One middleware and the file it came from (for messages and the start-up line). */
export interface LoadedMiddleware {
  readonly middleware: Middleware;
  readonly file: string;
}

const MODULE_EXTENSIONS = /\.(ts|mts|js|mjs)$/;

interface MiddlewareLoadOptions {
  /** Serve middleware files that are symlinks to files outside the folder. */
  allowOutsideSymlinks: boolean;
}

/**
 * Loads every middleware in `dir` (a path, relative to the working directory, or a directory
 * URL): the modules (`.ts`, `.mts`, `.js`, `.mjs`) not starting with `_` or `.`, sorted by
 * name. Throws a DirectoryLoadError holding every problem found.
 */
export async function loadMiddleware(
  dir: string | URL,
  options: MiddlewareLoadOptions,
): Promise<LoadedMiddleware[]> {
  const { url: dirUrl, shown: shownDir } = folderOf(dir);
  const names: { name: string; isSymlink: boolean }[] = [];
  try {
    for (const entry of Deno.readDirSync(dirUrl)) {
      if (entry.isDirectory || /^[_.]/.test(entry.name)) continue;
      if (MODULE_EXTENSIONS.test(entry.name)) {
        names.push({ name: entry.name, isSymlink: entry.isSymlink });
      }
    }
  } catch (error) {
    throw new DirectoryLoadError([
      `Cannot read the middleware directory "${shownDir}": ${messageOf(error)}`,
    ]);
  }
  names.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const inside = options.allowOutsideSymlinks || !names.some((entry) => entry.isSymlink)
    ? undefined
    : Promise.resolve().then(() => `${Deno.realPathSync(dirUrl)}/`);
  const outcomes = await Promise.allSettled(names.map(async ({ name, isSymlink }) => {
    const url = new URL(name, dirUrl);
    if (isSymlink && inside !== undefined) {
      const real = Deno.realPathSync(url);
      if (!real.startsWith(await inside)) {
        throw new Error(
          `it is a symlink to "${real}", outside the middleware directory ` +
            `(--allow-outside-symlinks allows it)`,
        );
      }
    }
    return checkMiddleware(await importDefault(url, "middleware"));
  }));
  const problems: string[] = [];
  const loaded: LoadedMiddleware[] = [];
  outcomes.forEach((outcome, index) => {
    const file = `${shownDir}/${names[index].name}`;
    if (outcome.status === "fulfilled") loaded.push({ middleware: outcome.value, file });
    else problems.push(`Cannot load middleware "${file}": ${messageOf(outcome.reason)}`);
  });
  if (problems.length > 0) throw new DirectoryLoadError(problems);
  return loaded;
}

/**
 * The default export as a middleware, or an error saying what it should be. It is called once
 * here with a `next` that is never run, to see that it gives a handler: the chain is composed
 * from it whenever what is served changes, which must not fail later.
 */
export function checkMiddleware(exported: unknown): Middleware {
  const shape = "its default export must be a middleware, (next) => (call) => next(call)";
  if (typeof exported !== "function") {
    throw new Error(
      exported === undefined
        ? `it has no default export: ${shape}`
        : `${shape}, not ${exported === null ? "null" : typeof exported}`,
    );
  }
  const never: CallHandler = () => {
    throw new Error("a middleware called next while it was being composed");
  };
  let handler: unknown;
  try {
    handler = exported(never);
  } catch (error) {
    throw new Error(`composing it threw: ${messageOf(error)}`);
  }
  if (typeof handler !== "function") {
    throw new Error(`${shape}: given next, it returned ${typeof handler}, not a function`);
  }
  return exported as Middleware;
}
