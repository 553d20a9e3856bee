// Tool discovery: every module in the tools directory default-exports one tool definition,
// and every executable with a JSON sidecar beside it is a tool too (adr/0007). A bad tool
// stops start-up with a message naming its file; all problems are reported together so
// an author fixes them in one pass. Checking one definition is primitives/tools.ts's.
import { isObject, messageOf } from "../util/json.ts";
import {
  ENV_NAME,
  MAX_OUTPUT_BYTES,
  MAX_PROGRAMS,
  OUTPUT_MODES,
  type OutputMode,
} from "../programs/limits.ts";
import { createSlots, type Slots } from "../util/slots.ts";
import { refuseUnsafePatterns } from "../schema/pattern_safety.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { DirectoryLoadError, type PartialLoad } from "./load_error.ts";
import { didYouMean } from "../util/suggest.ts";
import { folderOf } from "./folder.ts";
import { ENDPOINT_ROUTES, TOOLSET_NAME } from "../primitives/toolsets.ts";

import { byUniqueName, importDefault } from "./import_module.ts";
import type { MountHost } from "../mounts/mount_host.ts";
import type { Mount } from "../mounts/mount.ts";
import type { Prompt } from "../primitives/prompts.ts";
import type { Resource, ResourceTemplate } from "../primitives/resources.ts";
import { MOUNT_SUFFIX, PINS_SUFFIX } from "../mounts/names.ts";
import { API_SUFFIX, OPENAPI_FILE } from "../openapi/file_names.ts";
import { TABLE } from "../settings/table.ts";
import type { MountOptions } from "../mounts/mount.ts";
import {
  checkDefinition,
  DEFINITION_FIELDS,
  type Tool,
  type ToolSet,
} from "../primitives/tools.ts";

/** What loadTools() found: the tools, and the executable tools it left out. */
export interface LoadedTools extends ToolSet {
  /** Sidecars whose programs are not served (see `LoadOptions.skipExecutables`). */
  skipped: readonly string[];
  /** What mounted servers give besides tools (adr/0071), joined to prompts/ and resources/'s. */
  mounted?: MountedOthers;
}

