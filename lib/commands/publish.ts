// toolshed publish: from a server directory to what its users install (adr/0049). Compiles the
// server for each target into a binary with the directory's folders embedded, packs one MCP
// Bundle (.mcpb) per target, and writes the MCP Registry's server.json naming each bundle by
// its release URL and SHA-256. Who the server is comes from DIR/server.meta.json.
import { EXIT, type Io } from "./command.ts";
import {
  absolute,
  type Compile,
  compiledFor,
  embeddedFolderHolding,
  loadedAsStartUp,
  refuser,
  stageChecked,
  STAGING_FLAGS,
  STAGING_HELP,
  stagingFlags,
  withoutDenoCompile,
} from "./publish_stage.ts";
import { listedBy } from "./publish_listing.ts";
import { compileBinary } from "./compile_binary.ts";
import { TARGET } from "./denort.ts";
import {
  binaryName,
  bundleName,
  manifestOf,
  sha256,
  shortName,
  TARGETS,
  unknownTarget,
  zipBundle,
} from "./mcpb.ts";
import {
  checkReleaseUrl,
  defaultReleaseUrl,
  type NpmPackage,
  parseNpmPackage,
  type Published,
  serverJson,
} from "./registry_entry.ts";
import { loadServerMeta } from "../discovery/server_dir.ts";
import { DirectoryLoadError } from "../discovery/load_error.ts";
import { SERVER_META_FILE, type ServerMeta } from "../primitives/server_meta.ts";
import { unfinishedFields } from "./scaffold_meta.ts";
import type { JsonObject } from "../util/json.ts";

