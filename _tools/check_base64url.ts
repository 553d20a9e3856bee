// deno-lint-ignore-file no-console -- a check prints its findings for people
// One spelling of base64url in lib/ (adr/0061 step 9): the runtime's own,
// `bytes.toBase64({ alphabet: "base64url", omitPadding: true })` and
// `Uint8Array.fromBase64(text, { alphabet: "base64url" })`. Fails, naming file:line, for a
// hand-written one:
//
// - the alphabet swapped by hand: a `replace`/`replaceAll` of "+" with "-", "/" with "_", or
//   back ("-" with "+", "_" with "/"), as a string or a regular expression;
// - bytes turned into base64 through a string of char codes: `btoa(String.fromCharCode(…))`;
// - the base64url alphabet written out as a table.
//
// Base64 of text (`btoa` of an ASCII string, HTTP Basic credentials) is not base64url and is
// left alone, and so is node:crypto's `digest("base64url")`, which is the runtime's encoder too.
//
//   deno run --allow-read _tools/check_base64url.ts [ROOT]

export interface Finding {
  /** The file, relative to the root, with `/` separators. */
  file: string;
  line: number;
  /** What was found, in a few words. */
  what: string;
}

const SWAPS: Array<[string, string]> = [["+", "-"], ["/", "_"], ["-", "+"], ["_", "/"]];

/** A pattern, as written in source: "+" and '+', /\+/g, /[+]/g (and so for each). */
function patternOf(char: string): string {
  const escaped = `\\\\?\\${char}`; // `\+` or `+` inside a regular expression
  return `(?:"\\${char}"|'\\${char}'|/(?:${escaped}|\\[${escaped}\\])/g?)`;
}

const RULES: Array<{ pattern: RegExp; what: string }> = [
  ...SWAPS.map(([from, to]) => ({
    pattern: new RegExp(
      `\\.replace(?:All)?\\(\\s*${patternOf(from)}\\s*,\\s*(?:"\\${to}"|'\\${to}')\\s*\\)`,
    ),
    what: `"${from}" replaced by "${to}" by hand`,
  })),
  {
    pattern: /\bbtoa\(\s*String\.fromCharCode\(/,
    what: "bytes made base64 through String.fromCharCode and btoa",
  },
  {
    pattern: /ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/,
    what: "the base64url alphabet written out",
  },
];

/** The hand-written base64url under `root`/lib/, sorted by file and line. */
export async function handWrittenBase64url(root: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory && path !== "lib/schema/vendor") {
        await walk(`${dir}/${entry.name}`, `${path}/`);
      } else if (entry.isFile && /\.[cm]?[jt]sx?$/.test(entry.name)) {
        const lines = (await Deno.readTextFile(`${dir}/${entry.name}`)).split("\n");
        lines.forEach((text, index) => {
          for (const { pattern, what } of RULES) {
            if (pattern.test(text)) findings.push({ file: path, line: index + 1, what });
          }
        });
      }
    }
  };
  await walk(`${root}/lib`, "lib/");
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.main) {
  const root = Deno.args[0] ?? new URL("..", import.meta.url).pathname;
  const findings = await handWrittenBase64url(root);
  for (const { file, line, what } of findings) {
    console.error(`${file}:${line}: hand-written base64url: ${what}`);
  }
  if (findings.length > 0) {
    console.error(
      `${findings.length} hand-written base64url: use bytes.toBase64({ alphabet: "base64url", ` +
        `omitPadding: true }) and Uint8Array.fromBase64(text, { alphabet: "base64url" })`,
    );
    Deno.exit(1);
  }
}
