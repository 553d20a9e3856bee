// Every command line in README.md, docs/**/*.md and examples/**/README.md is spelled for the
// reader of its page (issue 36: "every command line runs as written for that reader"). A page's
// reader is a person who installed toolshed (`npm install -g toolshed`, or `deno install`), who
// types `toolshed …`; or a contributor in a clone of the repository, who may type `deno task …`
// (PAGES, below, says which; a heading may change the reader for its section).
//
// A command line is a line of a ```sh / ```bash / ```console / ```shell block (a `$ ` line
// where the block is a transcript: its other lines are output), joined with the lines a
// trailing `\` continues, here-document bodies left out. For a user's page, each line:
//   - spells toolshed as the installed command: not `deno task toolshed`, `deno task start`,
//     `npx … deno@… task …` or `deno run … main.ts` (they run only in a clone);
//   - names a real subcommand after `toolshed` (lib/commands/table.ts, through `toolshed
//     --help`'s list), or none (serve), and only flags that subcommand's usage names (serve:
//     the rows of lib/settings/table.ts, --help and --version).
// Every page's `toolshed` lines are checked so (`npx -y toolshed …` and `toolshed` after a
// pipe or `&&` too). Failures name the page and line. Reads files and imports the command
// modules' usage texts in process; takes milliseconds.
import assert from "node:assert/strict";
import { ROWS } from "../lib/settings/table.ts";
import { commandsHelp } from "../lib/commands/table.ts";
import { docPages } from "./_markdown.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

type Reader = "user" | "contributor";

/**
 * Who reads each page. A page not named is a user's. `sections` gives a heading's section
 * (down to the next heading of its level or higher) another reader.
 */
const PAGES: Record<string, { reader: Reader; sections?: Record<string, Reader> }> = {
  "README.md": { reader: "user", sections: { "The test suite": "contributor" } },
  "docs/development.md": { reader: "contributor" },
  "docs/performance.md": { reader: "contributor" },
  "docs/protocol/conformance.md": { reader: "contributor" },
  "docs/operating/install.md": {
    reader: "user",
    sections: { "Building the package": "contributor" },
  },
  "docs/operating/compile-and-url.md": {
    reader: "user",
    // Its first section compiles the clone's own demo; its subsection, your directory.
    sections: {
      "Compiling a single executable": "contributor",
      "Your own server directory": "user",
    },
  },
  "docs/operating/container.md": { reader: "user", sections: { "Building": "contributor" } },
  "docs/operating/publishing.md": { reader: "user", sections: { "What is tested": "contributor" } },
};

/** What only a clone runs: a user's page must not spell toolshed so. */
const CLONE_ONLY: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\bnpx\b[^|;&]*\bdeno@[^\s]+\s+task\b/, what: "npx … deno@… task (a clone's task)" },
  { pattern: /\bdeno\s+task\s+toolshed\b/, what: "deno task toolshed, a clone's task" },
  {
    // A server directory's own deno.json (new server) has the tasks test and check; the
    // rest (start, compile, container, package:npm, setup:…) are the clone's.
    pattern: /\bdeno\s+task\s+(?!(?:test|check|toolshed)\b)\S/,
    what: "deno task … (a clone's task; a server directory has only test and check)",
  },
  { pattern: /\bdeno\s+test\b[^|;&]*\btests\//, what: "deno test … tests/ (a clone's tests)" },
  { pattern: /\bdeno\s+run\b[^|;&]*\bmain\.ts\b/, what: "deno run … main.ts (a clone's file)" },
];

const SHELL_LANGS = new Set(["sh", "bash", "console", "shell"]);
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

/** A command line of a page: where it is, what it says, who reads it. */
interface CommandLine {
  page: string;
  line: number;
  text: string;
  reader: Reader;
}

/** The command lines of one page's text. */
function commandLines(page: string, text: string): CommandLine[] {
  const found: CommandLine[] = [];
  const lines = text.split("\n");
  const settings = PAGES[page] ?? { reader: "user" as Reader };
  /** The open headings, by level, whose section may name another reader. */
  const headings: { level: number; reader: Reader }[] = [];
  const readerNow = () => headings.at(-1)?.reader ?? settings.reader;
  for (let index = 0; index < lines.length; index++) {
    const heading = lines[index].match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      const level = heading[1].length;
      while (headings.length > 0 && headings.at(-1)!.level >= level) headings.pop();
      const reader = settings.sections?.[heading[2].trim()];
      if (reader !== undefined) headings.push({ level, reader });
      continue;
    }
    const fence = lines[index].match(FENCE);
    if (!fence) continue;
    const [, marker, lang] = fence;
    const body: { line: number; text: string }[] = [];
    for (index++; index < lines.length && !lines[index].startsWith(marker); index++) {
      body.push({ line: index + 1, text: lines[index] });
    }
    // A block that is an example's file (docs_test.ts's rule 1) is a script, not commands.
    const before = lines.slice(0, index - body.length - 1).findLast((line) => line.trim() !== "");
    if (!SHELL_LANGS.has(lang) || before?.startsWith("<!-- example: ")) continue;
    const transcript = lang === "console" || body.some(({ text }) => text.startsWith("$ "));
    let heredoc: string | undefined;
    for (let at = 0; at < body.length; at++) {
      let { line, text } = body[at];
      if (heredoc !== undefined) {
        if (text.trim() === heredoc) heredoc = undefined;
        continue;
      }
      if (transcript) {
        if (!text.startsWith("$ ")) continue;
        text = text.slice(2);
      }
      if (text.trim() === "" || text.trimStart().startsWith("#")) continue;
      while (text.endsWith("\\") && at + 1 < body.length) {
        at++;
        text = `${text.slice(0, -1)} ${body[at].text.trim()}`;
      }
      heredoc = text.match(/<<-?\s*['"]?(\w+)['"]?/)?.[1];
      found.push({ page, line, text: text.trim(), reader: readerNow() });
    }
  }
  return found;
}

/** Every command line of README.md, docs/ and the examples' READMEs. */
async function allCommandLines(): Promise<CommandLine[]> {
  const found: CommandLine[] = [];
  for (const page of await docPages()) {
    found.push(...commandLines(page, await Deno.readTextFile(`${ROOT}${page}`)));
  }
  return found;
}

/** The subcommands `toolshed --help` lists (lib/commands/table.ts), with `help`. */
const SUBCOMMANDS = new Set([
  "help",
  ...[...commandsHelp().matchAll(/^ {2}(\w[\w-]*) {2,}/gm)].map((match) => match[1]),
]);

/** The flags of `toolshed` serving: the settings table's rows, --help and --version. */
const SERVE_FLAGS = new Set([
  "--help",
  "--version",
  ...ROWS.flatMap((row) => row.flag === undefined ? [] : [`--${row.flag}`]),
]);

/** The flags a subcommand's usage (its --help) names. */
async function flagsOf(subcommand: string): Promise<Set<string>> {
  if (subcommand === "serve" || subcommand === "help") return SERVE_FLAGS;
  const module = await import(`../lib/commands/${subcommand}.ts`);
  const usage: string = module.command.usage;
  return new Set(["--help", ...[...usage.matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0])]);
}