/** A directory's mounted prompts, resources and templates. */
interface MountedOthers {
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

/** How executable tools are found and run; the defaults are the flags' defaults. */
export interface LoadOptions {
  /** Environment variables every program receives (when set), beyond the base set. */
  passEnv: readonly string[];
  /** Most bytes a program may print on stdout in one call. */
  maxOutputBytes: number;
  /** Most programs alive at once, running or stopping; calls beyond it wait. */
  maxPrograms: number;
  /** Serve executables and sidecars that are symlinks to files outside the directory. */
  allowOutsideSymlinks: boolean;
  /**
   * Leave executable tools out, listing their sidecars in `skipped`: the files a compiled
   * binary embeds are not on disk, so no program among them can be run.
   */
  skipExecutables: boolean;
  /** Where programs' stderr and notes about them go. */
  diagnostics: Diagnostics;
  /** With telemetry on: the environment carrying a call's trace context to its program. */
  traceEnvironment?: () => Record<string, string>;
  /** Where the server keeps its mounted servers across reloads (adr/0071). */
  mounts?: MountPlace;
}

/**
 * A server's mounts (`tools/<stem>.mcp.json`, adr/0071): the server makes the place, the first
 * mount file makes the host in it (the code of mounts loads only then), and every load after
 * finds the mounts it made still connected.
 */
export interface MountPlace {
  host?: MountHost;
  /** With `--auth-issuer`: tokens for callers by exchange (adr/0071 §5). */
  exchange?: MountOptions["exchange"];
  /** Largest contents one resources/read of a mounted resource may return. */
  maxResourceBytes: number;
  /** A mount's tools changed after it loaded (an upstream's list): the directory is reloaded. */
  changed(): void;
  /** A change came before anyone listened (start-up): told once someone does. */
  missed?: boolean;
}

/** The flags' defaults; only where diagnostics go has none. */
export const DEFAULT_LOAD_OPTIONS: Omit<LoadOptions, "diagnostics"> = {
  passEnv: [],
  maxOutputBytes: MAX_OUTPUT_BYTES,
  maxPrograms: MAX_PROGRAMS,
  allowOutsideSymlinks: false,
  skipExecutables: false,
};

/** Start-up failed because of the tools; `partial` says what the good files held. */
export class ToolLoadError extends DirectoryLoadError<readonly Tool[]> {
  constructor(problems: readonly string[], partial?: PartialLoad<readonly Tool[]>) {
    super(problems, partial);
    this.name = "ToolLoadError";
  }
}

const TOOL_EXTENSIONS = /\.(ts|mts|js|mjs)$/;
/** What a sidecar may hold: a definition without name, _meta or handler, plus env and output. */
const SIDECAR_FIELDS = new Set([...DEFINITION_FIELDS, "env", "output"]);

/**
 * Loads every tool in `dir`, a path (relative to the working directory) or a directory
 * URL: modules (`.ts`, `.mts`, `.js`, `.mjs`) and executables with a `.json` sidecar, in it
 * and in each of its folders, which are toolsets (adr/0045). Files and folders whose names
 * start with `_` or `.`, folders inside a toolset and other files without the executable bit
 * are not tools.
 */
export async function loadTools(
  dir: string | URL,
  given: Partial<LoadOptions> & Pick<LoadOptions, "diagnostics">,
): Promise<LoadedTools> {
  const options: LoadOptions = { ...DEFAULT_LOAD_OPTIONS, ...given };
  const { url: dirUrl, shown: shownDir } = folderOf(dir);
  let entries: Entries;
  try {
    entries = readEntries(dirUrl);
  } catch (error) {
    throw new ToolLoadError([`Cannot read the tools directory "${shownDir}": ${messageOf(error)}`]);
  }

  // Each folder of tools/ not starting with "_" or "." is a toolset (adr/0045), read the
  // same way; a set's tool is named by its file alone, so names are unique across sets.
  const badSet = entries.folders.find((name) => !TOOLSET_NAME.test(name));
  if (badSet !== undefined) {
    throw new ToolLoadError([
      `Cannot load the toolset "${shownDir}/${badSet}": a toolset's name is letters, digits, ` +
      `"_" and "-" (rename the folder, or start its name with "_" if it holds helpers)`,
    ]);
  }
  // A set's HTTP path is `/mcp/<set>`: one that is a route's would never reach the set.
  const routeSet = entries.folders.find((name) => ENDPOINT_ROUTES.has(name));
  if (routeSet !== undefined) {
    throw new ToolLoadError([
      `Cannot load the toolset "${shownDir}/${routeSet}": its path over HTTP, ` +
      `"/mcp/${routeSet}", is where ${ENDPOINT_ROUTES.get(routeSet)} is served, so no client ` +
      `could reach the set (rename the folder)`,
    ]);
  }
  const folders: { set: string | undefined; entries: Entries }[] = [{ set: undefined, entries }];
  for (const set of entries.folders) {
    try {
      folders.push({ set, entries: readEntries(new URL(`${set}/`, dirUrl)) });
    } catch (error) {
      throw new ToolLoadError([
        `Cannot read the toolset "${shownDir}/${set}": ${messageOf(error)}`,
      ]);
    }
  }
  // A mount's or an API's file name is its own toolset, so neither goes inside another one.
  const ownSetsInSets = folders.flatMap(({ set, entries: found }) =>
    set === undefined ? [] : [
      ...found.mounts.map((fileName) => ({ fileName, what: "mounted server", whose: "a mount's" })),
      ...found.apis.map((fileName) => ({ fileName, what: "API", whose: "an API's" })),
    ].map((each) => ({ ...each, file: `${shownDir}/${set}/${each.fileName}` }))
  );
  if (ownSetsInSets.length > 0) {
    throw new ToolLoadError(
      ownSetsInSets.map(({ file, what, whose }) =>
        `Cannot load the ${what} "${file}": ${whose} file name is its own toolset, so it ` +
        `goes in "${shownDir}/" itself (move it there)`
      ),
    );
  }
  // A sidecar without its document would be ignored: say so instead.
  const lonelySidecars = folders.flatMap(({ set, entries: found }) =>
    found.apiSidecars.filter((fileName) =>
      !found.apis.some((api) =>
        OPENAPI_FILE.exec(api)?.[1] === fileName.slice(0, -API_SUFFIX.length)
      )
    ).map((fileName) => `${shownDir}/${set === undefined ? "" : `${set}/`}${fileName}`)
  );
  if (lonelySidecars.length > 0) {
    throw new ToolLoadError(
      lonelySidecars.map((file) =>
        `Cannot load the API sidecar "${file}": there is no document beside it ` +
        `("${file.slice(0, -API_SUFFIX.length)}.openapi.yaml", ".yml" or ".json")`
      ),
    );
  }
  // One set of slots for every program this server runs.
  const slots = options.skipExecutables ? undefined : createSlots(options.maxPrograms);
  const sources: Source[] = [];
  const skippedSidecars: string[] = [];
  for (const { set, entries: found } of folders) {
    const prefix = set === undefined ? "" : `${set}/`;
    const url = set === undefined ? dirUrl : new URL(prefix, dirUrl);
    const shown = `${shownDir}${set === undefined ? "" : `/${set}`}`;
    const inSet: Source[] = found.modules.map((fileName) => ({
      fileName,
      load: () => loadTool(new URL(fileName, url), fileName, `${shown}/${fileName}`).then(one),
    }));
    if (slots !== undefined) {
      inSet.push(...executableSources(found, url, shown, options, slots));
    } else skippedSidecars.push(...found.sidecars.map((fileName) => `${prefix}${fileName}`));
    inSet.push(...found.mounts.map((fileName) => ({
      fileName,
      load: () => loadMountTools(new URL(fileName, url), `${shown}/${fileName}`, options),
    })));
    inSet.push(...found.apis.map((fileName) => ({
      fileName,
      load: () => loadApi(new URL(fileName, url), `${shown}/${fileName}`, options),
    })));
    inSet.sort((a, b) => a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0);
    sources.push(...inSet.map((source) => ({
      fileName: `${prefix}${source.fileName}`,
      load: set === undefined
        ? source.load
        : () => source.load().then((tools) => tools.map((tool) => ({ ...tool, toolset: set }))),
    })));
  }
  // Tools load in parallel; names are checked in file order, so messages are stable.
  const loaded = await Promise.allSettled(sources.map((source) => loadSafely(source)));
  let mounted: MountedOthers | undefined;
  const host = options.mounts?.host;
  if (host !== undefined) {
    const found = new Set(entries.mounts.map((fileName) => `${shownDir}/${fileName}`));
    await host.sweep(found);
    mounted = mountedOthers(host.mounts().filter((mount) => found.has(mount.file)));
  }
  // A file that gives several tools (a mount) is named by each of them.
  const outcomes: PromiseSettledResult<Tool>[] = [];
  const outcomeFiles: string[] = [];
  loaded.forEach((outcome, index) => {
    const file = `${shownDir}/${sources[index].fileName}`;
    if (outcome.status === "rejected") {
      outcomes.push(outcome);
      outcomeFiles.push(file);
      return;
    }
    for (const tool of outcome.value) {
      outcomes.push({ status: "fulfilled", value: tool });
      outcomeFiles.push(file);
    }
  });
  const files = sources.map((source) => `${shownDir}/${source.fileName}`);
  const { byName: found, problems } = byUniqueName(outcomes, outcomeFiles, "tool");
  if (mounted !== undefined) problems.push(...mountedClashes(mounted));
  const byName = new Map([...found].map(([name, { item }]) => [name, item]));
  if (problems.length > 0) {
    const good = new Set([...found.values()].map(({ file }) => file));
    const failed = new Set(outcomeFiles.filter((file) => !good.has(file)));
    throw new ToolLoadError(problems, {
      loaded: [...byName.values()].filter((tool) => !failed.has(tool.file)),
      failed: new Set(files.filter((file) => failed.has(file))),
    });
  }
  const tools = [...byName.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const skipped = skippedSidecars.map((fileName) => `${shownDir}/${fileName}`);
  return mounted === undefined ? { tools, byName, skipped } : { tools, byName, skipped, mounted };
}

/** What the mounts serve besides tools, together. */
function mountedOthers(mounts: readonly Mount[]): MountedOthers {
  const served = mounts.map((mount) => mount.served());
  return {
    prompts: served.flatMap((each) => each.prompts),
    resources: served.flatMap((each) => each.resources),
    templates: served.flatMap((each) => each.templates),
  };
}

/** A resource URI (or a template's name) two mounts serve: each a sentence naming both files. */
function mountedClashes(mounted: MountedOthers): string[] {
  const problems: string[] = [];
  for (
    const [items, keyOf, what] of [
      [mounted.resources, (each: Resource) => each.uri, "resource URI"],
      [mounted.templates, (each: ResourceTemplate) => each.name, "resource template name"],
    ] as const
  ) {
    const first = new Map<string, string | undefined>();
    for (const item of items as readonly (Resource | ResourceTemplate)[]) {
      const key = (keyOf as (each: Resource | ResourceTemplate) => string)(item);
      if (!first.has(key)) first.set(key, item.file);
      else {
        problems.push(
          `Cannot load the mounted server "${item.file}": the ${what} "${key}" is already ` +
            `served by "${first.get(key)}"`,
        );
      }
    }
  }
  return problems;
}

/** A file's one tool, as a list: what every source gives. */
function one(tool: Tool): Tool[] {
  return [tool];
}

/**
 * The tools of a mounted server: the code of mounts, and the server's host of them, load at
 * the first mount file (adr/0071).
 */
async function loadMountTools(url: URL, file: string, options: LoadOptions): Promise<Tool[]> {
  const place = options.mounts ??= {
    changed() {},
    maxResourceBytes: TABLE.maxResourceBytes.default,
  };
  if (place.host === undefined) {
    const { createMountHost } = await import("../mounts/mount_host.ts");
    place.host ??= createMountHost({
      diagnostics: options.diagnostics,
      env: (name) => Deno.env.get(name),
      exchange: place.exchange,
      traceEnvironment: options.traceEnvironment,
      maxResourceBytes: place.maxResourceBytes,
      changed: () => place.changed(),
    });
  }
  const stem = url.pathname.slice(url.pathname.lastIndexOf("/") + 1, -MOUNT_SUFFIX.length);
  const mount = await place.host.load(url, file, stem);
  return [...mount.served().tools];
}

/** The tools of an API's document (adr/0072): the code of openapi/ loads at the first one. */
async function loadApi(url: URL, file: string, options: LoadOptions): Promise<Tool[]> {
  const { loadApiTools } = await import("../openapi/load_api.ts");
  const fileName = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf("/") + 1));
  return await loadApiTools(url, file, OPENAPI_FILE.exec(fileName)![1], {
    env: (name) => Deno.env.get(name),
    maxBodyBytes: options.maxOutputBytes,
    exchange: options.mounts?.exchange,
    diagnostics: options.diagnostics,
  });
}

