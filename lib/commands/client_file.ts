// Merging one server into a client's configuration file. Only that server's entry changes:
// every other byte is kept as written (json_edit.ts), comments and trailing commas included
// (in TOML every other line, toml_edit.ts; in YAML every other entry and comment,
// yaml_edit.ts); a file that cannot be read in its language is never touched. A symlinked file is updated where it
// points, even where nothing is yet. The new text replaces the old in a single rename, so a
// client reading meanwhile sees the old file or the new, never half; and writers take turns
// (withLock), so two `config --write` at once both land.
import { type JsonObject, messageOf } from "../util/json.ts";

/** What merging did, for the message; or why it could not. */
type MergeOutcome =
  | { kind: "created" | "added" | "replaced" | "unchanged"; file: string }
  | { kind: "refused"; problem: string };

/** A configuration file's language. */
type FileFormat = "json" | "toml" | "yaml";

/**
 * Puts `entry` under `serversKey`.`name` in the file at `file` (absolute), creating the
 * file and its folders when missing. `beforeReplacing` hears of a different entry of that name
 * before it is replaced.
 */
export async function mergeServer(
  file: string,
  serversKey: string,
  name: string,
  entry: JsonObject,
  beforeReplacing: (previous: unknown) => void,
  format: FileFormat = "json",
): Promise<MergeOutcome> {
  const target = await symlinkTarget(file);
  const { folder } = split(target);
  if (folder !== "") await Deno.mkdir(folder, { recursive: true });
  return await withLock(target, async () => {
    let text: string | undefined;
    try {
      text = await Deno.readTextFile(target);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        return { kind: "refused", problem: `cannot read it: ${messageOf(error)}` };
      }
    }
    if (text === undefined || text.trim() === "") {
      await writeAtomically(target, await freshText(format, serversKey, name, entry));
      return { kind: text === undefined ? "created" : "added", file: target };
    }
    const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
    const edit = await editText(format, text.slice(bom.length), serversKey, name, entry);
    if (edit.kind === "refused") return edit;
    if (edit.kind === "unchanged") return { kind: "unchanged", file: target };
    if (edit.kind === "replaced") beforeReplacing(edit.previous);
    await writeAtomically(target, bom + edit.text);
    return { kind: edit.kind, file: target };
  });
}

/** A new file holding only this server, in `format`. */
export async function freshText(
  format: FileFormat,
  serversKey: string,
  name: string,
  entry: JsonObject,
): Promise<string> {
  switch (format) {
    case "json":
      return `${JSON.stringify({ [serversKey]: { [name]: entry } }, null, 2)}\n`;
    case "toml":
      return (await import("./toml_text.ts")).tomlTable([serversKey, name], entry);
    case "yaml":
      return (await import("./yaml_edit.ts")).yamlBlock(name, entry);
  }
}

/**
 * The edit of `text`. Loaded here, not with the command: only a write pays for parsing the
 * library of the file's language.
 */
async function editText(
  format: FileFormat,
  text: string,
  serversKey: string,
  name: string,
  entry: JsonObject,
) {
  switch (format) {
    case "json":
      return (await import("./json_edit.ts")).setServer(text, serversKey, name, entry);
    case "toml":
      return (await import("./toml_edit.ts")).setTable(text, serversKey, name, entry);
    case "yaml":
      return (await import("./yaml_edit.ts")).setListItem(text, serversKey, name, entry);
  }
}

/**
 * Where a symlink at `file` leads, followed to its end even when nothing is there yet (a
 * dotfiles link made before its target): writing there keeps the link a link.
 */
async function symlinkTarget(file: string): Promise<string> {
  let path = file;
  for (let hops = 0; hops < 40; hops++) {
    const link = await Deno.readLink(path).catch(() => undefined);
    if (link === undefined) return await Deno.realPath(path).catch(() => path);
    path = /^([/\\]|[A-Za-z]:[/\\])/.test(link) ? link : `${split(path).folder}/${link}`;
  }
  throw new Error(`"${file}" leads through more than 40 symlinks`);
}

function split(file: string): { folder: string; base: string } {
  const slash = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  return { folder: file.slice(0, slash), base: file.slice(slash + 1) };
}

/** How long a writer waits for the one before it: far more than any write takes. */
const LOCK_WAIT_MS = 15_000;

/**
 * Runs `body` while holding an exclusive lock on a file beside `file` (".<name>.lock"), so
 * that writers read, edit and rename one after another and none loses another's entry.
 *
 * The lock is the kernel's (Deno.FsFile.lock, flock on Unix), never a file's mere existence:
 * a writer that dies releases it with its process, so no lock is ever stale and none is taken
 * over on a guess about time. The lock file is removed by its holder before it lets go; a
 * writer that was waiting on the removed file sees that the path no longer names the file it
 * locked and locks the path anew. Where a file has no inode number to compare (Windows), the
 * lock file is left in place instead, which is as sound.
 */
async function withLock<T>(file: string, body: () => Promise<T>): Promise<T> {
  const { folder, base } = split(file);
  const lockPath = `${folder}/.${base}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (Date.now() < deadline) {
    const handle = await Deno.open(lockPath, { create: true, write: true });
    try {
      const locked = await lockedWithin(handle, deadline - Date.now());
      if (!locked) break;
      const held = await handle.stat();
      const there = await Deno.stat(lockPath).catch(() => undefined);
      const same = held.ino === null || (there?.ino === held.ino && there?.dev === held.dev);
      if (same) {
        try {
          return await body();
        } finally {
          if (held.ino !== null) await Deno.remove(lockPath).catch(() => {});
        }
      }
    } finally {
      handle.close(); // releases the lock
    }
  }
  throw new Error(
    `another toolshed config has held the lock "${lockPath}" for ${LOCK_WAIT_MS / 1000} seconds`,
  );
}

/**
 * True once `handle` is locked; false when `ms` pass first. A free lock is most often granted
 * by the time another file operation returns, and then no timer starts: Deno loads its timers
 * on first use (~13 ms), which a write that waits for no one need not pay.
 */
async function lockedWithin(handle: Deno.FsFile, ms: number): Promise<boolean> {
  let granted = false;
  const locking = handle.lock(true).then(() => granted = true);
  await Promise.race([locking, handle.stat()]);
  if (granted) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([locking, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes `text` to a temporary file beside `file`, then renames it over `file`. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const { folder, base } = split(file);
  const mode = await Deno.stat(file).then((info) => info.mode ?? undefined, () => undefined);
  const temporary = `${folder}/.${base}.${crypto.randomUUID()}.tmp`;
  try {
    // Keeps the permissions the file had (a config holding secrets may be 0600).
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: mode ?? 0o644 });
    if (mode !== undefined && Deno.build.os !== "windows") {
      await Deno.chmod(temporary, mode & 0o7777);
    }
    await Deno.rename(temporary, file);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
