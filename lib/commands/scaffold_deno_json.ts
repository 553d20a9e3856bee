// What `toolshed new server` (and `toolshed new` into a directory it creates) writes beside the
// server's folders: a deno.json of the server's own (adr/0068). It maps "@toolshed/toolshed" to
// the mod.ts of the toolshed that wrote it, so tools, their tests (`testServer`) and an app that
// embeds the server (`createServer`) type-check and run from that directory, wherever it is; and
// it makes the directory Deno's project, so the lock Deno writes is the server's own deno.lock
// there, never toolshed's.
import { pathOf } from "./client_launch.ts";
import { bundleEntryOf, shellWord } from "./invocation.ts";

/** The file's name, in the server directory. */
export const SERVER_DENO_JSON = "deno.json";

/**
 * The deno.json text for a server directory and the URL it maps "@toolshed/toolshed" to, or
 * undefined for a compiled toolshed, which holds
 * no mod.ts a Deno outside it can import.
 *
 * - `@toolshed/toolshed` is this toolshed's mod.ts, found beside this module as a clone has it
 *   (lib/commands/ → ../../mod.ts), as the npm package has it (the one-file bundle sits two
 *   folders deep, dist/bundle/toolshed.js, so the same URL lands on the package's mod.ts), and as
 *   a run from a URL has it (the URL of mod.ts beside main.ts): an absolute file URL, or that URL.
 * - `test` runs the directory's tests; `--permit-no-files` so that a server with none yet passes.
 * - `check` runs `toolshed check` on the directory with the toolshed that wrote the file, by its
 *   absolute path or URL (a task's `deno` is the deno running the task, whatever the PATH holds).
 */
export function serverDenoJson(
  here: string = import.meta.url,
  standalone: boolean = Deno.build.standalone,
): { text: string; mod: string } | undefined {
  if (standalone) return undefined;
  const mod = new URL("../../mod.ts", here);
  // Unbundled, this module is lib/commands/*.ts and main.ts is two folders up; bundled, the
  // bundle's entry is toolshed's main module (this module may be a chunk beside it, adr/0074).
  const main = /\/lib\/commands\/[^/]+\.ts$/.test(here)
    ? new URL("../../main.ts", here)
    : bundleEntryOf(here);
  const config = {
    imports: { "@toolshed/toolshed": mod.href },
    tasks: {
      test: "deno test -A --permit-no-files",
      check: `deno run -A ${shellWord(main.protocol === "file:" ? pathOf(main) : main.href)} check`,
    },
  };
  return { text: `${JSON.stringify(config, null, 2)}\n`, mod: mod.href };
}
