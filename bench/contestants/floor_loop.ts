// A floor for start-up (bench:floor, adr/0053): the bare Deno loop, after doing only the parts
// of toolshed's start that no server of toolshed's kind can skip.
//
//   --code       loads toolshed's own code: main.ts's module graph, evaluated, nothing run
//                (main.ts starts the server only as the main module)
//   --tools DIR  imports every module of DIR at once, as toolshed imports a tools directory
//
// It then answers as the bare loop does (bench/contestants/bare_loop.ts, imported last).
// Run: deno run -A bench/contestants/floor_loop.ts [--code] [--tools DIR]
const args = [...Deno.args];
const take = (flag: string) => {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  return args.splice(at, flag === "--code" ? 1 : 2)[1] ?? flag;
};
const code = take("--code") !== undefined;
const tools = take("--tools");
if (args.length > 0) throw new Error(`floor_loop.ts: unknown arguments ${args.join(" ")}`);

if (code) await import("../../main.ts");
if (tools !== undefined) {
  const dir = new URL(`${tools.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
  const modules: Promise<unknown>[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isFile && /\.(ts|mts|js|mjs)$/.test(entry.name)) {
      modules.push(import(new URL(entry.name, dir).href));
    }
  }
  await Promise.all(modules);
}
await import("./bare_loop.ts");
