// A file, or a folder with everything in it, copied (links followed, as `Deno.stat` does): how the
// builds stage what they package (npm_package.ts, bundle.ts) and how bench:floor-process makes
// its cut copies of the tree (bench/floor_cuts.ts).

export async function copyPath(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) return await Deno.copyFile(from, to);
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await copyPath(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}
