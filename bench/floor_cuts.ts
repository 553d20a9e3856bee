// Copies of this tree with toolshed's HTTP path cut short at one point, answering the echo there
// (bench:floor-process --cuts, adr/0074 step 14): paired with the floor program, each says what
// the path costs up to its cut, and the next one what lies between. The copies hold main.ts,
// the configuration and lib/; a cut is one edit, found by an anchor that must occur exactly once,
// so that a cut which no longer fits the code fails the benchmark instead of measuring something
// else.
import { copyPath } from "../build/copy.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const FLOOR_ANSWER = new URL("./contestants/floor_answer.ts", import.meta.url).href;

/** One cut: where it is made, and how the copy answers there. */
export interface Cut {
  readonly key: string;
  readonly label: string;
  /** The file edited, from the root. */
  readonly file: string;
  /** Text that occurs once in the file; `before` is put in front of it. */
  readonly anchor: string;
  readonly before: string;
  /** Added at the file's end (imports are hoisted; what it declares exists before any request). */
  readonly appended: string;
}

export const CUTS: readonly Cut[] = [
  {
    key: "route",
    label: "the floor's answer at toolshed's `/mcp` route (its process, listener and routes)",
    file: "lib/transports/http/handler.ts",
    anchor: "    const handler = routes.get(pathname);\n",
    before: "    if (pathname === path) return floorAnswer(exchange.request, FLOOR_PARTS);\n",
    appended: `\nimport { floorAnswer } from "${FLOOR_ANSWER}";\n` +
      "const FLOOR_PARTS = { headers: true, body: true };\n",
  },
  {
    key: "admitted",
    label: "toolshed answering right after admission (guard, body, parse, the ladder)",
    file: "lib/transports/http/admission.ts",
    anchor: "        exchange.admission = admission;\n        return next(exchange);\n",
    before:
      '        if (admission.kind === "dispatch" && admission.request.method === "tools/call") {\n' +
      "          body.release();\n" +
      "          return cutEcho(admission.request);\n" +
      "        }\n",
    appended: `
function cutEcho(request: Request): Response {
  const text = (request.params.arguments as { text: string }).text;
  const result = { resultType: "complete", content: [{ type: "text", text }] };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }), {
    headers: { "content-type": "application/json" },
  });
}
`,
  },
];

/** The tree a copy needs to run main.ts: its entries, its configuration, its code. */
const COPIED = ["main.ts", "mod.ts", "deno.json", "deno.lock", "lib"];

/** `text` with `cut` made; throws when its anchor does not occur exactly once. */
export function cutText(cut: Cut, text: string): string {
  const at = text.indexOf(cut.anchor);
  if (at === -1 || text.indexOf(cut.anchor, at + 1) !== -1) {
    throw new Error(
      `bench:floor-cuts: the cut "${cut.key}" no longer fits ${cut.file}: its anchor ` +
        `${JSON.stringify(cut.anchor)} must occur exactly once (${at === -1 ? "none" : "more"})`,
    );
  }
  return text.slice(0, at) + cut.before + text.slice(at) + cut.appended;
}

/** Writes a copy of this tree at `into` with the cut `key` made. */
export async function cutCopy(key: string, into: string): Promise<void> {
  const cut = CUTS.find((each) => each.key === key);
  if (cut === undefined) throw new Error(`bench:floor-cuts: no cut "${key}"`);
  const cutFile = cutText(cut, await Deno.readTextFile(`${ROOT}${cut.file}`));
  await Deno.mkdir(into, { recursive: true });
  for (const part of COPIED) await copyPath(`${ROOT}${part}`, `${into}/${part}`);
  await Deno.writeTextFile(`${into}/${cut.file}`, cutFile);
}