/** Loads a file's tools and refuses them if a pattern in their schemas could stall the server. */
async function loadSafely(source: Source): Promise<readonly Tool[]> {
  const tools = await source.load();
  for (const tool of tools) {
    await refuseUnsafePatterns(tool.definition.inputSchema, "inputSchema");
    if (tool.definition.outputSchema !== undefined) {
      await refuseUnsafePatterns(tool.definition.outputSchema, "outputSchema");
    }
  }
  return tools;
}

/** One file's tools to load (a mount's are many), by the file its messages name. */
interface Source {
  fileName: string;
  load(): Promise<readonly Tool[]>;
}

/** The directory's entries that may be tools, by file name. */
interface Entries {
  /** Tool modules, sorted. */
  modules: string[];
  /** `.json` files but mounts, pins and APIs: every one is a sidecar, sorted. */
  sidecars: string[];
  /** Mounted servers (`<stem>.mcp.json`, adr/0071), sorted. */
  mounts: string[];
  /** OpenAPI documents (`<stem>.openapi.{json,yaml,yml}`, adr/0072), sorted. */
  apis: string[];
  /** Their sidecars (`<stem>.api.json`), read with them, sorted. */
  apiSidecars: string[];
  /** Every other regular file (or symlink to one), and whether it has an executable bit. */
  others: Map<string, boolean>;
  /** Folders whose names start with neither "_" nor "." (toolsets, in tools/ itself), sorted. */
  folders: string[];
}

