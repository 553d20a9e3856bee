// Skill discovery: every folder under skills/ that holds a SKILL.md is a skill, however deep
// (a skill inside another is listed beside it, and its files are the outer skill's too, as
// the official SDK's catalog has it). Names starting with "." are not served. A skill's
// entry is its SKILL.md front matter, read with the YAML reader Markdown prompts use, and
// every file's URI, SHA-256 digest and size. A skill that breaks a rule of SEP-2640 stops
// start-up with a message naming its folder; all problems are reported together. Each file is
// read as a resources/read of it will be (primitives/resource_files.ts): a regular file inside
// the folder, no larger than --max-resource-bytes, and no more than that is ever read.
import { messageOf } from "../util/json.ts";
import type { JsonObject } from "../util/json.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { parseFrontMatter } from "../primitives/markdown_prompts.ts";
import {
  sha256Digest,
  type Skill,
  SKILL_LIMITS,
  SKILL_NAME,
  type SkillFile,
  skillMimeType,
  skillUri,
} from "../primitives/skills.ts";
import { type FileReadOptions, readBounded } from "../primitives/resource_files.ts";
import { DirectoryLoadError } from "./load_error.ts";
import { folderOf } from "./folder.ts";

interface SkillLoadOptions {
  /** Where notes about skills go (a skill over the size hosts must accept). */
  diagnostics: Diagnostics;
  /** The most bytes a file may have: it is read whole to be digested, and whole when served. */
  maxResourceBytes: number;
}

/** One entry of the folder, by its path under it ("a/b/SKILL.md"). */
interface Found {
  readonly path: string;
  /** `other`: a FIFO, a socket, a device, which is never opened. */
  readonly kind: "file" | "directory" | "symlink" | "other";
}

/**
 * Loads every skill under `dir`, a path (relative to the working directory) or a directory
 * URL, sorted by URI. Throws a DirectoryLoadError holding every problem found.
 */
export async function loadSkills(dir: string | URL, options: SkillLoadOptions): Promise<Skill[]> {
  const { url: dirUrl, shown } = folderOf(dir);
  const found: Found[] = [];
  const problems: string[] = [];
  let bounds: FileReadOptions;
  try {
    // Skills have no symlinks (each is refused): every file read stays inside the real folder.
    const real = Deno.realPathSync(dirUrl);
    bounds = Object.freeze({ maxResourceBytes: options.maxResourceBytes, insideDir: `${real}/` });
    walk(dirUrl, "", found);
  } catch (error) {
    throw new DirectoryLoadError([
      `Cannot read the skills directory "${shown}": ${messageOf(error)}`,
    ]);
  }
  const dirs = new Set(found.filter(isManifest).map((entry) => parentOf(entry.path)));
  for (const entry of found) {
    const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
    if (entry.kind === "file" && name !== "SKILL.md" && name.toLowerCase() === "skill.md") {
      problems.push(`Cannot load skill file "${shown}/${entry.path}": name it "SKILL.md"`);
    }
  }
  if (dirs.has("")) {
    problems.push(
      `Cannot load skill "${shown}/SKILL.md": a skill is a folder under skills/ holding a ` +
        "SKILL.md, and the folder's name is the skill's",
    );
    dirs.delete("");
  }
  const skills: Skill[] = [];
  for (const skillDir of [...dirs].sort()) {
    const inside = found.filter((entry) => entry.path.startsWith(`${skillDir}/`));
    try {
      skills.push(await loadSkill(dirUrl, shown, skillDir, inside, bounds, options));
    } catch (error) {
      problems.push(`Cannot load skill "${shown}/${skillDir}": ${messageOf(error)}`);
    }
  }
  if (problems.length > 0) throw new DirectoryLoadError(problems);
  return skills.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
}

function walk(dirUrl: URL, under: string, found: Found[]): void {
  const entries: Deno.DirEntry[] = [];
  for (const entry of Deno.readDirSync(new URL(under, dirUrl))) {
    if (!entry.name.startsWith(".")) entries.push(entry);
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    const path = `${under}${entry.name}`;
    const kind = entry.isSymlink
      ? "symlink"
      : entry.isDirectory
      ? "directory"
      : entry.isFile
      ? "file"
      : "other";
    found.push({ path, kind });
    if (kind === "directory") walk(dirUrl, `${path}/`, found);
  }
}

const isManifest = (entry: Found) =>
  entry.kind !== "directory" && entry.path.split("/").at(-1) === "SKILL.md";

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut === -1 ? "" : path.slice(0, cut);
}

