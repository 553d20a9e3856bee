// The docs keep their code and their links true (the rule is written for contributors in
// docs/README.md, "Code in these docs"). Every fenced block in README.md, docs/**/*.md and
// examples/**/README.md is one of:
//
//   1. a file of an example: the last line before the fence that is not blank is
//      `<!-- example: examples/NAME/PATH -->` and the block is that whole file, byte for byte (the example directories pass
//      `toolshed check` and run in tests/examples/, so copied code type-checks and works);
//   2. commands in a `sh` block (lines to type, or a `$ ` transcript), never a script to save
//      (a block starting with `#!` is a file, so it must be an example's);
//   3. output in a `text` block.
//
// Any other block fails, naming the page, the line and what to do. Links: every relative link in
// those pages, in adr/*.md, bench/results/*.md and deploy/README.md resolves to a file or folder inside the
// repository, and an anchor to a heading of its page; no page names a path outside the
// repository. Every example directory has a README.md and a test in tests/examples/.
// Reads files only; takes milliseconds.
import assert from "node:assert/strict";
import { docPages, markdownUnder } from "./_markdown.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const MARKER = /^<!-- example: (\S+) -->$/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
/** The languages `deno test --doc` runs as snippets. */
const SCRIPT_LANGS = new Set(["ts", "typescript", "js", "javascript", "tsx", "jsx", "mts", "mjs"]);

/** The pages whose code blocks follow the rule. */
const PAGES = await docPages();
/** The pages whose links are checked: the docs, and the records and guides beside them. */
const LINKED = [
  ...PAGES,
  ...await markdownUnder("adr", () => true),
  ...await markdownUnder("bench/results", () => true),
  "deploy/README.md",
];

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word: `ts`, `sh`, … or "". */
  lang: string;
  /** The info string's other words (`ignore`). */
  attributes: string[];
  /** The lines between the fences, each followed by a newline. */
  text: string;
  /** The example file its marker names, if it has one. */
  example: string | undefined;
}

/** The index of the first line after `index` that is not blank, or the number of lines. */
function nextNonBlank(lines: string[], index: number): number {
  let next = index + 1;
  while (next < lines.length && lines[next].trim() === "") next++;
  return next;
}

/** The fenced blocks of a page, and markers that precede no fence (`deno fmt` puts a blank
 * line between a marker and its fence). */
function blocksOf(page: string): { blocks: Block[]; strayMarkers: number[] } {
  const lines = page.split("\n");
  const blocks: Block[] = [];
  const strayMarkers: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    const marker = MARKER.exec(lines[index]);
    if (marker !== null && !FENCE.test(lines[nextNonBlank(lines, index)] ?? "")) {
      strayMarkers.push(index + 1);
    }
    const open = FENCE.exec(lines[index]);
    if (open === null) continue;
    const [, fence, info] = open;
    let close = index + 1;
    while (
      close < lines.length &&
      !(lines[close].startsWith(fence[0].repeat(fence.length)) &&
        lines[close].trim().replaceAll(fence[0], "") === "")
    ) close++;
    const body = lines.slice(index + 1, close);
    const [lang = "", ...attributes] = info.trim().split(/[\s,]+/);
    blocks.push({
      line: index + 1,
      lang,
      attributes,
      text: body.map((line) => `${line}\n`).join(""),
      example: MARKER.exec(lines.slice(0, index).findLast((line) => line.trim() !== "") ?? "")
        ?.[1],
    });
    index = close;
  }
  return { blocks, strayMarkers };
}

/** Where two texts first differ, as "line N", for a message. */
function firstDifference(a: string, b: string): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const line = left.findIndex((text, index) => text !== right[index]);
  return `line ${(line === -1 ? left.length : line) + 1} of the file`;
}