/** The words of one shell command (quotes kept together, not unquoted: enough for flags). */
function words(command: string): string[] {
  return command.match(/'[^']*'|"[^"]*"|\S+/g) ?? [];
}

/** What is wrong with `text`'s toolshed commands, for its reader; [] when nothing is. */
async function problemsOf(text: string, reader: Reader): Promise<string[]> {
  const problems: string[] = [];
  if (reader === "user") {
    for (const { pattern, what } of CLONE_ONLY) {
      if (pattern.test(text)) problems.push(`${what}: a user types toolshed …`);
    }
  }
  // Each command of a pipeline or list, on its own.
  for (const part of text.split(/\s*(?:\|\|?|&&|;)\s*/)) {
    const all = words(part);
    // `toolshed …`, `npx [options] toolshed …`, or an environment assignment before either.
    let at = 0;
    while (at < all.length && /^[A-Z_][A-Z0-9_]*=/.test(all[at])) at++;
    if (all[at] === "npx") {
      at++;
      while (at < all.length && all[at].startsWith("-")) at++;
    }
    if (all[at] !== "toolshed") continue;
    const rest = all.slice(at + 1);
    const subcommand = rest[0] === undefined || rest[0].startsWith("-") ? "serve" : rest[0];
    if (!SUBCOMMANDS.has(subcommand)) {
      problems.push(`"toolshed ${subcommand}" is no subcommand (${[...SUBCOMMANDS].join(", ")})`);
      continue;
    }
    const known = await flagsOf(subcommand);
    for (const word of rest) {
      const flag = word.match(/^(--[a-z][a-z-]*)(=|$)/)?.[1];
      if (flag !== undefined && !known.has(flag)) {
        problems.push(`toolshed ${subcommand} has no ${flag}`);
      }
    }
  }
  return problems;
}

Deno.test("docs: every command line is spelled for its page's reader", async () => {
  const lines = await allCommandLines();
  assert.ok(lines.length > 40, `only ${lines.length} command lines found: the extraction broke`);
  const problems: string[] = [];
  for (const { page, line, text, reader } of lines) {
    for (const problem of await problemsOf(text, reader)) {
      problems.push(`${page}:${line}: ${problem}\n    ${text}`);
    }
  }
  assert.deepStrictEqual(problems, [], `\n${problems.join("\n")}`);
});

Deno.test("docs: the command lines' checks catch each misspelling", async () => {
  const user = (text: string) => problemsOf(text, "user");
  assert.deepStrictEqual(await user("toolshed new tool hello --dir ~/my-server"), []);
  assert.deepStrictEqual(await user("npx -y toolshed --prefer-offline --dir x"), [
    "toolshed serve has no --prefer-offline",
  ]);
  assert.deepStrictEqual(await user("npx --prefer-offline -y toolshed --dir x --http :8080"), []);
  assert.deepStrictEqual(await user("toolshed frobnicate"), [
    `"toolshed frobnicate" is no subcommand (${[...SUBCOMMANDS].join(", ")})`,
  ]);
  assert.deepStrictEqual(await user("toolshed call hello --nope"), ["toolshed call has no --nope"]);
  assert.equal((await user("npx --yes deno@2.9.6 task toolshed list")).length, 1);
  assert.equal((await user("deno task toolshed list")).length, 1);
  assert.equal((await user("deno run -A main.ts --http :8080")).length, 1);
  assert.deepStrictEqual(await problemsOf("deno task toolshed list", "contributor"), []);
  // Extraction: a transcript's output is no command, a continued line is one, a heredoc's body
  // is none, and a heading may change the reader.
  const page = [
    "# README",
    "```sh",
    "toolshed check \\",
    "  --dir x",
    "cat <<EOF > f",
    "deno task toolshed",
    "EOF",
    "```",
    "## The test suite",
    "```console",
    "$ deno task test",
    "ok | 1 passed",
    "```",
  ].join("\n");
  assert.deepStrictEqual(commandLines("README.md", page), [
    { page: "README.md", line: 3, text: "toolshed check  --dir x", reader: "user" },
    { page: "README.md", line: 5, text: "cat <<EOF > f", reader: "user" },
    { page: "README.md", line: 11, text: "deno task test", reader: "contributor" },
  ]);
});
