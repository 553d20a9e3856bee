// Test helper: the repository's Markdown pages, for the tests that read the docs (docs_test.ts:
// their code blocks and links; docs_commands_test.ts: their command lines).

/** The repository's root, ending in "/". */
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** The Markdown files under `dir` (relative to the root), recursively, that `keep` accepts. */
export async function markdownUnder(
  dir: string,
  keep: (path: string) => boolean,
): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await markdownUnder(path, keep));
    else if (entry.name.endsWith(".md") && keep(path)) found.push(path);
  }
  return found.sort();
}

/** The pages people read to use toolshed: README.md, docs/**, and each example's README.md. */
export async function docPages(): Promise<string[]> {
  return [
    "README.md",
    ...await markdownUnder("docs", () => true),
    ...await markdownUnder("examples", (path) => path.endsWith("/README.md")),
  ];
}
