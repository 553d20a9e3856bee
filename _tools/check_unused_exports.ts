// deno-lint-ignore-file no-console -- a check prints its findings for people
// No export that only tests import (adr/0061 step 9). Fails, naming file:line and the export,
// for an export of a module under lib/ (or main.ts, or any module their imports reach) that no
// file outside the tests imports: an export only tests import, or one nobody imports. Either
// the module's own code is all that uses it (drop `export`), or it is dead (drop it), or tests
// reach behind the public function (test through that function instead).
//
//   deno run --allow-read _tools/check_unused_exports.ts [ROOT]
//
// What counts as an import, read from each file's text (no type-checker, a few hundred ms):
// `import { a, b as c }`, `import d`, `import type …`, `export { a } from` and `export * from`
// (forwarded to the module they name), `import * as ns` with `ns.a`, `import("…")` destructured
// in place (`const { a } = await import(…)`) or read at once (`(await import(…)).a`,
// `typeof import(…).a`). Where a module's namespace travels on instead (`load: () =>
// import(…)`, `typeof import(…)` as a whole), its export `a` counts as used when the name `a`
// appears in some other file outside the tests: a miss there is possible, a false alarm is not.
// An interface or type alias that an export used outside the tests names in its declaration (a
// parameter's type, a result's) is that export's contract, so a test may import it (`Command`,
// what `parseCommand` returns), and so a type those types name in turn; a type nobody imports
// needs no export all the same.
//
// Who counts as a user: every file outside the tests, which are the files under a `tests/`
// folder and `*_test.ts` files. bench/, build/, examples/ and _tools/ are real consumers (a
// benchmark measures the export, build/ ships with it, an example is what authors copy, a tool
// renders from it), so an export they import is used. The entry points in deno.json's
// "exports" (mod.ts) are the public API: their exports are not checked, and what they import or
// re-export from lib/ is used. lib/schema/vendor/ is someone else's code and is not checked.
//
// ALLOWED below names the exports kept for tests on purpose, each with its reason; an entry
// that no longer matches an unused export fails the check too, so the list stays true. Most
// are limits a test reads; the rest are held case by case at their own seam, where the used
// path would need a process, the network, another OS or chance to reach each case. Each is a
// candidate to test through the function that uses it.

/** A limit, table or message a test reads instead of copying its value (STYLE 6a). */
const LIMIT = "a limit, table or message its test reads instead of copying the value";
/** The form of a used function with what it binds (a writer, the OS, a size) as an argument. */
const INJECTABLE = "the used function's own body with what it binds as an argument";
/** An error class a test asserts a refusal against. */
const ERROR_CLASS = "the class a test asserts a refusal against";
/** What code mode's view will use (adr/0073, issue 41), built and tested before the view. */
const CODE_SEAM = "what code mode's view will use (adr/0073, issue 41), built before it";

