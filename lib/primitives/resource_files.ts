// Files served as resources, without code: a file's URI and MIME type, and a read that takes
// the file as it is now, bounded, as text when it is text and as a base64 blob otherwise.
// Finding the files is discovery's concern (discovery/resources_dir.ts).
import type { ResourceContext } from "./types.ts";
import type { JsonObject } from "../util/json.ts";
import { createSlots } from "../util/slots.ts";
import type { Resource } from "./resources.ts";
import { overLimitError, toBase64 } from "./resource_bytes.ts";
import { NO_SCOPES } from "./scopes.ts";

/** One file of the resources directory, as the walk found it. */
export interface ResourceFile {
  /** Its path under the directory, `/`-separated: `docs/My Guide.md`. */
  path: string;
  url: URL;
  /** In bytes, when the walk saw it. */
  size: number;
  /** Its last modification, when the file system keeps one. */
  mtime: Date | null;
}

export interface FileReadOptions {
  /** Largest contents one read may return, in bytes. */
  maxResourceBytes: number;
  /**
   * The resources directory's real path, ending in `/`, when a read must stay inside it (no
   * `--allow-outside-symlinks`): a file swapped for a symlink to elsewhere is refused.
   */
  insideDir: string | undefined;
}

/** A MIME type by file name, from the extension; undefined when the extension is unknown. */
type MimeLookup = (path: string) => string | undefined;

let mime: Promise<MimeLookup> | undefined;

/** The MIME lookup of the `mime` package, imported on first use (a server with no files never does). */
export function mimeLookup(): Promise<MimeLookup> {
  mime ??= import("npm:mime@4.1.2").then(({ default: types }) => (path: string) =>
    types.getType(path) ?? undefined
  );
  return mime;
}

/** The URI of the file at `path`: `toolshed:///` and each segment percent-encoded. */
function fileResourceUri(path: string): string {
  return `toolshed:///${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** Types whose contents are text although their top-level type is not `text/`. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/typescript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/sql",
  "application/graphql",
  "application/x-sh",
  "application/x-csh",
  "application/x-tex",
  "application/x-latex",
  "application/rtf",
  "application/x-ndjson",
  "application/jsonl",
  "image/svg+xml",
]);

/** True for a MIME type whose contents are text (`text/*`, JSON, XML, YAML, SVG, …). */
function isTextualMimeType(type: string): boolean {
  const bare = type.split(";")[0].trim().toLowerCase();
  return bare.startsWith("text/") || TEXT_TYPES.has(bare) ||
    /\+(json|xml|yaml)$/.test(bare);
}

/**
 * The contents object for `bytes` read at `uri`: text when the type is textual or unknown and
 * the bytes are UTF-8 without NUL, else a base64 blob. An unknown type becomes `text/plain`
 * or `application/octet-stream`.
 */
function fileContents(uri: string, bytes: Uint8Array, mimeType?: string): JsonObject {
  if (mimeType === undefined || isTextualMimeType(mimeType)) {
    const text = utf8Text(bytes);
    if (text !== undefined) return { uri, mimeType: mimeType ?? "text/plain", text };
  }
  return { uri, mimeType: mimeType ?? "application/octet-stream", blob: toBase64(bytes) };
}

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** `bytes` as text, or undefined when they are not UTF-8 or hold a NUL (binary, then). */
function utf8Text(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return DECODER.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The served resource for `file`; `mimeType` from its extension, when known. */
export function fileResource(
  file: ResourceFile,
  mimeType: string | undefined,
  options: FileReadOptions,
): Resource {
  const uri = fileResourceUri(file.path);
  const listing: JsonObject = { uri, name: file.path };
  if (mimeType !== undefined) listing.mimeType = mimeType;
  listing.size = file.size;
  if (file.mtime !== null && Number.isFinite(file.mtime.getTime())) {
    listing.annotations = Object.freeze({ lastModified: file.mtime.toISOString() });
  }
  return Object.freeze({
    uri,
    name: file.path,
    listing: Object.freeze(listing),
    timeoutMs: undefined,
    // A file has no definition to ask for scopes: the base scope (--auth-scope) covers it.
    scopes: NO_SCOPES,
    async read(ctx: ResourceContext): Promise<JsonObject[] | undefined> {
      const bytes = await readBounded(file.url, uri, options, ctx.signal);
      return bytes === undefined ? undefined : [fileContents(uri, bytes, mimeType)];
    },
  });
}

/** Resource bytes read at once across the process (adr/0058). */
const MAX_READING_BYTES = 16 * 1024 * 1024;

/** The bytes of resource files being read by this process, each file's size its units. */
const reading = createSlots(MAX_READING_BYTES);

/**
 * The file's bytes now, or undefined when it is gone (or no longer a regular file). Rejects
 * when it is over the limit, reading no more than the limit and one byte to find out, and with
 * the signal's reason when the read is cancelled while it waits its turn.
 */
export async function readBounded(
  url: URL,
  uri: string,
  options: FileReadOptions,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  const limit = options.maxResourceBytes;
  let real: string | undefined;
  let regular: boolean;
  try {
    if (options.insideDir !== undefined) real = await Deno.realPath(url);
    regular = (await Deno.stat(url)).isFile;
  } catch (error) {
    if (isGone(error)) return undefined;
    throw readError(uri, error);
  }
  if (real !== undefined && !real.startsWith(options.insideDir!)) {
    throw new Error(`Resource "${uri}" now leads outside the resources directory`);
  }
  // Opened only when a regular file: opening a FIFO waits for a writer that may never come.
  if (!regular) return undefined;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(url);
  } catch (error) {
    if (isGone(error)) return undefined;
    throw readError(uri, error);
  }
  let leave: (() => void) | undefined;
  try {
    const info = await file.stat();
    if (!info.isFile) return undefined;
    if (info.size > limit) throw overLimitError(uri, info.size, limit);
    // A few files at a time, whatever the number of clients (adr/0058).
    leave = await reading.acquire(signal, info.size);
    // The file may have grown since it was measured: the buffer grows up to limit + 1 bytes.
    let buffer = new Uint8Array(info.size + 1);
    let filled = 0;
    while (true) {
      if (filled === buffer.length) {
        if (buffer.length > limit) break;
        const larger = new Uint8Array(Math.min(buffer.length * 2, limit + 1));
        larger.set(buffer);
        buffer = larger;
      }
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    if (filled > limit) {
      throw overLimitError(uri, Math.max((await file.stat()).size, filled), limit);
    }
    return buffer.subarray(0, filled);
  } catch (error) {
    if (isGone(error)) return undefined;
    throw error instanceof Deno.errors.PermissionDenied ? readError(uri, error) : error;
  } finally {
    leave?.();
    file.close();
  }
}

function isGone(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** A read failure without the file's path on the server (the message may reach the client). */
function readError(uri: string, error: unknown): Error {
  const reason = error instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : "the file could not be read";
  return new Error(`Cannot read resource "${uri}": ${reason}`, { cause: error });
}
