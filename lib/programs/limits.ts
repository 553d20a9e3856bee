// What the flags and sidecars of executable tools take, apart from the code that runs programs:
// flags and the tools loader read these on every start, while programs/executable.ts loads only
// for a directory that has an executable tool (adr/0051).
import { TABLE } from "../settings/table.ts";

/** What an environment variable's name may be (for sidecars' `env` and --pass-env). */
export { ENV_NAME } from "../settings/values.ts";

/** The default of --max-programs: programs alive at once, running or still dying. */
export const MAX_PROGRAMS = TABLE.maxPrograms.default;

/** The default of --max-output-bytes: most bytes read from a program's stdout per call. */
export const MAX_OUTPUT_BYTES = TABLE.maxOutputBytes.default;

/**
 * How a program's stdout becomes its result (the sidecar's `output`, adr/0009): "text" is
 * one text block; "json" is one JSON value, returned as structured content; "result" is
 * a whole CallToolResult.
 */
export type OutputMode = "text" | "json" | "result";

export const OUTPUT_MODES: readonly OutputMode[] = ["text", "json", "result"];
