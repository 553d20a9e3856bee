// The command line both build scripts take: `[--output PATH]` and `--help`.
import { parseArgs } from "../lib/host/args.ts";

/** What the command line asks for: where to write, help, or why it cannot be done. */
export type OutputRequest =
  | { kind: "build"; output: string }
  | { kind: "help"; text: string }
  | { kind: "usage-error"; message: string };

/** Reads `args`; a relative --output is taken from `cwd`, a missing one is `fallback`. */
export function parseOutputArgs(
  args: string[],
  cwd: string,
  fallback: string,
  usage: string,
): OutputRequest {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { output: { type: "string", short: "o" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    return { kind: "usage-error", message: (error as Error).message };
  }
  if (values.help) return { kind: "help", text: usage };
  const output = values.output ?? fallback;
  if (output === "" || output.endsWith("/")) {
    return { kind: "usage-error", message: `Option "--output" needs a file path: "${output}"` };
  }
  return { kind: "build", output: output.startsWith("/") ? output : `${cwd}/${output}` };
}
