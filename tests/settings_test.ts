// The settings table (lib/settings/table.ts, adr/0061 §1): the help, the flags page, the parser
// and the subcommands' directory flags all come from its rows.
import assert, { ok } from "node:assert/strict";
import { FLAGS, flagSpecOf, labelOf, usage } from "../lib/host/cli.ts";
import { LOG_FORMATS } from "../lib/host/log_lines.ts";
import { commandsHelp } from "../lib/commands/table.ts";
import { DIR_FLAGS } from "../lib/commands/open_server.ts";
import { ROWS, type Settings, type Slice, sliceKeys } from "../lib/settings/table.ts";
import type { ServerConfig } from "../lib/server/config.ts";
import type { HttpOptions } from "../lib/transports/http/server.ts";
import { FLAGS_DOC, flagsTable, withFlagsTable } from "../_tools/flags_doc.ts";

Deno.test("usage() shows every row with help under its label, its lines in the column", () => {
  const text = usage(commandsHelp());
  const lines = text.split("\n");
  for (const row of ROWS.filter((row) => row.help.length > 0)) {
    const at = lines.findIndex((line) => line.startsWith(`  ${labelOf(row)}`));
    ok(at !== -1, `${labelOf(row)} is in the help`);
    // A long label stands on a line of its own; the help's lines follow in the column.
    const head = lines[at].slice(2 + labelOf(row).length).trimStart();
    const shown = [...(head === "" ? [] : [head]), ...lines.slice(at + 1)]
      .slice(0, row.help.length)
      .map((line, i) => i === 0 && head !== "" ? line : line.trimStart());
    assert.deepEqual(
      shown,
      row.help.map((line) => line.replace("{default}", String(row.default))),
      labelOf(row),
    );
  }
  // The help of the options comes before the environment's, each in the table's order.
  const labels = ROWS.filter((row) => row.help.length > 0).map((row) => `  ${labelOf(row)}`);
  const order = labels.map((label) => lines.findIndex((line) => line.startsWith(label)));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
});

Deno.test("flags.md's Flags table is the rows' rendering, a row per flag in the table's order", async () => {
  const page = await Deno.readTextFile(FLAGS_DOC);
  assert.equal(withFlagsTable(page), page, "run deno run -A _tools/flags_doc.ts");
  const table = flagsTable();
  for (const row of ROWS.filter((row) => row.flag !== undefined)) {
    assert.ok(table.includes(`--${row.flag}`), `--${row.flag} is on the page`);
  }
});

Deno.test("every flag the parser knows is a row, with help and flags.md's cells", () => {
  const flags = ROWS.flatMap((row) => row.flag === undefined ? [] : [row.flag]);
  assert.deepEqual(Object.keys(FLAGS), [...flags, "help", "version"]);
  for (const row of ROWS.filter((row) => row.flag !== undefined)) {
    assert.ok(row.help.length > 0, `--${row.flag} has help`);
    assert.ok(row.doc !== undefined && row.doc.meaning !== "", `--${row.flag} has a meaning`);
    assert.ok(row.for.length > 0, `--${row.flag} is read`);
  }
  for (const row of ROWS.filter((row) => row.flag === undefined)) {
    assert.ok(row.env !== undefined, `${row.key} has a flag or a variable`);
  }
});

Deno.test("every row parses its own default", () => {
  let checked = 0;
  for (const row of ROWS) {
    if (row.default === undefined) continue;
    if (row.type.takes === "switch") {
      assert.equal(row.default, false, `${row.key}: a switch is off unless given`);
      continue;
    }
    const given = Array.isArray(row.default) ? row.default : [String(row.default)];
    const parsed = row.type.parse(given, `--${row.flag}`);
    assert.deepEqual(parsed, { value: row.default }, row.key);
    checked++;
  }
  assert.ok(checked >= 15, `${checked} defaults parsed`);
});

Deno.test("the subcommands' directory flags are the rows marked for commands, and -h", () => {
  const rows = ROWS.filter((row) => row.commands);
  assert.deepEqual(DIR_FLAGS, {
    ...Object.fromEntries(rows.map((row) => [row.flag, flagSpecOf(row)])),
    help: { type: "boolean", short: "h" },
  });
});

Deno.test("--log-format's type takes exactly the log's formats", () => {
  const row = ROWS.find((row) => row.flag === "log-format")!;
  for (const format of LOG_FORMATS) {
    assert.deepEqual(row.type.parse([format], "--log-format"), { value: format });
  }
  assert.ok("problem" in row.type.parse(["yaml"], "--log-format"));
});

/** The settings createServer reads: all but the folders (URLs too there), the address to listen
 * on, the metrics' and OAuth's (more there), and what only the process reads. */
type ServerSettings = Omit<
  Settings,
  | "dir"
  | "tools"
  | "resources"
  | "prompts"
  | "http"
  | "metrics"
  | "oauth"
  | "verbose"
  | "logFormat"
  | "allowUnauthenticated"
>;

/** `true` when A is B's type, else the keys where they differ (a compile error below). */
type Agrees<A, B> = [A] extends [B] ? true : { [K in keyof B]: K extends keyof A ? never : K };

Deno.test("ServerConfig and HttpOptions have a field for every setting they read, of its row's type", () => {
  // A row read by the server (or by `http`) without its field here does not compile: JSR's
  // no-slow-types keeps public types from being read off the table, so they are written out
  // and held to it here.
  const config: Agrees<
    Required<Pick<ServerConfig, keyof ServerSettings>>,
    Required<ServerSettings>
  > = true;
  const missing: Exclude<keyof ServerSettings, keyof ServerConfig> extends never ? true : false =
    true;
  const http: Agrees<Pick<HttpOptions, keyof Slice<"http">>, Slice<"http">> = true;
  const httpMissing: Exclude<keyof Slice<"http">, keyof HttpOptions> extends never ? true : false =
    true;
  assert.ok(config && missing && http && httpMissing);
  assert.ok(sliceKeys("http").includes("maxSessions"));
});
