// The toolsets a request chooses over HTTP (adr/0045): the endpoint's path `/mcp/<set>` (or
// `/mcp/<a>+<b>`) and the header `Mcp-Toolsets: a,b`. With both, the header picks among the
// sets the path names. A set this server does not have (or that `--toolsets` leaves out) is a
// 404 that names the sets there are, never an empty server. A 2025-era session keeps what its
// `initialize` chose (dispatch.ts); a stateless request carries its choice each time. Composed
// only when the server has toolsets, watches for them, or serves a view of its own.
import type { Registry } from "../../primitives/registry.ts";
import { setFact } from "../../methods/facts.ts";
import {
  parseToolsets,
  toolsetsOf,
  type ToolView,
  toolView,
  unknownToolset,
} from "../../primitives/toolsets.ts";
import type { HttpStep } from "./exchange.ts";

/** The request header naming toolsets, comma-separated. */
const TOOLSETS_HEADER = "mcp-toolsets";

/** Views made from what requests named, by path and header; past it they are made again. */
const MAX_CHOICES = 64;
const TEXT = { "content-type": "text/plain; charset=utf-8" };

/**
 * The step that sets the request's `view` fact from the path and the header; `base` is the server's own
 * view (`--toolsets`, `--read-only`), which a request can narrow and never widen.
 */
export function toolsetsStep(
  registry: Registry,
  base: ToolView | undefined,
  code?: { readonly destructive: boolean },
): HttpStep {
  const chosen = new Map<string, string[]>();
  const views = new Map<string, ToolView>();
  // With code mode, every request names its mode: the server's own view is code mode's
  // (stdio's), and `/mcp` itself must stay the catalog.
  const modeViews = code === undefined ? undefined : {
    tools: toolView(base?.sets, base?.readOnly ?? false, "tools", code.destructive),
    code: toolView(base?.sets, base?.readOnly ?? false, "code", code.destructive),
  };
  return (next) => (exchange) => {
    const inPath = exchange.toolsetPath;
    const inHeader = exchange.request.headers.get(TOOLSETS_HEADER);
    const mode = exchange.codePath === true ? "code" : "tools";
    if (inPath === undefined && inHeader === null) {
      if (modeViews !== undefined) setFact(exchange, "view", modeViews[mode]);
      return next(exchange);
    }
    const key = `${inPath ?? ""}\n${inHeader ?? ""}\n${mode}`;
    let sets = chosen.get(key);
    if (sets === undefined) {
      const pathSets = inPath === undefined ? undefined : inPath.split("+");
      const headerSets = inHeader === null ? undefined : parseToolsets(inHeader);
      const outside = pathSets && headerSets?.find((set) => !pathSets.includes(set));
      if (outside !== undefined) {
        return notFound(
          `Toolset "${outside}" of ${TOOLSETS_HEADER} is not among those the path names`,
        );
      }
      sets = headerSets ?? pathSets!;
      if (sets.length === 0) return notFound(`${TOOLSETS_HEADER} names no toolset`);
      if (chosen.size >= MAX_CHOICES) chosen.clear();
      chosen.set(key, sets);
    }
    // A reload may add or take away sets: what is known is the snapshot's of the moment.
    const held = toolsetsOf(registry.current());
    const known = base?.sets === undefined ? held : held.filter((set) => base.sets!.includes(set));
    const unknown = unknownToolset(sets, known);
    if (unknown !== undefined) return notFound(unknown);
    let view = views.get(key);
    if (view === undefined) {
      view = toolView(sets, base?.readOnly ?? false, mode, code?.destructive ?? false);
      if (views.size >= MAX_CHOICES) views.clear();
      views.set(key, view);
    }
    setFact(exchange, "view", view);
    return next(exchange);
  };
}

function notFound(sentence: string): Response {
  return new Response(`Not found: ${sentence}\n`, { status: 404, headers: TEXT });
}
