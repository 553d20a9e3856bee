// Merging one server into a client's configuration file: every other key and server is kept,
// a file that is not JSON is never touched, and the new file replaces the old one in a
// single rename, so a client reading it meanwhile sees the old file or the new, never half.
import { isObject, type JsonObject, messageOf } from "../util/json.ts";

/** What merging did, for the message; or why it could not. */
export type MergeOutcome =
  | { kind: "created" | "added" | "replaced" | "unchanged"; file: string }
  | { kind: "refused"; problem: string };

/**
 * Puts `entry` under `serversKey`.`name` in the JSON file at `file` (absolute), creating the
 * file and its folders when missing. `beforeReplacing` hears of a different entry of that name
 * before it is replaced.
 */
export async function mergeServer(
  file: string,
  serversKey: string,
  name: string,
  entry: JsonObject,
  beforeReplacing: (previous: unknown) => void,
): Promise<MergeOutcome> {
  // A symlinked configuration (dotfiles) is updated where it really is.
  const target = await Deno.realPath(file).catch(() => file);
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(target);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return { kind: "refused", problem: `cannot read it: ${messageOf(error)}` };
    }
  }
  let config: JsonObject = {};
  if (text !== undefined && text.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
      return {
        kind: "refused",
        problem:
          `it is not valid JSON (${
            messageOf(error)
          }); toolshed writes plain JSON only, so fix it (comments and trailing commas are not ` +
          "JSON) or add the entry by hand",
      };
    }
    if (!isObject(parsed)) {
      return { kind: "refused", problem: "it does not hold a JSON object" };
    }
    config = parsed;
  }
  const servers = config[serversKey] ?? {};
  if (!isObject(servers)) {
    return { kind: "refused", problem: `its "${serversKey}" is not an object of servers` };
  }
  const existing = servers[name];
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(entry)) {
    return { kind: "unchanged", file: target };
  }
  if (existing !== undefined) beforeReplacing(existing);
  const merged = { ...config, [serversKey]: { ...servers, [name]: entry } };
  await writeAtomically(target, `${JSON.stringify(merged, null, 2)}\n`);
  return {
    kind: text === undefined ? "created" : existing === undefined ? "added" : "replaced",
    file: target,
  };
}

/** Writes `text` to a temporary file beside `file`, then renames it over `file`. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const slash = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  const folder = file.slice(0, slash);
  if (folder !== "") await Deno.mkdir(folder, { recursive: true });
  const mode = await Deno.stat(file).then((info) => info.mode ?? undefined, () => undefined);
  const temporary = `${folder}/.${file.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
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
