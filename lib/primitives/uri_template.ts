// RFC 6570 URI templates for resource templates: checked here (the library accepts anything),
// expanded and de-substituted by uri-templates, which matches in one pass over the URI. It is
// imported at the first match, not at start-up: a CommonJS package, it loads Deno's Node
// compatibility layer (~40 ms), which a server should not wait for before its first answer.
import type { UriParams } from "./types.ts";

/** A checked template: its variables, and the URIs it produces. */
export interface UriTemplate {
  readonly text: string;
  /** Its variable names, each once, in the order they first appear. */
  readonly variables: readonly string[];
  /** The variables of `uri`, or undefined unless expanding them gives back exactly `uri`. */
  match(uri: string): Promise<UriParams | undefined>;
  /** As match, at once; NOT_READY until the library has loaded (uriTemplatesReady()). */
  matchNow(uri: string): UriParams | undefined | typeof NOT_READY;
}

/** What matchNow answers before the template library has loaded. */
export const NOT_READY: unique symbol = Symbol("the URI template library is loading");

/**
 * Most list separators (`,` `;` `&` `=` `/` `.`) a URI may hold to match a template that has
 * lists (an exploded variable or an expression of several variables). The library joins
 * repeated and split list items with copies, quadratic in their number; below this bound that
 * is a fraction of a millisecond, and no real resource URI needs more.
 */
export const MAX_LIST_SEPARATORS = 1_000;

/** What uri-templates' constructor returns (it ships no types). */
interface Library {
  fill(values: Record<string, string | string[] | undefined>): string;
  fromUri(uri: string): Record<string, unknown> | undefined;
}
type LibraryConstructor = new (template: string) => Library;

let library: Promise<LibraryConstructor> | undefined;
/** The library once loaded, for matches that cannot wait. */
let loaded: LibraryConstructor | undefined;

function loadLibrary(): Promise<LibraryConstructor> {
  library ??= import("npm:uri-templates@0.2.0").then((module) =>
    loaded = (module as { default: LibraryConstructor }).default
  );
  return library;
}

/**
 * Loads the library now, for a server whose templates must match at once (a template that
 * asks for scopes is checked before its read, synchronously).
 */
export async function uriTemplatesReady(): Promise<void> {
  await loadLibrary();
}

const OPERATORS = "+#./;?&";
const RESERVED_OPERATORS = "=,!@|";
/** RFC 6570 `varname`: varchars (ALPHA, DIGIT, "_", pct-encoded), with single dots between. */
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
/** RFC 6570 `max-length`: 1 to 9999, no leading zero. */
const MAX_LENGTH = /^[1-9][0-9]{0,3}$/;
/** Characters a template's literals may not hold (RFC 6570 section 2.1), braces aside. */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const BAD_LITERAL = /[\x00-\x20\x7f"'<>\\^`|]/;

interface VarSpec {
  name: string;
  explode: boolean;
}

/** Why `text` is not an RFC 6570 template (one sentence), or its variables when it is one. */
function parse(text: string): { problem: string } | { specs: VarSpec[]; lists: boolean } {
  const specs: VarSpec[] = [];
  let lists = false;
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("{", at);
    const literal = text.slice(at, open === -1 ? text.length : open);
    const stray = literal.indexOf("}");
    if (stray !== -1) return { problem: `it has a "}" without a "{" at offset ${at + stray}` };
    const bad = BAD_LITERAL.exec(literal);
    if (bad !== null) {
      return {
        problem: `it has ${JSON.stringify(bad[0])} at offset ${at + bad.index}, which a URI ` +
          `template may not hold outside an expression`,
      };
    }
    const percent = /%(?![0-9A-Fa-f]{2})/.exec(literal);
    if (percent !== null) {
      return {
        problem: `it has a "%" not followed by two hex digits at offset ${at + percent.index}`,
      };
    }
    if (open === -1) break;
    const close = text.indexOf("}", open);
    if (close === -1) return { problem: `the "{" at offset ${open} is never closed` };
    let expression = text.slice(open + 1, close);
    if (expression.includes("{")) return { problem: `the "{" at offset ${open} is never closed` };
    const operator = expression.slice(0, 1);
    if (operator !== "" && RESERVED_OPERATORS.includes(operator)) {
      return {
        problem: `the operator "${operator}" in "{${expression}}" is reserved: use one of ` +
          `"${OPERATORS}" or none`,
      };
    }
    if (operator !== "" && OPERATORS.includes(operator)) expression = expression.slice(1);
    const parts = expression.split(",");
    if (parts.length > 1) lists = true;
    for (const part of parts) {
      const [name, modifier] = splitModifier(part);
      if (!VARNAME.test(name) || (modifier !== "" && modifier !== "*" && !/^:/.test(modifier))) {
        return {
          problem: `"{${text.slice(open + 1, close)}}" holds "${part}", which is not a variable ` +
            `name (letters, digits, "_" and inner "."), optionally followed by "*" or ":" and a length`,
        };
      }
      if (modifier.startsWith(":") && !MAX_LENGTH.test(modifier.slice(1))) {
        return { problem: `the length in "${part}" must be an integer from 1 to 9999` };
      }
      if (modifier === "*") lists = true;
      specs.push({ name, explode: modifier === "*" });
    }
    at = close + 1;
  }
  return { specs, lists };
}

