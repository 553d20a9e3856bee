// The layers of lib/ (adr/0011): a file imports only from its own folder and the folders
// below it, and only host/ touches the process (stdin, stdout, stderr, exit, signals).
// Reads the sources as text; takes milliseconds and spawns nothing.
import assert from "node:assert/strict";

/** Top to bottom: each folder may import from itself and from the folders after it. */
const LAYERS = [
  "commands",
  "testing",
  "host",
  "server",
  "redis",
  "transports",
  "auth",
  "connection",
  "core",
  "methods",
  "tasks",
  "rounds",
  "discovery",
  "openapi",
  "mounts",
  "code",
  "programs",
  "settings",
  "primitives",
  "schema",
  "wire",
  "util",
] as const;

/**
 * Stricter than the order alone: below the composition root (server/), nothing learns where
 * primitives come from.
 */
const FORBIDDEN: Record<string, readonly string[]> = Object.fromEntries(
  ["redis", "transports", "auth", "connection", "core", "methods", "rounds", "tasks"].map((
    layer,
  ) => [layer, ["discovery", "openapi", "mounts"]]),
);

const PROCESS_APIS = [
  "Deno.stdin",
  "Deno.stdout",
  "Deno.stderr",
  "Deno.exit",
  "Deno.addSignalListener",
];

const LIB = new URL("../lib/", import.meta.url);
const MANIFEST = new URL("../deno.json", import.meta.url);

interface Source {
  /** Path under lib/, e.g. `core/handle.ts`. */
  path: string;
  /** The text without comments. */
  code: string;
}

async function sources(dir = LIB, prefix = ""): Promise<Source[]> {
  const found: Source[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) {
      if (entry.name !== "vendor") {
        found.push(...await sources(new URL(`${entry.name}/`, dir), `${path}/`));
      }
    } else if (entry.name.endsWith(".ts")) {
      found.push({
        path,
        code: withoutComments(await Deno.readTextFile(new URL(entry.name, dir))),
      });
    }
  }
  return found;
}

/** Drops `//` and block comments, keeping string literals (specifiers live in them). */
function withoutComments(text: string): string {
  return text.replace(
    /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (_match, literal) => literal ?? "",
  );
}

/** The specifiers of `import … from`, `export … from`, `import "…"` and `import("…")`. */
export function specifiersOf(code: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"']+)\1/g;
  for (const match of code.matchAll(pattern)) found.push(match[2]);
  return found;
}

function layerOf(path: string): string {
  return path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
}

/** What is wrong with `path` importing `specifier`, or undefined. */
export function violation(path: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined; // npm:, node:, data: …
  const target = new URL(specifier, new URL(path, LIB)).href;
  if (target === MANIFEST.href) return undefined; // the version lives in deno.json
  if (!target.startsWith(LIB.href)) return "leaves lib/";
  const targetPath = target.slice(LIB.href.length);
  const from = layerOf(path);
  const to = layerOf(targetPath);
  if (targetPath.startsWith("schema/vendor/") && from !== "schema") {
    return "enters schema/vendor/ from outside schema/";
  }
  const fromRank = LAYERS.indexOf(from as typeof LAYERS[number]);
  const toRank = LAYERS.indexOf(to as typeof LAYERS[number]);
  if (fromRank === -1) return `${path} is in no layer (${LAYERS.join(", ")})`;
  if (toRank === -1) return `${targetPath} is in no layer`;
  if (toRank < fromRank) return `${from}/ imports ${to}/, a layer above it`;
  if (FORBIDDEN[from]?.includes(to)) return `${from}/ must not import ${to}/`;
  return undefined;
}

Deno.test("lib/ files import only from their own layer and the layers below it", async () => {
  const problems: string[] = [];
  for (const { path, code } of await sources()) {
    for (const specifier of specifiersOf(code)) {
      const problem = violation(path, specifier);
      if (problem) problems.push(`lib/${path}: "${specifier}": ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("only lib/host/ touches stdin, stdout, stderr, exit and signals", async () => {
  const problems: string[] = [];
  for (const { path, code } of await sources()) {
    if (layerOf(path) === "host") continue;
    for (const api of PROCESS_APIS) {
      if (code.includes(api)) problems.push(`lib/${path} uses ${api}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("the layer check catches what it is for", () => {
  // The checks above pass on a clean tree; these show they can fail.
  assert.equal(
    violation("wire/extract.ts", "../core/handle.ts"),
    "wire/ imports core/, a layer above it",
  );
  assert.equal(
    violation("core/handle.ts", "../discovery/tools_dir.ts"),
    "core/ must not import discovery/",
  );
  assert.equal(
    violation("core/handle.ts", "../schema/vendor/x/index.ts"),
    "enters schema/vendor/ from outside schema/",
  );
  assert.equal(
    violation("settings/values.ts", "../programs/limits.ts"),
    "settings/ imports programs/, a layer above it",
  );
  assert.equal(violation("util/json.ts", "../../main.ts"), "leaves lib/");
  assert.equal(
    violation("stray.ts", "./util/json.ts"),
    "stray.ts is in no layer (commands, testing, host, server, redis, transports, auth, connection, core, methods, tasks, rounds, discovery, openapi, mounts, code, programs, settings, primitives, schema, wire, util)",
  );
  assert.equal(violation("core/handle.ts", "../util/json.ts"), undefined);
  assert.equal(violation("host/cli.ts", "npm:x@1"), undefined);
  assert.deepEqual(
    specifiersOf(
      withoutComments(
        `import a from "./a.ts";\n// import b from "./b.ts";\nexport { c } from './c.ts';\nawait import("./d.ts");\nimport "./e.ts";`,
      ),
    ),
    ["./a.ts", "./c.ts", "./d.ts", "./e.ts"],
  );
});

/**
 * An import circle among `edges` (file → the files it imports), as the files around it, or
 * undefined when there is none. Type-only imports count: a circle of types is still a circle a
 * reader walks.
 */
export function circleIn(edges: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === "done") return undefined;
    if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
    state.set(file, "open");
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    state.set(file, "done");
    return undefined;
  };
  for (const file of [...edges.keys()].sort()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

Deno.test("lib/ has no import circle: a file never reaches itself through its imports", async () => {
  const edges = new Map<string, string[]>();
  for (const { path, code } of await sources()) {
    const targets = specifiersOf(code).filter((specifier) => specifier.startsWith("."))
      .map((specifier) => new URL(specifier, new URL(path, LIB)).href)
      .filter((target) => target.startsWith(LIB.href) && !target.includes("/vendor/"))
      .map((target) => target.slice(LIB.href.length));
    edges.set(path, targets);
  }
  assert.equal(circleIn(edges)?.join(" → "), undefined);
  // The check can fail: a circle of three is found and named.
  assert.deepEqual(
    circleIn(new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]]])),
    ["a.ts", "b.ts", "c.ts", "a.ts"],
  );
});
