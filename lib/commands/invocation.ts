// How the person at the terminal runs toolshed, as the command they would type again: a hint
// that says "toolshed call …" is no use to someone who has a clone and types
// "deno task toolshed …", or who runs a compiled binary from ./dist. What the process can see:
// whether it is a compiled binary (and its path), its main module (a file or a URL), the
// environment `deno task` and `npx` set, and, where the system shows it (Linux's /proc), the
// command line of the process that started it.

/** What the process shows of how it was started; `currentInvocation()` reads it. */
export interface Invocation {
  /** A binary made by `deno compile` (`Deno.build.standalone`). */
  readonly standalone: boolean;
  /** The running executable: deno, or the compiled binary itself. */
  readonly execPath: string;
  /** The main module's URL: main.ts in a clone, main.ts or the bundle at a URL. */
  readonly mainModule: string;
  /** The process's working directory, absolute. */
  readonly cwd: string;
  /** The version of deno running, for an `npx --yes deno@VERSION` prefix. */
  readonly denoVersion: string;
  /** The parent process's arguments, where the system shows them (Linux), else undefined. */
  readonly parentArgs: readonly string[] | undefined;
  /** The names of the tasks in the deno.json beside the main module, if it has one. */
  readonly tasksBesideMain: readonly string[] | undefined;
  /** Reads the environment. */
  env(name: string): string | undefined;
}

/** The task of toolshed's own deno.json that runs the command line (`deno run -A main.ts`). */
const CLI_TASK = "toolshed";

/** The npm package's name on the registry, and the command its bin installs (adr/0065). */
export const NPM_PACKAGE = "toolshed";
/**
 * Where the one-file bundle the bin runs sits in the npm package: two folders deep, so that
 * the paths toolshed's modules take relative to themselves inside the bundle (`../../deno.json`,
 * `../../mod.ts` of lib/commands/*.ts) land on the package's root, as they land on the
 * repository's root in a clone.
 */
export const NPM_BUNDLE_PATH = "dist/bundle/toolshed.js";
/** Where the package's bin (build/npm/toolshed.cjs) sits in it. */
export const NPM_BIN_PATH = "bin/toolshed.cjs";
/**
 * The import map in the npm package, by its path there: the one name tools import,
 * `@toolshed/toolshed`, mapped to the package's mod.ts (build/npm_package.ts writes it).
 */
export const NPM_IMPORT_MAP_PATH = "import_map.json";
/**
 * Deno's flags the bin runs the bundle with, for the package at `packageRoot` (a path; the bin
 * passes its own, build/npm_package.ts writes this in). V8's young generation starts at 1 MB, and
 * a start allocates ~1.9 MB before its first answer: one scavenge, copying all that is alive at
 * start, came before it; at 2 MB a start runs without one (adr/0074: first answer 1.93× against
 * 2.00× the bare loop, VmHWM 0.5 MB lower), and it grows under load as before. No configuration
 * file: Deno reads the one it finds (the package's deno.json and package.json, two folders above
 * the bundle) at every start, ~0.6 MB of peak memory for one import, which the package's import
 * map gives instead (adr/0074). A server's own deno.json was never read at run time either way.
 */
export function npmBundleFlags(packageRoot: string): string[] {
  return [
    "--v8-flags=--min-semi-space-size=2",
    "--no-config",
    `--import-map=${packageRoot}/${NPM_IMPORT_MAP_PATH}`,
  ];
}
/** Whether a module URL is the npm package's bundle, as npm installed it. */
export function runsNpmBundle(mainModule: string): boolean {
  return mainModule.endsWith(`/node_modules/${NPM_PACKAGE}/${NPM_BUNDLE_PATH}`);
}

/**
 * The bundle's entry for a module of it: the npm package's bundle is split (adr/0074), so a
 * module there is a chunk beside the entry, `dist/bundle/<chunk>.js`; anywhere else (a clone's
 * module, the one-file bundle) `moduleUrl` itself.
 */
export function bundleEntryOf(moduleUrl: string): URL {
  const url = new URL(moduleUrl);
  const folder = NPM_BUNDLE_PATH.slice(0, NPM_BUNDLE_PATH.lastIndexOf("/") + 1);
  const inFolder = url.pathname.slice(0, url.pathname.lastIndexOf("/") + 1).endsWith(`/${folder}`);
  return inFolder && url.pathname.endsWith(".js") ? new URL(`../../${NPM_BUNDLE_PATH}`, url) : url;
}

/**
 * The command that runs toolshed as the user runs it, ready to be followed by a subcommand:
 * `deno task toolshed` (a clone, through its task), `npx --yes deno@2.9.6 task toolshed` (the
 * same through npx), `deno run -A main.ts` or `deno run -A https://…/main.ts` (run directly),
 * `./dist/toolshed` or `toolshed` (a compiled binary, by path or on the PATH), `toolshed` or
 * `npx -y toolshed` (the npm package, installed or through npx).
 */