function splitModifier(part: string): [string, string] {
  if (part.endsWith("*")) return [part.slice(0, -1), "*"];
  const colon = part.indexOf(":");
  return colon === -1 ? [part, ""] : [part.slice(0, colon), part.slice(colon)];
}

/**
 * Checks `text` as an RFC 6570 template (levels 1 to 4) and prepares it for matching. Throws
 * one sentence saying what is wrong. The template library loads at the first match.
 */
export function parseUriTemplate(text: string): UriTemplate {
  const parsed = parse(text);
  if ("problem" in parsed) throw new Error(parsed.problem);
  const { specs, lists } = parsed;
  const exploded = new Set(specs.filter((spec) => spec.explode).map((spec) => spec.name));
  const variables = [...new Set(specs.map((spec) => spec.name))];
  let template: Library | undefined;
  const matchWith = (Library: LibraryConstructor, uri: string): UriParams | undefined => {
    if (typeof uri !== "string") return undefined;
    if (lists && countSeparators(uri) > MAX_LIST_SEPARATORS) return undefined;
    template ??= new Library(text);
    let found: Record<string, unknown> | undefined;
    try {
      found = template.fromUri(uri);
    } catch {
      // A malformed percent-encoding, or a key the library trips over: not this template's.
      return undefined;
    }
    if (found === undefined) return undefined;
    const params: UriParams = {};
    for (const name of variables) {
      if (!Object.hasOwn(found, name)) continue;
      const value = paramOf(found[name], exploded.has(name));
      if (value === undefined) return undefined;
      Object.defineProperty(params, name, { value, enumerable: true, writable: true });
    }
    // The library is lenient (it decodes what a client should have encoded, guesses where a
    // list ends): only a URI these values expand to exactly is a match.
    let again: string;
    try {
      again = template.fill(params);
    } catch {
      return undefined;
    }
    return again === uri ? params : undefined;
  };
  const match = async (uri: string) => matchWith(await loadLibrary(), uri);
  const matchNow = (uri: string) => loaded === undefined ? NOT_READY : matchWith(loaded, uri);
  return Object.freeze({ text, variables: Object.freeze(variables), match, matchNow });
}

/**
 * One variable's value as `read` receives it: a string, or a list of strings for an exploded
 * variable. A non-exploded variable the library read as a list (`a,b`) is tried as the
 * string `a,b`; a key/value map (`{?q*}` given `?x=1`) matches nothing.
 */
function paramOf(value: unknown, explode: boolean): string | string[] | undefined {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.flat() : [];
  if (list.length === 0 || !list.every((item) => typeof item === "string")) return undefined;
  return explode ? list as string[] : (list as string[]).join(",");
}

function countSeparators(uri: string): number {
  let count = 0;
  for (let i = 0; i < uri.length; i++) {
    const code = uri.charCodeAt(i);
    // , ; & = / .
    if (code === 44 || code === 59 || code === 38 || code === 61 || code === 47 || code === 46) {
      count++;
    }
  }
  return count;
}
