// toolshed new: writes one working tool, prompt or resource to start from, in the folder the
// server loads it from. The name passes the loader's own check first, and nothing that exists
// is ever overwritten, so running it twice is harmless.
import { checkDefinition } from "../primitives/tools.ts";
import { SKILL_NAME } from "../primitives/skills.ts";
import { messageOf } from "../util/json.ts";
import { closest } from "../util/suggest.ts";
import { EXIT, type Io } from "./command.ts";
import { commandLine, shellWord } from "./invocation.ts";
import { parseCommandArgs } from "./open_server.ts";
import {
  DEFAULT_LICENSE,
  licenseOf,
  problemWithServerName,
  serverMetaScaffold,
} from "./scaffold_meta.ts";
import { SERVER_DENO_JSON, serverDenoJson } from "./scaffold_deno_json.ts";
import { SERVER_META_FILE } from "../primitives/server_meta.ts";
import {
  FOLDERS,
  type Kind,
  type Lang,
  LANG_NAMES,
  LANGS,
  type ScaffoldFile,
  scaffoldFiles,
} from "./scaffold_templates.ts";

const KINDS: readonly Kind[] = ["tool", "prompt", "resource", "skill", "app"];
const ALL_LANGS: readonly Lang[] = ["ts", "bash", "python", "md", "html"];
/** Extensions a name may not end with: the file's extension is --lang's business. */
const EXTENSION = /\.(ts|mts|js|mjs|sh|py|json|md|html)$/;

