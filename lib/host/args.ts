// A strict command-line parser with the shape of node:util's parseArgs, for the subset
// toolshed uses: long flags with values (`--tools DIR`, `--tools=DIR`), boolean flags,
// one-letter aliases, repeatable flags, and positionals when allowed. It exists because importing
// node:util loads Deno's Node compatibility layer, ~5 ms of every start (adr/0008).

export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

interface ParseConfig<Specs extends Record<string, FlagSpec>> {
  args: string[];
  options: Specs;
  /** Accept arguments that are not flags (returned in order); else they are an error. */
  allowPositionals?: boolean;
}

type Values<Specs extends Record<string, FlagSpec>> = {
  [Name in keyof Specs]?: Specs[Name]["type"] extends "boolean" ? boolean
    : Specs[Name]["multiple"] extends true ? string[]
    : string;
};

/** Parses `args`; throws an Error whose message names the offending argument. */
export function parseArgs<Specs extends Record<string, FlagSpec>>(
  config: ParseConfig<Specs>,
): { values: Values<Specs>; positionals: string[] } {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const byShort = new Map(
    Object.entries(config.options).flatMap(([name, spec]) =>
      spec.short ? [[spec.short, name]] : []
    ),
  );
  const args = config.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--") && arg.length > 2) {
      const equals = arg.indexOf("=");
      name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
      inline = equals === -1 ? undefined : arg.slice(equals + 1);
    } else if (/^-[^-]$/.test(arg)) {
      name = byShort.get(arg[1]);
      if (name === undefined) throw new Error(`Unknown option "${arg}"`);
    } else if (arg === "--" && config.allowPositionals) {
      positionals.push(...args.slice(i + 1));
      break;
    } else if (config.allowPositionals) {
      positionals.push(arg);
      continue;
    } else {
      throw new Error(`Unexpected argument "${arg}": toolshed takes no positional arguments`);
    }
    // Own keys only: `--constructor` or `--toString` must not find Object.prototype's.
    if (!Object.hasOwn(config.options, name)) throw new Error(`Unknown option "--${name}"`);
    const spec = config.options[name];
    let value: string | boolean;
    if (spec.type === "boolean") {
      if (inline !== undefined) throw new Error(`Option "--${name}" does not take a value`);
      value = true;
    } else if (inline !== undefined) {
      value = inline;
    } else if (i + 1 < args.length) {
      value = args[++i];
    } else {
      throw new Error(`Option "--${name}" needs a value`);
    }
    if (spec.multiple) values[name] = [...(values[name] as string[] ?? []), value];
    else values[name] = value;
  }
  return { values: values as Values<Specs>, positionals };
}
