// How an MCP client should start toolshed, with nothing left to its environment: clients start
// servers with a minimal one (often no shell PATH, an unknown working directory), so every
// program and path in the command is absolute.

import type { Launch } from "./client_formats.ts";
import {
  bundleEntryOf,
  NPM_BIN_PATH,
  NPM_PACKAGE,
  npmBundleFlags,
  runsNpmBundle,
} from "./invocation.ts";

export type LaunchKind = "deno" | "npx" | "binary" | "npm";
export const LAUNCH_KINDS: readonly LaunchKind[] = ["deno", "npx", "binary", "npm"];

/** The npm package toolshed runs from (adr/0065), when it does. */
interface NpmPackage {
  /** The package's folder, absolute. */
  readonly root: string;
  /** The package's bin file (bin/toolshed.cjs), absolute. */
  readonly bin: string;
  /** Run through npx (its cache, which npm may clean), not an installed package. */
  readonly viaNpx: boolean;
  /** The absolute path of the node that runs the bin, where the system shows it. */
  readonly node: string | undefined;
}

/** What this toolshed is: where its main.ts is, and whether it is a compiled binary. */
export interface Self {
  /**
   * main.ts as a path (from the npm package: its bundle, which it runs instead), or as a URL
   * when toolshed runs from one (not a file: URL).
   */
  readonly main: string;
  /** The running executable: deno, or the compiled toolshed. */
  readonly execPath: string;
  readonly standalone: boolean;
  /** Deno's version, for the npx launch. */
  readonly denoVersion: string;
  /** Where `deno task compile` puts the binary, for --launch binary from source. */
  readonly compiledBinary: string;
  /** The npm package this toolshed runs from, if it does. */
  readonly npm?: NpmPackage;
}

/** This process, as Self. */
export function currentSelf(): Self {
  // From the npm package this module is inside its bundle, whose entry is what runs (no main.ts).
  const entry = bundleEntryOf(import.meta.url);
  const bundled = runsNpmBundle(entry.href);
  const main = bundled ? entry : new URL("../../main.ts", import.meta.url);
  const windows = Deno.build.os === "windows";
  return {
    main: main.protocol === "file:" ? pathOf(main) : main.href,
    execPath: Deno.execPath(),
    standalone: Deno.build.standalone,
    denoVersion: Deno.version.deno,
    compiledBinary: main.protocol === "file:"
      ? pathOf(new URL(`../../dist/toolshed${windows ? ".exe" : ""}`, import.meta.url))
      : "",
    npm: bundled
      ? {
        root: pathOf(new URL("../..", import.meta.url)).replace(/[\\/]$/, ""),
        bin: pathOf(new URL(`../../${NPM_BIN_PATH}`, import.meta.url)),
        viaNpx: Deno.env.get("npm_lifecycle_event") === "npx",
        node: parentNode(),
      }
      : undefined,
  };
}

/**
 * The node that started this process (the package's bin runs Deno as its child), from Linux's
 * /proc; undefined elsewhere, or when the parent is not a node.
 */
