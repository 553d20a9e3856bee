// App discovery: the ui/ folder, one file per MCP App (`ui/<name>.html`), with an optional
// sidecar beside it (`ui/<name>.json`: title, description and the `_meta.ui` a host reads —
// csp, permissions, domain, prefersBorder). Each is served as the resource `ui://<name>`
// (primitives/apps.ts, adr/0048). Names starting with `_` or `.` are left out, as elsewhere.
import { messageOf } from "../util/json.ts";
import type { Resource } from "../primitives/resources.ts";
import { APP_NAME, type AppMetadata, appResource, checkAppMetadata } from "../primitives/apps.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { folderOf } from "./folder.ts";

interface AppLoadOptions {
  maxResourceBytes: number;
  allowOutsideSymlinks: boolean;
}

/** Most apps one ui/ folder may hold. */
const MAX_APPS = 1_000;

/** Loads every app in `dir`; throws a DirectoryLoadError listing every problem. */
export async function loadApps(dir: string | URL, options: AppLoadOptions): Promise<Resource[]> {
  const { url: dirUrl, shown: shownDir } = folderOf(dir);
  const problems: string[] = [];
  const names = new Map<string, { html: boolean; json: boolean }>();
  let realDir: string;
  try {
    realDir = Deno.realPathSync(dirUrl);
    for (const entry of Deno.readDirSync(dirUrl)) {
      if (/^[_.]/.test(entry.name)) continue;
      const match = /^(.*)\.(html|json)$/.exec(entry.name);
      const shown = `${shownDir}/${entry.name}`;
      if (entry.isDirectory || match === null) {
        problems.push(
          `Cannot load app "${shown}": ui/ holds apps, each a <name>.html with an optional ` +
            `<name>.json beside it (a file to leave out starts with "_")`,
        );
        continue;
      }
      const [, name, kind] = match;
      if (!APP_NAME.test(name)) {
        problems.push(
          `Cannot load app "${shown}": the name "${name}" is invalid: use 1 to 128 letters, ` +
            `digits, "_", "-" or "." (not first)`,
        );
        continue;
      }
      const seen = names.get(name) ?? { html: false, json: false };
      seen[kind as "html" | "json"] = true;
      names.set(name, seen);
    }
  } catch (error) {
    throw new DirectoryLoadError([
      `Cannot read the ui directory "${shownDir}": ${messageOf(error)}`,
    ]);
  }
  if (names.size > MAX_APPS) {
    throw new DirectoryLoadError([
      `Cannot load the ui directory "${shownDir}": it holds more than ${MAX_APPS} apps`,
    ]);
  }
  const insideDir = options.allowOutsideSymlinks ? undefined : `${realDir}/`;
  const readOptions = { maxResourceBytes: options.maxResourceBytes, insideDir };
  const apps: Resource[] = [];
  const sorted = [...names.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  for (const [name, { html, json }] of sorted) {
    const htmlUrl = new URL(`${encodeURIComponent(name)}.html`, dirUrl);
    if (!html) {
      problems.push(
        `Cannot load app "${shownDir}/${name}.json": it is the sidecar of "${name}.html", ` +
          `which is not there`,
      );
      continue;
    }
    let metadata: AppMetadata = {};
    if (json) {
      const sidecar = `${shownDir}/${name}.json`;
      try {
        const text = await Deno.readTextFile(new URL(`${encodeURIComponent(name)}.json`, dirUrl));
        metadata = checkAppMetadata(JSON.parse(text));
      } catch (error) {
        problems.push(`Cannot load app "${sidecar}": ${messageOf(error)}`);
        continue;
      }
    }
    if (insideDir !== undefined) {
      let real: string | undefined;
      try {
        real = Deno.realPathSync(htmlUrl);
      } catch {
        real = undefined; // Not there: reading it says so.
      }
      if (real !== undefined && !real.startsWith(insideDir)) {
        problems.push(
          `Cannot load app "${shownDir}/${name}.html": it is a symlink to "${real}", outside ` +
            `the ui directory (--allow-outside-symlinks allows it)`,
        );
        continue;
      }
    }
    apps.push(Object.freeze({
      ...appResource(name, htmlUrl, metadata, readOptions),
      file: `${shownDir}/${name}.html`,
    }));
  }
  if (problems.length > 0) throw new DirectoryLoadError(problems);
  return apps;
}
