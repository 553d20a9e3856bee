// A scratch server directory for a test: files written under a temporary folder, removed after.

/** A scratch directory holding `files` (paths under it, text), removed when `body` ends. */
export async function withDir<T>(
  files: Record<string, string>,
  body: (dir: string) => Promise<T>,
  prefix = "toolshed_scratch_",
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    for (const [path, text] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, text);
    }
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
