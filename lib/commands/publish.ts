// toolshed publish: from a server directory to what its users install (adr/0049). Compiles the
// server for each target into a binary with the directory's folders embedded, packs one MCP
// Bundle (.mcpb) per target, and writes the MCP Registry's server.json naming each bundle by
// its release URL and SHA-256. Who the server is comes from DIR/server.meta.json.
import { EXIT, type Io } from "./command.ts";
import { ioDiagnostics, openServer, parseCommandArgs } from "./open_server.ts";
import { EMBEDDED_FOLDERS, stage, type Staged, StageError } from "./publish_stage.ts";
import { listedBy } from "./publish_listing.ts";
import { compileBinary, type CompileRequest } from "./compile_binary.ts";
import { TARGET } from "./denort.ts";
import {
  binaryName,
  bundleName,
  manifestOf,
  sha256,
  shortName,
  TARGETS,
  zipBundle,
} from "./mcpb.ts";
import {
  checkReleaseUrl,
  defaultReleaseUrl,
  type Published,
  serverJson,
} from "./registry_entry.ts";
import { type LoadedServer, loadServerMeta } from "../discovery/server_dir.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { SERVER_META_FILE, type ServerMeta } from "../primitives/server_meta.ts";
import { createServer, type Server } from "../server/create_server.ts";
import { unfinishedFields } from "./scaffold_meta.ts";
import type { JsonObject } from "../util/json.ts";
import { closest } from "../util/suggest.ts";