/** One skill: its entry, checked as SEP-2640 and Agent Skills say; throws the first problem. */
async function loadSkill(
  dirUrl: URL,
  shown: string,
  skillDir: string,
  inside: readonly Found[],
  bounds: FileReadOptions,
  options: SkillLoadOptions,
): Promise<Skill> {
  const symlink = inside.find((entry) => entry.kind === "symlink");
  if (symlink !== undefined) {
    throw new Error(
      `"${symlink.path}" is a symlink: a skill's files are served as they are, so copy the file ` +
        "in instead",
    );
  }
  const other = inside.find((entry) => entry.kind === "other");
  if (other !== undefined) {
    throw new Error(`"${other.path}" is not a regular file (a FIFO, a socket or a device)`);
  }
  const segments = skillDir.split("/");
  const uri = skillUri([...segments, "SKILL.md"]);
  if (uri === undefined) {
    throw new Error(
      "its path cannot be written as a skill:// URI that reads back the same: name its " +
        "folders in lowercase letters, digits and hyphens",
    );
  }
  const files: SkillFile[] = [];
  let manifest: Uint8Array | undefined;
  for (const entry of inside) {
    if (entry.kind !== "file") continue;
    const fileUri = skillUri(entry.path.split("/"));
    if (fileUri === undefined) {
      throw new Error(`the name of "${entry.path}" cannot be written in a skill:// URI`);
    }
    const url = new URL(entry.path.split("/").map(encodeURIComponent).join("/"), dirUrl);
    const bytes = await readBounded(url, fileUri, bounds);
    if (bytes === undefined) throw new Error(`"${entry.path}" went away while it was read`);
    if (entry.path === `${skillDir}/SKILL.md`) manifest = bytes;
    files.push(Object.freeze({
      uri: fileUri,
      digest: await sha256Digest(bytes as Uint8Array<ArrayBuffer>),
      size: bytes.byteLength,
      url,
      mimeType: skillMimeType(entry.path),
      bounds,
    }));
  }
  files.sort((a, b) => a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  const frontmatter = await frontMatterOf(manifest!);
  checkFrontMatter(frontmatter, segments.at(-1)!);
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (files.length > SKILL_LIMITS.files || bytes > SKILL_LIMITS.bytes) {
    (options.diagnostics.warning ?? options.diagnostics.error)(
      `Skill "${shown}/${skillDir}" holds ${files.length} files of ${bytes} bytes in all, ` +
        `more than the ${SKILL_LIMITS.files} files or ${SKILL_LIMITS.bytes} bytes every host ` +
        "must accept (SEP-2640): some hosts may decline it",
    );
  }
  const entry = {
    uri,
    frontmatter,
    resources: files.map(({ uri, digest, size }) => ({ uri, digest, size })),
  };
  return Object.freeze({
    uri,
    file: `${shown}/${skillDir}`,
    entry: deepFreeze(entry),
    files: Object.freeze(files),
  });
}

/**
 * SKILL.md's front matter: the file must be UTF-8 and begin with a "---" line, and the YAML up
 * to the next "---" line must be a mapping.
 */
async function frontMatterOf(bytes: Uint8Array): Promise<JsonObject> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error("SKILL.md is not UTF-8");
  }
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  if (lines[0] !== "---") {
    throw new Error(
      'SKILL.md must begin with front matter: a line "---", then "name: …" and ' +
        '"description: …", then a line "---"',
    );
  }
  const close = lines.findIndex((line, index) => index > 0 && /^---[\t ]*$/.test(line));
  if (close === -1) throw new Error('SKILL.md\'s front matter has no closing "---" line');
  const front = await parseFrontMatter(lines.slice(1, close).join("\n"));
  if (typeof front !== "object" || front === null || Array.isArray(front)) {
    throw new Error(
      "SKILL.md's front matter must be a YAML mapping of fields (name, description …)",
    );
  }
  return front as JsonObject;
}

/** The fields SEP-2640 and the Agent Skills specification constrain. */
function checkFrontMatter(front: JsonObject, folder: string): void {
  const { name, description, compatibility, metadata } = front;
  if (typeof name !== "string" || typeof description !== "string") {
    throw new Error('SKILL.md\'s front matter must hold "name" and "description", both strings');
  }
  if (name.length > 64 || !SKILL_NAME.test(name)) {
    throw new Error(
      `name "${name}" must be 1-64 lowercase letters, digits and single hyphens`,
    );
  }
  if (name !== folder) {
    throw new Error(`name "${name}" must be the name of its folder, "${folder}"`);
  }
  if (description === "" || [...description].length > 1024) {
    throw new Error("description must be 1-1024 characters");
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== "string" || compatibility === "" ||
      [...compatibility].length > 500)
  ) {
    throw new Error("compatibility must be a string of 1-500 characters");
  }
  if (
    metadata !== undefined && (typeof metadata !== "object" || metadata === null ||
      Array.isArray(metadata) || Object.values(metadata).some((value) => typeof value !== "string"))
  ) {
    throw new Error("metadata must map strings to strings");
  }
  if (!isJson(front)) {
    throw new Error("the front matter holds a value JSON cannot carry (.inf or .nan)");
  }
}

/** False when a value holds a number JSON cannot carry (YAML's .inf and .nan). */
function isJson(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  return Object.values(value).every(isJson);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