/** What is wrong with the code blocks of `path` (whose text is `page`), one line each. */
async function codeProblems(path: string, page: string): Promise<string[]> {
  const problems: string[] = [];
  const { blocks, strayMarkers } = blocksOf(page);
  for (const line of strayMarkers) {
    problems.push(`${path}:${line}: the example marker is not followed by a fence`);
  }
  for (const block of blocks) {
    const where = `${path}:${block.line}`;
    const script = SCRIPT_LANGS.has(block.lang);
    const ignored = block.attributes.includes("ignore");
    if (block.example !== undefined && script && !ignored) {
      problems.push(
        `${where}: fence the example as "${block.lang} ignore": deno test --doc cannot run it, ` +
          "and the example's own test does",
      );
    } else if (block.example === undefined && ignored) {
      problems.push(
        `${where}: an "ignore" block is tested by nothing: make it an example file and put ` +
          "<!-- example: examples/… --> before the fence",
      );
      continue;
    }
    if (block.example !== undefined) {
      if (!block.example.startsWith("examples/")) {
        problems.push(`${where}: "${block.example}" is not a file of an example in examples/`);
        continue;
      }
      let file: string;
      try {
        file = await Deno.readTextFile(`${ROOT}${block.example}`);
      } catch {
        problems.push(`${where}: the example "${block.example}" does not exist`);
        continue;
      }
      if (file !== block.text) {
        problems.push(
          `${where}: the block differs from "${block.example}" at ${
            firstDifference(file, block.text)
          }: copy the file into the block`,
        );
      }
    } else if (block.lang === "sh") {
      if (block.text.startsWith("#!")) {
        problems.push(
          `${where}: a script to save must be an example file: put it in examples/ and ` +
            "<!-- example: examples/… --> before the fence",
        );
      }
    } else if (block.lang !== "text") {
      problems.push(
        `${where}: a "${block.lang || "plain"}" block must be an example file: put ` +
          "<!-- example: examples/… --> before the fence (only sh commands and " +
          "text output go without)",
      );
    }
  }
  return problems;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

/** The anchors of a Markdown page's headings (outside fences), duplicates numbered. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of page.split("\n")) {
    const open = FENCE.exec(line);
    if (open !== null) {
      if (fence === undefined) fence = open[1];
      else if (line.trim().replaceAll(fence[0], "") === "") fence = undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6} (.+)$/.exec(line) : null;
    if (heading === null) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The links of a page outside code, with their lines. */
function linksOf(page: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  let fence: string | undefined;
  page.split("\n").forEach((line, index) => {
    const open = FENCE.exec(line);
    if (open !== null) {
      if (fence === undefined) fence = open[1];
      else if (line.trim().replaceAll(fence[0], "") === "") fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      links.push({ line: index + 1, target: match[1] });
    }
  });
  return links;
}

/** What is wrong with the links of `path` (whose text is `page`), one line each. */
async function linkProblems(path: string, page: string): Promise<string[]> {
  const problems: string[] = [];
  if (/\.\.\/shared|\/work\//.test(page)) {
    problems.push(`${path}: names a path outside the repository ("../shared" or "/work/")`);
  }
  for (const { line, target } of linksOf(page)) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    const where = `${path}:${line}`;
    const [file, anchor] = target.split("#");
    const folder = path.slice(0, path.lastIndexOf("/") + 1);
    const resolved = file === ""
      ? path
      : new URL(file, `file://${ROOT}${folder}`).pathname.slice(ROOT.length);
    if (file !== "" && !new URL(file, `file://${ROOT}${folder}`).pathname.startsWith(ROOT)) {
      problems.push(`${where}: "${target}" leads outside the repository`);
      continue;
    }
    let text: string | undefined;
    try {
      const info = await Deno.stat(`${ROOT}${resolved}`);
      if (info.isFile) text = await Deno.readTextFile(`${ROOT}${resolved}`);
    } catch {
      problems.push(`${where}: "${target}" names "${resolved}", which does not exist`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith(".md")) {
      if (!anchorsOf(text ?? "").has(anchor)) {
        problems.push(`${where}: "${target}": "${resolved}" has no heading "#${anchor}"`);
      }
    }
  }
  return problems;
}

for (const path of PAGES) {
  Deno.test(`docs: every code block of ${path} is an example file, a command or output`, async () => {
    const problems = await codeProblems(path, await Deno.readTextFile(`${ROOT}${path}`));
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}

for (const path of LINKED) {
  Deno.test(`docs: every relative link of ${path} resolves inside the repository`, async () => {
    const problems = await linkProblems(path, await Deno.readTextFile(`${ROOT}${path}`));
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}

Deno.test("docs: every example directory has a README.md and a test in tests/examples/", async () => {
  const problems: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}examples`)) {
    if (!entry.isDirectory) continue;
    for (
      const needed of [
        `examples/${entry.name}/README.md`,
        `tests/examples/${entry.name.replaceAll("-", "_")}_test.ts`,
      ]
    ) {
      try {
        await Deno.stat(`${ROOT}${needed}`);
      } catch {
        problems.push(`examples/${entry.name} has no "${needed}"`);
      }
    }
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("docs: the rule's checks catch a changed example, a bare code block, a script and a dead link", async () => {
  const example = "examples/hello/tools/add.ts";
  const file = await Deno.readTextFile(`${ROOT}${example}`);
  const page = [
    `<!-- example: ${example} -->`,
    "```ts ignore",
    file.replace("String(a + b)", "String(a - b)").trimEnd(),
    "```",
    "",
    "```json",
    "{}",
    "```",
    "",
    "```sh",
    "#!/bin/sh",
    "echo hi",
    "```",
    "",
    "<!-- example: examples/hello/tools/add.ts -->",
    "",
    "text after the marker",
    "",
    "```sh",
    "deno task start",
    "```",
    "",
    "[gone](docs/nowhere.md) [no heading](docs/README.md#nowhere) [out](../../etc/passwd)",
    "",
    `<!-- example: ${example} -->`,
    "```ts",
    file.trimEnd(),
    "```",
    "",
    "```ts ignore",
    "const untested = 1;",
    "```",
  ].join("\n");
  assert.deepEqual(await codeProblems("page.md", page), [
    "page.md:25: the example marker is not followed by a fence",
    `page.md:2: the block differs from "${example}" at line 10 of the file: copy the file into ` +
    "the block",
    'page.md:16: a "json" block must be an example file: put <!-- example: examples/… --> ' +
    "before the fence (only sh commands and text output go without)",
    "page.md:20: a script to save must be an example file: put it in examples/ and " +
    "<!-- example: examples/… --> before the fence",
    'page.md:36: fence the example as "ts ignore": deno test --doc cannot run it, and the ' +
    "example's own test does",
    'page.md:50: an "ignore" block is tested by nothing: make it an example file and put ' +
    "<!-- example: examples/… --> before the fence",
  ]);
  assert.deepEqual(await linkProblems("page.md", page), [
    'page.md:33: "docs/nowhere.md" names "docs/nowhere.md", which does not exist',
    'page.md:33: "docs/README.md#nowhere": "docs/README.md" has no heading "#nowhere"',
    'page.md:33: "../../etc/passwd" leads outside the repository',
  ]);
  assert.deepEqual(
    [...anchorsOf("# A\n## `call`: it\n## Types, schema libraries\n## A\n```sh\n# not\n```\n")],
    ["a", "call-it", "types-schema-libraries", "a-1"],
  );
});