/** Exports kept although only tests import them, by file, with the reason. */
const ALLOWED: Record<string, Record<string, string>> = {
  "lib/auth/proof_memory.ts": { PROOFS_PER_KEY: LIMIT },
  "lib/auth/verifier.ts": { VERIFIED_SECONDS: LIMIT },
  "lib/code/search.ts": {
    DEFAULT_HITS: CODE_SEAM,
    Hit: CODE_SEAM,
    MAX_HITS: CODE_SEAM,
    MAX_QUERY_CHARS: CODE_SEAM,
    SearchIndex: CODE_SEAM,
    SUMMARY_CHARS: CODE_SEAM,
  },
  "lib/code/declarations.ts": { UNSTRUCTURED_RESULT: CODE_SEAM, MAX_DECLARATIONS_CHARS: LIMIT },
  "lib/code/sandbox.ts": { defaultRunner: INJECTABLE },
  "lib/code/schema_type.ts": { MAX_SCHEMA_DEPTH: LIMIT, MAX_COMMENT_VALUE: LIMIT },
  "lib/commands/check.ts": {
    typeErrors: "reads deno check's output, held on fixed texts (else a type-check per case)",
  },
  "lib/commands/client_formats.ts": { claudeDesktopFile: `${INJECTABLE} (the OS: macOS, Windows)` },
  "lib/commands/config.ts": { configure: `${INJECTABLE} (how toolshed itself is run)` },
  "lib/commands/invocation.ts": {
    currentInvocation: "read in a real deno task run and without permissions, in processes",
  },
  "lib/commands/registry_entry.ts": { SERVER_SCHEMA: LIMIT },
  "lib/core/channels.ts": { LOG_BURST: LIMIT },
  "lib/core/handle.ts": { builtinsOf: "the built-in middleware in order, as the metrics read it" },
  "lib/core/metrics.ts": { MAX_TOOL_LABELS: LIMIT },
  "lib/core/rate_limit.ts": {
    callerKeyOf: "the key a call is counted under; the used path shows it only as a bucket name",
  },
  "lib/core/telemetry.ts": {
    parseTraceparent: "W3C traceparent's grammar, held case by case",
    formatTraceparent: "W3C traceparent's grammar, held case by case",
  },
  "lib/discovery/resources_dir.ts": { MAX_RESOURCE_FILES: LIMIT },
  "lib/discovery/tools_dir.ts": { ToolLoadError: ERROR_CLASS },
  "lib/host/cli.ts": {
    FLAGS: "the flags parseArgs is given, held to the rows and to the subcommands' DIR_FLAGS",
  },
  "lib/host/log_lines.ts": { jsonLine: `${INJECTABLE} (the clock)` },
  "lib/host/stderr_log.ts": { createStderrLog: `${INJECTABLE} (the writer, the clock)` },
  "lib/openapi/call.ts": { ERROR_BODY_BYTES: LIMIT },
  "lib/primitives/tool_call.ts": { NO_CHANNELS: LIMIT },
  "lib/primitives/uri_template.ts": { MAX_LIST_SEPARATORS: LIMIT },
  "lib/mounts/pins.ts": { parsePins: `${INJECTABLE} (the pins file's text)` },
  "lib/programs/channel.ts": { CHANNEL_LINE_BYTES: LIMIT },
  "lib/programs/executable.ts": { CONTEXT_ENV: LIMIT },
  "lib/redis/key_ring.ts": { KEY_ROTATION_MS: LIMIT },
  "lib/redis/rate_buckets.ts": { MAX_PENDING_CHECKS: LIMIT },
  "lib/rounds/request_state.ts": { TAMPERED: LIMIT },
  "lib/schema/client_limits.ts": { CLIENT_RULES: "the rules' list, walked for their docs rows" },
  "lib/schema/compile.ts": {
    MAX_COLLECTED_ERRORS: LIMIT,
    UNMEMOISED_MESSAGE_STEPS: LIMIT,
    MAX_NESTING: LIMIT,
    metaVerdict: "each draft's meta-schema compiled whole, so every reference is seen to resolve",
  },
  "lib/schema/fast.ts": { UnsupportedSchema: ERROR_CLASS },
  "lib/settings/values.ts": { MAX_FLAG_VALUE: LIMIT },
  "lib/tasks/tasks.ts": { MAX_RUNNING_TASKS: LIMIT },
  "lib/transports/http/answer.ts": { UNREAD_NOTIFICATIONS_BOUND_BYTES: LIMIT },
  "lib/transports/http/auth.ts": {
    equalDigests: "constant time, byte by byte: a token cannot choose its digest's bytes",
  },
  "lib/transports/http/body.ts": { parsedCost: "the cost bound of each hostile shape, measured" },
  "lib/transports/http/events.ts": { STREAM_BYTES: LIMIT },
  "lib/transports/http/headers.ts": { decodeHeaderValue: "the =?base64?…?= codec, case by case" },
  "lib/transports/http/listener.ts": {
    denoServeConnection: "a probe of the runtime, held for what it finds here",
    openFileLimit: "a probe of the OS (RLIMIT_NOFILE), held for what it finds here",
  },
  "lib/transports/http/sessions.ts": { SESSION_BYTES: LIMIT },
};

export interface Finding {
  /** The module, relative to the root, with `/` separators. */
  file: string;
  line: number;
  /** The exported name (`default` for a default export). */
  name: string;
  /** The test files that import it; empty when nothing does. */
  testers: string[];
}

export interface Options {
  /** Exports to leave alone, by file and name (each with its reason). */
  allowed?: Record<string, Record<string, string>>;
}