const FLAGS = {
  dir: { type: "string" },
  out: { type: "string" },
  target: { type: "string", multiple: true },
  "release-url": { type: "string" },
  "public-url": { type: "string" },
  ...STAGING_FLAGS,
  "no-bundles": { type: "boolean" },
  "npm-package": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const command = {
  usage: `Usage: toolshed publish [options]

Compiles the server directory into one binary per target, packs each into an MCP Bundle
(.mcpb, installed in one click by Claude Desktop) and writes the MCP Registry's server.json
listing the bundles by release URL and SHA-256. Who the server is (name, version, author …)
comes from DIR/${SERVER_META_FILE}. With --no-bundles it writes server.json alone, for a
server reached at --public-url or installed from --npm-package.

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
  --npm-package NAME[@VERSION]
                         The npm package the server is also published as (run with npx;
                         VERSION defaults to ${SERVER_META_FILE}'s): becomes an npm package
                         in server.json
  --no-bundles           Compile nothing and pack no bundles: write server.json alone, with
                         --public-url, --npm-package or both
${STAGING_HELP}

DENORT_BIN names Deno's standalone runtime (denort) for this machine's target where Deno
cannot download it. Then publish server.json with the registry's mcp-publisher
(docs/operating/publishing.md).

Examples:
  toolshed publish --dir examples/hello
  toolshed publish --target x86_64-unknown-linux-gnu --target aarch64-apple-darwin \\
    --release-url 'https://github.com/alice/weather/releases/download/v{version}/{file}'
  toolshed publish --no-bundles --public-url https://weather.example.com/mcp`,

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
  const values = stagingFlags(args, FLAGS, io, "publish", command.usage, [
    "dir",
    "out",
    "release-url",
    "public-url",
    "npm-package",
  ]);
  if (typeof values === "number") return values;
  const refuse = refuser(io);
  const noBundles = values["no-bundles"] === true;
  if (noBundles) {
    // What only a bundle takes, given with --no-bundles, is a mistake said, not ignored.
    const bundleFlag = (["target", "release-url", "include-dotfiles"] as const).find((flag) =>
      values[flag] !== undefined
    );
    if (bundleFlag !== undefined) {
      return refuse(
        `--no-bundles packs no bundles, so --${bundleFlag} has nothing to do: drop one of them`,
      );
    }
    if (values["public-url"] === undefined && values["npm-package"] === undefined) {
      return refuse(
        "--no-bundles leaves server.json with no way to reach or install the server: add " +
          "--public-url URL (served over Streamable HTTP), --npm-package NAME[@VERSION] " +
          "(run with npx), or both",
      );
    }
  }
  let npmPackage: NpmPackage | undefined;
  if (values["npm-package"] !== undefined) {
    const parsed = parseNpmPackage(values["npm-package"]);
    if (typeof parsed === "string") return refuse(parsed);
    npmPackage = parsed;
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
    const unknown = unknownTarget(target);
    if (unknown !== undefined) return refuse(unknown);
  }
  const publicUrl = values["public-url"];
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    return refuse(`--public-url "${publicUrl}" is not an http(s) URL`);
  }
  const noDenoCompile = withoutDenoCompile("publish");
  if (noDenoCompile !== undefined && !noBundles) return refuse(noDenoCompile);
  const dir = absolute(values.dir ?? ".", io.cwd);
  const out = absolute(values.out ?? `${dir}/dist`, io.cwd);
  // What start-up refuses, publish refuses (adr/0059), with or without bundles.
  const startUp = () =>
    loadedAsStartUp(dir, values["allow-outside-symlinks"] === true, io, "publish");

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
  if (meta.author === undefined && !noBundles) {
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
  if (noBundles) {
    // server.json alone (adr/0067): who the server is, checked as above, and a directory
    // start-up serves; nothing is compiled, so nothing is staged.
    const fromDir = await startUp();
    if (typeof fromDir === "number") return fromDir;
    const entry = serverJson(meta, [], "", publicUrl, npmPackage);
    await Deno.mkdir(out, { recursive: true });
    await Deno.writeTextFile(`${out}/server.json`, `${JSON.stringify(entry, null, 2)}\n`);
    io.out(
      `Wrote to "${out}"${values.out === undefined ? " (the default, DIR/dist)" : ""}:\n` +
        `  server.json  (${
          inServerJson(undefined, npmPackage, publicUrl)
        }; no bundles, as --no-bundles asked)\n${npmNote(meta, npmPackage)}`,
    );
    return EXIT.ok;
  }
  const embeddedOut = await embeddedFolderHolding(out, dir);
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

  const fromDir = await startUp();
  if (typeof fromDir === "number") return fromDir;

  const staging = await Deno.makeTempDir({ prefix: "toolshed_publish_" });
  try {
    const checked = await stageChecked(dir, staging, fromDir, {
      includeDotfiles: values["include-dotfiles"] === true,
      verb: "publish",
    }, io);
    if (typeof checked === "number") return checked;
    const { server, staged: { includes } } = checked;
    const listed = await listedBy(server);

    // Every target is compiled before anything is written: a failed compile leaves --out as
    // it was (not created, when publish would have created it).
    const binaries: string[] = [];
    for (const target of targets) {
      const binary = `${staging}/bin/${target}/${binaryName(meta, target)}`;
      const problem = await compiledFor(compile, staging, includes, target, binary, io);
      if (problem !== undefined) return refuse(problem, EXIT.failed);
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
    const entry = serverJson(meta, published, template, publicUrl, npmPackage);
    await Deno.writeTextFile(`${out}/server.json`, `${JSON.stringify(entry, null, 2)}\n`);
    const urls = (entry.packages as JsonObject[]).map((pkg) => pkg.identifier as string);
    const entries = inServerJson(published.length, npmPackage, publicUrl);
    io.out(
      `Wrote to "${out}"${values.out === undefined ? " (the default, DIR/dist)" : ""}:\n` +
        published.map((bundle, i) =>
          `  ${bundle.file}  sha256 ${bundle.sha256}\n    to upload as ${urls[i]}\n`
        ).join("") +
        `  server.json  (${entries})\n${npmNote(meta, npmPackage)}`,
    );
    return EXIT.ok;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** What server.json lists, for the line that names it. */
function inServerJson(
  bundles: number | undefined,
  npm: NpmPackage | undefined,
  publicUrl: string | undefined,
): string {
  return [
    ...bundles === undefined ? [] : [`${bundles} mcpb package(s)`],
    ...npm === undefined ? [] : [`the npm package ${npm.name}`],
    ...publicUrl === undefined ? [] : ["a streamable-http remote"],
  ].join(", ");
}

/**
 * What the registry checks of an npm package before it lists it: the package's own
 * package.json names this server (modelcontextprotocol.io/registry/package-types).
 */
function npmNote(meta: ServerMeta, npm: NpmPackage | undefined): string {
  if (npm === undefined) return "";
  return `  (the registry lists ${npm.name}@${npm.version ?? meta.version} only if its ` +
    `package.json says "mcpName": ${JSON.stringify(meta.name)})\n`;
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