function readEntries(dirUrl: URL): Entries {
  const modules: string[] = [];
  const sidecars: string[] = [];
  const mounts: string[] = [];
  const apis: string[] = [];
  const apiSidecars: string[] = [];
  const otherNames: string[] = [];
  const folders: string[] = [];
  for (const entry of Deno.readDirSync(dirUrl)) {
    if (/^[_.]/.test(entry.name)) continue;
    if (entry.isDirectory) {
      folders.push(entry.name);
      continue;
    }
    if (TOOL_EXTENSIONS.test(entry.name)) modules.push(entry.name);
    else if (entry.name.endsWith(MOUNT_SUFFIX)) mounts.push(entry.name);
    else if (entry.name.endsWith(PINS_SUFFIX)) continue; // a mount's, read with it
    else if (OPENAPI_FILE.test(entry.name)) apis.push(entry.name);
    else if (entry.name.endsWith(API_SUFFIX)) apiSidecars.push(entry.name);
    else if (entry.name.endsWith(".json")) sidecars.push(entry.name);
    else otherNames.push(entry.name);
  }
  const others = new Map<string, boolean>();
  for (const name of otherNames) {
    try {
      const info = Deno.statSync(new URL(name, dirUrl));
      if (info.isFile) others.set(name, ((info.mode ?? 0) & 0o111) !== 0);
    } catch {
      // A dangling symlink: not a file, so not a tool.
    }
  }
  return {
    modules: modules.sort(),
    sidecars: sidecars.sort(),
    mounts: mounts.sort(),
    apis: apis.sort(),
    apiSidecars: apiSidecars.sort(),
    others,
    folders: folders.sort(),
  };
}