/** The unused exports under `root`, sorted by file and line, and stale allow-list entries. */
export async function unusedExports(
  root: string,
  options: Options = {},
): Promise<{ findings: Finding[]; stale: string[] }> {
  const allowed = options.allowed ?? {};
  const files = await sourceFiles(root);
  const modules = new Map<string, Module>();
  for (const [path, text] of files) modules.set(path, parseModule(path, text));
  const entries = await entryPoints(root);
  const importMap = await importMapOf(root);

  // The modules checked: lib/ (but vendored code), main.ts, and what their imports reach.
  const targets = new Set<string>();
  const pending = [...modules.keys()].filter((path) =>
    (path.startsWith("lib/") && !path.startsWith("lib/schema/vendor/")) || path === "main.ts" ||
    entries.has(path)
  );
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (targets.has(path) || isTest(path) || path.startsWith("lib/schema/vendor/")) continue;
    targets.add(path);
    for (const use of modules.get(path)!.uses) {
      const to = resolve(path, use.specifier, importMap);
      if (to !== undefined && modules.has(to)) pending.push(to);
    }
  }
  for (const entry of entries) targets.delete(entry);

  // Every identifier outside the tests, by file, for namespaces that travel on.
  const usedBy = new Map<string, Set<string>>(); // "module\0name" -> importers
  const mark = (module: string, name: string, by: string, seen = new Set<string>()) => {
    const key = `${module}\0${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    let set = usedBy.get(key);
    if (set === undefined) usedBy.set(key, set = new Set());
    set.add(by);
    const target = modules.get(module);
    if (target === undefined) return;
    const declared = target.exports.get(name);
    if (declared?.from !== undefined) {
      const to = resolve(module, declared.from, importMap);
      if (to !== undefined) mark(to, declared.imported ?? name, by, seen);
      return;
    }
    if (declared !== undefined) return;
    for (const star of target.stars) {
      const to = resolve(module, star, importMap);
      if (to !== undefined) mark(to, name, by, seen);
    }
  };
  const namesOf = (module: string, seen = new Set<string>()): string[] => {
    if (seen.has(module)) return [];
    seen.add(module);
    const target = modules.get(module);
    if (target === undefined) return [];
    const names = [...target.exports.keys()];
    for (const star of target.stars) {
      const to = resolve(module, star, importMap);
      if (to !== undefined) names.push(...namesOf(to, seen).filter((name) => name !== "default"));
    }
    return names;
  };

  for (const [path, module] of modules) {
    for (const use of module.uses) {
      const to = resolve(path, use.specifier, importMap);
      if (to === undefined || !modules.has(to)) continue;
      if (use.names === "all") {
        for (const name of namesOf(to)) mark(to, name, path);
      } else if (use.names === "travels") {
        for (const name of namesOf(to)) {
          const elsewhere = [...modules].some(([other, { identifiers }]) =>
            other !== to && !isTest(other) && identifiers.has(name)
          );
          if (elsewhere || isTest(path)) mark(to, name, path);
        }
      } else {
        for (const name of use.names) mark(to, name, path);
      }
    }
  }

  // The public API: whatever an entry point exports, it re-exports or declares for authors.
  for (const entry of entries) {
    for (const name of namesOf(entry)) mark(entry, name, entry);
  }

  // A type a test imports that an export used outside the tests names (its parameters, its
  // result), directly or through the module's own declarations, is that export's contract: the
  // test uses the export's contract, not a door of its own. (A type nobody imports needs no
  // export.)
  const usedOutsideTests = (module: string, name: string) =>
    [...usedBy.get(`${module}\0${name}`) ?? []].find((by) => by !== module && !isTest(by));
  const names = (module: Module, from: Set<string> | undefined): Set<string> => {
    const reached = new Set(from);
    for (const name of reached) {
      for (const next of module.internal.get(name) ?? []) reached.add(next);
    }
    return reached;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const path of targets) {
      const module = modules.get(path)!;
      for (const [name, declared] of module.exports) {
        const importers = usedBy.get(`${path}\0${name}`)?.size ?? 0;
        if (declared.type !== true || importers === 0 || usedOutsideTests(path, name)) continue;
        for (const [other, { mentions }] of module.exports) {
          const user = other === name ? undefined : usedOutsideTests(path, other);
          if (user !== undefined && names(module, mentions).has(name)) {
            mark(path, name, user);
            changed = true;
            break;
          }
        }
      }
    }
  }

  const findings: Finding[] = [];
  const stale: string[] = [];
  for (const path of [...targets].sort()) {
    const module = modules.get(path)!;
    for (const [name, declared] of module.exports) {
      const importers = [...usedBy.get(`${path}\0${name}`) ?? []].filter((by) => by !== path);
      if (importers.some((by) => !isTest(by))) continue;
      if (allowed[path]?.[name] !== undefined) continue;
      findings.push({ file: path, line: declared.line, name, testers: importers.sort() });
    }
  }
  const isThisRepository = await sameDirectory(root, new URL("..", import.meta.url));
  for (const [path, names] of Object.entries(allowed)) {
    for (const name of Object.keys(names)) {
      const module = modules.get(path);
      if (module === undefined && !isThisRepository) continue;
      const importers = [...usedBy.get(`${path}\0${name}`) ?? []].filter((by) => by !== path);
      if (module?.exports.has(name) !== true || importers.some((by) => !isTest(by))) {
        stale.push(`${path}: ${name}`);
      }
    }
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return { findings, stale };
}

/** A test file: under a `tests/` folder, or named `*_test.ts` (`.test.ts`). */
export function isTest(path: string): boolean {
  return path.split("/").includes("tests") || /[._]test\.[cm]?[jt]sx?$/.test(path);
}

// ---------------------------------------------------------------------------------------------
// Files

const SOURCE = /\.[cm]?[jt]sx?$/;
/** This file names exports in ALLOWED without using them. */
const SELF = "_tools/check_unused_exports.ts";
const SKIPPED = new Set(["node_modules", "dist", "vendor"]);

async function sourceFiles(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(".")) continue;
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory && !SKIPPED.has(entry.name)) {
        await walk(`${dir}/${entry.name}`, `${path}/`);
      } else if (
        entry.isFile && SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") && path !== SELF
      ) {
        found.set(path, await Deno.readTextFile(`${dir}/${entry.name}`));
      }
    }
  };
  await walk(root, "");
  return found;
}

async function readManifest(root: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await Deno.readTextFile(`${root}/deno.json`));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

/** deno.json's "exports", as paths relative to the root (mod.ts when there are none). */
async function entryPoints(root: string): Promise<Set<string>> {
  const exports = (await readManifest(root)).exports ?? "./mod.ts";
  const values = typeof exports === "string" ? [exports] : Object.values(exports as object);
  return new Set(values.map((value) => normalize(String(value))));
}

async function importMapOf(root: string): Promise<Record<string, string>> {
  const imports = (await readManifest(root)).imports;
  return typeof imports === "object" && imports !== null ? imports as Record<string, string> : {};
}

async function sameDirectory(root: string, url: URL): Promise<boolean> {
  try {
    return await Deno.realPath(root) === await Deno.realPath(url);
  } catch {
    return false;
  }
}

/** A specifier as a path relative to the root, or undefined for one outside it (npm:, …). */
function resolve(
  from: string,
  specifier: string,
  importMap: Record<string, string>,
): string | undefined {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return normalize(from.split("/").slice(0, -1).concat(specifier).join("/"));
  }
  for (const [key, value] of Object.entries(importMap)) {
    if (specifier === key && value.startsWith(".")) return normalize(value);
    if (key.endsWith("/") && specifier.startsWith(key) && value.startsWith(".")) {
      return normalize(value + specifier.slice(key.length));
    }
  }
  return undefined;
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

// ---------------------------------------------------------------------------------------------
// Modules: what each exports and imports

interface Declared {
  line: number;
  /** An interface or a type alias: the contract of the exports that name it. */
  type?: boolean;
  /** The names its declaration mentions, from `export` to the next top-level statement. */
  mentions?: Set<string>;
  /** For `export { a as b } from "x"`: "x", and `imported` "a". */
  from?: string;
  imported?: string;
}

interface Use {
  specifier: string;
  /** The names taken; "all" for `export * as`; "travels" for a namespace passed on. */
  names: string[] | "all" | "travels";
}

interface Module {
  exports: Map<string, Declared>;
  /** Specifiers of `export * from`. */
  stars: string[];
  uses: Use[];
  identifiers: Set<string>;
  /** The names each top-level declaration that is not exported mentions, by its name. */
  internal: Map<string, Set<string>>;
}

const DECLARATIONS = new Set(["function", "class", "interface", "enum", "namespace", "module"]);
const MODIFIERS = new Set(["declare", "async", "abstract"]);

/** Reads a module's imports and exports from its tokens. */
export function parseModule(path: string, text: string): Module {
  const tokens = tokenize(text, path);
  const module: Module = {
    exports: new Map(),
    stars: [],
    uses: [],
    identifiers: new Set(),
    internal: new Map(),
  };
  const at = (i: number): Token | undefined => tokens[i];
  const is = (i: number, text: string) => tokens[i]?.kind !== "string" && tokens[i]?.text === text;
  for (const token of tokens) if (token.kind === "name") module.identifiers.add(token.text);

  /** `{ a, b as c, type d }` from `i` (at `{`): [imported, local] pairs, and the index after. */
  const list = (i: number): [Array<[string, string]>, number] => {
    const pairs: Array<[string, string]> = [];
    i++;
    while (i < tokens.length && !is(i, "}")) {
      if (is(i, "type") && at(i + 1)?.kind !== "punct" && !is(i + 1, "as")) i++;
      const imported = at(i)!.text;
      let local = imported;
      i++;
      if (is(i, "as")) {
        local = at(i + 1)!.text;
        i += 2;
      }
      pairs.push([imported, local]);
      if (is(i, ",")) i++;
    }
    return [pairs, i + 1];
  };

  /** The names read from namespace `local` in this file: `local.a`; "travels" if passed on. */
  const namespaceUse = (local: string, declaredAt: number): string[] | "travels" => {
    const names: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (i === declaredAt || tokens[i].kind !== "name" || tokens[i].text !== local) continue;
      if (is(i - 1, ".") || is(i - 1, "?.")) continue;
      if ((is(i + 1, ".") || is(i + 1, "?.")) && at(i + 2)?.kind === "name") {
        names.push(at(i + 2)!.text);
      } else return "travels";
    }
    return names;
  };

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind !== "name" || is(i - 1, ".") || is(i - 1, "?.") || is(i + 1, ":")) continue;
    if (token.text === "import") {
      if (is(i + 1, "(")) {
        dynamicImport(i);
        continue;
      }
      if (is(i + 1, ".")) continue; // import.meta
      let j = i + 1;
      if (at(j)?.kind === "string") {
        module.uses.push({ specifier: at(j)!.text, names: [] });
        continue;
      }
      if (is(j, "type") && !is(j + 1, ",") && !is(j + 1, "from")) j++;
      const names: string[] = [];
      let namespace: { local: string; at: number } | undefined;
      while (j < tokens.length && !is(j, "from")) {
        if (is(j, "{")) {
          const [pairs, next] = list(j);
          names.push(...pairs.map(([imported]) => imported));
          j = next;
        } else if (is(j, "*") && is(j + 1, "as")) {
          namespace = { local: at(j + 2)!.text, at: j + 2 };
          j += 3;
        } else if (is(j, ",")) j++;
        else if (at(j)?.kind === "name") {
          names.push("default");
          j++;
        } else break;
      }
      if (!is(j, "from") || at(j + 1)?.kind !== "string") continue;
      const specifier = at(j + 1)!.text;
      module.uses.push({ specifier, names });
      if (namespace !== undefined) {
        module.uses.push({ specifier, names: namespaceUse(namespace.local, namespace.at) });
      }
      i = j + 1;
    } else if (token.text === "export") {
      let j = i + 1;
      while (at(j) !== undefined && MODIFIERS.has(at(j)!.text)) j++;
      const line = token.line;
      const next = at(j);
      if (next === undefined) continue;
      if (is(j, "default")) {
        module.exports.set("default", { line });
      } else if (is(j, "type") && !is(j + 1, "{") && !is(j + 1, "*")) {
        module.exports.set(at(j + 1)!.text, { line, type: true, mentions: mentions(i) });
      } else if (is(j, "const") && is(j + 1, "enum")) {
        module.exports.set(at(j + 2)!.text, { line });
      } else if (DECLARATIONS.has(next.text)) {
        const k = is(j + 1, "*") ? j + 2 : j + 1; // function*
        module.exports.set(at(k)!.text, {
          line,
          type: next.text === "interface",
          mentions: mentions(i),
        });
      } else if (next.text === "const" || next.text === "let" || next.text === "var") {
        for (const name of bindings(j + 1)) {
          module.exports.set(name, { line, mentions: mentions(i) });
        }
      } else if (is(j, "{") || (is(j, "type") && is(j + 1, "{"))) {
        const [pairs, after] = list(is(j, "type") ? j + 1 : j);
        const from = is(after, "from") && at(after + 1)?.kind === "string"
          ? at(after + 1)!.text
          : undefined;
        for (const [imported, exported] of pairs) {
          module.exports.set(exported, from === undefined ? { line } : { line, from, imported });
        }
        if (from !== undefined) {
          // What a re-export names is used by this module only as far as this module's own
          // export is; marking follows `from` when this module's name is used.
          i = after + 1;
        }
      } else if (is(j, "*") || (is(j, "type") && is(j + 1, "*"))) {
        const k = is(j, "type") ? j + 1 : j;
        if (is(k + 1, "as")) {
          const name = at(k + 2)!.text;
          const specifier = at(k + 4)?.text;
          module.exports.set(name, { line });
          if (specifier !== undefined) module.uses.push({ specifier, names: "travels" });
        } else if (is(k + 1, "from") && at(k + 2)?.kind === "string") {
          module.stars.push(at(k + 2)!.text);
        }
      }
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    if (!tokens[i].first || tokens[i].kind !== "name") continue;
    let j = i;
    while (at(j) !== undefined && MODIFIERS.has(at(j)!.text)) j++;
    const keyword = at(j)?.text ?? "";
    let declared: string[] = [];
    if (keyword === "const" || keyword === "let" || keyword === "var") declared = bindings(j + 1);
    else if (keyword === "type" || keyword === "interface" || keyword === "class") {
      declared = [at(j + 1)?.text ?? ""];
    } else if (keyword === "function") declared = [at(is(j + 1, "*") ? j + 2 : j + 1)?.text ?? ""];
    for (const name of declared) module.internal.set(name, mentions(i));
  }
  return module;

  /** The names from token `i` to the next top-level statement (a token that starts a line). */
  function mentions(i: number): Set<string> {
    const names = new Set<string>();
    for (let k = i + 1; k < tokens.length; k++) {
      const token = tokens[k];
      if (token.first && !["}", ")", "]", "|", "&"].includes(token.text)) break;
      if (token.kind === "name") names.add(token.text);
    }
    return names;
  }

  /** The names bound by `const a = …` or `const { a, b: c } = …` from `i`. */
  function bindings(i: number): string[] {
    if (at(i)?.kind === "name") return [at(i)!.text];
    const names: string[] = [];
    let depth = 0;
    for (let k = i; k < tokens.length; k++) {
      if (is(k, "{") || is(k, "[")) depth++;
      else if (is(k, "}") || is(k, "]")) {
        if (--depth === 0) break;
      } else if (
        at(k)?.kind === "name" && !is(k + 1, ":") &&
        (is(k + 1, ",") || is(k + 1, "}") || is(k + 1, "]") || is(k + 1, "="))
      ) names.push(at(k)!.text);
    }
    return names;
  }

  function dynamicImport(i: number) {
    if (at(i + 2)?.kind !== "string" || !is(i + 3, ")")) return;
    const specifier = at(i + 2)!.text;
    const close = i + 3;
    // `import(…).a` (a type), `typeof import(…).a`, `(await import(…)).a`
    if (is(close + 1, ".") && at(close + 2)?.kind === "name" && !is(close + 2, "then")) {
      module.uses.push({ specifier, names: [at(close + 2)!.text] });
      return;
    }
    if (
      is(i - 1, "await") && is(i - 2, "(") && is(close + 1, ")") && is(close + 2, ".") &&
      at(close + 3)?.kind === "name"
    ) {
      module.uses.push({ specifier, names: [at(close + 3)!.text] });
      return;
    }
    // `const { a, b: c } = await import(…)`
    if (is(i - 1, "await") && is(i - 2, "=") && is(i - 3, "}")) {
      const names: string[] = [];
      let depth = 0;
      for (let k = i - 3; k >= 0; k--) {
        if (is(k, "}")) depth++;
        else if (is(k, "{")) {
          if (--depth === 0) break;
        } else if (
          depth === 1 && at(k)!.kind === "name" && (is(k - 1, "{") || is(k - 1, ","))
        ) names.push(at(k)!.text);
      }
      module.uses.push({ specifier, names });
      return;
    }
    module.uses.push({ specifier, names: "travels" });
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens: enough of TypeScript's lexical grammar to skip comments, strings, templates and
// regular expressions, so that only code is read

interface Token {
  kind: "name" | "string" | "punct" | "number";
  text: string;
  line: number;
  /** Whether it starts its line: a top-level statement does, in formatted code. */
  first: boolean;
}

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

function tokenize(text: string, path: string): Token[] {
  const tokens: Token[] = [];
  /** For each open `{`: whether it opened a template's `${`. */
  const braces: boolean[] = [];
  let line = 1;
  // A script's first line may be its interpreter (`#!/usr/bin/env node`), which is no token.
  let i = text.startsWith("#!") ? text.indexOf("\n") : 0;
  if (i < 0) i = text.length;
  const fail = (what: string): never => {
    throw new Error(`Cannot read "${path}" at line ${line}: ${what}`);
  };

  /** Skips a template's text from `i` (after "`" or "}") to its end or its next "${". */
  const template = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        return;
      } else if (c === "$" && text[i + 1] === "{") {
        i += 2;
        braces.push(true);
        return;
      } else {
        if (c === "\n") line++;
        i++;
      }
    }
    fail("unterminated template");
  };

  let start = 0;
  const push = (kind: Token["kind"], text: string) => {
    tokens.push({ kind, text, line, first: start === 0 || source[start - 1] === "\n" });
  };
  const source = text;
  while (i < text.length) {
    const c = text[i];
    start = i;
    if (c === "\n") {
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\uFEFF") i++;
    else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) fail("unterminated comment");
      for (let k = i; k < end; k++) if (text[k] === "\n") line++;
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let value = "";
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === "\n") fail("unterminated string");
        if (text[i] === "\\") {
          value += text[i + 1];
          i += 2;
        } else value += text[i++];
      }
      i++;
      push("string", value);
    } else if (c === "`") {
      i++;
      push("punct", "`");
      template();
    } else if (c === "}" && braces.at(-1) === true) {
      braces.pop();
      i++;
      template();
    } else if (/[A-Za-z_$\u0080-\uFFFF]/.test(c)) {
      while (i < text.length && /[\w$\u0080-\uFFFF]/.test(text[i])) i++;
      push("name", text.slice(start, i));
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(text[i + 1] ?? ""))) {
      while (i < text.length && /[\w.]/.test(text[i])) i++;
      push("number", text.slice(start, i));
    } else if (c === "/" && regexMayStart(tokens.at(-1))) {
      let inClass = false;
      i++;
      while (i < text.length && (text[i] !== "/" || inClass)) {
        if (text[i] === "\n") fail("unterminated regular expression");
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        i++;
      }
      i++;
      while (i < text.length && /[a-z]/.test(text[i])) i++;
      push("punct", "/regex/");
    } else {
      const three = text.slice(i, i + 3);
      const two = text.slice(i, i + 2);
      const punct = three === "..." ? three : two === "?." || two === "=>" ? two : c;
      if (punct === "{") braces.push(false);
      else if (punct === "}") braces.pop();
      push("punct", punct);
      i += punct.length;
    }
  }
  return tokens;
}

function regexMayStart(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.kind === "name") return KEYWORDS_BEFORE_EXPRESSION.has(previous.text);
  if (previous.kind === "string" || previous.kind === "number") return false;
  return previous.text !== ")" && previous.text !== "]" && previous.text !== "}";
}

// ---------------------------------------------------------------------------------------------

if (import.meta.main) {
  const root = Deno.args[0] ?? new URL("..", import.meta.url).pathname;
  const { findings, stale } = await unusedExports(root, { allowed: ALLOWED });
  for (const { file, line, name, testers } of findings) {
    const who = testers.length === 0
      ? "nothing imports it"
      : `only tests import it (${testers.join(", ")})`;
    console.error(`${file}:${line}: export "${name}": ${who}`);
  }
  for (const entry of stale) {
    console.error(`_tools/check_unused_exports.ts: ALLOWED names "${entry}", no unused export`);
  }
  if (findings.length > 0 || stale.length > 0) {
    console.error(
      `${findings.length} unused export(s): drop the export (or the code), or test through ` +
        `the function that uses it`,
    );
    Deno.exit(1);
  }
}