export function commandLine(invocation: Invocation = currentInvocation()): string {
  if (invocation.standalone) return binaryCommand(invocation);
  // The npm package's bin runs its bundle (adr/0065): the person typed `npx -y toolshed` (npx
  // sets npm_lifecycle_event, and the bin passes its environment on) or the installed bin.
  if (runsNpmBundle(invocation.mainModule)) {
    return invocation.env("npm_lifecycle_event") === "npx" ? `npx -y ${NPM_PACKAGE}` : NPM_PACKAGE;
  }
  const deno = invocation.env("npm_lifecycle_event") === "npx"
    ? `npx --yes deno@${invocation.denoVersion}`
    : "deno";
  if (runsTask(invocation) && taskReaches(invocation)) return `${deno} task ${CLI_TASK}`;
  return `${deno} run -A ${shellWord(shown(invocation.mainModule, userCwd(invocation)))}`;
}

/**
 * What this process shows of how it was started. A server run with narrow permissions (no
 * `--allow-env`, `--allow-read` of its tools only) shows less, and is named by what is left:
 * nothing here reads what it was not granted, so nothing prompts in a terminal.
 */
export function currentInvocation(): Invocation {
  const canRead = (path?: string) => granted({ name: "read", path });
  return {
    standalone: Deno.build.standalone,
    execPath: canRead() ? Deno.execPath() : "deno",
    mainModule: Deno.mainModule,
    cwd: canRead() ? Deno.cwd() : "/",
    denoVersion: Deno.version.deno,
    parentArgs: canRead("/proc") ? parentArgs() : undefined,
    tasksBesideMain: tasksBeside(Deno.mainModule, canRead),
    env: (name) => granted({ name: "env", variable: name }) ? Deno.env.get(name) : undefined,
  };
}

/** Whether the process holds a permission already (asking none). */
function granted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

/** Whether `deno task` started this process. */
function runsTask({ parentArgs, env }: Invocation): boolean {
  if (parentArgs !== undefined) {
    const [program = "", ...rest] = parentArgs;
    return /(^|[/\\])deno(\.exe)?$/.test(program) &&
      rest.find((arg) => !arg.startsWith("-")) === "task";
  }
  // Without the parent's command line: `deno task` sets this when nothing else (npm) did.
  // Through npx it is npm's, and a task cannot be told from a run: a clone's task is assumed.
  return env("npm_config_user_agent")?.startsWith("deno/") === true ||
    env("npm_lifecycle_event") === "npx";
}

/**
 * Whether `deno task toolshed`, typed where the user is, runs this main module: it is main.ts
 * of a clone whose deno.json has that task, and the user is in the clone (where deno finds
 * that deno.json).
 */
function taskReaches(invocation: Invocation): boolean {
  if (!invocation.tasksBesideMain?.includes(CLI_TASK)) return false;
  const clone = directoryOf(invocation.mainModule);
  const cwd = withSlash(userCwd(invocation));
  return clone !== undefined && cwd.startsWith(clone);
}

/**
 * Where the user typed the command: `deno task` runs a task in its deno.json's folder and
 * says in INIT_CWD where it was started.
 */
function userCwd(invocation: Invocation): string {
  return (runsTask(invocation) ? invocation.env("INIT_CWD") : undefined) ?? invocation.cwd;
}

/** A compiled binary by the name the shell finds it under, else by its path. */
function binaryCommand({ execPath, cwd, env }: Invocation): string {
  const slash = execPath.lastIndexOf("/");
  const folder = execPath.slice(0, slash);
  const name = execPath.slice(slash + 1);
  const onPath = (env("PATH") ?? "").split(":").some((entry) =>
    entry.replace(/\/+$/, "") === folder
  );
  if (onPath) return shellWord(name);
  const inside = relativeTo(execPath, cwd);
  return shellWord(inside === undefined ? execPath : `./${inside}`);
}

/** A module URL as a user types it: a file under `cwd` relative to it, else its path; a URL. */
function shown(module: string, cwd: string): string {
  if (!module.startsWith("file:")) return module;
  const path = decodeURIComponent(new URL(module).pathname);
  return relativeTo(path, cwd) ?? path;
}

/** `path` relative to `cwd` when it is inside it (but not the root), else undefined. */
function relativeTo(path: string, cwd: string): string | undefined {
  const here = withSlash(cwd);
  return here !== "/" && path.startsWith(here) ? path.slice(here.length) : undefined;
}

/** The folder of a file: module URL, with a final slash; undefined for other URLs. */
function directoryOf(module: string): string | undefined {
  if (!module.startsWith("file:")) return undefined;
  const path = decodeURIComponent(new URL(module).pathname);
  return path.slice(0, path.lastIndexOf("/") + 1);
}

function withSlash(path: string): string {
  return path.endsWith("/") ? path : `${path}/`;
}

/** The parent process's arguments from /proc (Linux); undefined where there is none. */
function parentArgs(): string[] | undefined {
  try {
    const args = Deno.readTextFileSync(`/proc/${Deno.ppid}/cmdline`).split("\0");
    if (args.at(-1) === "") args.pop();
    return args;
  } catch {
    return undefined;
  }
}

/** The task names of the deno.json beside a file: module, or undefined. */
function tasksBeside(
  module: string,
  canRead: (path: string) => boolean,
): string[] | undefined {
  const folder = directoryOf(module);
  if (folder === undefined || !canRead(`${folder}deno.json`)) return undefined;
  try {
    const config = JSON.parse(Deno.readTextFileSync(`${folder}deno.json`));
    const tasks = config?.tasks;
    return typeof tasks === "object" && tasks !== null ? Object.keys(tasks) : undefined;
  } catch {
    return undefined;
  }
}

/** A word a POSIX shell reads as it is: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_.\/:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