/**
 * Pairs executables with sidecars: `add` or `add.<ext>` goes with `add.json` (an exact
 * `<file>.json` first). Every pairing problem becomes a source that fails with it.
 */
function executableSources(
  entries: Entries,
  dirUrl: URL,
  shownDir: string,
  options: LoadOptions,
  slots: Slots,
): Source[] {
  const sidecars = new Set(entries.sidecars);
  const sidecarOf = (fileName: string): string | undefined => {
    if (sidecars.has(`${fileName}.json`)) return `${fileName}.json`;
    const stem = fileName.slice(0, fileName.lastIndexOf("."));
    return stem !== "" && sidecars.has(`${stem}.json`) ? `${stem}.json` : undefined;
  };
  const programs = new Map<string, string[]>(entries.sidecars.map((name) => [name, []]));
  const notExecutable = new Map<string, string[]>(entries.sidecars.map((name) => [name, []]));
  const sources: Source[] = [];
  for (const [fileName, executable] of [...entries.others].sort(([a], [b]) => a < b ? -1 : 1)) {
    const sidecar = sidecarOf(fileName);
    if (sidecar !== undefined) {
      (executable ? programs : notExecutable).get(sidecar)!.push(fileName);
    } else if (executable) {
      const dot = fileName.lastIndexOf(".");
      const expected = `${dot > 0 ? fileName.slice(0, dot) : fileName}.json`;
      const problem = new Error(
        `an executable needs a sidecar "${shownDir}/${expected}" holding its definition ` +
          `(a file that is not a tool must not have the executable bit)`,
      );
      sources.push({ fileName, load: () => Promise.reject(problem) });
    }
  }
  const shown = (fileName: string) => `"${shownDir}/${fileName}"`;
  for (const sidecar of entries.sidecars) {
    const name = sidecar.slice(0, -".json".length);
    const found = programs.get(sidecar)!;
    const idle = notExecutable.get(sidecar)!;
    let load: () => Promise<readonly Tool[]>;
    if (found.length === 1) {
      load = () =>
        loadExecutableTool(dirUrl, shownDir, sidecar, found[0], options, slots).then(one);
    } else {
      const problem = new Error(
        found.length > 1
          ? `the name "${name}" is claimed by more than one executable: ${
            found.map(shown).join(" and ")
          }`
          : idle.length > 0
          ? `${idle.map(shown).join(" and ")} ${
            idle.length > 1 ? "are" : "is"
          } not executable (chmod +x gives it the executable bit)`
          : `the sidecar has no executable beside it: expected ${shown(name)} or ` +
            `${shown(`${name}.<ext>`)} with the executable bit`,
      );
      load = () => Promise.reject(problem);
    }
    sources.push({ fileName: sidecar, load });
  }
  return sources;
}

