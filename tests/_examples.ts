// Test helper: the example tools of tools/, and only those. A newcomer adds tools of their
// own to tools/, as the README says, so no test may assume what else is there: tests that
// serve the examples serve a scratch directory of links to exactly their files.

const REPO_TOOLS = decodeURIComponent(new URL("../tools/", import.meta.url).pathname);

/** The example tools in tools/, sorted by name (the README names the same). */
export const EXAMPLE_TOOLS = [
  "csv_to_json",
  "divide",
  "echo",
  "json_query",
  "sha256",
  "wait",
  "word_stats",
] as const;

let made: Promise<string> | undefined;

/**
 * A directory named `tools` in a scratch directory, holding symlinks to the example tools'
 * files in tools/ and nothing else; made once per test module and removed when it ends.
 * Its executables and sidecars resolve outside it: serve it with `--allow-outside-symlinks`
 * (`allowOutsideSymlinks: true`).
 */
export function exampleTools(): Promise<string> {
  made ??= (async () => {
    const root = await Deno.makeTempDir({ prefix: "toolshed_examples_" });
    globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
    const dir = `${root}/tools`;
    await Deno.mkdir(dir);
    for await (const entry of Deno.readDir(REPO_TOOLS)) {
      const isExample = EXAMPLE_TOOLS.some((name) =>
        entry.name === name || entry.name.startsWith(`${name}.`)
      );
      if (isExample) await Deno.symlink(`${REPO_TOOLS}${entry.name}`, `${dir}/${entry.name}`);
    }
    return dir;
  })();
  return made;
}
