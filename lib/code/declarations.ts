// A catalog as TypeScript (adr/0073 decision 3): one `declare const tools: { … }` a model reads
// before it writes code that calls the tools, and that `deno check` accepts. Per tool, in name
// order: a JSDoc block from its title and description, and a method whose argument type comes
// from its inputSchema and whose result type from its outputSchema. Named types follow the
// object: a tool's `$defs` (and `definitions`, and any local ref) as `<Tool>_<Name>`, its
// structured result as `<Tool>Result`, named per tool so that two tools' types never clash.
//
// Limits: a schema nested deeper than MAX_SCHEMA_DEPTH is `unknown` there, saying so; a catalog
// whose text would pass MAX_DECLARATIONS_CHARS ends at the tool that would pass it, and a last
// comment says how many tools, from which name on, are not declared.
import type { Tool } from "../primitives/tools.ts";
import type { JsonObject } from "../util/json.ts";
import {
  docLines,
  jsDoc,
  memberName,
  pointerTarget,
  type SchemaNames,
  textLines,
  typeOf,
} from "./schema_type.ts";

/**
 * What a call of a tool without an outputSchema gives the code: run_code's proxy decides it,
 * and this is the one place its type and its note are written.
 */
export const UNSTRUCTURED_RESULT = {
  type: "unknown",
  note: "Not declared (no outputSchema): a text result arrives as a string",
} as const;

/** Characters the declarations of a catalog may take; the tools past them are only counted. */
export const MAX_DECLARATIONS_CHARS = 2_000_000;

/** The TypeScript declarations of `tools`, in name order, ending in a newline. */
export function declarationsOf(tools: readonly Tool[]): string {
  const sorted = [...tools].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const taken = new Set<string>();
  const methods: string[] = [];
  const types: string[] = [];
  let size = 0;
  let cut: number | undefined;
  for (const [i, tool] of sorted.entries()) {
    const declared = toolDeclarations(tool, taken);
    const cost = declared.method.length + declared.types.reduce((sum, t) => sum + t.length, 0);
    if (size + cost > MAX_DECLARATIONS_CHARS) {
      cut = i;
      break;
    }
    size += cost;
    methods.push(declared.method);
    types.push(...declared.types);
  }
  let text = `declare const tools: {\n${methods.join("\n")}${methods.length > 0 ? "\n" : ""}};\n`;
  for (const type of types) text += `\n${type}`;
  if (cut !== undefined) {
    text += `\n// ${sorted.length - cut} more tool(s), "${sorted[cut].name}" and after it in ` +
      `name order, are not declared here: these declarations reached their limit of ` +
      `${MAX_DECLARATIONS_CHARS.toLocaleString("en-US")} characters (ask for fewer tools)\n`;
  }
  return text;
}

/** One tool's method in the `tools` object, and its named types, each ending in a newline. */
function toolDeclarations(tool: Tool, taken: Set<string>): { method: string; types: string[] } {
  const { description, title, inputSchema, outputSchema } = tool.definition;
  const stem = typeStem(tool.name);
  // The result's name first, so that it is `<Tool>Result` whatever the input's refs are named.
  const resultName = outputSchema === undefined ? undefined : unique(`${stem}Result`, taken);
  const input = namesOf(inputSchema, stem, taken, undefined);
  const args = typeOf(inputSchema, input, "  ");
  const types: string[] = [];
  let output: DocumentNames | undefined;
  if (outputSchema !== undefined && resultName !== undefined) {
    // `#` in the output schema is the result type itself.
    output = namesOf(outputSchema, stem, taken, resultName);
    types.push(declaration(resultName, outputSchema, output));
  }
  // The named types reached, each once, in the order first reached (a type may reach more).
  for (const names of output === undefined ? [input] : [input, output]) {
    for (let next = names.pending.shift(); next !== undefined; next = names.pending.shift()) {
      types.push(declaration(next.name, pointerTarget(names.document, next.pointer), names));
    }
  }

  const lines = textLines(description);
  const heading = title?.trim();
  // "<title>: <description>", the title once when the description only repeats it.
  if (heading && !sameWords(heading, lines[0] ?? "")) {
    lines[0] = lines.length > 0 ? `${heading}: ${lines[0]}` : heading;
  }
  const inputDoc = docLines(inputSchema);
  if (inputDoc.length > 0) lines.push("", `@param args ${inputDoc[0]}`, ...inputDoc.slice(1));
  if (outputSchema === undefined) lines.push("", `@returns ${UNSTRUCTURED_RESULT.note}`);
  // Without a required property, `tools.<name>()` is a call the schema accepts.
  const optional = !(Array.isArray(inputSchema.required) && inputSchema.required.length > 0);
  const method = `${jsDoc(lines, "  ")}  ${memberName(tool.name)}(args${optional ? "?" : ""}: ${
    input.rootName() ?? args
  }): Promise<${resultName ?? UNSTRUCTURED_RESULT.type}>;`;
  return { method, types };
}

/** `type <name> = …;` for `schema`, with its JSDoc. */
function declaration(name: string, schema: unknown, names: SchemaNames): string {
  return `${jsDoc(docLines(schema), "")}type ${name} = ${typeOf(schema, names, "")};\n`;
}

/** A pointer waiting for its type to be declared. */
interface Pending {
  readonly pointer: string;
  readonly name: string;
}

/** SchemaNames for one document, with what it named and still has to declare. */
interface DocumentNames extends SchemaNames {
  readonly pending: Pending[];
  /** The name of the document's own type when anything named it (`#`), else undefined. */
  rootName(): string | undefined;
}

function namesOf(
  document: JsonObject,
  stem: string,
  taken: Set<string>,
  root: string | undefined,
): DocumentNames {
  const byPointer = new Map<string, string>();
  if (root !== undefined) byPointer.set("#", root);
  const pending: Pending[] = [];
  return {
    document,
    pending,
    nameOf(pointer) {
      let name = byPointer.get(pointer);
      if (name === undefined) {
        const last = pointer.slice(pointer.lastIndexOf("/") + 1);
        name = unique(pointer === "#" ? `${stem}Args` : `${stem}_${typePart(last)}`, taken);
        byPointer.set(pointer, name);
        pending.push({ pointer, name });
      }
      return name;
    },
    rootName: () => byPointer.get("#"),
  };
}

/** Whether two texts differ only in case, spaces and a final period. */
function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.trim().replace(/\.$/, "").replace(/\s+/g, " ").toLowerCase();
  return words(a) === words(b);
}

/** `base`, or `base_2`, `base_3` … : the first not taken, now taken. */
function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** A tool name as the start of its type names: "list-pets" → "ListPets". */
function typeStem(name: string): string {
  const stem = name.split(/[^A-Za-z0-9]+/).map((part) =>
    part.charAt(0).toUpperCase() + part.slice(1)
  )
    .join("");
  return /^[A-Za-z]/.test(stem) ? stem : `T${stem}`;
}

/** A ref's last segment as part of a type name: characters a name cannot hold become "_". */
function typePart(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch { /* kept as written */ }
  const part = decoded.replace(/[^A-Za-z0-9_$]/g, "_");
  return part === "" ? "_" : part;
}