async function loadExecutableTool(
  dirUrl: URL,
  shownDir: string,
  sidecarName: string,
  programName: string,
  options: LoadOptions,
  slots: Slots,
): Promise<Tool> {
  const sidecarUrl = new URL(sidecarName, dirUrl);
  const programUrl = new URL(programName, dirUrl);
  if (!options.allowOutsideSymlinks) {
    const inside = `${Deno.realPathSync(dirUrl)}/`;
    for (const [url, fileName] of [[programUrl, programName], [sidecarUrl, sidecarName]] as const) {
      const real = Deno.realPathSync(url);
      if (!real.startsWith(inside)) {
        throw new Error(
          `"${shownDir}/${fileName}" is a symlink to "${real}", outside the tools directory ` +
            `(--allow-outside-symlinks allows it)`,
        );
      }
    }
  }
  let sidecar: unknown;
  try {
    sidecar = JSON.parse(await Deno.readTextFile(sidecarUrl));
  } catch (error) {
    throw new Error(`the sidecar is not valid JSON: ${messageOf(error)}`);
  }
  if (!isObject(sidecar)) {
    throw new Error("the sidecar must hold a JSON object ({ description, inputSchema })");
  }
  for (const key of Object.keys(sidecar)) {
    if (!SIDECAR_FIELDS.has(key)) {
      throw new Error(`unknown field "${key}"${didYouMean(key, SIDECAR_FIELDS)}`);
    }
  }
  const { env = [], output, ...fields } = sidecar;
  if (!Array.isArray(env) || !env.every((name) => typeof name === "string")) {
    throw new Error("env must be an array of environment variable names");
  }
  const badName = env.find((name) => !ENV_NAME.test(name));
  if (badName !== undefined) {
    throw new Error(`env holds "${badName}", which is not an environment variable name`);
  }
  // The code that runs programs loads for the first executable tool only (adr/0051).
  const { executableHandler } = await import("../programs/executable.ts");
  const handler = executableHandler({
    program: decodeURIComponent(programUrl.pathname),
    file: `${shownDir}/${programName}`,
    passEnv: [...options.passEnv, ...env],
    maxOutputBytes: options.maxOutputBytes,
    output: outputMode(output, fields.outputSchema !== undefined),
    slots,
    diagnostics: options.diagnostics,
    traceEnvironment: options.traceEnvironment,
  });
  return checkDefinition(
    { ...fields, handler },
    sidecarName.slice(0, -".json".length),
    `${shownDir}/${sidecarName}`,
  );
}

/** A sidecar's `output` (adr/0009): "text" unless it has an outputSchema, then "json". */
function outputMode(output: unknown, hasOutputSchema: boolean): OutputMode {
  if (output === undefined) return hasOutputSchema ? "json" : "text";
  if (!OUTPUT_MODES.includes(output as OutputMode)) {
    throw new Error(
      `output must be "text", "json" or "result", not ${JSON.stringify(output)}`,
    );
  }
  if (output === "text" && hasOutputSchema) {
    throw new Error(
      '"output": "text" cannot go with an outputSchema, as a text result has no structured ' +
        'content to check: use "json" or "result"',
    );
  }
  return output as OutputMode;
}

async function loadTool(url: URL, fileName: string, file: string): Promise<Tool> {
  const definition = await importDefault(url, "tools");
  if (!isObject(definition)) {
    throw new Error(
      "the module must default-export a tool object ({ description, inputSchema, handler })",
    );
  }
  return checkDefinition(definition, fileName.replace(TOOL_EXTENSIONS, ""), file);
}