const FLAGS = {
  dir: { type: "string" },
  out: { type: "string" },
  target: { type: "string", multiple: true },
  "release-url": { type: "string" },
  "public-url": { type: "string" },
  "allow-outside-symlinks": { type: "boolean" },
  "include-dotfiles": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * The configuration the compile resolves imports with (the server's modules import toolshed):
 * deno.json's imports and lock without its lazy dynamic imports, which would leave what main.ts
 * imports lazily out of the binary (adr/0051).
 */
const CONFIG = new URL("../../build/compile.deno.json", import.meta.url);

/** How publish compiles: `deno compile` unless a test hands it another step. */
export type Compile = (
  request: CompileRequest,
  report: (text: string) => void,
) => Promise<string | undefined>;

export const command = {
  usage: `Usage: toolshed publish [options]

Compiles the server directory into one binary per target, packs each into an MCP Bundle
(.mcpb, installed in one click by Claude Desktop) and writes the MCP Registry's server.json
listing the bundles by release URL and SHA-256. Who the server is (name, version, author …)
comes from DIR/${SERVER_META_FILE}.

Options:
  --dir DIR              The server directory (default: the working directory)
  --out DIR              Where the bundles and server.json go (default: DIR/dist)
  --target TRIPLE        A Deno target to build for (repeatable; default: this machine's,
                         ${TARGET}). Known: ${Object.keys(TARGETS).join(", ")}
  --release-url TEMPLATE Where each bundle will be downloaded from, with {version}, {file},
                         {target} and {name} filled in (default, for a GitHub repository:
                         REPOSITORY/releases/download/v{version}/{file})
  --public-url URL       Where the server is also served over Streamable HTTP: becomes a
                         streamable-http remote in server.json
  --allow-outside-symlinks
                         Embed files that are symlinks to outside their folder where
                         start-up refuses them, as serve's flag serves them
  --include-dotfiles     Embed files and folders whose names start with "." (no folder
                         serves them; left out by default, and said so)
  -h, --help             Show this help

DENORT_BIN names Deno's standalone runtime (denort) for this machine's target where Deno
cannot download it. Then publish server.json with the registry's mcp-publisher
(docs/operating/publishing.md).

Examples:
  toolshed publish --dir examples/hello
  toolshed publish --target x86_64-unknown-linux-gnu --target aarch64-apple-darwin \\
    --release-url 'https://github.com/alice/weather/releases/download/v{version}/{file}'`,

  run(args: string[], io: Io): Promise<number> {
    return publish(args, io);
  },
};

/** The command, with the compile step replaceable (the tests compile on a stand-in base). */
export async function publish(
  args: string[],
  io: Io,
  compile: Compile = compileBinary,
): Promise<number> {
  const parsed = parseCommandArgs(args, FLAGS, io, "publish", command.usage);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const refuse = (message: string, code: number = EXIT.usage) => {
    io.err(`toolshed: ${message}\n`);
    return code;
  };
  if (positionals.length > 0) {
    return refuse(`Unexpected argument "${positionals[0]}": use --dir DIR to name a directory`);
  }
  for (const flag of ["dir", "out", "release-url", "public-url"] as const) {
    if (values[flag] === "") return refuse(`--${flag} needs a value`);
  }
  const targets = [...new Set(values.target ?? [TARGET])];
  for (const target of targets) {
    if (target.includes(",")) {
      return refuse(
        `Unknown target "${target}": repeat --target for each (--target ${
          target.split(",").map((one) => one.trim()).join(" --target ")
        })`,
      );
    }
    if (!(target in TARGETS)) {
      const meant = closest(target, Object.keys(TARGETS));
      return refuse(
        `Unknown target "${target}"${meant === undefined ? "" : `; did you mean ${meant}?`} ` +
          `(deno compile --target takes ${Object.keys(TARGETS).join(", ")})`,
      );
    }
  }
  const publicUrl = values["public-url"];
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    return refuse(`--public-url "${publicUrl}" is not an http(s) URL`);
  }
  if (Deno.build.standalone) {
    return refuse(
      "publish runs deno compile, which a compiled toolshed does not have: run it from " +
        "toolshed's source (deno run -A main.ts publish …)",
    );
  }
  const dir = absolute(values.dir ?? ".", io.cwd);
  const out = absolute(values.out ?? `${dir}/dist`, io.cwd);

  let meta: ServerMeta | undefined;
  try {
    meta = await loadServerMeta(`${dir}/${SERVER_META_FILE}`);
  } catch (error) {
    if (!(error instanceof DirectoryLoadError)) throw error;
    return refuse(
      `${error.problems.length} problem(s) in ${SERVER_META_FILE}\n  ${
        error.problems.join("\n  ")
      }`,
      EXIT.failed,
    );
  }
  if (meta === undefined) {
    return refuse(
      `Cannot publish "${dir}": it has no ${SERVER_META_FILE}, which says who the server is. ` +
        `Write one (toolshed new scaffolds a server directory with it; docs/operating/` +
        `publishing.md shows its fields): {"name": "io.github.OWNER/NAME", "description": ` +
        `"…", "version": "1.0.0", "author": {"name": "…"}}`,
      EXIT.failed,
    );
  }
  if (meta.author === undefined) {
    return refuse(
      `Cannot publish: "${dir}/${SERVER_META_FILE}" has no author, which an MCP Bundle's ` +
        `manifest requires: add "author": {"name": "…"} (email and url optional)`,
      EXIT.failed,
    );
  }
  const unfinished = unfinishedFields(meta);
  if (unfinished.length > 0) {
    return refuse(
      `Cannot publish: "${dir}/${SERVER_META_FILE}" still holds the TODO that toolshed new ` +
        `wrote in ${unfinished.join(", ")}, which the bundles' manifest and server.json would ` +
        "show as it is: write them first",
      EXIT.failed,
    );
  }
  // As written, and as the file system resolves them (a symbolic link into tools/, say).
  const [realOut, realDir] = await Promise.all([realPathOfNearest(out), realPathOfNearest(dir)]);
  const embeddedOut = EMBEDDED_FOLDERS.find((folder) =>
    [[out, dir], [realOut, realDir]].some(([o, d]) =>
      o === `${d}/${folder}` || o.startsWith(`${d}/${folder}/`)
    )
  );
  if (embeddedOut !== undefined) {
    return refuse(
      `--out "${out}" is inside ${embeddedOut}/, which the binary embeds: the next publish ` +
        "would embed these bundles. Choose a directory outside it (default: DIR/dist)",
    );
  }
  const template = values["release-url"] ?? defaultReleaseUrl(meta);
  if (template === undefined) {
    return refuse(
      `Cannot tell where the bundles will be downloaded from: give --release-url (such as ` +
        `"https://github.com/OWNER/REPO/releases/download/v{version}/{file}"), or a GitHub ` +
        `"repository" in ${SERVER_META_FILE}`,
    );
  }
  const badUrl = checkReleaseUrl(
    template,
    targets.map((target) => ({ target, file: bundleName(meta, target) })),
    { name: shortName(meta), version: meta.version },
    io.err,
  );
  if (badUrl !== undefined) return refuse(badUrl);

  // What start-up refuses, publish refuses: DIR loaded as `toolshed serve` loads it, with the
  // same --allow-outside-symlinks, its problems said in start-up's words (adr/0059).
  let problems: readonly string[] = [];
  const source = await openServer(
    { dir, "allow-outside-symlinks": values["allow-outside-symlinks"] === true },
    io,
    { diagnostics: QUIET, onProblems: (found) => problems = found },
  );
  if (typeof source === "number") {
    if (problems.length === 0) return source;
    return refuse(
      `Cannot publish: ${problems.length} problem(s) in the server directory, which ` +
        `start-up refuses too\n  ${problems.join("\n  ")}`,
      EXIT.failed,
    );
  }
  await source.server.close();

  const staging = await Deno.makeTempDir({ prefix: "toolshed_publish_" });
  try {
    let staged: Staged;
    try {
      staged = await stage(dir, staging, { includeDotfiles: values["include-dotfiles"] === true });
    } catch (error) {
      if (!(error instanceof StageError)) throw error;
      return refuse(error.message, EXIT.failed);
    }
    const { includes, dotfiles, outside: linkedOut } = staged;
    // Nothing leaves or joins a bundle without a word: what was left out, what came from outside.
    if (dotfiles.length > 0) {
      io.err(
        `toolshed: note: ${dotfiles.length} dot file(s) and folder(s) left out of the ` +
          `bundles, as no folder serves them: ${named(dotfiles)} (--include-dotfiles ` +
          "embeds them)\n",
      );
    }
    if (linkedOut.length > 0) {
      io.err(
        `toolshed: note: the bundles embed what ${linkedOut.length} symbolic link(s) point to ` +
          `outside their folder: ${
            named(linkedOut.map(({ path, real }) => `${path}" to "${real}`))
          }\n`,
      );
    }
    // What the binary will serve: the staged copy, loaded as the compiled binary loads it
    // (executable tools left out), so that a module importing a file outside the embedded
    // folders fails here as it would in the binary. Its messages name DIR's files.
    const inDir = (text: string) => text.replaceAll(staging, dir);
    const shownIo: Io = { ...io, out: (text) => io.out(inDir(text)), err: (t) => io.err(inDir(t)) };
    let server: Server;
    try {
      server = await createServer({
        dir: staging,
        skipExecutables: true,
        diagnostics: ioDiagnostics(shownIo),
      });
    } catch (error) {
      if (!(error instanceof DirectoryLoadError)) throw error;
      // A module the staged copy lacks is one outside the embedded folders: said by its name
      // in DIR, where it does exist.
      const missing = [
        ...new Set(
          error.problems.flatMap((problem) =>
            [...problem.matchAll(/Module not found "file:\/\/([^"]+)"/g)].map((found) =>
              inDir(decodeURIComponent(found[1]))
            )
          ),
        ),
      ];
      // A module left out as a dot file is in a folder, but not staged.
      const leftOut = missing.filter((path) =>
        dotfiles.some((dot) =>
          `${dir}/${dot}` === path || (dot.endsWith("/") && path.startsWith(`${dir}/${dot}`))
        )
      );
      const outside = missing.filter((path) => !leftOut.includes(path));
      return refuse(
        `${error.problems.length} problem(s) in the server directory as the binary would ` +
          `embed it\n  ${error.problems.map(inDir).join("\n  ")}\npublish embeds only ` +
          `${EMBEDDED_FOLDERS.map((folder) => `${folder}/`).join(", ")} and ` +
          `${SERVER_META_FILE}: a module importing a file outside them fails in the binary` +
          (outside.length === 0
            ? ""
            : ` (${outside.map((path) => `"${path}"`).join(", ")} ${
              outside.length === 1 ? "is" : "are"
            } outside them: move ${
              outside.length === 1 ? "it" : "them"
            } into tools/, where a file whose name starts with "_" is not loaded as a tool)`) +
          (leftOut.length === 0
            ? ""
            : ` (${
              leftOut.map((path) => `"${path}"`).join(", ")
            } left out as dot file(s): --include-dotfiles embeds them)`),
        EXIT.failed,
      );
    }
    // The copy serves what DIR serves: a symbolic link to a folder, copied as a folder, is a
    // toolset or a skill that DIR does not serve through the link.
    const [fromDir, fromCopy] = [served(source.loaded), served(server.loaded)];
    const onlyCopy = [...fromCopy].filter((item) => !fromDir.has(item));
    const onlyDir = [...fromDir].filter((item) => !fromCopy.has(item));
    if (onlyCopy.length + onlyDir.length > 0) {
      return refuse(
        `Cannot publish: the binary would not serve what "${dir}" serves (${
          [
            ...onlyCopy.length > 0 ? [`${onlyCopy.join(", ")} only in the binary`] : [],
            ...onlyDir.length > 0 ? [`${onlyDir.join(", ")} only from the directory`] : [],
          ].join("; ")
        }): publish copies a symbolic link to a folder as a folder, which tools/ and skills/ ` +
          `do not load through a link, so make it a real folder, or start its name with "_" ` +
          "if it holds helpers",
        EXIT.failed,
      );
    }
    const skipped = server.loaded.tools.skipped.map((sidecar) =>
      sidecar.slice(`${staging}/`.length)
    );
    if (skipped.length > 0) {
      io.err(
        `toolshed: warning: the executable tool(s) ${
          skipped.map((sidecar) =>
            `${sidecar.slice(sidecar.lastIndexOf("/") + 1).replace(/\.json$/, "")} (${sidecar})`
          ).join(", ")
        } are left out of the bundles: a compiled binary cannot run programs it embeds (nor ` +
          "are their sidecars' env names asked of the user)\n",
      );
    }
    const listed = await listedBy(server);

    // Every target is compiled before anything is written: a failed compile leaves --out as
    // it was (not created, when publish would have created it).
    const binaries: string[] = [];
    for (const target of targets) {
      const binary = `${staging}/bin/${target}/${binaryName(meta, target)}`;
      io.err(`toolshed: compiling for ${target}\n`);
      // deno compile's report (its tree of embedded files) is shown when the compile fails.
      let report = "";
      const problem = await compile({
        cwd: staging,
        entry: "entry.ts",
        includes,
        output: binary,
        target,
        config: decodeURIComponent(CONFIG.pathname),
        denortBin: io.env("DENORT_BIN"),
      }, (text) => report += text);
      if (problem !== undefined) {
        if (report.trim() !== "") io.err(`${report.trimEnd()}\n`);
        return refuse(`Cannot compile for ${target}: ${problem}`, EXIT.failed);
      }
      binaries.push(binary);
    }
    await Deno.mkdir(out, { recursive: true });
    const published: Published[] = [];
    for (const [i, target] of targets.entries()) {
      const binary = binaries[i];
      const manifest = manifestOf(meta, listed, target);
      const bytes = zipBundle(
        manifest,
        `server/${binaryName(meta, target)}`,
        await Deno.readFile(binary),
      );
      const file = bundleName(meta, target);
      await Deno.writeFile(`${out}/${file}`, bytes);
      published.push({ target, file, sha256: await sha256(bytes) });
    }
    const entry = serverJson(meta, published, template, publicUrl);
    await Deno.writeTextFile(`${out}/server.json`, `${JSON.stringify(entry, null, 2)}\n`);
    const urls = (entry.packages as JsonObject[]).map((pkg) => pkg.identifier as string);
    io.out(
      `Wrote to "${out}"${values.out === undefined ? " (the default, DIR/dist)" : ""}:\n` +
        published.map((bundle, i) =>
          `  ${bundle.file}  sha256 ${bundle.sha256}\n    to upload as ${urls[i]}\n`
        ).join("") +
        `  server.json  (${published.length} mcpb package(s)${
          publicUrl === undefined ? "" : ", a streamable-http remote"
        })\n`,
    );
    return EXIT.ok;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** Diagnostics that say nothing: DIR's load is for its refusals; the copy's load speaks. */
const QUIET: Diagnostics = { error: () => {}, forward: () => undefined };

/** At most this many paths named in a note. */
const NAMED = 5;

/** `"a", "b"`, or the first NAMED and how many more. */
function named(paths: readonly string[]): string {
  const shown = paths.slice(0, NAMED).map((path) => `"${path}"`).join(", ");
  return paths.length > NAMED ? `${shown} and ${paths.length - NAMED} more` : shown;
}

/**
 * What a loaded directory serves, each as `tool "add"`: tools (executables, which a binary
 * skips, by their name too), resources, templates, prompts, skills and middleware.
 */
function served(loaded: LoadedServer): Set<string> {
  const baseName = (file: string) => file.slice(file.lastIndexOf("/") + 1);
  return new Set([
    ...loaded.tools.tools.map((tool) => `tool "${tool.name}"`),
    ...loaded.tools.skipped.map((sidecar) => `tool "${baseName(sidecar).slice(0, -5)}"`),
    ...loaded.resources.map((resource) => `resource "${resource.uri}"`),
    ...loaded.templates.map((template) => `resource template "${template.name}"`),
    ...loaded.prompts.map((prompt) => `prompt "${prompt.name}"`),
    ...loaded.skills.map((skill) => `skill "${skill.uri}"`),
    ...loaded.middleware.map((middleware) => `middleware "${baseName(middleware.file)}"`),
  ]);
}

/** Whether `text` is an http(s) URL as written: it parses, and needs no character escaped. */
function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * `path` with symbolic links resolved, as far as it exists: the real path of its nearest
 * existing ancestor, with the rest appended as written.
 */
async function realPathOfNearest(path: string): Promise<string> {
  let head = path;
  let tail = "";
  for (;;) {
    try {
      return `${await Deno.realPath(head)}${tail}`;
    } catch {
      const cut = head.lastIndexOf("/");
      if (cut <= 0) return path;
      tail = `${head.slice(cut)}${tail}`;
      head = head.slice(0, cut);
    }
  }
}

function absolute(path: string, cwd: string): string {
  return (path.startsWith("/") ? path : `${cwd}/${path}`).replace(/\/+$/, "") || "/";
}