function parentNode(): string | undefined {
  try {
    const exe = Deno.realPathSync(`/proc/${Deno.ppid}/exe`);
    return /(^|\/)node[^/]*$/.test(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

/** A file URL's path (a Windows one without the slash before its drive letter). */
export function pathOf(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

/**
 * The command and arguments that start toolshed serving `dir` (absolute), or a sentence
 * saying why this kind of launch cannot be made here. `npx` is how npx is started (npxLaunch),
 * or its bare name when it was not found; `node` is node's absolute path, when it is known.
 *
 * From the npm package: `npm` is the installed bin started by node's absolute path (so the
 * client's PATH need not hold node; the bin finds Deno inside the package), `npx` is
 * `npx --prefer-offline --yes toolshed`, and `deno` runs the package's bundle on its Deno.
 */
export function launchFor(
  kind: LaunchKind,
  self: Self,
  dir: string,
  npx: string | Launch,
  node?: string,
): Launch | { problem: string } {
  if (kind === "binary") {
    return { command: self.standalone ? self.execPath : self.compiledBinary, args: ["--dir", dir] };
  }
  if (kind === "npm") {
    if (self.npm === undefined) {
      return {
        problem: `this toolshed does not run from the npm package ${NPM_PACKAGE}: install it ` +
          `(npm install -g ${NPM_PACKAGE}) and run its config, or use --launch deno or npx`,
      };
    }
    return node === undefined
      ? { command: self.npm.bin, args: ["--dir", dir] }
      : { command: node, args: [self.npm.bin, "--dir", dir] };
  }
  if (self.standalone) {
    return {
      problem: `a compiled toolshed has no main.ts for ${kind} to run: use --launch binary`,
    };
  }
  // A directory of its own keeps its own lock (adr/0020): the packages its tools import are
  // recorded there, and toolshed's deno.lock (with its test-only packages) is left alone.
  const home = self.main.replace(/[\\/][^\\/]*$/, "");
  const lock = dir === home ? [] : [`--lock=${dir.replace(/[\\/]+$/, "")}/deno.lock`];
  // The package's bundle runs with the flags its bin gives it.
  const flags = self.npm === undefined ? [] : npmBundleFlags(self.npm.root);
  const run = ["run", "-A", ...flags, ...lock, self.main, "--dir", dir];
  if (kind === "deno") return { command: self.execPath, args: run };
  // --prefer-offline: without it npx asks the registry on every start, which can hang for
  // about 70 s behind a proxy the client's environment does not describe.
  const start = typeof npx === "string" ? { command: npx, args: [] } : npx;
  if (self.npm !== undefined) {
    return {
      command: start.command,
      args: [...start.args, "--prefer-offline", "--yes", NPM_PACKAGE, "--dir", dir],
    };
  }
  return {
    command: start.command,
    args: [...start.args, "--prefer-offline", "--yes", `deno@${self.denoVersion}`, ...run],
  };
}

/**
 * How a client starts the npx at `npx` (absolute) without its PATH: npm's npx is a script run
 * by `#!/usr/bin/env node`, which finds no node under a client started without the shell's
 * PATH (nvm, fnm and volta put node in a folder of the user's), so such an npx is started by
 * the node beside it (or the node on this PATH), both absolute. Any other npx is started as
 * it is.
 */
export async function npxLaunch(
  npx: string,
  env: (name: string) => string | undefined,
): Promise<Launch> {
  const script = await Deno.realPath(npx).catch(() => npx);
  const head = await readHead(script);
  if (!/^#!\s*\S*\/env\s+(-S\s+)?node(\s|$)/.test(head)) return { command: npx, args: [] };
  const beside = `${npx.replace(/[\\/][^\\/]*$/, "")}/node`;
  const besideIsNode = await Deno.stat(beside).then(
    (info) => info.isFile && ((info.mode ?? 0) & 0o111) !== 0,
    () => false,
  );
  const node = besideIsNode ? beside : await findOnPath("node", env);
  return node === undefined ? { command: npx, args: [] } : { command: node, args: [script] };
}

/** The first line of the file at `path` (up to 200 bytes), or "" when it cannot be read. */
async function readHead(path: string): Promise<string> {
  try {
    using file = await Deno.open(path);
    const bytes = new Uint8Array(200);
    const read = await file.read(bytes) ?? 0;
    return new TextDecoder().decode(bytes.subarray(0, read)).split("\n")[0];
  } catch {
    return "";
  }
}

/**
 * The absolute path of `program` on the PATH `env` gives (an executable file), or undefined.
 * On Windows npx is `npx.cmd`.
 */
export async function findOnPath(
  program: string,
  env: (name: string) => string | undefined,
): Promise<string | undefined> {
  const windows = Deno.build.os === "windows";
  const dirs = (env("PATH") ?? "").split(windows ? ";" : ":").filter((dir) => dir !== "");
  const names = windows ? [`${program}.cmd`, `${program}.exe`, program] : [program];
  for (const dir of dirs) {
    if (!/^([/\\]|[A-Za-z]:[/\\])/.test(dir)) continue; // a relative PATH entry means nothing to a client
    for (const name of names) {
      const path = `${dir.replace(/[/\\]+$/, "")}${windows ? "\\" : "/"}${name}`;
      try {
        const info = await Deno.stat(path);
        if (info.isFile && (windows || ((info.mode ?? 0) & 0o111) !== 0)) return path;
      } catch {
        // Not here: try the next directory.
      }
    }
  }
  return undefined;
}