const FLAGS = {
  dir: { type: "string" },
  lang: { type: "string" },
  license: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `Usage: toolshed new tool|prompt|resource|skill|app NAME [--dir DIR] [--lang LANG]
       toolshed new server NAME [--dir DIR] [--license SPDX]

Writes a working tool, prompt, resource, skill or MCP App named NAME to start from, into
DIR/tools/, DIR/prompts/, DIR/resources/, DIR/skills/ or DIR/ui/ (creating the folder). Never
overwrites a file.

  tool       --lang ts (default): tools/NAME.ts
             --lang bash: tools/NAME.sh (executable) and its sidecar tools/NAME.json
             --lang python: tools/NAME.py (executable) and its sidecar tools/NAME.json
  prompt     --lang ts (default): prompts/NAME.ts; --lang md: prompts/NAME.md
  resource   --lang ts (default): resources/NAME.ts; --lang md: resources/NAME.md
  skill      skills/NAME/SKILL.md (--lang md, the only one)
  app        ui/NAME.html, its sidecar ui/NAME.json, and tools/NAME.ts, the tool it shows
             and calls back
  server     server.meta.json: who the server is, for publish and the server card, with
             NAME its registry name in reverse-DNS form (io.github.alice/weather), and
             its "license": ${DEFAULT_LICENSE} unless --license names another

Options:
  --dir DIR     The server directory (default: the working directory)
  --lang LANG   ts, bash, python or md, as above
  --license SPDX
                The licence server.meta.json names (new server): an SPDX identifier or
                expression (default ${DEFAULT_LICENSE}; none writes no "license")
  -h, --help    Show this help

Example: toolshed new tool greet --lang python --dir my-server`;

export const command = {
  usage: USAGE,
  run,
};

async function run(args: string[], io: Io): Promise<number> {
  const parsed = parseCommandArgs(args, FLAGS, io, "new", USAGE);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const usageError = (message: string) => {
    io.err(`toolshed: ${message}\n(toolshed new --help shows how)\n`);
    return EXIT.usage;
  };
  const [kindGiven, name, ...extra] = positionals;
  if (kindGiven === undefined) {
    return usageError(
      "toolshed new needs what to create: tool, prompt, resource, skill, app or server, then a NAME",
    );
  }
  if (!KINDS.includes(kindGiven as Kind) && kindGiven !== "server") {
    const meant = closest(kindGiven, [...KINDS, "server"]);
    return usageError(
      `Cannot create a "${kindGiven}": toolshed new creates a tool, a prompt, a resource, ` +
        `a skill, an app or a server's server.meta.json` +
        (meant === undefined ? "" : `; did you mean ${meant}?`),
    );
  }
  if (kindGiven === "server") return await newServerMeta(name, extra, values, io, usageError);
  const kind = kindGiven as Kind;
  if (values.license !== undefined) {
    return usageError(`toolshed new ${kind} takes no --license (it is for toolshed new server)`);
  }
  if (name === undefined) return usageError(`toolshed new ${kind} needs a NAME`);
  if (extra.length > 0) {
    return usageError(
      `toolshed new takes a kind and one NAME, not also "${extra.join(" ")}"`,
    );
  }
  if (values.dir === "") return usageError("--dir needs a directory");

  const langGiven = values.lang ?? LANGS[kind][0];
  if (!ALL_LANGS.includes(langGiven as Lang)) {
    const meant = closest(langGiven, ALL_LANGS);
    return usageError(
      `Unknown language "${langGiven}": use ${LANGS[kind].join(", ")} for a ${kind}` +
        (meant === undefined ? "" : `; did you mean ${meant}?`),
    );
  }
  const lang = langGiven as Lang;
  if (!LANGS[kind].includes(lang)) {
    return usageError(
      `Cannot write a ${kind} in "${lang}": a ${kind} is ${
        LANGS[kind].map((each) => `${LANG_NAMES[each]} (--lang ${each})`).join(" or ")
      }`,
    );
  }

  const nameProblem = kind === "skill" ? problemWithSkillName(name) : problemWithName(name);
  if (nameProblem !== undefined) {
    io.err(`toolshed: Cannot create ${kind} "${name}": ${nameProblem}\n`);
    return EXIT.failed;
  }

  const dirShown = values.dir?.replace(/(.)\/+$/, "$1");
  const shownOf = (folder: string) => dirShown === undefined ? folder : `${dirShown}/${folder}`;
  const folderShown = shownOf(FOLDERS[kind]);
  const files = scaffoldFiles(kind, lang, name);
  // A directory this command creates is a server of its own: it gets its deno.json too.
  const newDir = dirShown !== undefined && !await exists(absolute(io.cwd, dirShown));
  // Each folder written to, with its files (an app's tool goes in tools/).
  const groups = new Map<string, ScaffoldFile[]>();
  for (const file of files) {
    const folder = file.folder ?? FOLDERS[kind];
    groups.set(folder, [...groups.get(folder) ?? [], file]);
  }
  for (const [folder, inIt] of groups) {
    const folderKind = folder === FOLDERS[kind] ? kind : "tool";
    const taken = await takenBy(absolute(io.cwd, shownOf(folder)), folderKind, name, inIt);
    if (taken !== undefined) {
      io.err(
        `toolshed: Cannot create ${kind} "${name}": "${shownOf(folder)}/${taken}" exists ` +
          `already (toolshed new never overwrites a file; pick another name or remove it)\n`,
      );
      return EXIT.failed;
    }
  }
  try {
    const written: string[] = [];
    try {
      for (const [folder, inIt] of groups) {
        const path = absolute(io.cwd, shownOf(folder));
        await Deno.mkdir(path, { recursive: true });
        await writeAll(path, inIt);
        written.push(...inIt.map((file) => `${path}/${file.fileName}`));
      }
    } catch (error) {
      await Promise.all(written.map((path) => Deno.remove(path).catch(() => {})));
      throw error;
    }
  } catch (error) {
    io.err(`toolshed: Cannot create ${kind} "${name}" in "${folderShown}": ${messageOf(error)}\n`);
    return EXIT.failed;
  }
  const denoJson = newDir ? await writeServerDenoJson(absolute(io.cwd, dirShown), io) : undefined;
  const dirFlag = dirShown === undefined ? "" : ` --dir ${shellWord(dirShown)}`;
  // The next command as the user types toolshed (deno task toolshed, a binary's path, …).
  const toolshed = commandLine();
  io.out(
    files.map((file) => `Created ${shownOf(file.folder ?? FOLDERS[kind])}/${file.fileName}\n`)
      .join("") +
      (denoJson === undefined ? "" : `Created ${dirShown}/${SERVER_DENO_JSON}${denoJson}\n`) +
      `Next: edit it, then ${
        kind === "tool" || kind === "app"
          ? `try it with: ${toolshed} call ${name} text=hello${dirFlag}`
          : `see it listed with: ${toolshed} list${dirFlag}`
      }\n`,
  );
  return EXIT.ok;
}

/** `toolshed new server NAME`: DIR/server.meta.json, never over one that exists. */
async function newServerMeta(
  name: string | undefined,
  extra: string[],
  values: { dir?: string; lang?: string; license?: string },
  io: Io,
  usageError: (message: string) => number,
): Promise<number> {
  if (name === undefined) {
    return usageError(
      "toolshed new server needs the server's registry NAME (io.github.alice/weather)",
    );
  }
  if (extra.length > 0) {
    return usageError(`toolshed new takes a kind and one NAME, not also "${extra.join(" ")}"`);
  }
  if (values.lang !== undefined) return usageError("toolshed new server takes no --lang");
  if (values.dir === "") return usageError("--dir needs a directory");
  const licensed = licenseOf(values.license ?? DEFAULT_LICENSE);
  if ("problem" in licensed) return usageError(licensed.problem);
  const { license } = licensed;
  const problem = problemWithServerName(name);
  if (problem !== undefined) {
    io.err(`toolshed: Cannot create server "${name}": ${problem}\n`);
    return EXIT.failed;
  }
  const dirShown = values.dir?.replace(/(.)\/+$/, "$1");
  const shown = dirShown === undefined ? SERVER_META_FILE : `${dirShown}/${SERVER_META_FILE}`;
  try {
    if (dirShown !== undefined) await Deno.mkdir(absolute(io.cwd, dirShown), { recursive: true });
    await Deno.writeTextFile(absolute(io.cwd, shown), serverMetaScaffold(name, license), {
      createNew: true,
    });
  } catch (error) {
    io.err(
      error instanceof Deno.errors.AlreadyExists
        ? `toolshed: Cannot create server "${name}": "${shown}" exists already (toolshed new ` +
          "never overwrites a file; edit it instead)\n"
        : `toolshed: Cannot create "${shown}": ${messageOf(error)}\n`,
    );
    return EXIT.failed;
  }
  const denoJson = await writeServerDenoJson(absolute(io.cwd, dirShown ?? "."), io);
  const dirFlag = dirShown === undefined ? "" : ` --dir ${shellWord(dirShown)}`;
  io.out(
    `Created ${shown}, ${
      license === undefined
        ? "with no license (--license none)"
        : `license ${license}${values.license === undefined ? " (--license names another)" : ""}`
    }\n` +
      (denoJson === undefined
        ? ""
        : `Created ${
          dirShown === undefined ? "" : `${dirShown}/`
        }${SERVER_DENO_JSON}${denoJson}\n`) +
      `Next: replace its TODO values, then check it with: ${commandLine()} ` +
      `check${dirFlag}\n`,
  );
  return EXIT.ok;
}

/**
 * Writes the server directory's own deno.json (scaffold_deno_json.ts) unless one is there
 * already (a project of the author's, or toolshed's clone itself): returns what to add to its
 * "Created" line, or undefined when nothing was written. A compiled toolshed writes none.
 */
async function writeServerDenoJson(dir: string, io: Io): Promise<string | undefined> {
  const written = serverDenoJson();
  if (written === undefined) return undefined;
  try {
    await Deno.writeTextFile(`${dir.replace(/\/+$/, "")}/${SERVER_DENO_JSON}`, written.text, {
      createNew: true,
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) {
      io.err(`toolshed: Cannot create "${SERVER_DENO_JSON}" in "${dir}": ${messageOf(error)}\n`);
    }
    return undefined;
  }
  return ` ("@toolshed/toolshed" is ${written.mod}; deno task test, deno task check)`;
}

/** Whether anything is at `path`. */
async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Why the loader would not serve a file named after `name`, or undefined. The name rule is
 * the loader's own check (the first thing checkDefinition looks at, with its message).
 */
function problemWithName(name: string): string | undefined {
  try {
    checkDefinition(
      { description: "probe", inputSchema: { type: "object" }, handler: () => undefined },
      name,
      name,
    );
  } catch (error) {
    return messageOf(error);
  }
  if (/^[_.]/.test(name)) {
    return 'a name that starts with "_" or "." is not loaded (such files are helpers)';
  }
  const extension = EXTENSION.exec(name);
  if (extension !== null) {
    return `give the name without an extension ("${
      name.slice(0, extension.index)
    }"): --lang chooses the kind of file`;
  }
  return undefined;
}

/** Why skills/NAME would not load as a skill (the Agent Skills name rule), or undefined. */
function problemWithSkillName(name: string): string | undefined {
  return name.length <= 64 && SKILL_NAME.test(name)
    ? undefined
    : "a skill's name is 1-64 lowercase letters, digits and single hyphens (pdf-forms)";
}

/**
 * The first file in `folder` that already holds `name` (a file to write, or another file the
 * loader would give the same name), or undefined.
 */
async function takenBy(
  folder: string,
  kind: Kind,
  name: string,
  files: readonly ScaffoldFile[],
): Promise<string | undefined> {
  // A skill is a folder: one of its name is taken, whatever it holds.
  const candidates = kind === "skill" ? new Set([name]) : new Set([
    ...files.map((file) => file.fileName),
    ...["ts", "mts", "js", "mjs"].map((extension) => `${name}.${extension}`),
    ...(kind === "tool" ? [`${name}.json`] : kind === "prompt" ? [`${name}.md`] : []),
  ]);
  for (const fileName of candidates) {
    try {
      await Deno.lstat(`${folder}/${fileName}`);
      return fileName;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return undefined;
}

/**
 * Writes each file, failing rather than replacing one that appeared meanwhile (createNew);
 * on failure removes those it wrote, so a tool is never left half made.
 */
async function writeAll(folder: string, files: readonly ScaffoldFile[]): Promise<void> {
  const written: string[] = [];
  try {
    for (const file of files) {
      const path = `${folder}/${file.fileName}`;
      if (file.fileName.includes("/")) {
        await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      }
      await Deno.writeTextFile(path, file.text, {
        createNew: true,
        mode: file.executable ? 0o755 : 0o644,
      });
      written.push(path);
    }
  } catch (error) {
    await Promise.all(written.map((path) => Deno.remove(path).catch(() => {})));
    throw error;
  }
}

/** `path` made absolute against `cwd`. */
function absolute(cwd: string, path: string): string {
  return /^([/\\]|[A-Za-z]:[/\\])/.test(path) ? path : `${cwd.replace(/\/+$/, "")}/${path}`;
}
