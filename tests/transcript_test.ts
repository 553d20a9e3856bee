// Transcripts are the contract: each file in tests/transcripts/ is one connection to a
// real server process. `>` lines are sent as they are; the `<` lines after one must be
// exactly the next lines the server writes. `= eof` closes stdin; the `<` lines after it
// are what the server writes before it exits, with code 0. Nothing else may appear.
// `# flags: ...` adds command-line flags; `{{version}}` stands for the server's version.
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import denoConfig from "../deno.json" with { type: "json" };
import { FIXTURE_TOOLS, spawnServer, withHangGuard } from "./_server_process.ts";

const DIR = new URL("./transcripts/", import.meta.url);

interface Step {
  send?: string;
  eof?: true;
  expect: string[];
}

/** Words of the 2026-07-28 revision that no answer in a legacy session may contain. */
const MODERN_VOCABULARY = /resultType|ttlMs|cacheScope|io\.modelcontextprotocol\//;
const CLAIM = '"io.modelcontextprotocol/protocolVersion"';

function parse(text: string): { flags: string[]; steps: Step[] } {
  const flags: string[] = [];
  const steps: Step[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replaceAll("{{version}}", denoConfig.version);
    if (line.startsWith("# flags:")) flags.push(...line.slice(8).trim().split(/\s+/));
    else if (line.startsWith("> ")) steps.push({ send: line.slice(2), expect: [] });
    else if (line === "= eof") steps.push({ eof: true, expect: [] });
    else if (line.startsWith("< ")) {
      if (steps.length === 0) {
        throw new Error(`An expected line comes before any sent line: ${line}`);
      }
      steps[steps.length - 1].expect.push(line.slice(2));
    } else if (line !== "" && !line.startsWith("#")) {
      throw new Error(`Unknown transcript line: ${line}`);
    }
  }
  return { flags, steps };
}

const files = [...Deno.readDirSync(DIR)].map((entry) => entry.name).filter((name) =>
  name.endsWith(".txt")
).sort();

for (const file of files) {
  Deno.test(`transcript ${file.replace(/\.txt$/, "")}`, async () => {
    const { flags, steps } = parse(await Deno.readTextFile(new URL(file, DIR)));
    const server = spawnServer(["--tools", FIXTURE_TOOLS, ...flags]);
    let ended = false;
    try {
      for (const step of steps) {
        if (step.eof) {
          ended = true;
          const { code, rest, stderr } = await withHangGuard(server.finish(), "end of input");
          assertEquals(rest, step.expect, `output after end of input; stderr:\n${stderr}`);
          assertEquals(code, 0, `exit code; stderr:\n${stderr}`);
          continue;
        }
        await server.send(step.send!);
        // In legacy_* transcripts, answers to requests without a 2026-07-28 claim must not
        // speak 2026-07-28: checked on the expected lines, which the actual ones must equal.
        if (file.startsWith("legacy_") && !step.send!.includes(CLAIM)) {
          for (const expected of step.expect) {
            assertEquals(MODERN_VOCABULARY.test(expected), false, `2026 words in: ${expected}`);
          }
        }
        for (const expected of step.expect) {
          const actual = await withHangGuard(server.nextLine(), step.send!);
          assertEquals(actual, expected, `answer to ${step.send}`);
        }
      }
    } finally {
      if (!ended) {
        const { code, rest, stderr } = await server.finish();
        assertEquals(rest, [], `unexpected output at the end; stderr:\n${stderr}`);
        assertEquals(code, 0, `exit code; stderr:\n${stderr}`);
      }
    }
  });
}
