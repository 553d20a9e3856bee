// Skills (the io.modelcontextprotocol/skills extension, SEP-2640; adr/0047): a skill is a folder
// holding a SKILL.md, and each of its files is a resource under `skill://`. What a skill entry
// says (the SKILL.md front matter verbatim, and every file's URI, SHA-256 digest and size) is
// fixed when the folder loads; a read answers the bytes from disk only while they still have
// that digest, so what a host verified and what it is given are the same bytes. The bytes are
// read as file resources read theirs (resource_files.ts): inside the skills folder, a regular
// file, at most --max-resource-bytes, however the file changed since (adr/0057).
import type { ResourceContext } from "./types.ts";
import type { JsonObject } from "../util/json.ts";
import type { Resource, ResourceTemplate } from "./resources.ts";
import { toBase64 } from "./resource_bytes.ts";
import { type FileReadOptions, readBounded } from "./resource_files.ts";
import { canonicalUri, SKILLS_EXTENSION } from "./skill_id.ts";

/** One file of a skill, as its entry lists it. */
interface SkillFileEntry {
  readonly uri: string;
  /** `sha256:` and 64 lowercase hexadecimal digits, of the file's bytes. */
  readonly digest: string;
  readonly size: number;
}

/** A file the server reads when asked: where it is, and what it must still be. */
export interface SkillFile extends SkillFileEntry {
  readonly url: URL;
  readonly mimeType: string;
  /** How much a read may take, and the folder (its real path) it must stay in. */
  readonly bounds: FileReadOptions;
}

/** One skill, as `skills/list` and `skills/get` send it, and the files it may read. */
export interface Skill {
  /** The URI of its SKILL.md (the catalog's key). */
  readonly uri: string;
  /** Its folder as messages show it (a reload keeps the last good skills while one breaks). */
  readonly file?: string;
  /** The entry on the wire: `{ uri, frontmatter, resources }`. */
  readonly entry: Readonly<JsonObject>;
  readonly files: readonly SkillFile[];
}

/** The Agent Skills name rule: lowercase letters, digits and single hyphens, 1-64 of them. */
export const SKILL_NAME = /^[\da-z]+(?:-[\da-z]+)*$/;

/** Per skill, what hosts must accept and servers should not publish more of (SEP-2640). */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** The characters a URI path segment keeps as they are (WHATWG URL's path set, as the SDK). */
const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

/**
 * The `skill://` URI of the file at `segments` (folder names under skills/, then the file's):
 * the first segment is the URI's authority. Undefined when a name cannot be written in a URI
 * that reads back the same (an authority with capitals, for one).
 */
export function skillUri(segments: readonly string[]): string | undefined {
  const [authority, ...path] = segments;
  let uri: string;
  try {
    uri = [
      `skill://${encodeURIComponent(authority)}`,
      ...path.map((segment) => segment.replaceAll(ENCODED_IN_SEGMENT, encodeURIComponent)),
    ].join("/");
  } catch {
    return undefined; // a lone surrogate
  }
  return canonicalUri(uri) === uri ? uri : undefined;
}

/** `sha256:` and the lowercase hex SHA-256 of `bytes`. */
export async function sha256Digest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The MIME types of the extensions skills hold, as the official SDK names them. */
const MIME_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "application/x-sh",
  bash: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** The MIME type of a file name's extension; `application/octet-stream` when unknown. */
export function skillMimeType(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  const extension = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(MIME_TYPES, extension) ? MIME_TYPES[extension] : "application/octet-stream";
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * `file`'s contents now, as a resources/read content: text when the bytes are UTF-8 (a byte
 * order mark kept, so the text is exactly the bytes digested), else a base64 blob. Rejects
 * when the file is gone, is no longer a regular file inside the skills folder, is over the
 * size bound (read no further than the bound and one byte) or no longer has its digest.
 */
async function readSkillFile(file: SkillFile, signal: AbortSignal): Promise<JsonObject> {
  const bytes = await readBounded(file.url, file.uri, file.bounds, signal);
  if (
    bytes === undefined || bytes.byteLength !== file.size ||
    await sha256Digest(bytes as Uint8Array<ArrayBuffer>) !== file.digest
  ) {
    throw new Error(
      `"${file.uri}" changed since its skill was loaded: it is served again once the server ` +
        "reloads (--watch) or restarts",
    );
  }
  let text: string | undefined;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch { /* binary */ }
  return text === undefined
    ? { uri: file.uri, mimeType: file.mimeType, blob: toBase64(bytes) }
    : { uri: file.uri, mimeType: file.mimeType, text };
}

const NO_SCOPES: readonly string[] = Object.freeze([]);

/**
 * What skills add to resources: each SKILL.md as a listed resource (the SDK lists those and
 * not the files beside them), and one template, `skill://{+path}`, that reads every file a
 * skill lists.
 */
function skillResources(
  skills: readonly Skill[],
): { resources: Resource[]; templates: ResourceTemplate[] } {
  if (skills.length === 0) return { resources: [], templates: [] };
  const files = new Map<string, SkillFile>();
  for (const skill of skills) for (const file of skill.files) files.set(file.uri, file);
  const resources = skills.map((skill): Resource => {
    const manifest = files.get(skill.uri)!;
    const frontmatter = skill.entry.frontmatter as JsonObject;
    return Object.freeze({
      uri: skill.uri,
      name: String(frontmatter.name),
      file: skill.file,
      listing: Object.freeze({
        uri: skill.uri,
        name: String(frontmatter.name),
        description: String(frontmatter.description),
        mimeType: "text/markdown",
        size: manifest.size,
      }),
      timeoutMs: undefined,
      scopes: NO_SCOPES,
      read: async (ctx: ResourceContext) => [await readSkillFile(manifest, ctx.signal)],
    });
  });
  const fileOf = (uri: string) => {
    const canonical = canonicalUri(uri);
    return canonical === undefined ? undefined : files.get(canonical);
  };
  const template: ResourceTemplate = Object.freeze({
    name: SKILLS_EXTENSION,
    uriTemplate: "skill://{+path}",
    listing: Object.freeze({
      uriTemplate: "skill://{+path}",
      name: SKILLS_EXTENSION,
      description: "The files of the skills skills/list lists",
    }),
    timeoutMs: undefined,
    scopes: NO_SCOPES,
    completers: new Map(),
    match: (uri: string) => Promise.resolve(fileOf(uri) === undefined ? undefined : { uri }),
    matchNow: (uri: string) => fileOf(uri) === undefined ? undefined : { uri },
    async read(params: Record<string, string | string[]>, ctx: ResourceContext) {
      const file = fileOf(String(params.uri));
      return file === undefined ? undefined : [await readSkillFile(file, ctx.signal)];
    },
  });
  return { resources, templates: [template] };
}

/** `others`' resources and templates, and those of `skills` after them. */
export function withSkillResources(
  others: {
    readonly resources?: readonly Resource[];
    readonly templates?: readonly ResourceTemplate[];
  },
  skills: readonly Skill[],
): { resources: Resource[]; templates: ResourceTemplate[] } {
  const extra = skillResources(skills);
  return {
    resources: [...others.resources ?? [], ...extra.resources],
    templates: [...others.templates ?? [], ...extra.templates],
  };
}
