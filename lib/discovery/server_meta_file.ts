// The server directory's server.meta.json (adr/0049): where it is and what it says. Read once
// at start-up (a change needs a restart, even with --watch); a file with problems stops
// start-up like a bad tool does, each problem naming the file and the field.
import { SERVER_META_FILE, type ServerMeta } from "../primitives/server_identity.ts";
import { DirectoryLoadError } from "./load_error.ts";

/**
 * Where the file is for the folders `serverFolders` chose from the same arguments: DIR's,
 * else beside the embedded folders of a compiled binary, else the working directory's; none
 * when folders are named on their own without a directory.
 */
export function serverMetaLocation(
  given: { dir?: string; tools?: string; resources?: string; prompts?: string },
  base?: URL,
): string | URL | undefined {
  if (given.dir !== undefined) {
    const dir = given.dir.replace(/\/+$/, "");
    return `${dir}/${SERVER_META_FILE}`;
  }
  if (given.tools !== undefined || given.resources !== undefined || given.prompts !== undefined) {
    return undefined;
  }
  return base ? new URL(SERVER_META_FILE, base) : SERVER_META_FILE;
}

/** The file's metadata; undefined when there is no file. Throws a DirectoryLoadError. */
export async function loadServerMeta(location: string | URL): Promise<ServerMeta | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(location);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new DirectoryLoadError([`"${shown(location)}" cannot be read: ${String(error)}`]);
  }
  // The parser loads only for a directory that has the file (adr/0051).
  const { parseServerMeta } = await import("../primitives/server_meta.ts");
  const parsed = parseServerMeta(text, shown(location));
  if ("problems" in parsed) throw new DirectoryLoadError(parsed.problems);
  return parsed.meta;
}

function shown(location: string | URL): string {
  return location instanceof URL ? decodeURIComponent(location.pathname) : location;
}
