// Writes docs/operating/flags.md's Flags table from the rows of lib/settings/table.ts, in their
// order (adr/0061 §1), so that the page names every flag the parser knows.
//
//   deno run -A _tools/flags_doc.ts           rewrite the table
//   deno run -A _tools/flags_doc.ts --check   exit 1 if the page's table is not the rows'
import { labelOf } from "../lib/host/cli.ts";
import { ROWS } from "../lib/settings/table.ts";

export const FLAGS_DOC = new URL("../docs/operating/flags.md", import.meta.url);

/** The row of -h and -V, which the parser takes apart from the settings. */
const HELP_AND_VERSION = [
  "`-h`, `--help` / `-V`, `--version`",
  "",
  "printed on stderr (stdout carries protocol only); `toolshed COMMAND --help` prints on stdout",
];

/** The Flags table as deno fmt writes it: a row per flag, then -h and -V. */
export function flagsTable(): string {
  const rows = [
    ["flag", "default", "meaning"],
    ...ROWS.filter((row) => row.flag !== undefined).map((row) =>
      [
        row.short === undefined
          ? `\`${labelOf(row)}\``
          : `\`-${row.short}\`, \`${labelOf(row).slice(`-${row.short}, `.length)}\``,
        row.doc?.default ?? "",
        row.doc?.meaning ?? "",
      ].map((cell, column) => column === 0 ? cell.replaceAll("|", "\\|") : cell)
    ),
    HELP_AND_VERSION,
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [
    line(rows[0]),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.slice(1).map(line),
  ].join("\n");
}

/** The page with its Flags table replaced by the rows'. */
export function withFlagsTable(page: string): string {
  const start = page.indexOf("| flag ");
  const end = page.indexOf("\n\n", start);
  if (start === -1 || end === -1) throw new Error("flags.md has no Flags table");
  return page.slice(0, start) + flagsTable() + page.slice(end);
}

if (import.meta.main) {
  const page = await Deno.readTextFile(FLAGS_DOC);
  const written = withFlagsTable(page);
  if (Deno.args.includes("--check")) {
    if (written !== page) {
      // deno-lint-ignore no-console
      console.error(
        "docs/operating/flags.md's Flags table is not the settings table's: " +
          "run deno run -A _tools/flags_doc.ts",
      );
      Deno.exit(1);
    }
  } else if (written !== page) await Deno.writeTextFile(FLAGS_DOC, written);
}
