// The settings table (lib/settings/table.ts, adr/0061 §1): the help, the flags page, the parser
// and the subcommands' directory flags all come from its rows.
import assert, { ok } from "node:assert/strict";
import { FLAGS, labelOf, usage } from "../lib/host/cli.ts";
import { LOG_FORMATS } from "../lib/host/log_lines.ts";
import { commandsHelp } from "../lib/commands/table.ts";
import { DIR_FLAGS } from "../lib/commands/open_server.ts";
import {
  type Readers,
  ROWS,
  type SettingKey,
  type Settings,
  sliceOf,
  type TABLE,
} from "../lib/settings/table.ts";
import { resolveSettings } from "../lib/settings/rules.ts";
import type { ServerConfig } from "../lib/server/config.ts";
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
    ...Object.fromEntries(rows.map((row) => [row.flag, FLAGS[row.flag!]])),
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

/** `true` when A and B are the same union of keys, else false (a compile error below). */
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;

/** The keys of the rows whose `for` names component C, as the table is written. */
type RowsFor<C> = {
  [K in SettingKey]: C extends typeof TABLE[K]["for"][number] ? K : never;
}[SettingKey];

Deno.test("the components' slices are the rows whose `for` names them, and sliceOf() hands on those", () => {
  // JSR's no-slow-types keeps public types (HttpOptions, EmbeddedHttp) from being read off the
  // rows, so Readers names their keys in table.ts: a row read by a component without its key
  // there, or a key there without the row's `for`, does not compile.
  const http: Same<RowsFor<"http">, Readers["http"]> = true;
  const embedded: Same<RowsFor<"embedded-http">, Readers["embedded-http"]> = true;
  const metrics: Same<RowsFor<"metrics">, Readers["metrics"]> = true;
  assert.ok(http && embedded && metrics);
  const settings = resolveSettings({ pageSize: 7, maxSessions: 3, corsOrigins: ["*"] });
  const slice: Record<string, unknown> = sliceOf(settings, "http");
  const read = ROWS.filter((row) => row.group === undefined && row.for.includes("http"))
    .map((row) => row.key).filter((key) => settings[key as keyof typeof settings] !== undefined);
  assert.deepEqual(Object.keys(slice).sort(), read.sort());
  assert.equal(slice.maxSessions, 3);
  assert.equal(slice.maxUnsentBytes, settings.maxUnsentBytes, "the defaults are in it");
  assert.equal(slice.pageSize, undefined, "the core's settings are not");
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

Deno.test("ServerConfig has a field for every setting the server reads, of its row's type", () => {
  const config: Same<
    keyof Required<Pick<ServerConfig, keyof ServerSettings>>,
    keyof ServerSettings
  > = true;
  const typed: Required<Pick<ServerConfig, keyof ServerSettings>> extends Required<ServerSettings>
    ? true
    : false = true;
  assert.ok(config && typed);
});
